// Credentials of the stand-in: one API key per persona (random per data dir, kept in the
// database) for the management API, and HS256 JWTs for the data API, minted by
// POST /api/v1/deployments/{id}/token and signed with a per-data-dir secret.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { USERS, type PersonaName, type User } from "./personas";
import type { Store } from "./store";
import type { Clock } from "./clock";

export interface DataClaims { sub: number; deploymentId: number; iat: number; exp: number }

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");

export class Credentials {
  private constructor(private readonly secret: string, readonly apiKeys: Record<PersonaName, string>, readonly clock: Clock) {}

  /** Loads (or creates and persists) the JWT secret and the persona API keys. */
  static async load(store: Store, clock: Clock): Promise<Credentials> {
    const fresh: Record<string, string> = {};
    const get = (k: string, make: () => string) => {
      const v = store.meta.get(k);
      if (v) return v;
      fresh[k] = make();
      return fresh[k]!;
    };
    const secret = get("jwtSecret", () => randomBytes(32).toString("hex"));
    const keys = Object.fromEntries(USERS.map((u) => [u.persona, get(`apiKey.${u.persona}`, () => `cbk_${u.persona}_${randomBytes(18).toString("base64url")}`)])) as Record<PersonaName, string>;
    if (Object.keys(fresh).length) await store.commit({ meta: fresh });
    return new Credentials(secret, keys, clock);
  }

  /** The user behind `Authorization: Bearer <key>`, or null. */
  userForBearer(header: string | undefined): User | null {
    const m = /^Bearer (\S+)$/.exec(header ?? "");
    if (!m) return null;
    for (const u of USERS) {
      const key = Buffer.from(this.apiKeys[u.persona]);
      const given = Buffer.from(m[1]!);
      if (key.length === given.length && timingSafeEqual(key, given)) return u;
    }
    return null;
  }

  sign(claims: DataClaims): string {
    const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    const body = b64url(JSON.stringify(claims));
    const sig = createHmac("sha256", this.secret).update(`${head}.${body}`).digest("base64url");
    return `${head}.${body}.${sig}`;
  }

  /** Verified, unexpired claims, or null. */
  verify(token: string, nowSec = this.clock.nowSec()): DataClaims | null {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const [head, body, sig] = parts as [string, string, string];
    const want = createHmac("sha256", this.secret).update(`${head}.${body}`).digest();
    const got = Buffer.from(sig, "base64url");
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
    try {
      const c = JSON.parse(Buffer.from(body, "base64url").toString()) as DataClaims;
      if (typeof c.exp !== "number" || c.exp <= nowSec || typeof c.deploymentId !== "number") return null;
      return c;
    } catch {
      return null;
    }
  }
}
