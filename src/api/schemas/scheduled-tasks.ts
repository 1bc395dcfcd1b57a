// Scheduled tasks (seeds 01 §2.8, §4.4, §4.5; the fields are issue 23's choices, docs/API.md §12):
// a saved prompt the deployment's agent runs on a cron in an IANA time zone, or only on demand;
// each run writes a new chat thread of the task's creator. One module for the family: the
// resource, the inputs, the runs, and the cron rule the pane explains before sending.
import { z } from "zod";
import { isIanaTimeZone } from "../timezone";
import { cursorPage, Timestamp } from "./common";

/** Seeds 01 §8 and the issue's choices. */
export const SCHEDULE_LIMITS = {
  nameMax: 200,
  promptMax: 4000,
  cronMax: 100,
  /** Active (scheduled and enabled) tasks per user, across the account's deployments (§4.5 rule 4). */
  activePerUser: 20,
  /** The runs list keeps only the most recent ones (§4.5 rule 5). */
  runsKept: 50,
} as const;

/**
 * Why a cron is refused by the once-an-hour rule (§4.5 rule 3), or null when its shape is fine:
 * five space-separated fields (minute hour day-of-month month day-of-week) whose minute field is
 * one number 0–59. The platform also checks the other fields (the stand-in with croner).
 */
export function cronShapeProblem(cron: string): string | null {
  const fields = cron.trim().split(/\s+/);
  if (cron.trim() === "" || fields.length !== 5)
    return "a cron has five fields: minute hour day-of-month month day-of-week (e.g. 0 8 * * 1 = Mondays at 8:00)";
  const minute = fields[0]!;
  if (!/^\d{1,2}$/.test(minute) || Number(minute) > 59)
    return "a task runs at most once an hour: the minute field must be one number from 0 to 59 (not *, a list, a range or a step)";
  return null;
}

export const IanaTimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isIanaTimeZone, { error: "not an IANA time zone name (e.g. Europe/Kyiv, Asia/Kathmandu)" });

export const Cron = z
  .string()
  .max(SCHEDULE_LIMITS.cronMax)
  .superRefine((v, ctx) => {
    const p = cronShapeProblem(v);
    if (p) ctx.addIssue({ code: "custom", message: p });
  });

/** The resource as every scheduled-task endpoint answers it. */
export const ScheduledTask = z.object({
  id: z.number().int().nonnegative(),
  name: z.string(),
  prompt: z.string(),
  cron: z.string().nullable(),
  timezone: z.string().nullable(),
  enabled: z.boolean(),
  /** The creator: every run acts as this user. */
  userId: z.number().int().nonnegative(),
  /** null when on demand (no cron) or paused. */
  nextRunAt: Timestamp.nullable(),
  createdAt: Timestamp,
});
export type ScheduledTask = z.infer<typeof ScheduledTask>;

const fields = {
  name: z.string().trim().min(1, { error: "name is required" }).max(SCHEDULE_LIMITS.nameMax),
  prompt: z.string().trim().min(1, { error: "prompt is required" }).max(SCHEDULE_LIMITS.promptMax),
  cron: Cron.nullable(),
  timezone: IanaTimeZone.nullable(),
  enabled: z.boolean(),
};

/** POST body: name and prompt required; cron null/absent = on demand; timezone required with a cron. */
export const ScheduledTaskInput = z
  .strictObject({
    name: fields.name,
    prompt: fields.prompt,
    cron: fields.cron.optional(),
    timezone: fields.timezone.optional(),
    enabled: fields.enabled.optional(),
  })
  .refine((v) => !v.cron || !!v.timezone, { error: "timezone is required when cron is set", path: ["timezone"] });
export type ScheduledTaskInput = z.input<typeof ScheduledTaskInput>;

/** PUT body: only the fields sent change (the merged task must still have a timezone when it has a cron). */
export const ScheduledTaskUpdate = z.strictObject({
  name: fields.name.optional(),
  prompt: fields.prompt.optional(),
  cron: fields.cron.optional(),
  timezone: fields.timezone.optional(),
  enabled: fields.enabled.optional(),
});
export type ScheduledTaskUpdate = z.input<typeof ScheduledTaskUpdate>;

export const ScheduledTaskPage = cursorPage(ScheduledTask);

export const RunStatus = z.enum(["running", "succeeded", "failed"]);
export type RunStatus = z.infer<typeof RunStatus>;

export const ScheduledTaskRun = z.object({
  id: z.string(),
  status: RunStatus,
  startedAt: Timestamp,
  finishedAt: Timestamp.nullable(),
  /** The run's chat thread (a thread of the task's creator, readable through the chat API). */
  chatId: z.string(),
});
export type ScheduledTaskRun = z.infer<typeof ScheduledTaskRun>;

export const ScheduledTaskRunPage = cursorPage(ScheduledTaskRun);

/** POST …/run → 202. */
export const RunStarted = z.object({ runId: z.string(), chatId: z.string() });
export type RunStarted = z.infer<typeof RunStarted>;
