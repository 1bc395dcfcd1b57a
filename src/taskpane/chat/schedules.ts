// The Schedules view's model: the deployment's scheduled prompts, their runs (polled while one is
// running), create / pause / resume / run now / delete, and every refusal in words (403: off for the
// account, no access, not the creator; 409: the 20-active limit).
import { batch, signal } from "@preact/signals";
import { describeError } from "../errors";
import type { Notice } from "../state/store";
import type { NewSchedule, ScheduleItem, ScheduleRun, SchedulesService } from "./schedules-service";

const kindOf = (e: unknown) => (e as { kind?: unknown } | null)?.kind;

/** Words for a refusal, by what was being done (the platform's 403 has several causes). */
export function scheduleNotice(e: unknown, what: "list" | "create" | "manage", name?: string): Notice {
  const kind = kindOf(e);
  const h = describeError(e);
  if (kind === "forbidden" && what === "manage")
    return {
      tone: "error",
      title: `Only its creator or an admin can change or run “${name ?? "this prompt"}”`,
      detail:
        "Everyone with access to the deployment can read its scheduled prompts; changing, running or deleting one is for the person who created it, or an admin.",
      next: "Ask its creator, or schedule your own copy of the question.",
    };
  if (kind === "forbidden")
    return {
      tone: "error",
      title: "You cannot use scheduled prompts in this deployment",
      detail:
        "The platform refused: scheduled prompts need read access to the deployment and a signed-in account (not an embedded session).",
      next: "Choose another deployment, or ask an admin for access.",
    };
  if (kind === "bad-request")
    return {
      tone: "error",
      title: "The platform did not accept this schedule",
      detail: h.detail ?? "",
      next: "Change the schedule and save again.",
    };
  return { tone: "error", ...h };
}

export class SchedulesModel {
  readonly items = signal<ScheduleItem[] | null>(null);
  readonly loading = signal(false);
  readonly error = signal<Notice | null>(null);
  readonly runs = signal<Record<number, ScheduleRun[]>>({});
  /** Per task: the action under way ("Running…", "Pausing…"). */
  readonly pending = signal<Record<number, string>>({});
  readonly saving = signal(false);
  private poll: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(readonly service: SchedulesService) {}

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.poll);
  }

  async load(): Promise<void> {
    this.loading.value = true;
    try {
      const items = await this.service.list();
      batch(() => {
        this.items.value = items;
        this.error.value = null;
      });
    } catch (e) {
      this.error.value = scheduleNotice(e, "list");
    } finally {
      this.loading.value = false;
    }
  }

  async create(input: NewSchedule): Promise<ScheduleItem | null> {
    this.saving.value = true;
    try {
      const t = await this.service.create(input);
      batch(() => {
        this.items.value = [...(this.items.value ?? []), t];
        this.error.value = null;
      });
      return t;
    } catch (e) {
      this.error.value = scheduleNotice(e, "create");
      return null;
    } finally {
      this.saving.value = false;
    }
  }

  private async act<T>(t: ScheduleItem, label: string, fn: () => Promise<T>): Promise<T | null> {
    this.pending.value = { ...this.pending.value, [t.id]: label };
    try {
      const out = await fn();
      this.error.value = null;
      return out;
    } catch (e) {
      this.error.value = scheduleNotice(e, "manage", t.name);
      return null;
    } finally {
      const { [t.id]: _done, ...rest } = this.pending.value;
      this.pending.value = rest;
    }
  }

  private replace(t: ScheduleItem): void {
    this.items.value = (this.items.value ?? []).map((x) => (x.id === t.id ? t : x));
  }

  async setEnabled(t: ScheduleItem, enabled: boolean): Promise<void> {
    const out = await this.act(t, enabled ? "Resuming…" : "Pausing…", () => this.service.setEnabled(t.id, enabled));
    if (out) this.replace(out);
  }

  async remove(t: ScheduleItem): Promise<boolean> {
    const ok = await this.act(t, "Deleting…", async () => {
      await this.service.remove(t.id);
      return true;
    });
    if (ok) {
      const { [t.id]: _gone, ...runs } = this.runs.value;
      batch(() => {
        this.items.value = (this.items.value ?? []).filter((x) => x.id !== t.id);
        this.runs.value = runs;
      });
    }
    return ok === true;
  }

  /** Run now: the new run is listed at once (running), then its status is followed. */
  async runNow(t: ScheduleItem, now: () => string = () => new Date().toISOString()): Promise<{ runId: string; chatId: string } | null> {
    const out = await this.act(t, "Starting…", () => this.service.run(t.id));
    if (!out) return null;
    const run: ScheduleRun = { id: out.runId, status: "running", startedAt: now(), finishedAt: null, chatId: out.chatId };
    this.runs.value = { ...this.runs.value, [t.id]: [run, ...(this.runs.value[t.id] ?? []).filter((r) => r.id !== run.id)] };
    this.follow(t.id);
    return out;
  }

  async loadRuns(taskId: number): Promise<void> {
    try {
      const runs = await this.service.runs(taskId);
      if (this.disposed) return;
      this.runs.value = { ...this.runs.value, [taskId]: runs };
      if (runs.some((r) => r.status === "running")) this.follow(taskId);
    } catch (e) {
      this.error.value = scheduleNotice(e, "list");
    }
  }

  /** Re-read a task's runs every second while one is running. */
  private follow(taskId: number): void {
    clearTimeout(this.poll);
    this.poll = setTimeout(() => void this.loadRuns(taskId), 1000);
  }
}
