// The live comments adapter (src/taskpane/comments/live.ts) against the stand-in: author names from the
// tenant's users, "You" for one's own, dashboards linked to the placement under the selection, the
// session URL kept in storage (never the workbook), and a clear refusal when none is configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { createLiveComments } from "../../src/taskpane/comments/live";
import { mentionMatches } from "../../src/taskpane/comments/format";
import { demoCommentsUsers } from "../../dev/harness/config";
import type { SelectedPlacement } from "../../src/taskpane/types";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, devHooks: true });
});
afterAll(() => p?.close());

function memory() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    m,
  };
}

function live(externalId: string, tenant: string, selected: SelectedPlacement | null = null, storage = memory()) {
  return createLiveComments({
    baseUrl: p.info.baseUrl,
    embed: { sessionUrl: `${p.info.baseUrl}/__dev/embed-session`, sessionRequest: { externalId, embedTenantName: tenant } },
    selectedPlacement: async () => selected,
    storage,
  });
}

describe("live comments adapter", () => {
  it("names authors by username, says You for one's own, and who resolved", async () => {
    const shared = p.info.embed.dashboards.shared;
    const ana = live("ana", "t-live");
    const ben = live("ben", "t-live");
    const root = await ana.post(shared, "Hello @ben", null);
    expect(root.author).toBe("You");
    await ben.post(shared, "Hi", root.id);
    await ana.resolve(shared, root.id, true);
    const seenByBen = (await ben.threads(shared, "all", null)).threads[0]!;
    expect(seenByBen.root.author).toBe("ana");
    expect(seenByBen.replies[0]!.author).toBe("You");
    expect(seenByBen.resolvedBy).toBe("ana");
    expect((await ana.threads(shared, "resolved", null)).threads[0]!.resolvedBy).toBe("You");
    expect((await ana.threads(shared, "open", null)).threads).toEqual([]);
  });

  it("issue 31 item 5: authors go by the name the comments API gives (Ana, not ana); @a offers ana, not ben whose email holds an a", async () => {
    const shared = p.info.embed.dashboards.shared;
    await demoCommentsUsers(p.info.baseUrl, "t-names"); // ana and ben with their first names and emails
    const ana = live("ana", "t-names");
    const ben = live("ben", "t-names");
    const root = await ana.post(shared, "Hello @ben", null);
    await ana.resolve(shared, root.id, true);
    const seenByBen = (await ben.threads(shared, "all", null)).threads[0]!;
    expect(seenByBen.root.author).toBe("Ana");
    expect(seenByBen.resolvedBy).toBe("Ana");
    expect((await ben.mentionable(shared, "a")).map((u) => u.username)).toEqual(["ana"]);
    expect((await ben.mentionable(shared, "B")).map((u) => u.username)).toEqual(["ben"]);
    expect((await ben.mentionable(shared, "")).map((u) => u.username)).toEqual(["ana", "ben"]);
    // The start of the name or of a word in it, never any substring.
    const mary = { username: "m.ann-lee", firstName: "Mary Ann" };
    expect(["m", "ma", "ann", "lee", "MARY"].map((q) => mentionMatches(mary, q))).toEqual([true, true, true, true, true]);
    expect(["a", "nn", "ee", "ry"].map((q) => mentionMatches(mary, q))).toEqual([true, false, false, false]);
  });

  it("finds the dashboards linked to the report of the selected placement", async () => {
    const sel: SelectedPlacement = { deploymentId: 1, reportId: 1, reportName: "Analyst pipeline", range: "Sheet1!B2:D6" };
    const first = await live("x", p.info.embed.tenants[0]!, sel).linkedDashboards();
    expect(first.placement).toEqual({ reportName: "Analyst pipeline", range: "Sheet1!B2:D6" });
    expect(first.dashboards.map((d) => d.publicId)).toEqual([p.info.embed.dashboards.shared, p.info.embed.dashboards.restricted]);
    expect((await live("x", p.info.embed.tenants[1]!, sel).linkedDashboards()).dashboards.map((d) => d.publicId)).toEqual([
      p.info.embed.dashboards.shared,
    ]);
    expect(await live("x", p.info.embed.tenants[0]!, null).linkedDashboards()).toEqual({ placement: null, dashboards: [] });
  });

  it("keeps a chosen session URL in storage; without one it refuses to call anything", async () => {
    const storage = memory();
    const svc = createLiveComments({ baseUrl: p.info.baseUrl, embed: {}, selectedPlacement: async () => null, storage });
    expect(svc.sessionUrl()).toBeNull();
    await expect(svc.dashboard("SalesDash001")).rejects.toThrow(/No session URL/);
    svc.configure(` ${p.info.baseUrl}/__dev/embed-session `);
    expect([...storage.m.values()]).toEqual([`${p.info.baseUrl}/__dev/embed-session`]);
    const again = createLiveComments({ baseUrl: p.info.baseUrl, embed: {}, selectedPlacement: async () => null, storage });
    expect(again.sessionUrl()).toBe(`${p.info.baseUrl}/__dev/embed-session`);
    // The dev broker needs an externalId: without one it answers 400, surfaced as an embed-session error.
    await expect(again.dashboard("SalesDash001")).rejects.toMatchObject({ kind: "embed-session" });
    again.configure(null);
    expect(storage.m.size).toBe(0);
  });

  it("counts bodies in code points, as the platform does", () => {
    const svc = live("y", "t-live2");
    expect(svc.measure("😀a")).toBe(2);
    expect(svc.bodyMax).toBe(10_000);
  });
});

describe("what the user reads", () => {
  it("a failing session URL names the session URL and what to do (its own row, not a guess)", async () => {
    const { describeError } = await import("../../src/taskpane/errors");
    const { EmbedSessionError } = await import("../../src/api/embed");
    const h = describeError(new EmbedSessionError("The session URL answered 502: Bad gateway", 502));
    expect(h.title).toBe("Your organisation's session URL did not give a session");
    expect(h.detail).toContain("502");
    expect(h.next).toContain("session URL");
  });
});
