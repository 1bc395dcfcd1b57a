// The data-API client ({data_url}/v1/load, /v1/svcsql, /v1/meta): the JWT goes in
// Authorization with no prefix; "Continue wait" answers, network errors and 5xx are
// retried with jittered backoff within a bound; answers come back as TypedResult.
import { ContinueWait, DataErrorBody, LoadResponse, MetaResponse, SqlResponse, type LoadQuery, type NormalizedQuery } from "./schemas/data";
import type { TypedResult } from "../checksum/types";
import {
  ApiError, ContinueWaitError, DataQueryError, ForbiddenError, HttpError, InvalidResponseError,
  NotFoundError, ServerError, UnauthorizedError,
} from "./errors";
import { buildUrl, parseBody, send, type FetchLike } from "./http";
import { withRetry, type RetryPolicy } from "./retry";
import { sqlToTypedResult, toTypedResult, ValueDecodeError } from "./typed-result";

/** Yields the current data-API token; `invalidate` drops a token the server refused. */
export interface TokenProvider {
  getToken(signal?: AbortSignal): Promise<string>;
  invalidate?(): void;
}

export interface DataClientOptions {
  /** e.g. "http://127.0.0.1:4000/cubejs-api" — the /v1/... paths are appended. */
  dataUrl: string;
  token: TokenProvider | string;
  fetch?: FetchLike;
  /** Bounds "Continue wait" polling plus transient retries. */
  retry?: Partial<RetryPolicy>;
}

export const DEFAULT_DATA_RETRY: RetryPolicy = { maxAttempts: 120, maxElapsedMs: 120_000, baseDelayMs: 100, maxDelayMs: 2_000 };

/** A /v1/load answer: the TypedResult plus the normalized query the server echoed. */
export interface LoadResult extends TypedResult {
  query: NormalizedQuery;
  lastRefreshTime: string | null;
}

export interface DataClient {
  load(query: LoadQuery, signal?: AbortSignal): Promise<LoadResult>;
  svcsql(sql: string, options?: { timezone?: string }, signal?: AbortSignal): Promise<TypedResult>;
  meta(signal?: AbortSignal): Promise<MetaResponse>;
}

export function dataError(status: number, json: unknown, what: string): ApiError {
  const body = DataErrorBody.safeParse(json);
  const msg = `${what}: ${status}${body.success ? ` ${body.data.error}` : ""}`;
  if (status >= 500) return new ServerError(msg, status, json);
  if (status === 400) return new DataQueryError(msg, status, json);
  if (status === 401) return new UnauthorizedError(msg, status, json);
  if (status === 403) return new ForbiddenError(msg, status, json);
  if (status === 404) return new NotFoundError(msg, status, json);
  return new HttpError(msg, status, json);
}

export function createDataClient(options: DataClientOptions): DataClient {
  const doFetch: FetchLike = options.fetch ?? ((u, i) => fetch(u, i));
  const policy: RetryPolicy = { ...DEFAULT_DATA_RETRY, ...options.retry };
  const provider: TokenProvider =
    typeof options.token === "string" ? { getToken: async () => options.token as string } : options.token;

  /** One logical request: retries transient causes; refreshes the token once on 401/403. */
  async function call(method: "GET" | "POST", p: string, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const what = `${method} ${p}`;
    let renewed = false;
    return withRetry(policy, async () => {
      for (;;) {
        const token = await provider.getToken(signal);
        const res = await send({ fetch: doFetch, method, url: buildUrl(options.dataUrl, p), authorization: token, body, signal });
        if ((res.status === 401 || res.status === 403) && !renewed && provider.invalidate) {
          renewed = true;
          provider.invalidate();
          continue;
        }
        if (res.status < 200 || res.status > 299) throw dataError(res.status, res.json, what);
        if (ContinueWait.safeParse(res.json).success) throw new ContinueWaitError(`${what}: Continue wait`, res.status, res.json);
        return res.json;
      }
    }, signal);
  }

  function decode<T>(what: string, status: number, json: unknown, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof ValueDecodeError) throw new InvalidResponseError(`${what}: ${e.message}`, status, undefined, { cause: e });
      throw e;
    }
  }

  return {
    async load(query, signal) {
      const json = await call("POST", "/v1/load", { query }, signal);
      const res = parseBody(LoadResponse, json, "POST /v1/load", 200);
      const typed = decode("POST /v1/load", 200, json, () => toTypedResult(res));
      return { ...typed, query: res.query, lastRefreshTime: res.lastRefreshTime ?? null };
    },
    async svcsql(sql, o = {}, signal) {
      const json = await call("POST", "/v1/svcsql", { query: sql, ...(o.timezone ? { timezone: o.timezone } : {}) }, signal);
      const res = parseBody(SqlResponse, json, "POST /v1/svcsql", 200);
      return decode("POST /v1/svcsql", 200, json, () => sqlToTypedResult(res, o.timezone ?? "UTC"));
    },
    async meta(signal) {
      return parseBody(MetaResponse, await call("GET", "/v1/meta", undefined, signal), "GET /v1/meta", 200);
    },
  };
}
