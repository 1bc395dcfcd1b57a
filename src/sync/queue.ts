// The refresh-all queue: queries run with bounded concurrency, sheet writes go through a single
// writer (one at a time, in completion order), every failure stays with its own item, and the
// whole run can be stopped. Progress is reported as N of M plus a state per item.
export type ItemState =
  { state: "queued" } | { state: "refreshing" } | { state: "done"; detail?: string } | { state: "not-refreshed"; reason: string };

export interface QueueProgress {
  done: number;
  total: number;
  items: Record<string, ItemState>;
}

export interface QueueJob<P> {
  key: string;
  /** Runs concurrently with other jobs' prepare (the query). */
  prepare(signal: AbortSignal): Promise<P>;
  /**
   * Runs alone: the single writer (the sheet). Returns a short detail for the Done state. It gets
   * no stop signal: Stop acts between placements, and a write that has begun is finished.
   */
  apply(prepared: P): Promise<string | void>;
}

/** A job that decides not to proceed throws this: the item ends as Not refreshed with the reason. */
export class NotRefreshed extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "NotRefreshed";
  }
}

export async function runQueue<P>(
  jobs: readonly QueueJob<P>[],
  o: { concurrency: number; signal?: AbortSignal; onProgress?: (p: QueueProgress) => void },
): Promise<QueueProgress> {
  const progress: QueueProgress = {
    done: 0,
    total: jobs.length,
    items: Object.fromEntries(jobs.map((j) => [j.key, { state: "queued" } as ItemState])),
  };
  const emit = () => o.onProgress?.({ done: progress.done, total: progress.total, items: { ...progress.items } });
  const stop = new AbortController();
  const onAbort = () => stop.abort(o.signal?.reason);
  if (o.signal?.aborted) stop.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const finish = (key: string, s: ItemState) => {
    progress.items[key] = s;
    if (s.state === "done") progress.done++;
    emit();
  };
  let writer: Promise<unknown> = Promise.resolve();
  const writeAlone = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = writer.then(fn, fn);
    writer = run.catch(() => undefined);
    return run;
  };
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      if (stop.signal.aborted) {
        finish(job.key, { state: "not-refreshed", reason: "Stopped before it started." });
        continue;
      }
      finish(job.key, { state: "refreshing" });
      // Set when its write begins: Stop no longer stops it, so a failure from then on is the write's own, never "Stopped".
      let writing = false;
      try {
        const prepared = await job.prepare(stop.signal);
        const detail = await writeAlone(() => {
          if (stop.signal.aborted) throw new NotRefreshed("Stopped before writing.");
          writing = true;
          return job.apply(prepared);
        });
        finish(job.key, detail ? { state: "done", detail } : { state: "done" });
      } catch (e) {
        const stopped = stop.signal.aborted && !writing;
        const reason = e instanceof NotRefreshed ? e.reason : stopped ? "Stopped before it was written." : errorMessage(e);
        finish(job.key, { state: "not-refreshed", reason });
      }
    }
  };
  emit();
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, jobs.length)) }, worker));
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
  }
  return progress;
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
