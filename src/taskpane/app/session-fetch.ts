// The fetch of one signed-in workspace: every request of that session (the platform, the data API,
// chat, comments, dashboards) goes through it, so that once the session ends (sign-out, another
// deployment) a request still in flight is aborted and no new one leaves with its key (issue 36 item 18).
import { anySignal } from "../../api/http";

export interface SessionFetch {
  fetch: typeof fetch;
  /** End the session: requests in flight are aborted, later ones fail without being sent. */
  end(): void;
  readonly ended: boolean;
}

/** Why a request of an ended session was not sent (an AbortError: callers treat it as stopped). */
export function sessionEndedError(): DOMException {
  return new DOMException("Signed out: the request was not sent.", "AbortError");
}

export function sessionFetch(inner: typeof fetch = (input, init) => globalThis.fetch(input, init)): SessionFetch {
  const session = new AbortController();
  const f = ((input: RequestInfo | URL, init?: RequestInit) => {
    if (session.signal.aborted) return Promise.reject(sessionEndedError());
    const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const { signal, dispose } = anySignal([own ?? undefined, session.signal]);
    return inner(input, { ...init, signal }).finally(dispose);
  }) as typeof fetch;
  return {
    fetch: f,
    end: () => session.abort(sessionEndedError()),
    get ended() {
      return session.signal.aborted;
    },
  };
}
