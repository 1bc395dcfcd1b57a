// What the Schedules view needs from the outside world (live: chat/live-schedules.ts over the
// management client's scheduled-task functions; tests give a scripted one). Views never import src/api.

export interface ScheduleItem {
  id: number;
  name: string;
  prompt: string;
  /** null = on demand (Run now only). */
  cron: string | null;
  timezone: string | null;
  enabled: boolean;
  /** null when on demand or paused. */
  nextRunAt: string | null;
  createdAt: string;
  /** The signed-in user created it, or is an admin: may pause, resume, run and delete it. */
  canManage: boolean;
}

export interface ScheduleRun {
  id: string;
  status: "running" | "succeeded" | "failed";
  startedAt: string;
  finishedAt: string | null;
  /** The run's chat thread (the creator's), opened in the chat pane like any conversation. */
  chatId: string;
}

export interface NewSchedule {
  name: string;
  prompt: string;
  cron: string | null;
  timezone: string | null;
}

export interface SchedulesService {
  list(signal?: AbortSignal): Promise<ScheduleItem[]>;
  create(input: NewSchedule, signal?: AbortSignal): Promise<ScheduleItem>;
  /** Pause (false) or resume (true). */
  setEnabled(id: number, enabled: boolean, signal?: AbortSignal): Promise<ScheduleItem>;
  run(id: number, signal?: AbortSignal): Promise<{ runId: string; chatId: string }>;
  remove(id: number, signal?: AbortSignal): Promise<void>;
  /** The most recent runs (at most 50), newest first. */
  runs(id: number, signal?: AbortSignal): Promise<ScheduleRun[]>;
  /** The platform's cron rule (five fields, one-number minute), for crons typed as such; null when fine. */
  checkCron(cron: string): string | null;
}
