// The deployment-token manager: mints a data-API token with POST
// /api/v1/deployments/{id}/token and renews it before it expires (at 80% of its
// lifetime, and at least 60 s early). Concurrent callers share one mint in flight.
//
// The shared mint runs on its own AbortController with its own deadline, never on the first
// caller's signal: each caller races its own signal against the shared promise, so one caller's
// cancel ends only that caller's wait (the mint goes on for the others).
import type { PlatformClient } from "./management-client";
import type { TokenProvider } from "./data-client";
import type { DeploymentToken } from "./schemas/management";
import { TimeoutError } from "./errors";
import { DEFAULT_DEADLINES } from "./deadlines";

export interface DeploymentTokenManagerOptions {
  client: Pick<PlatformClient, "createDeploymentToken">;
  deploymentId: number;
  /** Requested lifetime in seconds (60..86400); the platform's default (24 h) when omitted. */
  expiresIn?: number;
  /** A mint (with its retries) ends by then with a TimeoutError; DEFAULT_DEADLINES.tokenMintMs by default. */
  mintDeadlineMs?: number;
  now?: () => number;
}

export interface DeploymentTokenManager extends TokenProvider {
  /** The token's expiry (ms since epoch), or null before the first mint. */
  expiresAt(): number | null;
}

/** When to renew a token that lives from `mintedAt` to `expiresAt` (ms). */
export function renewAt(mintedAt: number, expiresAt: number): number {
  const life = expiresAt - mintedAt;
  return Math.min(mintedAt + life * 0.8, expiresAt - Math.min(60_000, life / 2));
}

/** `p`, unless `signal` aborts first (then its reason); `p` itself goes on. */
function raceCaller<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

export function createDeploymentTokenManager(o: DeploymentTokenManagerOptions): DeploymentTokenManager {
  const now = o.now ?? Date.now;
  const mintMs = o.mintDeadlineMs ?? DEFAULT_DEADLINES.tokenMintMs;
  let current: { token: string; renewAt: number; expiresAt: number } | null = null;
  let inflight: Promise<string> | null = null;

  async function mint(): Promise<string> {
    const mintedAt = now();
    const ctl = new AbortController();
    const what = `POST /api/v1/deployments/${o.deploymentId}/token`;
    const t = setTimeout(() => ctl.abort(new TimeoutError(`${what}: no token within ${mintMs / 1000} s`, mintMs)), mintMs);
    try {
      const res: DeploymentToken = await raceCaller(
        o.client.createDeploymentToken(o.deploymentId, o.expiresIn === undefined ? {} : { expiresIn: o.expiresIn }, ctl.signal),
        ctl.signal,
      );
      const expiresAt = Math.min(Date.parse(res.expiresAt), mintedAt + res.expiresIn * 1000);
      current = { token: res.token, expiresAt, renewAt: renewAt(mintedAt, expiresAt) };
      return res.token;
    } finally {
      clearTimeout(t);
    }
  }

  return {
    async getToken(signal) {
      if (signal?.aborted) throw signal.reason; // (throwIfAborted is missing in older WebKit)
      if (current && now() < current.renewAt) return current.token;
      inflight ??= mint().finally(() => {
        inflight = null;
      });
      return raceCaller(inflight, signal);
    },
    invalidate() {
      current = null;
    },
    expiresAt: () => current?.expiresAt ?? null,
  };
}
