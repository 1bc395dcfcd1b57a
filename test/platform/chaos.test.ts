// The stand-in's fault mode (dev/platform/chaos.ts): each kind does what it says, the sequence is
// the same for the same seed, counts are readable, off() stops it; and `--chaos SEED` on the CLI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { spawnPlatform } from "../../dev/platform/spawn";
import type { FaultKind } from "../../dev/platform/chaos";

let platform: RunningPlatform;
let key: string;
let jwt: string;

beforeAll(async () => {
  platform = await startPlatform({ log: () => {}, devHooks: true });
  key = platform.info.apiKeys.analyst;
  jwt = await mint();
});
afterAll(async () => platform?.close());

async function mint(): Promise<string> {
  const r = await fetch(`${platform.info.baseUrl}/api/v1/deployments/1/token`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: "{}",
  });
  return ((await r.json()) as { token: string }).token;
}
const me = (signal?: AbortSignal) =>
  fetch(`${platform.info.baseUrl}/api/v1/users/me`, { headers: { Authorization: `Bearer ${key}` }, ...(signal ? { signal } : {}) });
const load = (token = jwt) =>
  fetch(`${platform.info.dataUrl}/v1/load`, {
    method: "POST",
    headers: { Authorization: token, "Content-Type": "application/json" },
    body: JSON.stringify({ query: { measures: ["orders.count"] } }),
  });
/** Outcome of one request as a short word: the status, "reset" or "truncated". */
async function outcome(req: Promise<Response>): Promise<string> {
  try {
    const res = await req;
    try {
      const text = await res.text();
      return `${res.status}:${text.length > 0 ? "body" : "empty"}`;
    } catch {
      return "truncated";
    }
  } catch {
    return "reset";
  }
}
function only(kind: FaultKind): void {
  platform.chaos.set({ seed: 1, rates: { [kind]: 1 } });
}

describe("the platform's fault mode", () => {
  it("is off by default, and every kind does what it says", async () => {
    expect(platform.chaos.enabled).toBe(false);
    expect(await outcome(me())).toBe("200:body");

    only("error5xx");
    expect(await outcome(me())).toMatch(/^50[023]:body$/);

    only("reset");
    expect(await outcome(me())).toBe("reset");

    only("truncate");
    expect(await outcome(me())).toBe("truncated");

    platform.chaos.set({ seed: 1, rates: { hang: 1 }, hangMs: 60_000 });
    const t0 = performance.now();
    expect(await outcome(me(AbortSignal.timeout(300)))).toBe("reset");
    expect(performance.now() - t0).toBeLessThan(5_000);

    only("continueWait");
    const wait = await load();
    expect(await wait.json()).toEqual({ error: "Continue wait" });

    only("latency");
    platform.chaos.set({ maxLatencyMs: 0 });
    expect(await outcome(me())).toBe("200:body");

    // A race on the upsert: another writer (the same user in another tab) creates the report first.
    only("upsertRace");
    const put = await fetch(`${platform.info.baseUrl}/api/v1/deployments/1/reports/by-public-id/ChaosRace001`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "Raced", jsonQuery: JSON.stringify({ measures: ["orders.count"] }) }),
    });
    expect(put.status).toBe(409);
    expect(((await put.json()) as { code: string }).code).toBe("upsert_branch_changed");

    // Tokens expire mid-run: the token minted before no longer opens the data API; a new one does.
    platform.chaos.off();
    expect((await load()).status).toBe(200);
    only("tokenExpiry");
    await outcome(me());
    platform.chaos.off();
    expect((await load()).status).toBe(403);
    jwt = await mint();
    expect((await load()).status).toBe(200);

    const counts = platform.chaos.counts();
    for (const k of ["error5xx", "reset", "truncate", "hang", "continueWait", "latency", "upsertRace", "tokenExpiry"] as const)
      expect(counts[k], k).toBeGreaterThanOrEqual(1);
    const dev = (await (await fetch(`${platform.info.baseUrl}/__dev/chaos`)).json()) as {
      enabled: boolean;
      counts: Record<string, number>;
    };
    expect(dev).toEqual({ enabled: false, counts });
  });

  it("the same seed gives the same faults in the same order", async () => {
    const run = async () => {
      platform.chaos.set({ seed: 42, rates: { error5xx: 0.3, reset: 0.2, latency: 0.2 }, maxLatencyMs: 5 });
      const out: string[] = [];
      for (let i = 0; i < 30; i++) out.push(await outcome(me()));
      platform.chaos.off();
      return out;
    };
    const a = await run();
    const b = await run();
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThanOrEqual(3); // faults and answers both appear
    platform.chaos.set({ seed: 43 });
    const c: string[] = [];
    for (let i = 0; i < 30; i++) c.push(await outcome(me()));
    platform.chaos.off();
    expect(c).not.toEqual(a);
  });

  it("refuses rates that are unknown or add up past 1", () => {
    expect(() => platform.chaos.set({ rates: { error5xx: 0.7, reset: 0.6 } })).toThrow(/add up/);
    expect(() => platform.chaos.set({ rates: { nope: 0.1 } as never })).toThrow(/known kind/);
  });
});

describe("npm run platform -- --chaos SEED", () => {
  it("starts in fault mode with the given rates; /__dev/chaos reads the counts", async () => {
    const p = await spawnPlatform(["--chaos", "7", "--chaos-rates", "error5xx=1", "--dev-hooks"]);
    try {
      const r = await fetch(`${p.info.baseUrl}/api/v1/users/me`, { headers: { Authorization: `Bearer ${p.info.apiKeys.viewer}` } });
      expect(r.status).toBeGreaterThanOrEqual(500);
      const dev = (await (await fetch(`${p.info.baseUrl}/__dev/chaos`)).json()) as { enabled: boolean; counts: Record<string, number> };
      expect(dev.enabled).toBe(true);
      expect(dev.counts.error5xx).toBe(1);
    } finally {
      expect(await p.stop()).toBe(0);
    }
  });
});
