// Contract tests of embed sessions (seeds 02 §2.4, §3.3, §4.2, §5, §7, §8) against the stand-in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform } from "../../dev/platform/server";
import { EmbedRig, embedAuth } from "./embed-support";

let rig: EmbedRig;
let shared: string;
let restricted: string;
let tenants: string[];

beforeAll(async () => {
  rig = await EmbedRig.start();
  ({ shared, restricted } = rig.p.info.embed.dashboards);
  tenants = rig.p.info.embed.tenants;
});
afterAll(() => rig?.close());

const HOUR = 3600_000;

describe("start line", () => {
  it("names ≥ 2 embed tenants, a shared and a restricted dashboard, a running and a stopped branch", () => {
    const e = rig.p.info.embed;
    expect(e.tenants.length).toBeGreaterThanOrEqual(2);
    expect(new Set(e.tenants).size).toBe(e.tenants.length);
    expect(e.dashboards.shared).not.toBe(e.dashboards.restricted);
    expect(e.branches.running).not.toBe(e.branches.stopped);
  });
});

describe("POST /api/v1/embed/generate-session", () => {
  it("is for admin API keys only: none → 401, another persona → 403", async () => {
    expect((await rig.call("POST", "/api/v1/embed/generate-session", { body: { externalId: "x" } })).status).toBe(401);
    for (const persona of ["analyst", "viewer", "outsider"] as const) {
      expect((await rig.generate({ externalId: "x" }, rig.p.info.apiKeys[persona])).status).toBe(403);
    }
    const ok = await rig.generate({ externalId: "x" });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ sessionId: expect.any(String) });
  });

  it("needs exactly one of externalId and internalId; internalId names an existing console user", async () => {
    expect((await rig.generate({})).status).toBe(400);
    expect((await rig.generate({ externalId: "x", internalId: "ada.admin@cellbound.test" })).status).toBe(400);
    expect((await rig.generate({ internalId: "nobody@cellbound.test" })).json).toMatchObject({ field: "internalId" });
    expect((await rig.generate({ internalId: "ana.analyst@cellbound.test" })).status).toBe(200);
    // An internalId session carries no embed tenant.
    expect((await rig.generate({ internalId: "ana.analyst@cellbound.test", embedTenantName: tenants[0] })).status).toBe(400);
  });

  it("branchName: unknown → 404, nothing running → 400, running or production → 200", async () => {
    expect((await rig.generate({ externalId: "b", branchName: "no-such-branch" })).status).toBe(404);
    const stopped = await rig.generate({ externalId: "b", branchName: rig.p.info.embed.branches.stopped });
    expect(stopped.status).toBe(400);
    expect(stopped.json).toMatchObject({ field: "branchName" });
    expect((await rig.generate({ externalId: "b", branchName: rig.p.info.embed.branches.running })).status).toBe(200);
    expect((await rig.generate({ externalId: "b", branchName: "main" })).status).toBe(200);
  });

  it("accepts embedTheme and settings (nested as settings); rejects unknown fields and wrong types", async () => {
    const ok = await rig.generate({
      externalId: "t",
      embedTenantName: tenants[0],
      embedTheme: { primaryColor: "#0a7", borderRadius: 4, font: "Inter" },
      settings: { allowAi: false, locale: "de-DE", timezone: "Europe/Berlin", enableDashboardComments: true },
    });
    expect(ok.status).toBe(200);
    expect((await rig.generate({ externalId: "t", allowAi: false })).status).toBe(400); // settings travel nested
    expect((await rig.generate({ externalId: "t", settings: { allowAi: "no" } })).json).toMatchObject({ field: "settings.allowAi" });
    expect((await rig.generate({ externalId: "t", embedTheme: { logo: "x" } })).status).toBe(400);
    expect((await rig.generate({ externalId: "" })).status).toBe(400);
    expect((await rig.call("POST", "/api/v1/embed/generate-session", { raw: "{", auth: `Bearer ${rig.admin}` })).status).toBe(400);
  });
});

describe("POST /api/v1/embed/session/token", () => {
  it("exchanges a session id once for {token, expiresAt} 24 h ahead, with no Authorization header", async () => {
    const sid = await rig.sessionId({ externalId: "once", embedTenantName: tenants[0] });
    const before = Date.parse(((await rig.advance(0)).json as { now: string }).now);
    const first = await rig.exchange(sid);
    expect(first.status).toBe(200);
    const { token, expiresAt } = first.json as { token: string; expiresAt: string };
    expect(token.split(".")).toHaveLength(3); // a signed JWT
    expect(Math.abs(Date.parse(expiresAt) - before - 24 * HOUR)).toBeLessThan(5_000);
    // Single use: redeeming again → 401.
    expect((await rig.exchange(sid)).status).toBe(401);
  });

  it("an unknown id → 401; an id older than 5 minutes → 401 (on the stand-in's clock)", async () => {
    expect((await rig.exchange("no-such-session")).status).toBe(401);
    const fresh = await rig.sessionId({ externalId: "late" });
    await rig.advance(4 * 60_000 + 50_000);
    expect((await rig.exchange(fresh)).status).toBe(200);
    const stale = await rig.sessionId({ externalId: "late" });
    await rig.advance(5 * 60_000);
    expect((await rig.exchange(stale)).status).toBe(401);
  });

  it("a malformed body → 400", async () => {
    expect((await rig.call("POST", "/api/v1/embed/session/token", { body: {} })).status).toBe(400);
    expect((await rig.call("POST", "/api/v1/embed/session/token", { body: { sessionId: 5 } })).status).toBe(400);
  });

  it("the token works for about 23 hours and then answers 401 (24 h nominal, §2.4)", async () => {
    const token = await rig.token("long", tenants[0]);
    const get = () => rig.call("GET", `/api/v1/embed/dashboard/${shared}`, { auth: embedAuth(token) });
    expect((await get()).status).toBe(200);
    await rig.advance(22 * HOUR);
    expect((await get()).status).toBe(200);
    await rig.advance(1 * HOUR);
    expect((await get()).status).toBe(401);
  });
});

describe("POST /api/v1/embed/session/revoke", () => {
  it("is admin only and idempotent: 204 for known, unknown and already revoked ids", async () => {
    const sid = await rig.sessionId({ externalId: "r" });
    expect((await rig.call("POST", "/api/v1/embed/session/revoke", { body: { sessionId: sid } })).status).toBe(401);
    expect(
      (await rig.call("POST", "/api/v1/embed/session/revoke", { body: { sessionId: sid }, auth: `Bearer ${rig.p.info.apiKeys.analyst}` }))
        .status,
    ).toBe(403);
    for (const id of [sid, sid, "never-minted"]) {
      const r = await rig.call("POST", "/api/v1/embed/session/revoke", { body: { sessionId: id }, auth: `Bearer ${rig.admin}` });
      expect(r.status).toBe(204);
      expect(r.json).toBeUndefined();
    }
  });

  it("an unexchanged id can no longer be redeemed", async () => {
    const sid = await rig.sessionId({ externalId: "r2" });
    await rig.call("POST", "/api/v1/embed/session/revoke", { body: { sessionId: sid }, auth: `Bearer ${rig.admin}` });
    expect((await rig.exchange(sid)).status).toBe(401);
  });

  it("a token from a revoked session gets 401 from then on, on every embed endpoint", async () => {
    const sid = await rig.sessionId({ externalId: "r3", embedTenantName: tenants[0] });
    const { token } = (await rig.exchange(sid)).json as { token: string };
    const calls = () => [
      rig.call("GET", `/api/v1/embed/dashboard/${shared}`, { auth: embedAuth(token) }),
      rig.call("GET", `/api/v1/embed/dashboard/${shared}/comments`, { auth: embedAuth(token) }),
      rig.call("POST", `/api/v1/embed/dashboard/${shared}/comments`, { auth: embedAuth(token), body: { body: "hi" } }),
    ];
    expect((await Promise.all(calls())).map((r) => r.status)).toEqual([200, 200, 201]);
    await rig.call("POST", "/api/v1/embed/session/revoke", { body: { sessionId: sid }, auth: `Bearer ${rig.admin}` });
    expect((await Promise.all(calls())).map((r) => r.status)).toEqual([401, 401, 401]);
    // Expired ids are fine to revoke too.
    await rig.advance(10 * 60_000);
    expect((await rig.call("POST", "/api/v1/embed/session/revoke", { body: { sessionId: sid }, auth: `Bearer ${rig.admin}` })).status).toBe(
      204,
    );
  });
});

describe("GET /api/v1/embed/dashboard/{publicId}", () => {
  it("answers {publicId, title, widgets[{id, title, query, chart}]} with Embed-Token or Bearer", async () => {
    const token = await rig.token("d1", tenants[1]);
    for (const auth of [embedAuth(token), `Bearer ${token}`]) {
      const r = await rig.call("GET", `/api/v1/embed/dashboard/${shared}`, { auth });
      expect(r.status).toBe(200);
      const d = r.json as { publicId: string; title: string; widgets: Array<Record<string, unknown>> };
      expect(d.publicId).toBe(shared);
      expect(d.title).toEqual(expect.any(String));
      expect(d.widgets.length).toBeGreaterThan(0);
      for (const w of d.widgets)
        expect(w).toEqual({ id: expect.any(String), title: expect.any(String), query: expect.any(Object), chart: expect.any(String) });
    }
  });

  it("unknown → 404; readable only by the first tenant → 403 for another (404 comes first)", async () => {
    const other = await rig.token("d2", tenants[1]);
    const first = await rig.token("d2", tenants[0]);
    expect((await rig.call("GET", "/api/v1/embed/dashboard/NoSuchDash01", { auth: embedAuth(other) })).status).toBe(404);
    expect((await rig.call("GET", `/api/v1/embed/dashboard/${restricted}`, { auth: embedAuth(other) })).status).toBe(403);
    expect((await rig.call("GET", `/api/v1/embed/dashboard/${restricted}`, { auth: embedAuth(first) })).status).toBe(200);
  });

  it("a wrong prefix (case-sensitive), garbage or no token → 401; an API key or a data token → 403", async () => {
    const token = await rig.token("d3", tenants[0]);
    const path = `/api/v1/embed/dashboard/${shared}`;
    for (const auth of [`embed-token ${token}`, `EMBED-TOKEN ${token}`, `Token ${token}`, token, "Embed-Token abc.def.ghi", undefined]) {
      expect((await rig.call("GET", path, auth === undefined ? {} : { auth })).status).toBe(401);
    }
    expect((await rig.call("GET", path, { auth: `Bearer ${rig.p.info.apiKeys.analyst}` })).status).toBe(403);
    const data = await rig.call("POST", "/api/v1/deployments/1/token", { body: {}, auth: `Bearer ${rig.p.info.apiKeys.analyst}` });
    expect((await rig.call("GET", path, { auth: `Bearer ${(data.json as { token: string }).token}` })).status).toBe(403);
  });

  it("an internalId session reads the dashboards of the deployments its console user has a role in", async () => {
    const sid = await rig.sessionId({ internalId: "ana.analyst@cellbound.test" });
    const { token } = (await rig.exchange(sid)).json as { token: string };
    expect((await rig.call("GET", `/api/v1/embed/dashboard/${shared}`, { auth: embedAuth(token) })).status).toBe(200);
    expect((await rig.call("GET", "/api/v1/embed/dashboard/FinDash00003", { auth: embedAuth(token) })).status).toBe(403); // deployment 2
  });
});

describe("GET /api/v1/embed/dashboards (ours: dashboards linked to a report)", () => {
  it("lists readable dashboards linked to a report of a deployment", async () => {
    const first = await rig.token("l1", tenants[0]);
    const other = await rig.token("l1", tenants[1]);
    const ids = async (token: string, q: string) =>
      (
        (await rig.call("GET", `/api/v1/embed/dashboards${q}`, { auth: embedAuth(token) })).json as { items: { publicId: string }[] }
      ).items.map((d) => d.publicId);
    expect(await ids(first, "?deploymentId=1&reportId=1")).toEqual([shared, restricted]);
    expect(await ids(other, "?deploymentId=1&reportId=1")).toEqual([shared]);
    expect(await ids(other, "?deploymentId=1&reportId=3")).toEqual([]);
    expect((await rig.call("GET", "/api/v1/embed/dashboards?reportId=x", { auth: embedAuth(first) })).status).toBe(400);
  });
});

describe("embed users", () => {
  it("are created per tenant on a first session: the same externalId in two tenants is two users", async () => {
    const a = await rig.token("same-person", tenants[0], { email: "same@acme.test", firstName: "Sam" });
    const b = await rig.token("same-person", tenants[1]);
    const users = async (token: string) =>
      (
        (
          await rig.call("GET", `/api/v1/embed/dashboard/${shared}/comments/mentionable-users?search=same-person`, {
            auth: embedAuth(token),
          })
        ).json as {
          items: { id: number; username: string; email: string | null; firstName: string | null }[];
        }
      ).items;
    const [ua] = await users(a);
    const [ub] = await users(b);
    expect(ua).toEqual({ id: expect.any(Number), username: "same-person", email: "same@acme.test", firstName: "Sam" });
    expect(ub).toMatchObject({ username: "same-person", email: null, firstName: null });
    expect(ua!.id).not.toBe(ub!.id);
    // A second session of the same viewer is the same user.
    const again = await rig.token("same-person", tenants[0]);
    expect((await users(again))[0]!.id).toBe(ua!.id);
  });

  it("a session without embedTenantName lands in the account's own tenant", async () => {
    const own = await rig.token("no-tenant-1");
    const own2 = await rig.token("no-tenant-2");
    const names = (
      (await rig.call("GET", `/api/v1/embed/dashboard/${shared}/comments/mentionable-users?search=no-tenant`, { auth: embedAuth(own) }))
        .json as { items: { username: string }[] }
    ).items.map((u) => u.username);
    expect(names).toEqual(["no-tenant-1", "no-tenant-2"]);
    expect(own2).not.toBe(own);
  });
});

describe("POST /__dev/embed-session (the dev session broker)", () => {
  it("mints a session for {externalId, embedTenantName} only when started with dev hooks", async () => {
    const r = await rig.call("POST", "/__dev/embed-session", { body: { externalId: "broker", embedTenantName: tenants[0] } });
    expect(r.status).toBe(200);
    expect((await rig.exchange((r.json as { sessionId: string }).sessionId)).status).toBe(200);
    expect((await rig.call("POST", "/__dev/embed-session", { body: { embedTenantName: tenants[0] } })).status).toBe(400);
    const plain = await startPlatform({ log: () => {} });
    try {
      const res = await fetch(`${plain.info.baseUrl}/__dev/embed-session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ externalId: "x" }),
      });
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
