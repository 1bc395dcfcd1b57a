// Embed sessions for our own calls (seeds 02 §3.3, §4.2, §5): a session id comes from the host
// organisation's session URL (its backend calls generate-session with an admin key that never reaches
// the browser), is exchanged once at POST /api/v1/embed/session/token (no Authorization: the id is
// the credential) for an embed token, kept in memory only, and renewed before it stops working.
// Shaped like token-manager.ts: one mint in flight shared by concurrent callers; invalidate() drops a
// token the server refused (callers re-mint once on 401).
import { ApiError, InvalidResponseError } from "../errors";
import { buildUrl, errorDetails, parseBody, parseJsonBody, sendRaw, type FetchLike } from "../http";
import { deadlinesWith, type Deadlines } from "../deadlines";
import { managementError } from "../management-client";
import { renewAt } from "../token-manager";
import { EMBED_LIMITS, EmbedToken, SessionMinted } from "./schemas";

/** The session URL failed (not reachable is a NetworkError; this is an answer we cannot use). */
export class EmbedSessionError extends ApiError {
  readonly kind = "embed-session";
}

export interface EmbedSessionOptions {
  /** The platform's base URL (where session/token lives). */
  baseUrl: string;
  /** The host organisation's session URL: POST → {"sessionId"}. */
  sessionUrl: string;
  /** JSON body sent to the session URL (who the viewer is, for a broker that needs it); default {}. */
  sessionRequest?: Record<string, unknown>;
  fetch?: FetchLike;
  /** `tokenMintMs` bounds getting a session id and exchanging it (each step). */
  deadlines?: Partial<Deadlines>;
  now?: () => number;
}

/** Where embed calls get their token; `invalidate(failed)` drops that token only (not a newer one). */
export interface EmbedTokenSource {
  getToken(signal?: AbortSignal): Promise<string>;
  invalidate?(failed?: string): void;
}

/** Usable wherever a TokenProvider is (getToken + invalidate). */
export interface EmbedSession extends EmbedTokenSource {
  invalidate(failed?: string): void;
  /** When the current token stops working (ms), or null before the first exchange. */
  expiresAt(): number | null;
  /** A fresh session id from the session URL, unexchanged (for an iframe; never cached ahead). */
  mintSessionId(signal?: AbortSignal): Promise<string>;
}

/** fetch without an Authorization header when none is given (session/token takes none). */
function withoutEmptyAuthorization(f: FetchLike): FetchLike {
  return (url, init) => {
    const headers = { ...(init.headers as Record<string, string>) };
    if (!headers.Authorization) delete headers.Authorization;
    return f(url, { ...init, headers });
  };
}

export function createEmbedSession(o: EmbedSessionOptions): EmbedSession {
  const now = o.now ?? Date.now;
  const doFetch = withoutEmptyAuthorization(o.fetch ?? ((u, i) => fetch(u, i)));
  const limits = deadlinesWith(o.deadlines);
  let current: { token: string; renewAt: number; expiresAt: number } | null = null;

  /** One POST of a JSON body without credentials; never retried here (a session id is single-use). */
  const post = (url: string, body: unknown, signal?: AbortSignal) =>
    sendRaw({
      fetch: doFetch,
      method: "POST",
      url,
      authorization: "",
      body,
      signal,
      deadlineMs: limits.tokenMintMs,
      maxBytes: limits.maxResponseBytes,
    });
  let inflight: Promise<string> | null = null;

  async function mintSessionId(signal?: AbortSignal): Promise<string> {
    const what = "POST (session URL)";
    const res = await post(buildUrl(o.sessionUrl, ""), o.sessionRequest ?? {}, signal);
    if (res.status < 200 || res.status > 299) {
      const d = errorDetails(res.bytes);
      throw new EmbedSessionError(`The session URL answered ${res.status}${d.message ? `: ${d.message}` : ""}`, res.status, d.json);
    }
    const json = parseJsonBody(res, what);
    const r = SessionMinted.safeParse(json);
    if (!r.success) throw new InvalidResponseError(`${what}: the answer has no sessionId`, res.status, json);
    return r.data.sessionId;
  }

  async function mint(signal?: AbortSignal): Promise<string> {
    const sessionId = await mintSessionId(signal);
    const mintedAt = now();
    const what = "POST /api/v1/embed/session/token";
    const res = await post(buildUrl(o.baseUrl, "/api/v1/embed/session/token"), { sessionId }, signal);
    if (res.status < 200 || res.status > 299) {
      const d = errorDetails(res.bytes);
      throw managementError(res.status, d.json, what, "other", { excerpt: d.message, headers: res.headers });
    }
    const t = parseBody(EmbedToken, parseJsonBody(res, what), what, res.status);
    // The token is nominally good for 24 h but usable about 23 (§2.4): renew well inside that.
    const expiresAt = Math.min(Date.parse(t.expiresAt), mintedAt + EMBED_LIMITS.tokenUsableMs);
    current = { token: t.token, expiresAt, renewAt: renewAt(mintedAt, expiresAt) };
    return t.token;
  }

  return {
    async getToken(signal) {
      if (current && now() < current.renewAt) return current.token;
      inflight ??= mint(signal).finally(() => {
        inflight = null;
      });
      return inflight;
    },
    invalidate(failed?: string) {
      // Two calls refused at once must not throw away the token the first one already re-minted.
      if (failed === undefined || current?.token === failed) current = null;
    },
    expiresAt: () => current?.expiresAt ?? null,
    mintSessionId,
  };
}
