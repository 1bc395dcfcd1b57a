// The agent chat client (seed 03 §4, §5): streams a turn as validated frames, reads a thread's
// state, aborts; plus the management API's app-config and the user's sheets settings (seed 01).
//
// Auth form: the deployment form with a minted deployment token (X-Svc-Auth-Token) when the
// deployment allows it; when the platform answers 403 there (the deployment's "Use authentication
// for Chat and embedding APIs" is off), the agent form with the user's API key (`Api-Key`),
// `sessionSettings.internalId` = the signed-in user's email and an agent id — and it stays there.
//
// Streams: no total deadline, an idle one (reset on every chunk). A dropped connection (network
// error, or the body ending before the turn's __state__ frame) is reconnected by re-sending the
// same messageId and chatId: the platform resubscribes and replays the messages so far as full
// frames, which the conversation reducer merges without duplicates.
// Transport: the request layer's openStream() (idle deadline, connect deadline, status mapping)
// for the stream, sendRaw() with a deadline for abort and the settings calls.
import { z } from "zod";
import type { TokenProvider } from "../data-client";
import { DEFAULT_DEADLINES } from "../deadlines";
import { ApiError, ForbiddenError, InvalidResponseError, NetworkError, TimeoutError } from "../errors";
import {
  buildUrl,
  errorDetails,
  openStream,
  parseBody,
  parseJsonBody,
  path,
  resolveCredential,
  sendRaw,
  type Credential,
  type ErrorDetails,
  type FetchLike,
} from "../http";
import { managementError } from "../management-client";
import { sleep } from "../retry";
import { ChatAuthError, ThreadBusyError } from "./errors";
import { readNdjson } from "./ndjson";
import {
  AppConfig,
  ChatFrame,
  JsonRpcError,
  MESSAGE_ID_PATTERN,
  SENTINELS,
  UserSettings,
  type SessionSettings,
  type SheetsSettings,
  type StreamChatInput,
} from "./schemas";

/** §7: the error text of a new message while the thread streams. */
export const STREAMING_IN_PROGRESS = "Streaming for thread is in progress";

export interface ChatAuthOptions {
  /** The deployment form: `{aiUrl}/api/v1/public/{account}/deployments/{id}/chat/...` with the deployment's token. */
  deployment?: { deploymentId: number; token: TokenProvider };
  /** The agent form: `Api-Key <apiKey>` with sessionSettings.internalId. */
  agent?: { agentId: string; apiKey: Credential; internalId: string };
}

export interface ChatClientOptions {
  aiUrl: string;
  accountName: string;
  auth: ChatAuthOptions;
  fetch?: FetchLike;
  /** A stream that sends nothing for this long is dropped (then reconnected). Default 30 s. */
  idleTimeoutMs?: number;
  /** A stream whose answer does not begin within this long is dropped (then reconnected). Default: streamConnectMs. */
  connectTimeoutMs?: number;
  /** Deadline of the short requests (abort, state reads until the stream opens). Default 20 s. */
  requestTimeoutMs?: number;
  /** Reconnects per turn after a dropped connection (default 3). */
  maxReconnects?: number;
  now?: () => number;
}

export interface SendOptions {
  input?: string;
  chatId?: string;
  /** Defaults to a new `<ms>-message`; pass the pending one to resume a turn. */
  messageId?: string;
  signal?: AbortSignal;
  /** Every validated frame, in arrival order (sentinels included: the reducer filters them). */
  onFrame: (frame: ChatFrame) => void;
  /** A line that is not JSON or not a frame: reported, and the stream goes on. */
  onWarning?: (e: ApiError) => void;
  /** The connection dropped and is being re-established (attempt is 1-based). */
  onReconnect?: (attempt: number) => void;
}

export interface SendResult {
  chatId: string | null;
  messageId: string | null;
  /** The platform's final __state__ arrived (the turn ended, normally or aborted). */
  completed: boolean;
}

export interface ChatClient {
  /** Sends `input` (or, without it, reads the thread `chatId`) and follows the stream to its end. */
  send(o: SendOptions): Promise<SendResult>;
  /** §4.2: stops the thread's running stream (204). */
  abort(chatId: string, signal?: AbortSignal): Promise<void>;
  /** Which form the client uses now. */
  form(): "deployment" | "agent";
}

/** `<ms timestamp>-message`, never reusing a timestamp (two messages in one ms get distinct ids). */
let lastStamp = 0;
export function newMessageId(now: number = Date.now()): string {
  lastStamp = Math.max(now, lastStamp + 1);
  const id = `${lastStamp}-message`;
  if (!MESSAGE_ID_PATTERN.test(id)) throw new RangeError(`messageId ${id} does not match the platform's pattern`);
  return id;
}

class Dropped extends Error {}

/** A chat API error answer → its typed error (same `{error, code?, field?}` body as the management API). */
const mapError = (status: number, d: ErrorDetails, what: string, headers: Headers): ApiError =>
  managementError(status, d.json, what, "other", { excerpt: d.message, headers });

/** What one chat client keeps: its options, its limits, and the auth form it uses now. */
interface ChatState {
  o: ChatClientOptions;
  fetch: FetchLike;
  idleMs: number;
  requestMs: number;
  maxReconnects: number;
  form: "deployment" | "agent";
}

function chatUrl(st: ChatState, suffix: "" | "/abort"): string {
  const { o } = st;
  const base =
    st.form === "deployment"
      ? path`/api/v1/public/${o.accountName}/deployments/${o.auth.deployment!.deploymentId}/chat/stream-chat-state`
      : path`/api/v1/public/${o.accountName}/agents/${o.auth.agent!.agentId}/chat/stream-chat-state`;
  return buildUrl(o.aiUrl, base + suffix);
}

/** The credential of the current form: X-Svc-Auth-Token, or Authorization: Api-Key. */
async function chatAuth(st: ChatState, signal?: AbortSignal): Promise<{ authorization: string; headers?: Record<string, string> }> {
  if (st.form === "deployment")
    return { authorization: "", headers: { "X-Svc-Auth-Token": await st.o.auth.deployment!.token.getToken(signal) } };
  return { authorization: `Api-Key ${await resolveCredential(st.o.auth.agent!.apiKey, signal)}` };
}

const sessionOf = (st: ChatState): { sessionSettings?: SessionSettings } =>
  st.form === "agent" ? { sessionSettings: { internalId: st.o.auth.agent!.internalId } } : {};

/**
 * Runs `call` on the current form. A 403 on the deployment form (its token sign-in for chat is
 * off) switches to the agent form once, when the client has one; a 401/403 drops the token.
 */
async function onForm<T>(st: ChatState, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (st.form === "deployment" && (e instanceof ForbiddenError || (e as ApiError).status === 401))
      st.o.auth.deployment!.token.invalidate?.();
    if (e instanceof ForbiddenError && st.form === "deployment" && st.o.auth.agent) {
      st.form = "agent";
      return call();
    }
    throw e;
  }
}

/** A JSON-RPC error object (auth failure in a 200) → ChatAuthError; else null. */
function rpcError(value: unknown): ChatAuthError | null {
  const r = JsonRpcError.safeParse(value);
  return r.success ? new ChatAuthError(`The chat service refused the credential: ${r.data.error.message}`, r.data.error.code, value) : null;
}

/** The caller's abort reason; a lost connection as Dropped (to reconnect); anything else as it is. */
function droppedOr(e: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  if (e instanceof TimeoutError || e instanceof NetworkError) return new Dropped(e.message, { cause: e });
  return e;
}

async function openTurn(st: ChatState, body: StreamChatInput, s: SendOptions) {
  try {
    return await onForm(st, async () =>
      openStream({
        fetch: st.fetch,
        method: "POST",
        url: chatUrl(st, ""),
        ...(await chatAuth(st, s.signal)),
        body: { ...body, ...sessionOf(st) },
        accept: "application/x-ndjson, application/json",
        idleMs: st.idleMs,
        ...(st.o.connectTimeoutMs !== undefined ? { connectMs: st.o.connectTimeoutMs } : {}),
        mapError,
        ...(s.signal ? { signal: s.signal } : {}),
      }),
    );
  } catch (e) {
    throw droppedOr(e, s.signal);
  }
}

/** A line as a frame; one that is not a frame is reported as a warning and skipped (null). */
function frameOf(value: unknown, s: SendOptions): ChatFrame | null {
  const f = ChatFrame.safeParse(value);
  if (f.success) return f.data;
  s.onWarning?.(new InvalidResponseError(`chat stream: a line is not a frame (${f.error.issues[0]?.message ?? "invalid"})`, 200, value));
  return null;
}

/** Hands one frame on, noting the thread's id and whether the turn's __state__ arrived. */
function takeFrame(frame: ChatFrame, s: SendOptions, result: SendResult): void {
  if (frame.error === STREAMING_IN_PROGRESS && frame.id === undefined) {
    throw new ThreadBusyError("This conversation is still answering another question.", 200, frame);
  }
  if (frame.id === SENTINELS.cutoff || frame.id === SENTINELS.state) {
    const id = frame.state?.chatId;
    if (typeof id === "string") result.chatId = id;
  }
  s.onFrame(frame);
  if (frame.id === SENTINELS.state) result.completed = true;
}

/** One connection: reads the stream to its end. Throws Dropped when it is lost before __state__. */
async function once(st: ChatState, body: StreamChatInput, s: SendOptions, result: SendResult): Promise<void> {
  const opened = await openTurn(st, body, s);
  let first = true;
  try {
    for await (const item of readNdjson(opened.body)) {
      if (!item.ok) {
        s.onWarning?.(item.error);
        continue;
      }
      if (first) {
        first = false;
        const failure = rpcError(item.value);
        if (failure) throw failure;
      }
      const frame = frameOf(item.value, s);
      if (frame) takeFrame(frame, s, result);
    }
  } catch (e) {
    opened.cancel(e);
    throw droppedOr(e, s.signal);
  }
  if (!result.completed && body.input !== undefined) throw new Dropped("the stream ended before the answer did");
}

/** A turn: connects, and reconnects with the same messageId and chatId after a drop (backing off). */
async function sendTurn(st: ChatState, s: SendOptions): Promise<SendResult> {
  const result: SendResult = { chatId: s.chatId ?? null, messageId: null, completed: false };
  const messageId = s.input === undefined ? undefined : (s.messageId ?? newMessageId(st.o.now?.()));
  result.messageId = messageId ?? null;
  for (let attempt = 0; ; attempt++) {
    const body: StreamChatInput = {
      ...(s.input !== undefined ? { input: s.input } : {}),
      ...(result.chatId ? { chatId: result.chatId } : {}),
      ...(messageId ? { messageId } : {}),
    };
    try {
      await once(st, body, s, result);
      return result;
    } catch (e) {
      if (!(e instanceof Dropped)) throw e;
      if (attempt >= st.maxReconnects) {
        const cause = e.cause;
        if (cause instanceof TimeoutError) throw cause;
        throw new NetworkError(`The chat connection dropped and ${st.maxReconnects} reconnects failed: ${e.message}`, 0, undefined, {
          cause,
        });
      }
      s.onReconnect?.(attempt + 1);
      await sleep(Math.min(2000, 250 * 2 ** attempt), s.signal);
    }
  }
}

async function abortThread(st: ChatState, chatId: string, signal?: AbortSignal): Promise<void> {
  const res = await onForm(st, async () => {
    const r = await sendRaw({
      fetch: st.fetch,
      method: "POST",
      url: chatUrl(st, "/abort"),
      ...(await chatAuth(st, signal)),
      body: { chatId, ...sessionOf(st) },
      deadlineMs: st.requestMs,
      ...(signal ? { signal } : {}),
    });
    if (r.status < 200 || r.status > 299) throw mapError(r.status, errorDetails(r.bytes), "POST chat abort", r.headers);
    return r;
  });
  if (res.bytes.length) {
    const failure = rpcError(safeJson(new TextDecoder().decode(res.bytes)));
    if (failure) throw failure;
  }
}

export function createChatClient(o: ChatClientOptions): ChatClient {
  const st: ChatState = {
    o,
    fetch: o.fetch ?? ((u, i) => fetch(u, i)),
    idleMs: o.idleTimeoutMs ?? DEFAULT_DEADLINES.streamIdleMs,
    requestMs: o.requestTimeoutMs ?? DEFAULT_DEADLINES.managementAttemptMs,
    maxReconnects: o.maxReconnects ?? 3,
    form: o.auth.deployment ? "deployment" : "agent",
  };
  if (!o.auth.deployment && !o.auth.agent) throw new TypeError("createChatClient: give auth.deployment or auth.agent");
  return {
    form: () => st.form,
    send: (s) => sendTurn(st, s),
    abort: (chatId, signal) => abortThread(st, chatId, signal),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// ---- app-config and the user's sheets settings (management API) ----------------------------

export interface ChatSettingsClient {
  appConfig(signal?: AbortSignal): Promise<AppConfig>;
  /** `settings.sheetsSettings` of GET /users/me ({} when the platform sends none). */
  sheetsSettings(signal?: AbortSignal): Promise<SheetsSettings>;
  /** PATCH /users/me/settings: merged field by field, null clears; answers the merged settings. */
  updateSheetsSettings(patch: Record<string, string | number | boolean | null>, signal?: AbortSignal): Promise<SheetsSettings>;
}

const MeSettings = z.looseObject({ settings: z.looseObject({ sheetsSettings: z.record(z.string(), z.unknown()).optional() }).optional() });

export function createChatSettingsClient(o: {
  baseUrl: string;
  credential: Credential;
  fetch?: FetchLike;
  requestTimeoutMs?: number;
}): ChatSettingsClient {
  const doFetch: FetchLike = o.fetch ?? ((u, i) => fetch(u, i));
  async function call<S extends z.ZodType>(
    method: "GET" | "PATCH",
    p: string,
    schema: S,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<z.output<S>> {
    const what = `${method} ${p}`;
    const token = await resolveCredential(o.credential, signal);
    const res = await sendRaw({
      fetch: doFetch,
      method,
      url: buildUrl(o.baseUrl, p),
      authorization: `Bearer ${token}`,
      body,
      deadlineMs: o.requestTimeoutMs ?? DEFAULT_DEADLINES.managementAttemptMs,
      ...(signal ? { signal } : {}),
    });
    if (res.status < 200 || res.status > 299) throw mapError(res.status, errorDetails(res.bytes), what, res.headers);
    return parseBody(schema, parseJsonBody(res, what), what, res.status);
  }
  return {
    appConfig: (signal) => call("GET", "/api/v1/app-config", AppConfig, undefined, signal),
    async sheetsSettings(signal) {
      const me = await call("GET", "/api/v1/users/me", MeSettings, undefined, signal);
      return (me.settings?.sheetsSettings ?? {}) as SheetsSettings;
    },
    async updateSheetsSettings(patch, signal) {
      return (await call("PATCH", "/api/v1/users/me/settings", UserSettings, { sheetsSettings: patch }, signal)).sheetsSettings;
    },
  };
}
