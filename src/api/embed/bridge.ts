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

export function createEmbedBridge(o: BridgeOptions): EmbedBridge {
  const origin = normalizeOrigin(o.tenantOrigin);
  if (!origin) throw new Error(`The tenant origin must be scheme://host[:port], not ${JSON.stringify(o.tenantOrigin)}`);
  const debug = o.debug ?? ((m: string) => console.debug(`[embed] ${m}`));
  const now = o.now ?? Date.now;
  const listeners = new Map<EventType, Set<(p: unknown, e: EmbedEvent) => void>>();
  const any = new Set<(e: EmbedEvent) => void>();
  const renewalErrors = new Set<(e: Error) => void>();
  let ready: EventPayload<"svc:event:ready"> | null = null;
  const readyWaiters = new Set<(p: EventPayload<"svc:event:ready">) => void>();
  let queue: Array<() => void> = [];
  let closed = false;
  /** Sessions seen (each ready is one); the session a renewal was already sent for. */
  let sessionGen = 0;
  let renewedGen = -1;
  let renewing: Promise<void> | null = null;
  let renewals = 0;

  const post = (type: ActionType, payload: unknown) => {
    o.port.post(makeAction(type, payload as never, now()), origin);
  };

  const fail = (e: Error) => {
    for (const l of renewalErrors) l(e);
  };

  function renew(): Promise<void> {
    if (closed) return Promise.resolve();
    if (!o.mintSessionId) {
      fail(new Error("No session URL is configured: the dashboard cannot renew its session."));
      return Promise.resolve();
    }
    const mint = o.mintSessionId;
    renewing ??= (async () => {
      try {
        const sessionId = await mint();
        if (closed) return;
        renewedGen = sessionGen;
        renewals++;
        post("svc:action:set-session", { sessionId });
      } catch (e) {
        fail(e instanceof Error ? e : new Error(String(e)));
      }
    })().finally(() => {
      renewing = null;
    });
    return renewing;
  }

  function dispatch(e: EmbedEvent) {
    switch (e.type) {
      case "svc:event:ready":
        sessionGen++;
        if (!ready) {
          ready = e.payload;
          for (const w of readyWaiters) w(e.payload);
          readyWaiters.clear();
          const q = queue;
          queue = [];
          for (const send of q) send();
        }
        break;
      case "svc:event:session-expiring":
      case "svc:event:session-expired":
        // Both may fire for one session (and expiring may come late): renew once per session.
        if (renewedGen !== sessionGen && !renewing) void renew();
        break;
      case "svc:event:error":
        if (e.payload.context === "session-renewal") {
          // The session we sent was refused; the next expiring/expired may try again.
          renewedGen = -1;
          fail(new EmbedSessionExchangeError(e.payload.message));
        }
        break;
      default:
        break;
    }
    for (const l of listeners.get(e.type) ?? []) l(e.payload, e);
    for (const l of any) l(e);
  }

  const unsubscribe = o.port.subscribe((m) => {
    if (closed) return;
    try {
      if (m.origin !== origin) return debug(`ignored a message from ${m.origin} (expected ${origin})`);
      const d = m.data as { source?: unknown } | null;
      if (typeof d !== "object" || d === null || d.source !== EMBED_SOURCE) return debug("ignored a message whose source is not svc-embed");
      const r = parseEvent(m.data);
      if (!r.ok) return debug(`ignored: ${r.reason}`);
      dispatch(r.value);
    } catch (err) {
      // A listener's bug must not stop the next message.
      debug(`a listener failed: ${(err as Error)?.message ?? err}`);
    }
  });

  return {
    on(type, listener) {
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      const l = listener as (p: unknown, e: EmbedEvent) => void;
      set.add(l);
      return () => set.delete(l);
    },
    onAny(listener) {
      any.add(listener);
      return () => any.delete(listener);
    },
    send(type, payload) {
      if (closed) return;
      if (ready) post(type, payload);
      else queue.push(() => post(type, payload));
    },
    whenReady(deadlineMs, signal) {
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const done = (p: EventPayload<"svc:event:ready">) => {
          clearTimeout(t);
          signal?.removeEventListener("abort", onAbort);
          resolve(p);
        };
        const t = setTimeout(() => {
          readyWaiters.delete(done);
          reject(new TimeoutError(`The dashboard did not say ready within ${Math.round(deadlineMs / 100) / 10} s`, deadlineMs));
        }, deadlineMs);
        const onAbort = () => {
          clearTimeout(t);
          readyWaiters.delete(done);
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        readyWaiters.add(done);
      });
    },
    renew,
    onRenewalError(listener) {
      renewalErrors.add(listener);
      return () => renewalErrors.delete(listener);
    },
    get renewals() {
      return renewals;
    },
    close() {
      closed = true;
      queue = [];
      readyWaiters.clear();
      unsubscribe();
    },
  };
}
