// Embedded dashboards in the stand-in (seeds 02 §2.4, §3.3, §4.2, §5): the seeded published
// dashboards, embed tenants and branches; embed sessions (single-use ids, 5 minutes), their embed
// tokens (HS256 JWTs, 24 h nominal, usable 23 h), revocation, embed users per tenant, and the
// check of an `Authorization` header on the embed endpoints. HTTP-free: the routes call it.
// Embed users persist (embed-store.ts); sessions and their revocation state live in memory (a restart
// forgets them: every token then answers 401 and clients mint a new session), as docs/API.md says.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  EMBED_LIMITS,
  type EmbedDashboard,
  type GenerateSessionInput,
  type SessionSettings,
  type EmbedTheme,
} from "../../src/api/embed/schemas";
import { ACCOUNT_NAME, USERS, type User } from "./personas";
import { HttpProblem } from "./service";
import type { Credentials } from "./auth";
import type { Clock } from "./clock";
import type { Store } from "./store";
import type { Db } from "./db";
import { EmbedStore } from "./embed-store";

/** Embed tenants seeded for the demo and the tests (the start line lists them; the first may read the restricted dashboard). */
export const EMBED_TENANTS = ["acme-retail", "globex-wholesale"] as const;

/** Branches of deployment 1 (§4.2 note 1): production, one with a runtime running, one with nothing running. */
export const BRANCHES = [
  { name: "main", running: true },
  { name: "feature-margins", running: true },
  { name: "feature-archive", running: false },
] as const;

export interface SeededDashboard extends EmbedDashboard {
  deploymentId: number;
  reportIds: number[];
  /** Embed tenants that may read it ("all": every tenant). Console users read it with a role in its deployment. */
  tenants: "all" | string[];
}

const byStatus = { measures: ["orders.count"], dimensions: ["orders.status"] };
const byMonth = {
  measures: ["orders.total_amount"],
  timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2025-01-01", "2025-12-31"] }],
};
const bySegment = { measures: ["orders.total_amount"], dimensions: ["customers.segment"] };

export const DASHBOARDS: SeededDashboard[] = [
  {
    publicId: "SalesDash001",
    title: "Sales overview",
    deploymentId: 1,
    // The demo's Revenue by month (6) and Orders by status and region (8) are on it: their Comments
    // and Dashboard tabs open it for a new user.
    reportIds: [2, 1, 6, 8],
    tenants: "all",
    widgets: [
      { id: "w-status", title: "Orders by status", query: byStatus, chart: "bar" },
      { id: "w-month", title: "Revenue by month (2025)", query: byMonth, chart: "line" },
    ],
  },
  {
    publicId: "AcmeDash0002",
    title: "Acme retail margins",
    deploymentId: 1,
    reportIds: [1],
    tenants: [EMBED_TENANTS[0]],
    widgets: [{ id: "w-segment", title: "Revenue by segment", query: bySegment, chart: "bar" }],
  },
  {
    publicId: "CustDash0004",
    title: "Customer overview",
    deploymentId: 1,
    reportIds: [7], // the demo's Top customers
    tenants: "all",
    widgets: [
      { id: "w-segment", title: "Revenue by segment", query: bySegment, chart: "bar" },
      { id: "w-status", title: "Orders by status", query: byStatus, chart: "bar" },
    ],
  },
  {
    publicId: "FinDash00003",
    title: "Finance overview",
    deploymentId: 2,
    reportIds: [5],
    tenants: "all",
    widgets: [{ id: "w-status", title: "Orders by status", query: byStatus, chart: "bar" }],
  },
];

export const seededEmbed = {
  tenants: [...EMBED_TENANTS],
  dashboards: { shared: DASHBOARDS[0]!.publicId, restricted: DASHBOARDS[1]!.publicId },
  branches: { running: BRANCHES[1].name, stopped: BRANCHES[2].name },
};

export interface EmbedUser {
  id: number;
  tenant: string;
  username: string;
  email: string | null;
  firstName: string | null;
}

interface Session {
  id: string;
  mintedAt: number;
  redeemed: boolean;
  revoked: boolean;
  /** External sessions: an embed user of a tenant; internal ones: a console user (no tenant). */
  principal: { kind: "external"; user: EmbedUser } | { kind: "internal"; user: User };
  branchName: string | null;
  theme: EmbedTheme | null;
  settings: SessionSettings;
}

/** Who an embed token speaks for. */
export type EmbedCaller =
  { kind: "external"; sessionId: string; user: EmbedUser; tenant: string } | { kind: "internal"; sessionId: string; user: User };

interface EmbedClaims {
  typ: "embed";
  sid: string;
  iat: number;
  exp: number;
}

const b64url = (s: string) => Buffer.from(s).toString("base64url");

/**
 * The key of an embed user: the exact tenant name and externalId, as a JSON pair. A separator
 * character would let ("acme", "x<sep>y") and ("acme<sep>x", "y") meet in one key, and so one tenant's
 * session act in another's; JSON escapes every character it could be (control characters are refused
 * at the door too, docs/API.md §4).
 */
const userKey = (tenant: string, externalId: string) => JSON.stringify([tenant, externalId]);

export class EmbedService {
  private readonly sessions = new Map<string, Session>();
  private readonly users = new Map<string, EmbedUser>();
  private nextUserId = 1;

  private constructor(
    private readonly secret: string,
    private readonly creds: Credentials,
    readonly clock: Clock,
    /** Persists embed users and, through CommentService, comments. */
    readonly persist: EmbedStore<EmbedUser, { id: number }>,
  ) {
    for (const u of persist.users) {
      this.users.set(userKey(u.tenant, u.username), u);
      this.nextUserId = Math.max(this.nextUserId, u.id + 1);
    }
  }

  /** Loads (or creates and persists) the embed-token signing secret, and the embed users. */
  static async load(store: Store, db: Db, creds: Credentials, clock: Clock): Promise<EmbedService> {
    let secret = store.meta.get("embedSecret");
    if (!secret) {
      secret = randomBytes(32).toString("hex");
      await store.commit({ meta: { embedSecret: secret } });
    }
    return new EmbedService(secret, creds, clock, await EmbedStore.load(db));
  }

  dashboard(publicId: string): SeededDashboard | undefined {
    return DASHBOARDS.find((d) => d.publicId === publicId);
  }

  canRead(caller: EmbedCaller, d: SeededDashboard): boolean {
    if (caller.kind === "internal") return caller.user.roles[d.deploymentId] !== undefined;
    return d.tenants === "all" || d.tenants.includes(caller.tenant);
  }

  /** §4.1 rule 2: looked up first (404), then checked (403). */
  readableDashboard(caller: EmbedCaller, publicId: string): SeededDashboard {
    const d = this.dashboard(publicId);
    if (!d) throw new HttpProblem(404, `Dashboard ${publicId} not found`);
    if (!this.canRead(caller, d)) throw new HttpProblem(403, `This session cannot read dashboard ${publicId}`);
    return d;
  }

  /** The embed users of one tenant (mentionable users, §4.1 rule 7). */
  tenantUsers(tenant: string): EmbedUser[] {
    return [...this.users.values()].filter((u) => u.tenant === tenant);
  }

  // ---- sessions ---------------------------------------------------------------------------

  /** generate-session (§4.2): `admin` already checked by the route. */
  async generate(input: GenerateSessionInput): Promise<string> {
    let branchName: string | null = null;
    if (input.branchName !== undefined) {
      const b = BRANCHES.find((x) => x.name === input.branchName);
      if (!b) throw new HttpProblem(404, `Branch ${input.branchName} is not a branch of this deployment`, undefined, "branchName");
      if (!b.running)
        throw new HttpProblem(
          400,
          `Branch ${input.branchName} has nothing running: open it in the console, or give it a staging environment`,
          "branch_not_running",
          "branchName",
        );
      branchName = b.name;
    }
    let principal: Session["principal"];
    if (input.internalId !== undefined) {
      const u = USERS.find((x) => x.email.toLowerCase() === input.internalId!.toLowerCase());
      if (!u) throw new HttpProblem(400, `internalId: no console user has the email ${input.internalId}`, "invalid", "internalId");
      principal = { kind: "internal", user: u };
    } else {
      principal = { kind: "external", user: await this.embedUser(input.embedTenantName ?? ACCOUNT_NAME, input.externalId!, input) };
    }
    const id = randomBytes(24).toString("base64url");
    this.sessions.set(id, {
      id,
      mintedAt: this.clock.now(),
      redeemed: false,
      revoked: false,
      principal,
      branchName,
      theme: input.embedTheme ?? null,
      settings: input.settings ?? {},
    });
    return id;
  }

  /** An embed user is created on the tenant's first session for an externalId; later sessions may update email/firstName. */
  private async embedUser(
    tenant: string,
    externalId: string,
    input: { email?: string | undefined; firstName?: string | undefined },
  ): Promise<EmbedUser> {
    const key = userKey(tenant, externalId);
    const had = this.users.get(key);
    const u: EmbedUser = had ? { ...had } : { id: this.nextUserId++, tenant, username: externalId, email: null, firstName: null };
    if (input.email !== undefined) u.email = input.email;
    if (input.firstName !== undefined) u.firstName = input.firstName;
    if (!had || had.email !== u.email || had.firstName !== u.firstName) {
      await this.persist.saveUser(u);
      // Sessions hold the user object: update it in place once committed.
      if (had) Object.assign(had, u);
      else this.users.set(key, u);
    }
    return had ?? u;
  }

  /** session/token (§3.3): single use, within 5 minutes, not revoked; else 401. */
  exchange(sessionId: string): { token: string; expiresAt: string } {
    const s = this.sessions.get(sessionId);
    const now = this.clock.now();
    if (!s || s.redeemed || s.revoked || now - s.mintedAt >= EMBED_LIMITS.sessionIdTtlMs) {
      throw new HttpProblem(401, "This session id is unknown, expired, revoked or already redeemed: mint a new session");
    }
    s.redeemed = true;
    const iat = Math.floor(now / 1000);
    const exp = iat + EMBED_LIMITS.tokenLifetimeMs / 1000;
    return { token: this.sign({ typ: "embed", sid: s.id, iat, exp }), expiresAt: new Date(exp * 1000).toISOString() };
  }

  /** revoke (§4.2 note 2): idempotent; unknown ids are fine. */
  revoke(sessionId: string): void {
    const s = this.sessions.get(sessionId);
    if (s) s.revoked = true;
  }

  // ---- tokens -----------------------------------------------------------------------------

  private sign(c: EmbedClaims): string {
    const head = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
    const body = b64url(JSON.stringify(c));
    const sig = createHmac("sha256", this.secret).update(`${head}.${body}`).digest("base64url");
    return `${head}.${body}.${sig}`;
  }

  private verify(token: string): EmbedClaims | null {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    const [head, body, sig] = parts as [string, string, string];
    const want = createHmac("sha256", this.secret).update(`${head}.${body}`).digest();
    const got = Buffer.from(sig, "base64url");
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
    try {
      const c = JSON.parse(Buffer.from(body, "base64url").toString()) as EmbedClaims;
      return c.typ === "embed" && typeof c.sid === "string" && typeof c.iat === "number" ? c : null;
    } catch {
      return null;
    }
  }

  /**
   * The caller behind `Authorization: Embed-Token <t>` (prefix case-sensitive) or `Bearer <t>`.
   * 401: missing, malformed, unknown, expired or revoked. 403: a management API key or a console
   * (data-API) token — credentials that carry no embed session (§5.2).
   */
  caller(header: string | undefined): EmbedCaller {
    const m = /^(?:Embed-Token|Bearer) (\S+)$/.exec(header ?? "");
    if (!m) throw new HttpProblem(401, "Send Authorization: Embed-Token <embed token>");
    const token = m[1]!;
    if (this.creds.userForBearer(`Bearer ${token}`) || this.creds.verify(token)) {
      throw new HttpProblem(403, "A management credential carries no embed tenant: use an embed token from an externalId session");
    }
    const c = this.verify(token);
    const s = c ? this.sessions.get(c.sid) : undefined;
    if (!c || !s || s.revoked || this.clock.now() >= c.iat * 1000 + EMBED_LIMITS.tokenUsableMs) {
      throw new HttpProblem(401, "The embed token is invalid, expired or revoked: mint a new session");
    }
    return s.principal.kind === "external"
      ? { kind: "external", sessionId: s.id, user: s.principal.user, tenant: s.principal.user.tenant }
      : { kind: "internal", sessionId: s.id, user: s.principal.user };
  }

  /** True when the header carries a live embed session's token (routes that reject embed sessions answer 403 for it). */
  isEmbedSession(header: string | undefined): boolean {
    try {
      this.caller(header);
      return true;
    } catch {
      return false;
    }
  }

  /** The comment endpoints need an embed tenant (§5.1–5.2): an internalId session → 403. */
  tenantCaller(header: string | undefined): Extract<EmbedCaller, { kind: "external" }> {
    const c = this.caller(header);
    if (c.kind !== "external")
      throw new HttpProblem(403, "An internalId session carries no embed tenant: comments need an externalId session");
    return c;
  }
}
