// Credentials of the stand-in: one API key per persona (random per data dir, kept in the
// database) for the management API, and HS256 JWTs for the data API and the chat API. Two kinds of
// deployment token, told apart by the key that signed them:
//   - minted by POST /api/v1/deployments/{id}/token for a console user (`sub` = their email), signed
//     with the deployment's mint secret, which never leaves the platform;
//   - signed by a customer backend for its own end users with the deployment's `apiSecret` (on the
//     start line; seed 03 §5.2).
// The data API takes both. Only a minted token acts as a console user: a customer holds the
// apiSecret, so whatever its claims say, its token names an external user (docs/API.md §10).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { DEPLOYMENTS, USERS, type PersonaName, type User } from "./personas";
import type { Store } from "./store";
import type { Clock } from "./clock";

/** Claims of a token minted by the platform: `sub` is the user's email (a string). */
export interface DataClaims {
  sub: string;
  deploymentId: number;
  scope: string[];
  iat: number;
  exp: number;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");

export class Credentials {
  private constructor(
    readonly apiSecrets: Record<number, string>,
    /** Per deployment: signs the tokens the platform mints for console users (never handed out). */
    private readonly mintSecrets: Record<number, string>,
    readonly apiKeys: Record<PersonaName, string>,
    readonly clock: Clock,
  ) {}

  /** Loads (or creates and persists) the JWT secret and the persona API keys. */
  static async load(store: Store, clock: Clock): Promise<Credentials> {
    const fresh: Record<string, string> = {};
    const get = (k: string, make: () => string) => {
      const v = store.meta.get(k);
      if (v) return v;
      fresh[k] = make();
      return fresh[k]!;
    };
    const secrets = Object.fromEntries(DEPLOYMENTS.map((d) => [d.id, get(`apiSecret.${d.id}`, () => randomBytes(32).toString("hex"))]));
    const mint = Object.fromEntries(DEPLOYMENTS.map((d) => [d.id, get(`mintSecret.${d.id}`, () => randomBytes(32).toString("hex"))]));
    const keys = Object.fromEntries(
      USERS.map((u) => [u.persona, get(`apiKey.${u.persona}`, () => `cbk_${u.persona}_${randomBytes(18).toString("base64url")}`)]),
    ) as Record<PersonaName, string>;
    if (Object.keys(fresh).length) await store.commit({ meta: fresh });
    return new Credentials(secrets, mint, keys, clock);
  }

  /** The user behind `Authorization: Bearer <key>`, or null. */
  userForBearer(header: string | undefined): User | null {
    const m = /^Bearer (\S+)$/.exec(header ?? "");
    return m ? this.userForKey(m[1]!) : null;
  }

  /** The user whose API key this is (the raw key, as sent after `Api-Key `), or null. */
  userForKey(key: string): User | null {
    const given = Buffer.from(key);
    for (const u of USERS) {
      const k = Buffer.from(this.apiKeys[u.persona]);
      if (k.length === given.length && timingSafeEqual(k, given)) return u;
    }
    return null;
  }

  /** A token minted for a console user (signed with the deployment's mint secret). */
  sign(claims: DataClaims): string {
    return signJwt(claims, this.mintSecrets[claims.deploymentId]!);
  }

  /** Verified, unexpired claims of a data-API token (minted, or signed with its deploymentId's apiSecret), or null. */
  verify(token: string, nowSec = this.clock.nowSec()): DataClaims | null {
    const body = jwtPayload(token);
    const deploymentId = body?.deploymentId;
    if (typeof deploymentId !== "number" || !this.apiSecrets[deploymentId]) return null;
    const c = (verifyJwt(token, this.mintSecrets[deploymentId]!, nowSec) ??
      verifyJwt(token, this.apiSecrets[deploymentId], nowSec)) as DataClaims | null;
    return c && typeof c.exp === "number" ? c : null;
  }

  /** The claims of a token the platform minted for `deploymentId` (valid, unexpired), or null: only these act as a console user. */
  verifyMinted(token: string, deploymentId: number, nowSec = this.clock.nowSec()): Record<string, unknown> | null {
    const secret = this.mintSecrets[deploymentId];
    return secret ? verifyJwt(token, secret, nowSec) : null;
  }
}

/** An HS256 JWT of `claims`. */
export function signJwt(claims: object, secret: string): string {
  const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const sig = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${sig}`;
}

/** The payload of a JWT, unverified (only to pick the secret to verify it with). */
function jwtPayload(token: string): Record<string, unknown> | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(parts[1]!, "base64url").toString());
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The payload when the HS256 signature is right and `exp` (required) is in the future; else null. */
export function verifyJwt(token: string, secret: string, nowSec: number): Record<string, unknown> | null {
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [head, body, sig] = parts as [string, string, string];
  try {
    const h: unknown = JSON.parse(Buffer.from(head, "base64url").toString());
    if (!h || typeof h !== "object" || (h as { alg?: unknown }).alg !== "HS256") return null;
  } catch {
    return null;
  }
  const want = createHmac("sha256", secret).update(`${head}.${body}`).digest();
  const got = Buffer.from(sig, "base64url");
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  const c = jwtPayload(token);
  if (!c || typeof c.exp !== "number" || c.exp <= nowSec) return null;
  return c;
}
