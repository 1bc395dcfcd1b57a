// The scheduled-task functions of the management client (docs/API.md §12): against the stand-in
// (typed results, typed errors for each §4.5 rule), and against scripted or hung servers (response
// validation, no retry of POSTs that create, retries of the others, AbortSignal, deadlines).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import {
  buildOpenApiDocument,
  createPlatformClient,
  cronShapeProblem,
  BadRequestError,
  ForbiddenError,
  InvalidResponseError,
  ScheduledTaskLimitError,
  ScheduledTasksDisabledError,
  TimeoutError,
  RetryExhaustedError,
  type FetchLike,
  type PlatformClient,
} from "../../src/api";
import { startServer } from "./server";

let p: RunningPlatform;
let analyst: PlatformClient;
let viewer: PlatformClient;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, chatDeltaMs: 0 });
  analyst = createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.analyst });
  viewer = createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.viewer });
});
afterAll(async () => {
  await p?.close();
});

const weekly = { name: "Monday revenue", prompt: "revenue by month", cron: "0 8 * * 1", timezone: "Europe/Kyiv" };

describe("scheduled tasks through the client, against the stand-in", () => {
  it("create, list, get, pause, resume, run, runs, delete: typed results", async () => {
    const t = await analyst.createScheduledTask(1, weekly);
    expect(t).toMatchObject({ ...weekly, enabled: true, userId: 2 });
    expect(t.nextRunAt).not.toBeNull();
    expect((await analyst.listScheduledTasks(1)).items.map((x) => x.id)).toContain(t.id);
    expect(await viewer.getScheduledTask(1, t.id)).toEqual(t);
    const paused = await analyst.updateScheduledTask(1, t.id, { enabled: false });
    expect(paused).toMatchObject({ enabled: false, nextRunAt: null, name: weekly.name });
    expect((await analyst.updateScheduledTask(1, t.id, { enabled: true })).nextRunAt).toBe(t.nextRunAt);
    const run = await analyst.runScheduledTask(1, t.id);
    expect(run.chatId).toMatch(/\S/);
    const runs = await analyst.listScheduledTaskRuns(1, t.id);
    expect(runs.items[0]).toMatchObject({ id: run.runId, chatId: run.chatId });
    await analyst.deleteScheduledTask(1, t.id);
    await expect(analyst.getScheduledTask(1, t.id)).rejects.toMatchObject({ kind: "not-found" });
  });

  it("each rule's error is typed: 403 disabled, 403 not the creator, 409 limit, 400 cron / timezone (field named)", async () => {
    const t = await analyst.createScheduledTask(1, weekly);
    await expect(viewer.runScheduledTask(1, t.id)).rejects.toBeInstanceOf(ForbiddenError);
    await expect(analyst.listScheduledTasks(2)).rejects.toBeInstanceOf(ForbiddenError);
    const bad = await analyst.createScheduledTask(1, { ...weekly, cron: "*/15 * * * *" }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as BadRequestError).field).toBe("cron");
    const zone = await analyst.createScheduledTask(1, { ...weekly, timezone: "Asia/Katmandoo" }).catch((e: unknown) => e);
    expect((zone as BadRequestError).field).toBe("timezone");
    expect((await analyst.createScheduledTask(1, { ...weekly, timezone: "Asia/Kathmandu" })).timezone).toBe("Asia/Kathmandu");
    // 20 active in all for the analyst, then the 21st is refused.
    const mine = (await analyst.listScheduledTasks(1)).items.filter((x) => x.userId === 2 && x.enabled && x.cron).length;
    for (let i = mine; i < 20; i++) await analyst.createScheduledTask(1, { ...weekly, name: `t${i}` });
    await expect(analyst.createScheduledTask(1, weekly)).rejects.toBeInstanceOf(ScheduledTaskLimitError);
    p.setScheduledTasks(false);
    try {
      await expect(analyst.listScheduledTasks(1)).rejects.toBeInstanceOf(ScheduledTasksDisabledError);
    } finally {
      p.setScheduledTasks(true);
    }
  });
});

describe("scheduled tasks through the client, against scripted servers", () => {
  const task = {
    id: 1,
    name: "n",
    prompt: "p",
    cron: null,
    timezone: null,
    enabled: true,
    userId: 2,
    nextRunAt: null,
    createdAt: "2026-11-24T00:00:00.000Z",
  };
  function scripted(...answers: Array<{ status: number; body?: unknown }>): { fetch: FetchLike; calls: string[] } {
    const calls: string[] = [];
    let i = 0;
    return {
      calls,
      fetch: async (url, init) => {
        calls.push(`${init.method} ${url}`);
        const a = answers[Math.min(i++, answers.length - 1)]!;
        return new Response(a.body === undefined ? null : JSON.stringify(a.body), { status: a.status });
      },
    };
  }
  const client = (f: FetchLike) =>
    createPlatformClient({ baseUrl: "http://x", credential: "k", fetch: f, retry: { baseDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 } });

  it("a task that does not match the schema is an InvalidResponseError naming the path", async () => {
    const s = scripted({ status: 200, body: { ...task, nextRunAt: "next Monday" } });
    await expect(client(s.fetch).getScheduledTask(1, 1)).rejects.toThrow(/nextRunAt/);
    await expect(
      client(scripted({ status: 200, body: { items: [{ id: "r" }], pageInfo: {} } }).fetch).listScheduledTaskRuns(1, 1),
    ).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("create and run are sent once (not idempotent); get, update and delete are retried on 503", async () => {
    const c1 = scripted({ status: 503 });
    await expect(client(c1.fetch).createScheduledTask(1, { name: "n", prompt: "p" })).rejects.toBeTruthy();
    expect(c1.calls).toEqual(["POST http://x/api/v1/deployments/1/scheduled-tasks"]);
    const c2 = scripted({ status: 503 });
    await expect(client(c2.fetch).runScheduledTask(1, 7)).rejects.toBeTruthy();
    expect(c2.calls).toEqual(["POST http://x/api/v1/deployments/1/scheduled-tasks/7/run"]);
    const c3 = scripted({ status: 503 }, { status: 200, body: task });
    expect(await client(c3.fetch).updateScheduledTask(1, 1, { enabled: false })).toEqual(task);
    expect(c3.calls).toHaveLength(2);
    const c4 = scripted({ status: 503 }, { status: 204 });
    await client(c4.fetch).deleteScheduledTask(1, 1);
    expect(c4.calls).toEqual([
      "DELETE http://x/api/v1/deployments/1/scheduled-tasks/1",
      "DELETE http://x/api/v1/deployments/1/scheduled-tasks/1",
    ]);
    const c5 = scripted({ status: 503 });
    await expect(client(c5.fetch).listScheduledTasks(1)).rejects.toBeInstanceOf(RetryExhaustedError);
    expect(c5.calls).toHaveLength(3);
  });

  it("a hung server ends in a TimeoutError (per-attempt deadline); the caller's AbortSignal stops a call at once", async () => {
    const hung = await startServer(() => undefined);
    try {
      const c = createPlatformClient({
        baseUrl: hung.url,
        credential: "k",
        deadlines: { managementAttemptMs: 100 },
        retry: { maxAttempts: 5, maxElapsedMs: 200, baseDelayMs: 1, maxDelayMs: 2 },
      });
      await expect(c.listScheduledTaskRuns(1, 1)).rejects.toBeInstanceOf(TimeoutError);
      const ctrl = new AbortController();
      const pending = c.getScheduledTask(1, 1, ctrl.signal);
      ctrl.abort(new Error("stopped by the user"));
      await expect(pending).rejects.toThrow("stopped by the user");
    } finally {
      await hung.close();
    }
  });
});

describe("the cron rule the pane explains before sending, and the OpenAPI document", () => {
  it("cronShapeProblem: five fields, minute one number 0–59", () => {
    expect(cronShapeProblem("0 8 * * 1")).toBeNull();
    expect(cronShapeProblem("59 * * * *")).toBeNull();
    for (const c of ["* 8 * * 1", "*/5 * * * *", "0,30 8 * * *", "60 8 * * *", "0 8 * *", ""])
      expect(cronShapeProblem(c), c).not.toBeNull();
  });
  it("documents every scheduled-task route with its schemas", () => {
    const doc = buildOpenApiDocument() as {
      paths: Record<string, Record<string, { operationId: string }>>;
      components: { schemas: Record<string, unknown> };
    };
    const ops = Object.entries(doc.paths)
      .filter(([k]) => k.includes("scheduled-tasks"))
      .flatMap(([, v]) => Object.values(v).map((o) => o.operationId))
      .sort();
    expect(ops).toEqual([
      "createScheduledTask",
      "deleteScheduledTask",
      "getScheduledTask",
      "listScheduledTaskRuns",
      "listScheduledTasks",
      "runScheduledTask",
      "updateScheduledTask",
    ]);
    for (const id of ["ScheduledTask", "ScheduledTaskInput", "ScheduledTaskUpdate", "ScheduledTaskRunPage", "RunStarted"])
      expect(doc.components.schemas[id]).toBeTruthy();
  });
});
