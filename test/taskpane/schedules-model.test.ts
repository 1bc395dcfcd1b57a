// The Schedules view's model (issue 23) over a scripted service: the refusals of §4.5 in words
// (409 limit, 403 off for the account, 403 not the creator, 403 no access), Run now listing the new
// run at once, and pause/resume replacing the task.
import { describe, expect, it } from "vitest";
import { SchedulesModel } from "../../src/taskpane/chat/schedules";
import type { ScheduleItem, SchedulesService } from "../../src/taskpane/chat/schedules-service";
import { ForbiddenError, ScheduledTaskLimitError, ScheduledTasksDisabledError } from "../../src/api";

const task: ScheduleItem = {
  id: 1,
  name: "Weekly revenue",
  prompt: "revenue by month",
  cron: "0 8 * * 1",
  timezone: "Europe/Kyiv",
  enabled: false,
  nextRunAt: null,
  createdAt: "2026-11-24T00:00:00.000Z",
  canManage: true,
};

function service(over: Partial<SchedulesService> = {}): SchedulesService {
  return {
    list: async () => [task],
    create: async () => task,
    setEnabled: async (_id, enabled) => ({ ...task, enabled, nextRunAt: enabled ? "2026-11-30T06:00:00.000Z" : null }),
    run: async () => ({ runId: "run_1", chatId: "chat-1" }),
    remove: async () => undefined,
    runs: async () => [],
    checkCron: () => null,
    ...over,
  };
}

describe("SchedulesModel", () => {
  it("409 on resume: the 20-active limit in words, and what to do", async () => {
    const m = new SchedulesModel(
      service({
        setEnabled: async () => {
          throw new ScheduledTaskLimitError("PUT …: 409", 409, { code: "scheduled_task_limit" });
        },
      }),
    );
    await m.load();
    await m.setEnabled(task, true);
    expect(m.error.value).toMatchObject({
      title: "You already have 20 active scheduled prompts",
      next: expect.stringMatching(/Pause or delete/),
    });
    expect(m.items.value![0]!.enabled).toBe(false);
    expect(m.pending.value).toEqual({});
  });

  it("403: off for the account; not the creator; no access — each said differently", async () => {
    const off = new SchedulesModel(
      service({
        list: async () => {
          throw new ScheduledTasksDisabledError("GET …: 403", 403, { code: "scheduled_tasks_disabled" });
        },
      }),
    );
    await off.load();
    expect(off.error.value?.title).toBe("Scheduled prompts are turned off for your account");
    const notMine = new SchedulesModel(
      service({
        run: async () => {
          throw new ForbiddenError("POST …: 403", 403, {});
        },
      }),
    );
    expect(await notMine.runNow(task)).toBeNull();
    expect(notMine.error.value?.title).toBe("Only its creator or an admin can change or run “Weekly revenue”");
    const noAccess = new SchedulesModel(
      service({
        list: async () => {
          throw new ForbiddenError("GET …: 403", 403, {});
        },
      }),
    );
    await noAccess.load();
    expect(noAccess.error.value?.title).toBe("You cannot use scheduled prompts in this deployment");
  });

  it("Run now lists the new run at once, running; resume replaces the task", async () => {
    const m = new SchedulesModel(service());
    await m.load();
    expect(await m.runNow(task, () => "2026-11-24T10:00:00.000Z")).toEqual({ runId: "run_1", chatId: "chat-1" });
    expect(m.runs.value[1]).toEqual([
      { id: "run_1", status: "running", startedAt: "2026-11-24T10:00:00.000Z", finishedAt: null, chatId: "chat-1" },
    ]);
    await m.setEnabled(task, true);
    expect(m.items.value![0]).toMatchObject({ enabled: true, nextRunAt: "2026-11-30T06:00:00.000Z" });
    m.dispose();
  });
});
