// The one HTTP helper under both API families: builds the URL from a base and path
// segments (each segment encoded), sends JSON, maps failures to typed errors and
// validates the response body against its schema. No other module builds URLs.
import type { z } from "zod";
import { ErrorBody } from "./schemas/common";
import { ApiError, InvalidResponseError, NetworkError } from "./errors";

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

export interface SendOptions {
  fetch: FetchLike;
  method: "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
  url: string;
  authorization: string;
  body?: unknown;
  signal?: AbortSignal;
}

export interface RawResponse {
  status: number;
  /** Parsed JSON, or undefined when the body was empty. */
  json: unknown;
}

/** One answer as raw bytes: what the data client fingerprints before (or instead of) parsing. */
export interface RawBytesResponse {
  status: number;
  bytes: Uint8Array;
}

/** Sends one request and reads the whole body; a failure to reach the server becomes a NetworkError. */
export async function sendRaw(o: SendOptions): Promise<RawBytesResponse> {
  const headers: Record<string, string> = { Accept: "application/json", Authorization: o.authorization };
  if (o.body !== undefined) headers["Content-Type"] = "application/json";
  let res: Response;
  try {
    res = await o.fetch(o.url, {
      method: o.method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: o.signal,
    });
  } catch (e) {
    if (o.signal?.aborted) throw o.signal.reason;
    throw new NetworkError(`${o.method} ${new URL(o.url).pathname}: ${(e as Error).message}`, 0, undefined, { cause: e });
  }
  try {
    return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
  } catch (e) {
    if (o.signal?.aborted) throw o.signal.reason;
    throw new NetworkError(`${o.method} ${new URL(o.url).pathname}: body lost: ${(e as Error).message}`, res.status, undefined, { cause: e });
  }
}

const utf8 = new TextDecoder();

/** The body parsed as JSON (undefined when empty); a 2xx–4xx body that is not JSON is an InvalidResponseError. */
export function parseJsonBody(r: RawBytesResponse, what: string): unknown {
  return parseJsonText(utf8.decode(r.bytes), r.status, what);
}

/** parseJsonBody for a body already decoded as text. */
export function parseJsonText(text: string, status: number, what: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    if (status >= 500) return undefined;
    throw new InvalidResponseError(`${what}: ${status} body is not JSON`, status, text.slice(0, 200));
  }
}

/** Sends one request; a failure to reach the server becomes a NetworkError. */
export async function send(o: SendOptions): Promise<RawResponse> {
  const r = await sendRaw(o);
  return { status: r.status, json: parseJsonBody(r, `${o.method} ${new URL(o.url).pathname}`) };
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
