// The data-API client ({data_url}/v1/load, /v1/svcsql, /v1/meta): the JWT goes in
// Authorization with no prefix; "Continue wait" answers, network errors and 5xx are
// retried with jittered backoff within a bound; answers come back as TypedResult.
import { ContinueWait, DataErrorBody, LoadResponse, MetaResponse, SqlResponse, type LoadQuery, type NormalizedQuery } from "./schemas/data";
import type { TypedResult } from "../checksum/types";
import {
  ApiError, ContinueWaitError, DataQueryError, ForbiddenError, HttpError, InvalidResponseError,
  NotFoundError, ServerError, UnauthorizedError,
} from "./errors";
import { buildUrl, parseBody, parseJsonBody, parseJsonText, sendRaw, type FetchLike, type RawBytesResponse } from "./http";
import { h64Hex, ready as hashReady } from "../checksum/hash";
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

/**
 * An answer fetched but not decoded yet: a fingerprint of what determines it, and the result on
 * demand. The sync engine compares `source` with the one of its last write and skips parsing,
 * decoding and laying out an answer that did not change (docs/SYNC.md "Unchanged data").
 */
export interface FetchedResult<T extends TypedResult = TypedResult> {
  /**
   * xxh64 (16 hex) of the answer's bytes — for /v1/load without its lastRefreshTime member, which
   * changes on every call. Equal sources mean byte-identical answers.
   */
  source: string;
  /** Parses and decodes once (later calls return the same object); a malformed answer throws InvalidResponseError. */
  result(): T;
}

export interface DataClient {
  load(query: LoadQuery, signal?: AbortSignal): Promise<LoadResult>;
  svcsql(sql: string, options?: { timezone?: string }, signal?: AbortSignal): Promise<TypedResult>;
  /** load(), with decoding deferred. */
  fetchLoad(query: LoadQuery, signal?: AbortSignal): Promise<FetchedResult<LoadResult>>;
  /** svcsql(), with parsing and decoding deferred. */
  fetchSql(sql: string, options?: { timezone?: string }, signal?: AbortSignal): Promise<FetchedResult>;
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

  /**
   * One logical request: retries transient causes; refreshes the token once on 401/403. Returns
   * the raw 2xx answer; a small body is parsed here to recognise "Continue wait" (a result large
   * enough to be worth deferring is never that).
   */
  async function call(method: "GET" | "POST", p: string, body: unknown, signal: AbortSignal | undefined): Promise<RawBytesResponse & { json?: unknown }> {
    const what = `${method} ${p}`;
    let renewed = false;
    return withRetry(policy, async () => {
      for (;;) {
        const token = await provider.getToken(signal);
        const res = await sendRaw({ fetch: doFetch, method, url: buildUrl(options.dataUrl, p), authorization: token, body, signal });
        if ((res.status === 401 || res.status === 403) && !renewed && provider.invalidate) {
          renewed = true;
          provider.invalidate();
          continue;
        }
        if (res.status < 200 || res.status > 299) throw dataError(res.status, parseJsonBody(res, what), what);
        if (res.bytes.length > SMALL_BODY) return res;
        const json = parseJsonBody(res, what);
        if (ContinueWait.safeParse(json).success) throw new ContinueWaitError(`${what}: Continue wait`, res.status, json);
        return { ...res, json };
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

  const once = <T,>(f: () => T): (() => T) => {
    let done: { value: T } | null = null;
    return () => (done ??= { value: f() }).value;
  };

  async function fetchLoad(query: LoadQuery, signal?: AbortSignal): Promise<FetchedResult<LoadResult>> {
    const what = "POST /v1/load";
    const raw = await call("POST", "/v1/load", { query }, signal);
    const text = utf8.decode(raw.bytes);
    const json = "json" in raw ? raw.json : parseJsonText(text, raw.status, what);
    const res = parseBody(LoadResponse, json, what, raw.status);
    await hashReady();
    // lastRefreshTime differs on every call: hash the body without it when it appears exactly once.
    const member = res.lastRefreshTime === undefined ? null : `"lastRefreshTime":${JSON.stringify(res.lastRefreshTime)}`;
    const at = member === null ? -1 : text.indexOf(member);
    const stable = at >= 0 && text.indexOf(member!, at + 1) < 0 ? text.slice(0, at) + text.slice(at + member!.length) : text;
    return {
      source: h64Hex(utf8Encoder.encode(stable)),
      result: once(() => {
        const typed = decode(what, raw.status, json, () => toTypedResult(res));
        return { ...typed, query: res.query, lastRefreshTime: res.lastRefreshTime ?? null };
      }),
    };
  }

  async function fetchSql(sql: string, o: { timezone?: string } = {}, signal?: AbortSignal): Promise<FetchedResult> {
    const what = "POST /v1/svcsql";
    const raw = await call("POST", "/v1/svcsql", { query: sql, ...(o.timezone ? { timezone: o.timezone } : {}) }, signal);
    await hashReady();
    return {
      source: h64Hex(raw.bytes),
      result: once(() => {
        const json = "json" in raw ? raw.json : parseJsonBody(raw, what);
        const res = parseBody(SqlResponse, json, what, raw.status);
        return decode(what, raw.status, json, () => sqlToTypedResult(res, o.timezone ?? "UTC"));
      }),
    };
  }

  return {
    fetchLoad,
    fetchSql,
    async load(query, signal) {
      return (await fetchLoad(query, signal)).result();
    },
    async svcsql(sql, o = {}, signal) {
      return (await fetchSql(sql, o, signal)).result();
    },
    async meta(signal) {
      const raw = await call("GET", "/v1/meta", undefined, signal);
      return parseBody(MetaResponse, "json" in raw ? raw.json : parseJsonBody(raw, "GET /v1/meta"), "GET /v1/meta", 200);
    },
  };
}

/** Bodies up to this size are parsed on arrival (to recognise "Continue wait"). */
const SMALL_BODY = 4096;
const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();
