// The host side of the embed protocol (seeds 02 §6), over an injected { post, subscribe } pair so
// that it runs in Node tests; the window, the iframe's contentWindow and the origin it was loaded
// from are wired in src/taskpane/live/dashboard.ts.
//   - A message is acted on only if its origin is the tenant origin and it parses as an event
//     (source svc-embed, direction event, surface present, a known type, a valid payload). Anything
//     else is ignored and logged at debug level: it never throws and never stops later messages.
//   - Actions go to the tenant origin only (never "*"). Until the first ready they are queued (the
//     embed may not be listening yet); ready is the handshake.
//   - Renewal (§6.3): on session-expiring or session-expired, mint a fresh session id (never one
//     cached ahead) and send set-session, once per session even when both events fire, with one
//     renewal in flight at most. A rejected id comes back as an error event with context
//     session-renewal; it is surfaced through onRenewalError and the embed keeps running.
import { TimeoutError } from "../errors";
import {
  EMBED_SOURCE,
  makeAction,
  normalizeOrigin,
  parseEvent,
  type ActionPayload,
  type ActionType,
  type EmbedEvent,
  type EventPayload,
  type EventType,
} from "./protocol";

export interface IncomingMessage {
  origin: string;
  data: unknown;
}

export interface EmbedPort {
  /** window.postMessage of the iframe's window, with the target origin given. */
  post(message: unknown, targetOrigin: string): void;
  /** Messages addressed to the host (already narrowed to the iframe's window by the adapter). */
  subscribe(listener: (m: IncomingMessage) => void): () => void;
}

/** The error an embed reports when set-session's id cannot be redeemed (§6.3). */
export class EmbedSessionExchangeError extends Error {
  override readonly name = "EmbedSessionExchangeError";
  readonly kind = "embed-session-exchange";
}

export interface BridgeOptions {
  port: EmbedPort;
  /** The tenant origin the iframe was loaded from (scheme://host[:port]). */
  tenantOrigin: string;
  /** Mints a fresh, unexchanged session id (src/api/embed/session.ts mintSessionId). */
  mintSessionId?: (signal?: AbortSignal) => Promise<string>;
  /** Debug log of ignored messages (default: console.debug). */
  debug?: (message: string) => void;
  now?: () => number;
}

type Listener<T extends EventType> = (payload: EventPayload<T>, event: Extract<EmbedEvent, { type: T }>) => void;

export interface EmbedBridge {
  on<T extends EventType>(type: T, listener: Listener<T>): () => void;
  /** Every accepted event (for a log or a status line). */
  onAny(listener: (e: EmbedEvent) => void): () => void;
  /** Sends now if the embed said ready, else when it does. */
  send<T extends ActionType>(type: T, payload: ActionPayload<T>): void;
  /** The first ready's payload; a TimeoutError naming the wait after `deadlineMs`. */
  whenReady(deadlineMs: number, signal?: AbortSignal): Promise<EventPayload<"svc:event:ready">>;
  /** Mint and send set-session now (also what expiring/expired do); shares a renewal in flight. */
  renew(): Promise<void>;
  /** A renewal failed: minting failed, or the embed rejected the id (EmbedSessionExchangeError). */
  onRenewalError(listener: (e: Error) => void): () => void;
  readonly renewals: number;
  close(): void;
}

type ReadyPayload = EventPayload<"svc:event:ready">;

/** What one bridge keeps between messages. */
interface BridgeState {
  o: BridgeOptions;
  /** The tenant origin, normalized: the only one messages are accepted from and sent to. */
  origin: string;
  debug: (message: string) => void;
  now: () => number;
  listeners: Map<EventType, Set<(p: unknown, e: EmbedEvent) => void>>;
  any: Set<(e: EmbedEvent) => void>;
  renewalErrors: Set<(e: Error) => void>;
  ready: ReadyPayload | null;
  readyWaiters: Set<(p: ReadyPayload) => void>;
  /** Actions sent before the first ready. */
  queue: Array<() => void>;
  closed: boolean;
  /** Sessions seen (each ready is one); the session a renewal was already sent for. */
  sessionGen: number;
  renewedGen: number;
  renewing: Promise<void> | null;
  renewals: number;
}

function bridgeState(o: BridgeOptions): BridgeState {
  const origin = normalizeOrigin(o.tenantOrigin);
  if (!origin) throw new Error(`The tenant origin must be scheme://host[:port], not ${JSON.stringify(o.tenantOrigin)}`);
  return {
    o,
    origin,
    debug: o.debug ?? ((m: string) => console.debug(`[embed] ${m}`)),
    now: o.now ?? Date.now,
    listeners: new Map(),
    any: new Set(),
    renewalErrors: new Set(),
    ready: null,
    readyWaiters: new Set(),
    queue: [],
    closed: false,
    sessionGen: 0,
    renewedGen: -1,
    renewing: null,
    renewals: 0,
  };
}

function post(st: BridgeState, type: ActionType, payload: unknown): void {
  st.o.port.post(makeAction(type, payload as never, st.now()), st.origin);
}

function fail(st: BridgeState, e: Error): void {
  for (const l of st.renewalErrors) l(e);
}

/** Mints a fresh session id and sends set-session; one renewal in flight at most. */
function renew(st: BridgeState): Promise<void> {
  if (st.closed) return Promise.resolve();
  if (!st.o.mintSessionId) {
    fail(st, new Error("No session URL is configured: the dashboard cannot renew its session."));
    return Promise.resolve();
  }
  const mint = st.o.mintSessionId;
  st.renewing ??= (async () => {
    try {
      const sessionId = await mint();
      if (st.closed) return;
      st.renewedGen = st.sessionGen;
      st.renewals++;
      post(st, "svc:action:set-session", { sessionId });
    } catch (e) {
      fail(st, e instanceof Error ? e : new Error(String(e)));
    }
  })().finally(() => {
    st.renewing = null;
  });
  return st.renewing;
}

/** A ready starts a session; the first one also wakes the waiters and sends the queued actions. */
function onReady(st: BridgeState, payload: ReadyPayload): void {
  st.sessionGen++;
  if (st.ready) return;
  st.ready = payload;
  for (const w of st.readyWaiters) w(payload);
  st.readyWaiters.clear();
  const q = st.queue;
  st.queue = [];
  for (const send of q) send();
}

function dispatch(st: BridgeState, e: EmbedEvent): void {
  switch (e.type) {
    case "svc:event:ready":
      onReady(st, e.payload);
      break;
    case "svc:event:session-expiring":
    case "svc:event:session-expired":
      // Both may fire for one session (and expiring may come late): renew once per session.
      if (st.renewedGen !== st.sessionGen && !st.renewing) void renew(st);
      break;
    case "svc:event:error":
      if (e.payload.context === "session-renewal") {
        // The session we sent was refused; the next expiring/expired may try again.
        st.renewedGen = -1;
        fail(st, new EmbedSessionExchangeError(e.payload.message));
      }
      break;
    default:
      break;
  }
  for (const l of st.listeners.get(e.type) ?? []) l(e.payload, e);
  for (const l of st.any) l(e);
}

/** One incoming message: acted on only from the tenant origin and as a valid event; never throws. */
function receive(st: BridgeState, m: IncomingMessage): void {
  if (st.closed) return;
  try {
    if (m.origin !== st.origin) return st.debug(`ignored a message from ${m.origin} (expected ${st.origin})`);
    const d = m.data as { source?: unknown } | null;
    if (typeof d !== "object" || d === null || d.source !== EMBED_SOURCE)
      return st.debug("ignored a message whose source is not svc-embed");
    const r = parseEvent(m.data);
    if (!r.ok) return st.debug(`ignored: ${r.reason}`);
    dispatch(st, r.value);
  } catch (err) {
    // A listener's bug must not stop the next message.
    st.debug(`a listener failed: ${(err as Error)?.message ?? err}`);
  }
}

function whenReady(st: BridgeState, deadlineMs: number, signal?: AbortSignal): Promise<ReadyPayload> {
  if (st.ready) return Promise.resolve(st.ready);
  return new Promise((resolve, reject) => {
    const done = (p: ReadyPayload) => {
      clearTimeout(t);
      signal?.removeEventListener("abort", onAbort);
      resolve(p);
    };
    const t = setTimeout(() => {
      st.readyWaiters.delete(done);
      reject(new TimeoutError(`The dashboard did not say ready within ${Math.round(deadlineMs / 100) / 10} s`, deadlineMs));
    }, deadlineMs);
    const onAbort = () => {
      clearTimeout(t);
      st.readyWaiters.delete(done);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    st.readyWaiters.add(done);
  });
}

export function createEmbedBridge(o: BridgeOptions): EmbedBridge {
  const st = bridgeState(o);
  const unsubscribe = o.port.subscribe((m) => receive(st, m));
  return {
    on(type, listener) {
      let set = st.listeners.get(type);
      if (!set) st.listeners.set(type, (set = new Set()));
      const l = listener as (p: unknown, e: EmbedEvent) => void;
      set.add(l);
      return () => set.delete(l);
    },
    onAny(listener) {
      st.any.add(listener);
      return () => st.any.delete(listener);
    },
    send(type, payload) {
      if (st.closed) return;
      if (st.ready) post(st, type, payload);
      else st.queue.push(() => post(st, type, payload));
    },
    whenReady: (deadlineMs, signal) => whenReady(st, deadlineMs, signal),
    renew: () => renew(st),
    onRenewalError(listener) {
      st.renewalErrors.add(listener);
      return () => st.renewalErrors.delete(listener);
    },
    get renewals() {
      return st.renewals;
    },
    close() {
      st.closed = true;
      st.queue = [];
      st.readyWaiters.clear();
      unsubscribe();
    },
  };
}
