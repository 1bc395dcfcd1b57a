// The one HTTP helper under every API family: builds the URL from a base and path segments
// (each segment encoded), sends JSON, bounds every request by a deadline composed with the
// caller's signal (body included), caps the body size, and maps failures to typed errors.
// `sendRaw` reads a whole answer; `openStream` hands over a body that arrives over time, with an
// idle deadline instead of a total one. No other module builds URLs or calls fetch.
import type { z } from "zod";
import { ErrorBody } from "./schemas/common";
import {
  ApiError,
  ForbiddenError,
  HttpError,
  InvalidResponseError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ResponseTooLargeError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from "./errors";
import { DEFAULT_DEADLINES } from "./deadlines";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A credential, or a function that yields one (called once per attempt). */
export type Credential = string | ((signal?: AbortSignal) => string | Promise<string>);

export async function resolveCredential(c: Credential, signal?: AbortSignal): Promise<string> {
  return typeof c === "string" ? c : await c(signal);
}

/** `/api/v1/deployments/${id}` from literal parts and values; values are percent-encoded. */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += encodeURIComponent(String(v)) + (strings[i + 1] ?? "");
  });
  return out;
}

export function buildUrl(base: string, p: string, query?: Record<string, string | number | undefined>): string {
  const url = new URL(base.replace(/\/+$/, "") + p);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return url.toString();
}

/** "POST /cubejs-api/v1/load": how messages name a request (never the query string). */
export function requestName(method: string, url: string): string {
  return `${method} ${new URL(url).pathname}`;
}

// ---------------------------------------------------------------------------------------------
// Signals and deadlines

/**
 * A signal that aborts when any of `signals` does, with that signal's reason. `AbortSignal.any`
 * where it exists; a small listener-based fallback where it does not (older WebKit, e.g. Excel
 * on older Macs). `dispose` drops the fallback's listeners once the request is over.
 */
export function anySignal(signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  const list = signals.filter((s): s is AbortSignal => s !== undefined);
  const native = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  if (typeof native === "function") return { signal: native.call(AbortSignal, list), dispose: () => {} };
  return anySignalFallback(list);
}

/** The fallback of anySignal (exported so that tests run it where AbortSignal.any exists). */
export function anySignalFallback(list: AbortSignal[]): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const already = list.find((s) => s.aborted);
  if (already) {
    ctl.abort(already.reason);
    return { signal: ctl.signal, dispose: () => {} };
  }
  const handlers = list.map((s) => {
    const h = () => {
      ctl.abort(s.reason);
      dispose();
    };
    s.addEventListener("abort", h, { once: true });
    return [s, h] as const;
  });
  const dispose = () => handlers.forEach(([s, h]) => s.removeEventListener("abort", h));
  return { signal: ctl.signal, dispose };
}

/** A controller that aborts itself with `expired()` after `ms`; `clear()` stops the timer. */
function deadline(ms: number, expired: () => Error): { signal: AbortSignal; clear(): void; abort(reason: unknown): void } {
  const ctl = new AbortController();
  const t = setTimeout(() => ctl.abort(expired()), Math.max(0, ms));
  return { signal: ctl.signal, clear: () => clearTimeout(t), abort: (r) => ctl.abort(r) };
}

/** Rejects with the signal's reason when it aborts (never settles otherwise); `off` removes the listener. */
function whenAborted(signal: AbortSignal): { promise: Promise<never>; off(): void } {
  let off = () => {};
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const h = () => reject(signal.reason);
    signal.addEventListener("abort", h, { once: true });
    off = () => signal.removeEventListener("abort", h);
  });
  promise.catch(() => {}); // observed through Promise.race; never an unhandled rejection
  return { promise, off: () => off() };
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

// ---------------------------------------------------------------------------------------------
// One request, whole body

export interface SendOptions {
  fetch: FetchLike;
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  url: string;
  authorization: string;
  body?: unknown;
  /** The caller's signal: its abort re-throws its own reason, unchanged. */
  signal?: AbortSignal;
  /** This attempt (sending, waiting, reading the body) ends by then with a TimeoutError. */
  deadlineMs: number;
  /** Bodies over this fail with ResponseTooLargeError (default DEFAULT_DEADLINES.maxResponseBytes). */
  maxBytes?: number;
  /** Accept header (default application/json). */
  accept?: string;
  /** Other request headers (the chat API's X-Svc-Auth-Token). An empty `authorization` is not sent. */
  headers?: Record<string, string>;
}

/** One answer as raw bytes: what the data client fingerprints before (or instead of) parsing. */
export interface RawBytesResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

function requestInit(o: Omit<SendOptions, "deadlineMs">, signal: AbortSignal): RequestInit {
  const headers: Record<string, string> = {
    Accept: o.accept ?? "application/json",
    ...(o.authorization ? { Authorization: o.authorization } : {}),
    ...o.headers,
  };
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  return { method: o.method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), signal };
}

/**
 * Sends one request and reads the whole body within `deadlineMs`. The caller's abort re-throws
 * its reason; the deadline throws TimeoutError; a body over the cap throws ResponseTooLargeError
 * (by Content-Length before reading, else by counting while reading); a failure to reach the
 * server or a body cut short throws NetworkError. Any status is returned: callers map it.
 */
export async function sendRaw(o: SendOptions): Promise<RawBytesResponse> {
  const what = requestName(o.method, o.url);
  const timer = deadline(o.deadlineMs, () => new TimeoutError(`${what}: no answer within ${seconds(o.deadlineMs)}`, o.deadlineMs));
  const both = anySignal([o.signal, timer.signal]);
  const fail = (e: unknown, stage: string, status: number): never => {
    if (o.signal?.aborted) throw o.signal.reason;
    if (timer.signal.aborted) throw timer.signal.reason;
    if (e instanceof ApiError) throw e;
    throw new NetworkError(`${what}: ${stage}${(e as Error)?.message ?? String(e)}`, status, undefined, { cause: e });
  };
  try {
    let res: Response;
    try {
      res = await raceSignal(o.fetch(o.url, requestInit(o, both.signal)), both.signal);
    } catch (e) {
      return fail(e, "", 0);
    }
    try {
      const bytes = await readBody(res, both.signal, o.maxBytes ?? DEFAULT_DEADLINES.maxResponseBytes, what, timer.abort);
      return { status: res.status, headers: res.headers, bytes };
    } catch (e) {
      return fail(e, "body lost: ", res.status);
    }
  } finally {
    timer.clear();
    both.dispose();
  }
}

/** `p`, or the signal's reason as soon as it aborts (a fetch that ignores its signal still ends). */
async function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  const aborted = whenAborted(signal);
  try {
    return await Promise.race([p, aborted.promise]);
  } finally {
    aborted.off();
  }
}

/** Reads a body up to `maxBytes`, giving up when `signal` aborts; over the cap, `stop` aborts the request. */
async function readBody(
  res: Response,
  signal: AbortSignal,
  maxBytes: number,
  what: string,
  stop: (reason: unknown) => void,
): Promise<Uint8Array> {
  const tooLarge = (size: string) => {
    const e = new ResponseTooLargeError(`${what}: the answer is ${size}, over the limit of ${formatBytes(maxBytes)}`, res.status, maxBytes);
    stop(e);
    return e;
  };
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    void res.body?.cancel().catch(() => {});
    throw tooLarge(formatBytes(declared));
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const aborted = whenAborted(signal);
  const body = new BodyBytes(Number.isFinite(declared) && declared > 0 ? declared : 0);
  try {
    for (;;) {
      const r = await Promise.race([reader.read(), aborted.promise]);
      if (r.done) break;
      if (body.total + r.value.byteLength > maxBytes) throw tooLarge(`over ${formatBytes(maxBytes)} and still coming`);
      body.add(r.value);
    }
  } catch (e) {
    void reader.cancel(e).catch(() => {});
    throw e;
  } finally {
    aborted.off();
  }
  return body.bytes();
}

/**
 * A body's bytes as they arrive. With its declared length, each chunk is copied into one buffer of that
 * size as it comes and let go (issue 35 §3: a 45 MB answer is then held once, not as its chunks and
 * their copy); without one, or past it, the chunks are kept and joined at the end.
 */
export class BodyBytes {
  total = 0;
  private readonly chunks: Uint8Array[] = [];
  private out: Uint8Array | null;
  constructor(declared: number) {
    this.out = declared > 0 ? new Uint8Array(declared) : null;
  }
  add(chunk: Uint8Array): void {
    if (this.out && this.total + chunk.byteLength <= this.out.length) this.out.set(chunk, this.total);
    else {
      if (this.out) this.chunks.push(this.out.subarray(0, this.total)); // longer than declared: keep all of it
      this.out = null;
      this.chunks.push(chunk);
    }
    this.total += chunk.byteLength;
  }
  bytes(): Uint8Array {
    if (this.out) return this.total === this.out.length ? this.out : this.out.slice(0, this.total);
    if (this.chunks.length === 1) return this.chunks[0]!;
    const out = new Uint8Array(this.total);
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

// ---------------------------------------------------------------------------------------------
// Streams

export interface StreamOptions extends Omit<SendOptions, "deadlineMs" | "maxBytes"> {
  /** The status and headers must arrive within this. */
  connectMs?: number;
  /** The stream ends with a TimeoutError when no chunk arrives for this long while it is read. */
  idleMs?: number;
  /** Maps a non-2xx answer (its body read, capped at 64 KB) to a typed error; statusError by default. */
  mapError?: (status: number, details: ErrorDetails, what: string, headers: Headers) => ApiError;
}

export interface OpenedStream {
  status: number;
  headers: Headers;
  /**
   * The body, chunk by chunk. It errors with the caller's abort reason, a TimeoutError naming the
   * request when the server goes silent past `idleMs`, or a NetworkError when the connection drops.
   */
  body: ReadableStream<Uint8Array>;
  /** Stops reading and aborts the request (also done by the caller's signal). */
  cancel(reason?: unknown): void;
}

/** One stream's request: what aborts it and how a failure reads. */
interface StreamCall {
  what: string;
  idleMs: number;
  /** The whole stream: cancel() and the idle deadline abort it. */
  own: AbortController;
  /** Until the status and headers arrive. */
  connect: ReturnType<typeof deadline>;
  /** The caller's signal, `own` and `connect` together. */
  both: ReturnType<typeof anySignal>;
  /** The caller's abort reason, ours, the connect deadline's, a typed error, or a NetworkError. */
  translate(e: unknown, status: number): unknown;
}

function streamCall(o: StreamOptions): StreamCall {
  const what = requestName(o.method, o.url);
  const connectMs = o.connectMs ?? DEFAULT_DEADLINES.streamConnectMs;
  const own = new AbortController();
  const connect = deadline(connectMs, () => new TimeoutError(`${what}: no answer within ${seconds(connectMs)}`, connectMs));
  const both = anySignal([o.signal, own.signal, connect.signal]);
  const translate = (e: unknown, status: number): unknown => {
    if (o.signal?.aborted) return o.signal.reason;
    if (own.signal.aborted) return own.signal.reason;
    if (connect.signal.aborted) return connect.signal.reason;
    if (e instanceof ApiError) return e;
    return new NetworkError(`${what}: ${status ? "stream lost: " : ""}${(e as Error)?.message ?? String(e)}`, status, undefined, {
      cause: e,
    });
  };
  return { what, idleMs: o.idleMs ?? DEFAULT_DEADLINES.streamIdleMs, own, connect, both, translate };
}

/** Waits for the status and headers; a non-2xx answer is read (64 KB at most) and thrown as a typed error. */
async function connectStream(o: StreamOptions, call: StreamCall): Promise<Response> {
  const { what, own, connect, both, translate } = call;
  let res: Response;
  try {
    res = await raceSignal(o.fetch(o.url, requestInit(o, both.signal)), both.signal);
  } catch (e) {
    connect.clear();
    both.dispose();
    throw translate(e, 0);
  }
  if (res.status >= 200 && res.status <= 299) return res;
  try {
    const bytes = await readBody(res, both.signal, 64 * 1024, what, (r) => own.abort(r)).catch((e: unknown) => {
      if (e instanceof ResponseTooLargeError) return new Uint8Array(0); // an error page too long to keep: the status still says it
      throw e;
    });
    const details = errorDetails(bytes);
    throw (o.mapError ?? statusError)(res.status, details, what, res.headers);
  } catch (e) {
    throw translate(e, res.status);
  } finally {
    connect.clear();
    both.dispose();
  }
}

/** The body handed over chunk by chunk, ended by a TimeoutError when the server is silent past `idleMs`. */
function idleBody(reader: ReadableStreamDefaultReader<Uint8Array>, status: number, call: StreamCall): ReadableStream<Uint8Array> {
  const { what, idleMs, own, both, translate } = call;
  const aborted = whenAborted(both.signal);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const finish = () => {
    clearTimeout(idle);
    aborted.off();
    both.dispose();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // The idle clock runs only while we wait for the server, not while the reader is busy.
        idle = setTimeout(() => own.abort(new TimeoutError(`${what}: the stream sent nothing for ${seconds(idleMs)}`, idleMs)), idleMs);
        try {
          const r = await Promise.race([reader.read(), aborted.promise]);
          clearTimeout(idle);
          if (r.done) {
            finish();
            controller.close();
          } else controller.enqueue(r.value);
        } catch (e) {
          const reason = translate(e, status);
          finish();
          void reader.cancel(reason).catch(() => {});
          own.abort(reason);
          controller.error(reason);
        }
      },
      cancel(reason) {
        own.abort(reason);
        finish();
        return reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * Opens a streamed answer beside sendRaw: the same URL, auth and error mapping, but the status is
 * mapped before the body is handed over, and the deadline is an idle one, reset on every chunk.
 */
export async function openStream(o: StreamOptions): Promise<OpenedStream> {
  const call = streamCall(o);
  const res = await connectStream(o, call);
  call.connect.clear(); // from here on, the idle deadline rules
  const status = res.status;
  if (!res.body) {
    call.both.dispose();
    return { status, headers: res.headers, body: new ReadableStream({ start: (c) => c.close() }), cancel: () => {} };
  }
  return {
    status,
    headers: res.headers,
    body: idleBody(res.body.getReader(), status, call),
    cancel: (reason?: unknown) => {
      call.own.abort(reason ?? new DOMException("The stream was cancelled.", "AbortError"));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Bodies and errors

const utf8 = new TextDecoder();

/** The body parsed as JSON (undefined when empty); a body that is not JSON is an InvalidResponseError. */
export function parseJsonBody(r: Pick<RawBytesResponse, "status" | "bytes">, what: string): unknown {
  return parseJsonText(utf8.decode(r.bytes), r.status, what);
}

/** parseJsonBody for a body already decoded as text (only for 2xx answers: map the status first). */
export function parseJsonText(text: string, status: number, what: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidResponseError(`${what}: ${status} body is not JSON: ${excerptOf(text)}`, status, text.slice(0, 200));
  }
}

/** What an error answer said: its JSON when it is JSON, and a short plain-text excerpt either way. */
export interface ErrorDetails {
  json: unknown;
  /** The error message from `{error}` when there is one, else the body's first words (HTML tags removed). */
  message: string;
}

/** Never throws: an error page in HTML keeps its status, and its text becomes an excerpt. */
export function errorDetails(bytes: Uint8Array): ErrorDetails {
  const text = utf8.decode(bytes.subarray(0, 8192));
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(utf8.decode(bytes));
  } catch {
    json = undefined;
  }
  const error =
    typeof json === "object" && json !== null && typeof (json as { error?: unknown }).error === "string"
      ? (json as { error: string }).error
      : null;
  return { json, message: error ?? excerptOf(text) };
}

/**
 * A short plain-text excerpt of a body: an HTML page's visible text (its <title> when the body has
 * none — Express's "Error" title would say less than its "Cannot POST /x"), else the text itself.
 */
export function excerptOf(text: string): string {
  const squash = (t: string) =>
    t
      .replace(/&nbsp;/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  let plain = squash(text);
  if (/^<(!doctype|html|head|body|\?xml)/i.test(plain)) {
    const title = squash(/<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] ?? "");
    const body = squash(text.replace(/<(head|script|style)[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]*>/g, " "));
    plain = body || title;
  }
  return plain.length > 160 ? `${plain.slice(0, 157)}…` : plain;
}

/** Retry-After (delay-seconds or an HTTP date) in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const v = headers.get("retry-after")?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The mapping every API family starts from: 401, 403, 404, 429, 5xx, other. */
export function statusError(status: number, details: ErrorDetails, what: string, headers?: Headers): ApiError {
  const msg = `${what}: ${status}${details.message ? ` ${details.message}` : ""}`;
  if (status === 429) return new RateLimitedError(msg, status, details.json, headers ? retryAfterMs(headers) : undefined);
  if (status >= 500) return new ServerError(msg, status, details.json);
  if (status === 401) return new UnauthorizedError(msg, status, details.json);
  if (status === 403) return new ForbiddenError(msg, status, details.json);
  if (status === 404) return new NotFoundError(msg, status, details.json);
  return new HttpError(msg, status, details.json);
}

/** Validates a success body; a mismatch is an InvalidResponseError naming the first bad path. */
export function parseBody<S extends z.ZodType>(schema: S, json: unknown, what: string, status: number): z.output<S> {
  const r = schema.safeParse(json);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue ? `${issue.path.join(".") || "(body)"}: ${issue.message}` : "invalid";
  throw new InvalidResponseError(`${what}: malformed response (${where})`, status, json, { cause: r.error });
}

/** The error body when it has the documented shape, otherwise undefined. */
export function errorBody(json: unknown): ErrorBody | undefined {
  const r = ErrorBody.safeParse(json);
  return r.success ? r.data : undefined;
}

export function isApiErrorInstance(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
