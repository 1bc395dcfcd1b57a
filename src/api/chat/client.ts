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
// The request layer's openStream() (branch req) was not there when this was written: the stream is
// read over fetch here, with its own idle-deadline AbortController (docs/API.md §Chat).
import { z } from "zod";
import type { TokenProvider } from "../data-client";
import { ApiError, InvalidResponseError, NetworkError } from "../errors";
import { buildUrl, parseBody, path, resolveCredential, send, type Credential, type FetchLike } from "../http";
import { managementError } from "../management-client";
import { sleep } from "../retry";
import { ChatAuthError, StreamIdleError, ThreadBusyError } from "./errors";
import { readNdjson } from "./ndjson";
import {
  AppConfig, ChatFrame, JsonRpcError, MESSAGE_ID_PATTERN, SENTINELS, UserSettings,
  type SessionSettings, type SheetsSettings, type StreamChatInput,
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

/** An AbortSignal that fires on `parent` or after `ms`; `clear()` stops the timer. */
function deadline(parent: AbortSignal | undefined, ms: number, onExpire: () => unknown) {
  const ctrl = new AbortController();
  const onAbort = () => ctrl.abort(parent!.reason);
  if (parent?.aborted) ctrl.abort(parent.reason);
  parent?.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => ctrl.abort(onExpire()), ms);
  };
  arm();
  return {
    signal: ctrl.signal,
    /** Restart the countdown (the idle deadline of a stream). */
    reset: arm,
    clear: () => {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onAbort);
    },
  };
}

class Dropped extends Error {}

export function createChatClient(o: ChatClientOptions): ChatClient {
  const doFetch: FetchLike = o.fetch ?? ((u, i) => fetch(u, i));
  const idleMs = o.idleTimeoutMs ?? 30_000;
  const requestMs = o.requestTimeoutMs ?? 20_000;
  const maxReconnects = o.maxReconnects ?? 3;
  let form: "deployment" | "agent" = o.auth.deployment ? "deployment" : "agent";
  if (!o.auth.deployment && !o.auth.agent) throw new TypeError("createChatClient: give auth.deployment or auth.agent");

  function url(suffix: "" | "/abort"): string {
    const base = form === "deployment"
      ? path`/api/v1/public/${o.accountName}/deployments/${o.auth.deployment!.deploymentId}/chat/stream-chat-state`
      : path`/api/v1/public/${o.accountName}/agents/${o.auth.agent!.agentId}/chat/stream-chat-state`;
    return buildUrl(o.aiUrl, base + suffix);
  }

  async function headers(signal: AbortSignal): Promise<Record<string, string>> {
    const h: Record<string, string> = { "Content-Type": "application/json", Accept: "application/x-ndjson, application/json" };
    if (form === "deployment") h["X-Svc-Auth-Token"] = await o.auth.deployment!.token.getToken(signal);
    else h.Authorization = `Api-Key ${await resolveCredential(o.auth.agent!.apiKey, signal)}`;
    return h;
  }
  const session = (): { sessionSettings?: SessionSettings } => (form === "agent" ? { sessionSettings: { internalId: o.auth.agent!.internalId } } : {});

  /** POSTs to the form's path; on the deployment form's 403 (token chat off), switches to the agent form once. */
  async function post(suffix: "" | "/abort", body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
    for (;;) {
      let res: Response;
      const h = await headers(signal);
      try {
        res = await doFetch(url(suffix), { method: "POST", headers: h, body: JSON.stringify({ ...body, ...session() }), signal });
      } catch (e) {
        if (signal.aborted) throw signal.reason;
        throw new NetworkError(`POST chat${suffix}: ${(e as Error).message}`, 0, undefined, { cause: e });
      }
      if (res.status === 403 && form === "deployment" && o.auth.agent) {
        await res.body?.cancel();
        form = "agent";
        continue;
      }
      if (res.status === 401 || res.status === 403) o.auth.deployment?.token.invalidate?.();
      if (res.status >= 200 && res.status < 300) return res;
      const text = await res.text().catch(() => "");
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      throw managementError(res.status, json, `POST chat${suffix}`);
    }
  }

  /** A JSON-RPC error object (auth failure in a 200) → ChatAuthError; else null. */
  function rpcError(value: unknown): ChatAuthError | null {
    const r = JsonRpcError.safeParse(value);
    return r.success ? new ChatAuthError(`The chat service refused the credential: ${r.data.error.message}`, r.data.error.code, value) : null;
  }

  /** One connection: reads the stream to its end. Throws Dropped when it ends before __state__. */
  async function once(body: StreamChatInput, s: SendOptions, result: SendResult, user: AbortSignal | undefined): Promise<void> {
    const idle = deadline(user, idleMs, () => new StreamIdleError(`The chat stream sent nothing for ${Math.round(idleMs / 1000)} s`, 0));
    try {
      let res: Response;
      try {
        res = await post("", body as Record<string, unknown>, idle.signal);
      } catch (e) {
        if (e instanceof StreamIdleError || e instanceof NetworkError) throw new Dropped((e as Error).message, { cause: e });
        throw e;
      }
      if (!res.body) throw new InvalidResponseError("chat stream: the response has no body", res.status);
      idle.reset();
      let first = true;
      try {
        for await (const item of readNdjson(res.body, idle.reset, idle.signal)) {
          if (!item.ok) {
            s.onWarning?.(item.error);
            continue;
          }
          if (first) {
            first = false;
            const auth = rpcError(item.value);
            if (auth) throw auth;
          }
          const f = ChatFrame.safeParse(item.value);
          if (!f.success) {
            s.onWarning?.(new InvalidResponseError(`chat stream: a line is not a frame (${f.error.issues[0]?.message ?? "invalid"})`, 200, item.value));
            continue;
          }
          const frame = f.data;
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
      } catch (e) {
        if (user?.aborted) throw user.reason;
        if (e instanceof ApiError && !(e instanceof StreamIdleError)) throw e;
        if (idle.signal.aborted && idle.signal.reason instanceof StreamIdleError) throw new Dropped("idle", { cause: idle.signal.reason });
        throw new Dropped((e as Error).message, { cause: e });
      }
      if (user?.aborted) throw user.reason;
      if (idle.signal.aborted) throw new Dropped("idle", { cause: idle.signal.reason });
      if (!result.completed && body.input !== undefined) throw new Dropped("the stream ended before the turn did");
    } finally {
      idle.clear();
    }
  }

  return {
    form: () => form,

    async send(s) {
      const result: SendResult = { chatId: s.chatId ?? null, messageId: null, completed: false };
      const messageId = s.input === undefined ? undefined : (s.messageId ?? newMessageId(o.now?.()));
      result.messageId = messageId ?? null;
      for (let attempt = 0; ; attempt++) {
        const body: StreamChatInput = {
          ...(s.input !== undefined ? { input: s.input } : {}),
          ...(result.chatId ? { chatId: result.chatId } : {}),
          ...(messageId ? { messageId } : {}),
        };
        try {
          await once(body, s, result, s.signal);
          return result;
        } catch (e) {
          if (!(e instanceof Dropped)) throw e;
          if (attempt >= maxReconnects) {
            const cause = e.cause;
            if (cause instanceof StreamIdleError) throw cause;
            throw new NetworkError(`The chat connection dropped and ${maxReconnects} reconnects failed: ${e.message}`, 0, undefined, { cause });
          }
          s.onReconnect?.(attempt + 1);
          await sleep(Math.min(2000, 250 * 2 ** attempt), s.signal);
        }
      }
    },

    async abort(chatId, signal) {
      const d = deadline(signal, requestMs, () => new StreamIdleError(`Stopping the answer took over ${requestMs / 1000} s`, 0));
      try {
        const res = await post("/abort", { chatId }, d.signal);
        const text = await res.text();
        if (text) {
          const auth = rpcError(safeJson(text));
          if (auth) throw auth;
        }
      } finally {
        d.clear();
      }
    },
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

export function createChatSettingsClient(o: { baseUrl: string; credential: Credential; fetch?: FetchLike; requestTimeoutMs?: number }): ChatSettingsClient {
  const doFetch: FetchLike = o.fetch ?? ((u, i) => fetch(u, i));
  async function call<S extends z.ZodType>(method: "GET" | "PATCH", p: string, schema: S, body: unknown, signal?: AbortSignal): Promise<z.output<S>> {
    const ms = o.requestTimeoutMs ?? 20_000;
    const d = deadline(signal, ms, () => new NetworkError(`${method} ${p}: no answer within ${ms / 1000} s`, 0));
    try {
      const token = await resolveCredential(o.credential, d.signal);
      let res;
      try {
        res = await send({ fetch: doFetch, method, url: buildUrl(o.baseUrl, p), authorization: `Bearer ${token}`, body, signal: d.signal });
      } catch (e) {
        if (d.signal.aborted && !signal?.aborted) throw d.signal.reason;
        throw e;
      }
      if (res.status < 200 || res.status > 299) throw managementError(res.status, res.json, `${method} ${p}`);
      return parseBody(schema, res.json, `${method} ${p}`, res.status);
    } finally {
      d.clear();
    }
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


