// Scheduled tasks of the stand-in (seeds 01 §2.8, §4.4, §4.5; the fields and our choices: docs/API.md
// §12), mounted at /api/v1/deployments/{deploymentId}/scheduled-tasks before the other management
// routes (an embed token must meet a 403 here, not the 401 of an unknown API key).
//   GET, POST /            list (cursor; no cap without `first`) · create → 201
//   GET, PUT, DELETE /{id} read · partial update · delete → 204
//   POST /{id}/run         → 202 {runId, chatId}
//   GET /{id}/runs         the 50 most recent runs, newest first (cursor within them)
// Due tasks run on the stand-in's clock: a one-second ticker and every `POST /__dev/clock` advance.
// Each run is a turn of the chat agent in a new thread of the task's creator (chat-routes.ts).
import { randomUUID } from "node:crypto";
import { Hono, type Context } from "hono";
import { Cron } from "croner";
import { PageQuery } from "../../src/api/schemas/common";
import {
  SCHEDULE_LIMITS,
  ScheduledTaskInput,
  ScheduledTaskUpdate,
  type ScheduledTask,
  type ScheduledTaskRun,
} from "../../src/api/schemas/scheduled-tasks";
import { ERROR_CODES } from "../../src/api/management-client";
import { page } from "./paging";
import { HttpProblem, type ReportService } from "./service";
import type { Credentials } from "./auth";
import type { Clock } from "./clock";
import type { EmbedService } from "./embed";
import type { ChatRuns } from "./chat-routes";
import type { Store } from "./store";
import { userById, type User } from "./personas";
import { intParam, jsonBody, parseWith } from "./validation";

interface StoredTask {
  id: number;
  deploymentId: number;
  name: string;
  prompt: string;
  cron: string | null;
  timezone: string | null;
  enabled: boolean;
  userId: number;
  nextRunAt: string | null;
  createdAt: string;
}

const META_KEY = "scheduledTasks";

/** The next time `cron` fires after `fromMs`, in `timezone` (croner), as an ISO string. */
export function nextRun(cron: string, timezone: string, fromMs: number): string | null {
  const next = new Cron(cron, { timezone, paused: true }).nextRun(new Date(fromMs));
  return next ? next.toISOString() : null;
}

/** 400 unless croner accepts the cron (the shape rule, one-number minute field, is the schema's). */
function checkCron(cron: string): void {
  try {
    new Cron(cron, { paused: true });
  } catch (e) {
    throw new HttpProblem(400, `cron: ${(e as Error).message.replace(/^CronPattern: /, "")}`, ERROR_CODES.invalid, "cron");
  }
}

const active = (t: StoredTask) => t.cron !== null && t.enabled;

export class ScheduledTasks {
  private readonly tasks = new Map<number, StoredTask>();
  /** Runs per task, newest first, at most SCHEDULE_LIMITS.runsKept. */
  private readonly runs = new Map<number, ScheduledTaskRun[]>();
  private nextId = 1;
  private timer: ReturnType<typeof setInterval> | null = null;
  private offAdvance: (() => void) | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly chat: ChatRuns,
    /** Scheduled tasks enabled for the account (`--no-scheduled-tasks` turns them off). */
    readonly enabled: () => boolean,
  ) {
    const saved = store.meta.get(META_KEY);
    if (saved) {
      const v = JSON.parse(saved) as { nextId: number; tasks: StoredTask[]; runs: Record<string, ScheduledTaskRun[]> };
      this.nextId = v.nextId;
      for (const t of v.tasks) this.tasks.set(t.id, t);
      // A run still going when the stand-in stopped is lost with its turn.
      for (const [id, rs] of Object.entries(v.runs))
        this.runs.set(
          Number(id),
          rs.map((r) => (r.status === "running" ? { ...r, status: "failed", finishedAt: r.startedAt } : r)),
        );
    }
  }

  /** Run due tasks every second and whenever the clock is advanced. */
  start(): void {
    this.timer = setInterval(() => this.tick(), 1000);
    this.timer.unref?.();
    this.offAdvance = this.clock.onAdvance(() => this.tick());
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.offAdvance?.();
  }

  private persist(): void {
    const runs = Object.fromEntries([...this.runs].map(([id, rs]) => [String(id), rs]));
    const value = JSON.stringify({ nextId: this.nextId, tasks: [...this.tasks.values()], runs });
    void this.store.commit({ meta: { [META_KEY]: value } }).catch(() => undefined);
  }

  private nextRunAt(t: Pick<StoredTask, "cron" | "timezone" | "enabled">): string | null {
    return t.cron && t.enabled && t.timezone ? nextRun(t.cron, t.timezone, this.clock.now()) : null;
  }

  /**
   * A task that came due runs once, then its next run is computed from now (a clock that jumped a
   * week, or a stand-in that was stopped, does not replay every missed time).
   */
  tick(): void {
    if (!this.enabled()) return;
    const now = this.clock.now();
    let changed = false;
    for (const t of this.tasks.values()) {
      if (!active(t) || t.nextRunAt === null || Date.parse(t.nextRunAt) > now) continue;
      t.nextRunAt = this.nextRunAt(t);
      changed = true;
      const creator = userById(t.userId);
      if (creator?.roles[t.deploymentId]) this.startRun(t, creator);
    }
    if (changed) this.persist();
  }

  private startRun(t: StoredTask, creator: User): { runId: string; chatId: string } {
    const { chatId, finished } = this.chat.start(creator, t.deploymentId, t.prompt);
    const run: ScheduledTaskRun = { id: `run_${randomUUID()}`, status: "running", startedAt: this.clock.iso(), finishedAt: null, chatId };
    this.runs.set(t.id, [run, ...(this.runs.get(t.id) ?? [])].slice(0, SCHEDULE_LIMITS.runsKept));
    this.persist();
    void finished.then(
      (ok) => this.finish(run, ok),
      () => this.finish(run, false),
    );
    return { runId: run.id, chatId };
  }

  private finish(run: ScheduledTaskRun, ok: boolean): void {
    run.status = ok ? "succeeded" : "failed";
    run.finishedAt = this.clock.iso();
    this.persist();
  }

  view(t: StoredTask): ScheduledTask {
    const { deploymentId: _d, ...rest } = t;
    return rest;
  }

  /** §4.5 rule 4: the user's active tasks across every deployment of the account. */
  private activeCount(userId: number, except?: number): number {
    let n = 0;
    for (const t of this.tasks.values()) if (t.userId === userId && t.id !== except && active(t)) n++;
    return n;
  }

  private limitCheck(userId: number, except?: number): void {
    if (this.activeCount(userId, except) >= SCHEDULE_LIMITS.activePerUser)
      throw new HttpProblem(
        409,
        `The task's creator already has ${SCHEDULE_LIMITS.activePerUser} active scheduled tasks (the most a user may have across the account's deployments): pause or delete one, or make this one on demand`,
        ERROR_CODES.scheduledTaskLimit,
      );
  }

  list(deploymentId: number): StoredTask[] {
    return [...this.tasks.values()].filter((t) => t.deploymentId === deploymentId).sort((a, b) => a.id - b.id);
  }

  get(deploymentId: number, taskId: number): StoredTask {
    const t = this.tasks.get(taskId);
    if (!t || t.deploymentId !== deploymentId) throw new HttpProblem(404, `Scheduled task ${taskId} not found`);
    return t;
  }

  /** §4.5 rule 2: the creator or an admin (account admin, or admin of the deployment). */
  private manageable(user: User, deploymentId: number, taskId: number): StoredTask {
    const t = this.get(deploymentId, taskId);
    if (t.userId !== user.id && !user.isAdmin && user.roles[deploymentId] !== "admin")
      throw new HttpProblem(403, `Only the task's creator or an admin can change or run scheduled task ${taskId}`);
    return t;
  }

  create(user: User, deploymentId: number, input: ScheduledTaskInput): StoredTask {
    const cron = input.cron ?? null;
    if (cron) checkCron(cron);
    const t: StoredTask = {
      id: this.nextId++,
      deploymentId,
      name: input.name,
      prompt: input.prompt,
      cron,
      timezone: input.timezone ?? null,
      enabled: input.enabled ?? true,
      userId: user.id,
      nextRunAt: null,
      createdAt: this.clock.iso(),
    };
    if (active(t)) this.limitCheck(user.id);
    t.nextRunAt = this.nextRunAt(t);
    this.tasks.set(t.id, t);
    this.persist();
    return t;
  }

  update(user: User, deploymentId: number, taskId: number, patch: ScheduledTaskUpdate): StoredTask {
    const t = this.manageable(user, deploymentId, taskId);
    const merged = { ...t, ...patch } as StoredTask;
    if (merged.cron && !merged.timezone) throw new HttpProblem(400, "timezone: required when cron is set", ERROR_CODES.invalid, "timezone");
    if (patch.cron) checkCron(patch.cron);
    // Resuming (or scheduling) a task counts against its creator's limit; pausing never fails.
    if (active(merged) && !active(t)) this.limitCheck(t.userId, t.id);
    merged.nextRunAt = this.nextRunAt(merged);
    this.tasks.set(t.id, merged);
    this.persist();
    return merged;
  }

  delete(user: User, deploymentId: number, taskId: number): void {
    const t = this.manageable(user, deploymentId, taskId);
    this.tasks.delete(t.id);
    this.runs.delete(t.id);
    this.persist();
  }

  /** Run now: acts as the creator (an admin's Run now too), whatever the schedule or pause. */
  run(user: User, deploymentId: number, taskId: number): { runId: string; chatId: string } {
    const t = this.manageable(user, deploymentId, taskId);
    const creator = userById(t.userId);
    if (!creator?.roles[deploymentId]) throw new HttpProblem(403, `The task's creator no longer has access to deployment ${deploymentId}`);
    return this.startRun(t, creator);
  }

  runsOf(deploymentId: number, taskId: number): ScheduledTaskRun[] {
    this.get(deploymentId, taskId);
    return this.runs.get(taskId) ?? [];
  }
}

type Env = { Variables: { user: User; deploymentId: number } };

export function scheduledTaskRoutes(tasks: ScheduledTasks, service: ReportService, creds: Credentials, embed: EmbedService): Hono<Env> {
  const app = new Hono<Env>();

  // §4.5 rule 1, in this order: who (401), an embed session (403), the account's switch (403),
  // the deployment (404 unknown, 403 no read access).
  app.use("*", async (c, next) => {
    const header = c.req.header("Authorization");
    const user = creds.userForBearer(header);
    if (!user) {
      if (embed.isEmbedSession(header?.replace(/^Embed-Token /, "Bearer ")))
        throw new HttpProblem(403, "Scheduled tasks cannot be used with an embed session", ERROR_CODES.embedSession);
      throw new HttpProblem(401, "Missing or unknown credential: send Authorization: Bearer <API key>");
    }
    if (!tasks.enabled())
      throw new HttpProblem(403, "Scheduled tasks are not enabled for this account", ERROR_CODES.scheduledTasksDisabled);
    const deploymentId = intParam(c, "deploymentId");
    service.deployment(user, deploymentId);
    c.set("user", user);
    c.set("deploymentId", deploymentId);
    await next();
  });

  const query = (c: Context) => parseWith(PageQuery, Object.fromEntries(new URL(c.req.url).searchParams));

  app.get("/", (c) => {
    const q = query(c);
    const p = page(tasks.list(c.var.deploymentId), q.first, q.after);
    return c.json({ items: p.items.map((t) => tasks.view(t)), pageInfo: p.pageInfo });
  });
  app.post("/", async (c) => {
    const t = tasks.create(c.var.user, c.var.deploymentId, await jsonBody(c, ScheduledTaskInput));
    return c.json(tasks.view(t), 201);
  });
  app.get("/:taskId", (c) => c.json(tasks.view(tasks.get(c.var.deploymentId, intParam(c, "taskId")))));
  app.put("/:taskId", async (c) => {
    const taskId = intParam(c, "taskId");
    const patch = await jsonBody(c, ScheduledTaskUpdate);
    return c.json(tasks.view(tasks.update(c.var.user, c.var.deploymentId, taskId, patch)));
  });
  app.delete("/:taskId", (c) => {
    tasks.delete(c.var.user, c.var.deploymentId, intParam(c, "taskId"));
    return c.body(null, 204);
  });
  app.post("/:taskId/run", (c) => c.json(tasks.run(c.var.user, c.var.deploymentId, intParam(c, "taskId")), 202));
  app.get("/:taskId/runs", (c) => {
    const q = query(c);
    return c.json(page(tasks.runsOf(c.var.deploymentId, intParam(c, "taskId")), q.first, q.after));
  });
  return app;
}
