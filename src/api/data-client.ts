// The data-API client ({data_url}/v1/load, /v1/svcsql, /v1/meta): the JWT goes in
// Authorization with no prefix. Each call has one budget of time (src/api/deadlines.ts): "Continue
// wait" is progress and is polled within it; network errors, 5xx, 429 and attempts that time out
// are retried a few times (jittered) and then reported with the server's message; a token the
// server refuses is re-minted once. Answers come back as TypedResult.
import { ContinueWait, LoadResponse, MetaResponse, SqlResponse, type LoadQuery, type NormalizedQuery } from "./schemas/data";
import type { TypedResult } from "../checksum/types";
import {
  ApiError,
  ContinueWaitError,
  DataQueryError,
  DataUrlError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  ServerError,
  SqlNotSupportedError,
  TokenRefusedError,
} from "./errors";
import {
  buildUrl,
  errorDetails,
  parseBody,
  parseJsonBody,
  parseJsonText,
  sendRaw,
  statusError,
  type ErrorDetails,
  type FetchLike,
  type RawBytesResponse,
} from "./http";
import { h64Hex, ready as hashReady } from "../checksum/hash";
import { withRetry } from "./retry";
import { DEFAULT_DATA_RETRY, DEFAULT_DEADLINES, deadlinesWith, type Deadlines, type RetryPolicy } from "./deadlines";
import { splitSqlBody } from "./sql-rows";
import { sqlToTypedResult, toTypedResult, ValueDecodeError } from "./typed-result";

export { DEFAULT_DATA_RETRY };

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
  /** Error retries and the budget of a whole call ("Continue wait" included). */
  retry?: Partial<RetryPolicy>;
  /** Per-attempt deadline and response size cap. */
  deadlines?: Partial<Deadlines>;
}

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
  /**
   * The decoded answer `rows` rows at a time, without parsing the whole body first (a SQL answer: a large
   * placement writes its first rows while the rest are decoded). Each slice has every column. Iterate
   * once; a malformed answer throws InvalidResponseError, possibly after some slices.
   */
  slices?(rows: number): Iterable<TypedResult>;
  /** The answer's size in bytes (as received). */
  bytes?: number;
  /**
   * A SQL answer's rows by where they are in its bytes, decoded only where asked (issue 35 §3: a refresh
   * decodes the rows whose bytes changed); null when the answer does not have the shape the scanner reads.
   * A malformed answer throws InvalidResponseError.
   */
  byRow?(): AnswerRows | null;
}

/** The rows of an answer, each decoded only when asked for. */
export interface AnswerRows {
  /** xxh64 (16 hex) of what every row is decoded with: the answer's other members and the time zone. */
  head: string;
  count: number;
  /** The bytes of rows [from, to) as received. */
  bytes(from: number, to: number): Uint8Array;
  /** Rows [from, to) decoded, with every column (as result() holds them); throws InvalidResponseError. */
  decode(from: number, to: number): TypedResult;
}

/**
 * A fetched /v1/load answer. `rows` and `query` (the normalized query echoed, with the server's
 * `limit`/`rowLimit`) are known without decoding: a caller tells a full page — a result the
 * server may have cut — from a complete one (src/sync/run-report.ts). Optional so that test
 * doubles may omit them; the client always sets them.
 */
export interface FetchedLoad extends FetchedResult<LoadResult> {
  rows?: number;
  query?: NormalizedQuery;
}

export interface DataClient {
  load(query: LoadQuery, signal?: AbortSignal): Promise<LoadResult>;
  svcsql(sql: string, options?: { timezone?: string }, signal?: AbortSignal): Promise<TypedResult>;
  /** load(), with decoding deferred. */
  fetchLoad(query: LoadQuery, signal?: AbortSignal): Promise<FetchedLoad>;
  /** svcsql(), with parsing and decoding deferred. */
  fetchSql(sql: string, options?: { timezone?: string }, signal?: AbortSignal): Promise<FetchedResult>;
  meta(signal?: AbortSignal): Promise<MetaResponse>;
}

/** Cube's 403 bodies for a missing or refused token ("Invalid token", "Authorization header isn't set", expired JWT). */
const TOKEN_PROBLEM = /token|authori[sz]ation header|jwt|expired|signature/i;

/**
 * Maps a non-2xx data-API answer (status first, body second: an HTML error page keeps its status).
 * 401, and 403 whose message is about the token, are token problems; other 403 are permissions.
 */
export function dataError(status: number, json: unknown, what: string, o: { excerpt?: string; headers?: Headers } = {}): ApiError {
  const error =
    typeof json === "object" && json !== null && typeof (json as { error?: unknown }).error === "string"
      ? (json as { error: string }).error
      : undefined;
  const details: ErrorDetails = { json, message: error ?? o.excerpt ?? "" };
  const msg = `${what}: ${status}${details.message ? ` ${details.message}` : ""}`;
  if (status === 400) return new DataQueryError(msg, status, json);
  if (status === 401 || (status === 403 && error !== undefined && TOKEN_PROBLEM.test(error))) {
    return new TokenRefusedError(`${msg} (the data API refused the sign-in token)`, status, json);
  }
  if (status === 403) return new ForbiddenError(msg, status, json);
  if (status === 404 && what.endsWith("/v1/svcsql")) {
    return new SqlNotSupportedError(`${what}: 404: this data API does not run SQL reports`, status, json);
  }
  return statusError(status, details, what, o.headers);
}

/**
 * The query as sent. `order` as `[{id, desc}]` (the normalized form the data API echoes back, and
 * that our schema accepts) becomes `[member, direction]` pairs: Cube rejects it with 400
 * '"order[0]" must be an array'. A map or pairs go as they are (both accepted everywhere).
 */
export function wireQuery(query: LoadQuery): LoadQuery {
  return query.order === undefined ? query : { ...query, order: normalizeOrder(query.order) };
}

/** Order in any accepted form → a form every data API takes (a map or `[member, direction]` pairs). */
export function normalizeOrder(order: NonNullable<LoadQuery["order"]>): Record<string, "asc" | "desc"> | Array<[string, "asc" | "desc"]> {
  if (!Array.isArray(order)) return order;
  return order.map((o): [string, "asc" | "desc"] => (Array.isArray(o) ? [o[0], o[1]] : [o.id, o.desc ? "desc" : "asc"]));
}

/** What every call of one client shares: how it sends, its retry policy and limits, its token. */
interface DataContext {
  dataUrl: string;
  fetch: FetchLike;
  policy: RetryPolicy;
  limits: Deadlines;
  provider: TokenProvider;
}

/** A raw 2xx answer; `json` when the body was small enough to parse on arrival. */
type DataAnswer = RawBytesResponse & { json?: unknown };

/**
 * One logical request: polls "Continue wait", retries transient causes, re-mints the token once
 * when the server refuses it. Returns the raw 2xx answer; a small body is parsed here to
 * recognise "Continue wait" (a result large enough to be worth deferring is never that).
 */
async function call(
  ctx: DataContext,
  method: "GET" | "POST",
  p: string,
  body: unknown,
  signal: AbortSignal | undefined,
): Promise<DataAnswer> {
  const what = `${method} ${p}`;
  let renewed = false;
  return withRetry(
    ctx.policy,
    async (_n, retry) => {
      const attemptEnds = Date.now() + retry.deadlineMs;
      for (;;) {
        const token = await ctx.provider.getToken(signal);
        const res = await sendRaw({
          fetch: ctx.fetch,
          method,
          url: buildUrl(ctx.dataUrl, p),
          authorization: token,
          body,
          signal,
          deadlineMs: Math.max(1, attemptEnds - Date.now()),
          maxBytes: ctx.limits.maxResponseBytes,
        });
        if (res.status < 200 || res.status > 299) {
          const d = errorDetails(res.bytes);
          const err = dataError(res.status, d.json, what, { excerpt: d.message, headers: res.headers });
          if (err instanceof TokenRefusedError && !renewed && ctx.provider.invalidate) {
            renewed = true;
            ctx.provider.invalidate();
            continue;
          }
          throw err;
        }
        if (res.bytes.length > SMALL_BODY) return res;
        const json = parseJsonBody(res, what);
        if (ContinueWait.safeParse(json).success) throw new ContinueWaitError(`${what}: Continue wait`, res.status, json);
        return { ...res, json };
      }
    },
    signal,
    { what, attemptMs: ctx.limits.dataAttemptMs, isProgress: (e) => e instanceof ContinueWaitError },
  );
}

/** `f()`, with a value the decoder refuses reported as an InvalidResponseError naming the request. */
function decode<T>(what: string, status: number, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof ValueDecodeError) throw new InvalidResponseError(`${what}: ${e.message}`, status, undefined, { cause: e });
    throw e;
  }
}

function once<T>(f: () => T): () => T {
  let done: { value: T } | null = null;
  return () => (done ??= { value: f() }).value;
}

/** The body without its lastRefreshTime member (which differs on every call) when it appears exactly once. */
function withoutRefreshTime(text: string, lastRefreshTime: string | undefined): string {
  const member = lastRefreshTime === undefined ? null : `"lastRefreshTime":${JSON.stringify(lastRefreshTime)}`;
  const at = member === null ? -1 : text.indexOf(member);
  return at >= 0 && text.indexOf(member!, at + 1) < 0 ? text.slice(0, at) + text.slice(at + member!.length) : text;
}

async function fetchLoad(ctx: DataContext, query: LoadQuery, signal?: AbortSignal): Promise<FetchedLoad> {
  const what = "POST /v1/load";
  const raw = await call(ctx, "POST", "/v1/load", { query: wireQuery(query) }, signal);
  const text = utf8.decode(raw.bytes);
  const json = "json" in raw ? raw.json : parseJsonText(text, raw.status, what);
  const res = parseBody(LoadResponse, json, what, raw.status);
  await hashReady();
  return {
    source: h64Hex(utf8Encoder.encode(withoutRefreshTime(text, res.lastRefreshTime))),
    rows: res.data.length,
    query: res.query,
    result: once(() => {
      const typed = decode(what, raw.status, () => toTypedResult(res));
      return { ...typed, query: res.query, lastRefreshTime: res.lastRefreshTime ?? null };
    }),
  };
}

const SVCSQL = "POST /v1/svcsql";

async function fetchSql(ctx: DataContext, sql: string, o: { timezone?: string } = {}, signal?: AbortSignal): Promise<FetchedResult> {
  const what = SVCSQL;
  const raw = await call(ctx, "POST", "/v1/svcsql", { query: sql, ...(o.timezone ? { timezone: o.timezone } : {}) }, signal);
  await hashReady();
  const timezone = o.timezone ?? "UTC";
  const result = once(() => {
    const json = "json" in raw ? raw.json : parseJsonBody(raw, what);
    const res = parseBody(SqlResponse, json, what, raw.status);
    return decode(what, raw.status, () => sqlToTypedResult(res, timezone));
  });
  return {
    source: h64Hex(raw.bytes),
    result,
    bytes: raw.bytes.length,
    slices: (rows: number) => sqlSlices(raw, timezone, result, rows),
    byRow: () => sqlRows(raw, timezone),
  };
}

/** `scan()`, a malformed answer's SyntaxError said as the data API's InvalidResponseError. */
function scanned<T>(raw: DataAnswer, scan: () => T): T {
  try {
    return scan();
  } catch (e) {
    throw new InvalidResponseError(`${SVCSQL}: ${raw.status} body is not JSON (${(e as Error).message})`, raw.status, undefined, {
      cause: e,
    });
  }
}

/** Rows of a SQL answer found by the scanner (sql-rows.ts), validated and decoded; `first`: the first one's index. */
function decodedSqlRows(raw: DataAnswer, head: Record<string, unknown>, data: unknown[][], timezone: string, first: number): TypedResult {
  const res = parseBody(SqlResponse, { ...head, data }, SVCSQL, raw.status);
  return decode(SVCSQL, raw.status, () => sqlToTypedResult(res, timezone, first));
}

/** A SQL answer's rows by where they are in its bytes (FetchedResult.byRow). */
function sqlRows(raw: DataAnswer, timezone: string): AnswerRows | null {
  const split = splitSqlBody(raw.bytes); // also when a small body was parsed already: its bytes are what is printed
  if (!split) return null;
  const index = scanned(raw, () => split.index());
  return {
    head: h64Hex(utf8Encoder.encode(JSON.stringify({ head: split.head, timezone }))),
    count: index.count,
    bytes: (from, to) => index.bytes(from, to),
    decode: (from, to) =>
      decodedSqlRows(
        raw,
        split.head,
        scanned(raw, () => index.parse(from, to)),
        timezone,
        from,
      ),
  };
}

/** A SQL answer `rows` rows at a time, scanned from its text without parsing it whole when it has the usual shape. */
function* sqlSlices(raw: DataAnswer, timezone: string, whole: () => TypedResult, rows: number): Generator<TypedResult> {
  const split = "json" in raw ? null : splitSqlBody(raw.bytes); // scanned as bytes: never decoded whole
  if (!split) {
    // Not the shape the scanner reads: parse it whole, then hand it out in slices.
    const all = whole();
    for (let r = 0; r < all.rows.length || r === 0; r += rows) yield { ...all, rows: all.rows.slice(r, r + rows) };
    return;
  }
  let first = 0;
  const pieces = split.slices(rows);
  for (;;) {
    const next = scanned(raw, () => pieces.next());
    if (next.done && first > 0) return;
    yield decodedSqlRows(raw, split.head, next.done ? [] : next.value, timezone, first);
    if (next.done) return;
    first += next.value.length;
  }
}

export function createDataClient(options: DataClientOptions): DataClient {
  const ctx: DataContext = {
    dataUrl: options.dataUrl,
    fetch: options.fetch ?? ((u, i) => fetch(u, i)),
    policy: { ...DEFAULT_DATA_RETRY, ...options.retry },
    limits: deadlinesWith(options.deadlines),
    provider: typeof options.token === "string" ? { getToken: async () => options.token as string } : options.token,
  };
  return {
    fetchLoad: (query, signal) => fetchLoad(ctx, query, signal),
    fetchSql: (sql, o, signal) => fetchSql(ctx, sql, o, signal),
    async load(query, signal) {
      return (await fetchLoad(ctx, query, signal)).result();
    },
    async svcsql(sql, o = {}, signal) {
      return (await fetchSql(ctx, sql, o, signal)).result();
    },
    async meta(signal) {
      const raw = await call(ctx, "GET", "/v1/meta", undefined, signal);
      return parseBody(MetaResponse, "json" in raw ? raw.json : parseJsonBody(raw, "GET /v1/meta"), "GET /v1/meta", 200);
    },
  };
}

/**
 * Sign-in's check of a data API URL: GET {dataUrl}/v1/meta with a minted token, one attempt within
 * `deadlineMs`. An answer that is not a data API's (nothing there, a web page, a refused token, no
 * answer at all) becomes a DataUrlError naming the URL, so the pane blames the Data API URL field.
 * A server error or the caller's abort passes through unchanged.
 */
export async function probeDataUrl(o: {
  dataUrl: string;
  token: TokenProvider | string;
  fetch?: FetchLike;
  deadlineMs?: number;
  signal?: AbortSignal;
}): Promise<void> {
  const deadlineMs = o.deadlineMs ?? DEFAULT_DEADLINES.signInProbeMs;
  const client = createDataClient({
    dataUrl: o.dataUrl,
    token: o.token,
    ...(o.fetch ? { fetch: o.fetch } : {}),
    retry: { maxAttempts: 1, maxElapsedMs: deadlineMs },
    deadlines: { dataAttemptMs: deadlineMs },
  });
  try {
    await client.meta(o.signal);
  } catch (e) {
    if (o.signal?.aborted || !(e instanceof ApiError) || e instanceof ServerError) throw e;
    const what =
      e instanceof NotFoundError
        ? "has no /v1/meta (404)"
        : e instanceof InvalidResponseError
          ? "answered with something other than a data API's metadata"
          : e instanceof TokenRefusedError
            ? "refused this deployment's token (is it this deployment's data API?)"
            : e.kind === "network"
              ? "could not be reached"
              : e.kind === "timeout"
                ? "did not answer in time"
                : `answered ${e.status}`;
    throw new DataUrlError(`The data API URL ${o.dataUrl} ${what}: ${e.message}`, o.dataUrl, e);
  }
}

/** Bodies up to this size are parsed on arrival (to recognise "Continue wait"). */
const SMALL_BODY = 4096;
const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** The data API's base when none is given: the platform's documented default path. */
export function defaultDataUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/$/, "")}/cubejs-api`;
}
