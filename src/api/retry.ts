// Retries within one budget of time. Jittered exponential backoff ("full jitter") for transient
// errors, bounded in attempts; progress answers ("Continue wait") are polled without counting as
// failures; a 429's Retry-After is honoured (bounded). Every attempt gets what is left of the
// budget as its deadline, delays wait on the caller's signal, and the caller's abort ends it all
// with the caller's own reason.
import { ApiError, RateLimitedError, RetryExhaustedError, TimeoutError } from "./errors";
import { DEFAULT_RETRY, type RetryPolicy } from "./deadlines";

export { DEFAULT_RETRY };
export type { RetryPolicy };

/** Delay before retry number `retry` (0-based): uniform in [0, min(max, base·2^retry)]. */
export function backoffDelay(
  policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs"> & Partial<RetryPolicy>,
  retry: number,
  random: () => number = Math.random,
): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * cap);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What one attempt may use: its own deadline (the per-attempt bound, or what is left of the budget). */
export interface AttemptContext {
  /** Pass to sendRaw as `deadlineMs`. */
  deadlineMs: number;
  /** Failed attempts so far (progress polls not counted). */
  failures: number;
}

export interface RetryOptions {
  /** Names the request in a TimeoutError ("POST /v1/load"). */
  what?: string;
  /** Upper bound of one attempt; the attempt gets min(this, what is left). */
  attemptMs?: number;
  isTransient?: (e: unknown) => boolean;
  /** Progress, not failure: asked again after a short delay, bounded only by the budget. */
  isProgress?: (e: unknown) => boolean;
  now?: () => number;
}

/**
 * Runs `attempt` until it succeeds, throws a non-transient error, or the policy runs out:
 * - the budget (`maxElapsedMs`) passes → TimeoutError naming the request, the last error as `cause`
 *   (the attempt's own TimeoutError when it was the first and only attempt);
 * - `maxAttempts` transient failures → RetryExhaustedError with the last error as `cause` (its
 *   message included), or the error itself when no retry happened (maxAttempts 1).
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number, ctx: AttemptContext) => Promise<T>,
  signal?: AbortSignal,
  options: RetryOptions | ((e: unknown) => boolean) = {},
): Promise<T> {
  const o: RetryOptions = typeof options === "function" ? { isTransient: options } : options;
  const isTransient = o.isTransient ?? ((e: unknown) => e instanceof ApiError && e.transient);
  const isProgress = o.isProgress ?? (() => false);
  const now = o.now ?? Date.now;
  const what = o.what ?? "request";
  const started = now();
  const endsAt = started + policy.maxElapsedMs;
  let failures = 0;
  let polls = 0;
  const outOfTime = (last: unknown): TimeoutError => {
    if (last instanceof TimeoutError && failures + polls <= 1) return last;
    const lastMsg = last instanceof Error ? ` (last: ${last.message})` : "";
    return new TimeoutError(`${what}: not done within ${Math.round(policy.maxElapsedMs / 100) / 10} s${lastMsg}`, policy.maxElapsedMs, {
      cause: last,
    });
  };
  let last: unknown;
  for (let n = 0; ; n++) {
    const left = endsAt - now();
    if (left <= 0) throw outOfTime(last);
    try {
      return await attempt(n, { deadlineMs: Math.min(o.attemptMs ?? left, left), failures });
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      last = e;
      let delay: number;
      if (isProgress(e)) {
        delay = backoffDelay(policy, Math.min(polls, 4)) + 1;
        polls++;
      } else if (isTransient(e)) {
        failures++;
        if (failures >= policy.maxAttempts) {
          if (failures === 1) throw e; // never retried: the cause itself
          const last = e as ApiError;
          throw new RetryExhaustedError(
            `${what}: gave up after ${failures} failed attempt(s) in ${Math.round((now() - started) / 100) / 10} s: ${last.message}`,
            last.status ?? 0,
            last.body,
            { cause: e },
          );
        }
        delay = backoffDelay(policy, failures - 1);
        if (e instanceof RateLimitedError && e.retryAfterMs !== undefined) {
          const max = policy.maxRetryAfterMs ?? DEFAULT_RETRY.maxRetryAfterMs!;
          // The server asked for longer than we wait: report it now rather than hammer it.
          if (e.retryAfterMs > max || now() + e.retryAfterMs > endsAt) throw e;
          delay = e.retryAfterMs;
        }
      } else throw e;
      if (now() + delay >= endsAt) throw outOfTime(e);
      await sleep(delay, signal);
    }
  }
}
