// Jittered exponential backoff ("full jitter"), bounded in attempts and in elapsed time.
// Only errors marked transient are retried; the caller's AbortSignal stops everything.
import { ApiError, RetryExhaustedError } from "./errors";

export interface RetryPolicy {
  /** Total attempts, the first included. */
  maxAttempts: number;
  /** No new attempt starts after this many ms since the first one. */
  maxElapsedMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, maxElapsedMs: 20_000, baseDelayMs: 200, maxDelayMs: 3_000 };

/** Delay before retry number `retry` (0-based): uniform in [0, min(max, base·2^retry)]. */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
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

/**
 * Runs `attempt` until it succeeds, throws a non-transient error, or the policy runs out;
 * then throws RetryExhaustedError with the last error as `cause` (and its status) — or the
 * error itself when no retry happened (maxAttempts 1).
 */
export async function withRetry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  signal?: AbortSignal,
  isTransient: (e: unknown) => boolean = (e) => e instanceof ApiError && e.transient,
): Promise<T> {
  const started = Date.now();
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (signal?.aborted || !isTransient(e)) throw e;
      const delay = backoffDelay(policy, n);
      const outOfTime = Date.now() + delay - started > policy.maxElapsedMs;
      if (n + 1 >= policy.maxAttempts || outOfTime) {
        if (n === 0) throw e; // never retried: the cause itself
        const last = e as ApiError;
        throw new RetryExhaustedError(
          `gave up after ${n + 1} attempt(s) in ${Date.now() - started} ms: ${last.message}`,
          last.status ?? 0,
          last.body,
          { cause: e },
        );
      }
      await sleep(delay, signal);
    }
  }
}
