// Every deadline, retry bound and size limit of the request layer, in one place (docs/API.md
// "Deadlines, retries and limits"). Clients take `deadlines?: Partial<Deadlines>` and
// `retry?: Partial<RetryPolicy>` to override them (tests use small values; nothing else should).

/**
 * How a logical request is retried. `maxAttempts` counts attempts that failed with an error
 * (5xx, network, timeout of one attempt, 429); progress answers ("Continue wait") do not count:
 * they are bounded by `maxElapsedMs`, the budget of the whole request, delays included.
 */
export interface RetryPolicy {
  /** Attempts that may fail with a transient error, the first included. */
  maxAttempts: number;
  /** The whole request (every attempt, poll and delay) ends by then: a TimeoutError. */
  maxElapsedMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A 429's Retry-After is honoured up to this (and never past the remaining budget). */
  maxRetryAfterMs?: number;
}

export interface Deadlines {
  /** One attempt of a management call (the request and reading its body). */
  managementAttemptMs: number;
  /** One attempt of a data call (/v1/load, /v1/svcsql, /v1/meta), body included. */
  dataAttemptMs: number;
  /** Minting a data-API token (shared by every caller waiting for it). */
  tokenMintMs: number;
  /** A stream that sends nothing for this long ends with a TimeoutError (reset on every chunk). */
  streamIdleMs: number;
  /** The headers of a stream must arrive within this. */
  streamConnectMs: number;
  /** Sign-in's check of the data API URL (GET /v1/meta), one attempt. */
  signInProbeMs: number;
  /** A response body larger than this fails with ResponseTooLargeError (checked before and while reading). */
  maxResponseBytes: number;
}

export const DEFAULT_DEADLINES: Deadlines = {
  managementAttemptMs: 15_000,
  dataAttemptMs: 60_000,
  tokenMintMs: 30_000,
  streamIdleMs: 30_000,
  streamConnectMs: 30_000,
  signInProbeMs: 15_000,
  maxResponseBytes: 64 * 1024 * 1024,
};

/** Management calls: ~30 s in all, two attempts of 15 s when the server hangs. */
export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  maxElapsedMs: 30_000,
  baseDelayMs: 200,
  maxDelayMs: 3_000,
  maxRetryAfterMs: 30_000,
};

/**
 * Data calls: "Continue wait" may poll for up to 3 minutes (it is progress); an error status is
 * retried at most 5 times in all, then reported with the server's message.
 */
export const DEFAULT_DATA_RETRY: RetryPolicy = {
  maxAttempts: 5,
  maxElapsedMs: 180_000,
  baseDelayMs: 100,
  maxDelayMs: 2_000,
  maxRetryAfterMs: 30_000,
};

export function deadlinesWith(o?: Partial<Deadlines>): Deadlines {
  return { ...DEFAULT_DEADLINES, ...o };
}
