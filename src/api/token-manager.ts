// The deployment-token manager: mints a data-API token with POST
// /api/v1/deployments/{id}/token and renews it before it expires (at 80% of its
// lifetime, and at least 60 s early). Concurrent callers share one mint in flight.
import type { PlatformClient } from "./management-client";
import type { TokenProvider } from "./data-client";
import type { DeploymentToken } from "./schemas/management";

export interface DeploymentTokenManagerOptions {
  client: Pick<PlatformClient, "createDeploymentToken">;
  deploymentId: number;
  /** Requested lifetime in seconds (60..86400); the platform's default (24 h) when omitted. */
  expiresIn?: number;
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

export function createDeploymentTokenManager(o: DeploymentTokenManagerOptions): DeploymentTokenManager {
  const now = o.now ?? Date.now;
  let current: { token: string; renewAt: number; expiresAt: number } | null = null;
  let inflight: Promise<string> | null = null;

  async function mint(signal?: AbortSignal): Promise<string> {
    const mintedAt = now();
    const t: DeploymentToken = await o.client.createDeploymentToken(
      o.deploymentId, o.expiresIn === undefined ? {} : { expiresIn: o.expiresIn }, signal,
    );
    const expiresAt = Math.min(Date.parse(t.expiresAt), mintedAt + t.expiresIn * 1000);
    current = { token: t.token, expiresAt, renewAt: renewAt(mintedAt, expiresAt) };
    return t.token;
  }

  return {
    async getToken(signal) {
      if (current && now() < current.renewAt) return current.token;
      inflight ??= mint(signal).finally(() => { inflight = null; });
      return inflight;
    },
    invalidate() {
      current = null;
    },
    expiresAt: () => current?.expiresAt ?? null,
  };
}
