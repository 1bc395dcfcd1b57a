// Contract tests: the API client against an in-process stand-in, one test per numbered rule,
// limit and error row of seeds 01 §4.1, §4.4 (deployment token), §5 and §7 that concerns
// these endpoints.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import {
  createPlatformClient,
  generatePublicId,
  type PlatformClient,
  AmbiguousLegacyIdError,
  BadRequestError,
  FieldTooLongError,
  ForbiddenError,
  NotFoundError,
  PlaceholderPublicIdError,
  PlacementLimitError,
  PublicIdImmutableError,
  PublicIdInOtherDeploymentError,
  PublicIdTakenError,
  RetryExhaustedError,
  UnauthorizedError,
  UpsertBranchChangedError,
} from "../../src/api";

let platform: RunningPlatform;
let admin: PlatformClient, analyst: PlatformClient, viewer: PlatformClient, outsider: PlatformClient;
const noRetry = { maxAttempts: 1 };

function client(key: string, retry: object = noRetry): PlatformClient {
  return createPlatformClient({ baseUrl: platform.info.baseUrl, credential: key, retry });
}
const checksum = (payload = "p1") => ({ v: 1, chunks: [{ from: 0, to: 9, hash: "abcdef0123456789" }], payload });
const q = (m: string) => JSON.stringify({ measures: [m] });

beforeAll(async () => {
  platform = await startPlatform({ log: () => {} });
  const k = platform.info.apiKeys;
  [admin, analyst, viewer, outsider] = [client(k.admin), client(k.analyst), client(k.viewer), client(k.outsider)];
});
afterAll(async () => platform?.close());

describe("§5 authentication and access levels", () => {
  it("rejects a missing or unknown API key with 401", async () => {
    await expect(client("nope").getMe()).rejects.toBeInstanceOf(UnauthorizedError);
    const res = await fetch(`${platform.info.baseUrl}/api/v1/users/me`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: expect.any(String) });
  });
  it("sends Authorization: Bearer <key> and identifies the persona", async () => {
    expect((await analyst.getMe()).email).toBe("ana.analyst@cellbound.test");
    expect((await analyst.listDeployments()).map((d) => d.id)).toEqual([1]);
    expect((await admin.listDeployments()).map((d) => d.id)).toEqual([1, 2]);
  });
  it("answers 404 for an unknown deployment and 403 for one the caller cannot read", async () => {
    await expect(analyst.listReports(99)).rejects.toBeInstanceOf(NotFoundError);
    await expect(analyst.listReports(2)).rejects.toBeInstanceOf(ForbiddenError);
  });
  it("a viewer cannot create, update or upsert", async () => {
    await expect(viewer.createReport(1, { name: "x" })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(viewer.upsertReport(1, generatePublicId(), { name: "x" })).rejects.toBeInstanceOf(ForbiddenError);
    await expect(viewer.updateReport(1, 2, { name: "x" })).rejects.toBeInstanceOf(ForbiddenError);
  });
  it("only editors with edit access update: the analyst reads a shared report but cannot edit it", async () => {
    const shared = (await analyst.listReports(1)).items.find((r) => r.publicId === "SharedRpt002")!;
    expect(shared.canEdit).toBe(false);
    await expect(analyst.updateReport(1, shared.id, { name: "mine now" })).rejects.toBeInstanceOf(ForbiddenError);
    const own = await analyst.createReport(1, { name: "own" });
    expect((await analyst.updateReport(1, own.id, { name: "own 2" })).name).toBe("own 2");
  });
  it("lists only the reports the caller can read", async () => {
    const ids = (await analyst.listReports(1)).items.map((r) => r.publicId);
    expect(ids).toContain("SharedRpt002");
    expect(ids).not.toContain("OscarPriv003");
    expect((await admin.listReports(1)).items.map((r) => r.publicId)).toContain("OscarPriv003");
    // The outsider's private report is invisible to the analyst even by id.
    // The outsider reads its own private reports in both deployments, not the analyst's.
    expect((await outsider.listReports(1)).items.map((r) => r.publicId)).toEqual(expect.arrayContaining(["OscarPriv003", "SharedRpt002"]));
    expect((await outsider.listReports(1)).items.map((r) => r.publicId)).not.toContain("AnaOwnRpt001");
    expect((await outsider.listReports(2)).items.map((r) => r.publicId)).toContain("OscarFin0004");
    const priv = (await admin.listReports(1)).items.find((r) => r.publicId === "OscarPriv003")!;
    await expect(analyst.updateReport(1, priv.id, { name: "x" })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("§4.1 create", () => {
  it("creates with a chosen publicId, or generates one", async () => {
    const id = generatePublicId();
    const a = await analyst.createReport(1, { name: "Chosen", publicId: id, jsonQuery: q("orders.count"), source: "SHEETS_CLOUD" });
    expect(a.publicId).toBe(id);
    expect(a.source).toBe("SHEETS_CLOUD");
    const b = await analyst.createReport(1, { name: "Generated" });
    expect(b.publicId).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(b.userId).toBe(2);
  });
  it("409 when the publicId is used by another report (any deployment)", async () => {
    await expect(analyst.createReport(1, { publicId: "SharedRpt002" })).rejects.toBeInstanceOf(PublicIdTakenError);
    await expect(analyst.createReport(1, { publicId: "OscarFin0004" })).rejects.toBeInstanceOf(PublicIdTakenError);
  });
  it("400 for a synthesized placeholder id", async () => {
    await expect(analyst.createReport(1, { publicId: platform.info.legacyPublicIds.unique })).rejects.toBeInstanceOf(
      PlaceholderPublicIdError,
    );
  });
  it("400 for name or title over 255 characters, naming the field; 255 is accepted", async () => {
    const e = await analyst.createReport(1, { name: "n".repeat(256) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FieldTooLongError);
    expect((e as FieldTooLongError).field).toBe("name");
    const t = await analyst.createReport(1, { title: "t".repeat(256) }).catch((x: unknown) => x);
    expect((t as FieldTooLongError).field).toBe("title");
    const ok = await analyst.createReport(1, { name: "n".repeat(255), title: "t".repeat(255) });
    expect(ok.name).toHaveLength(255);
  });
  it("400 naming the field for a malformed publicId, a wrong type, an unknown field, a bad payload", async () => {
    const cases: Array<[unknown, string]> = [
      [{ publicId: "short" }, "publicId"],
      [{ publicId: "abcdefghijk!" }, "publicId"],
      [{ name: 5 }, "name"],
      [{ nmae: "typo" }, "nmae"],
      [{ source: "EXCEL" }, "source"],
      [{ pivotItems: { columns: [], rows: [], measures: [], filters: [], displayScale: "huge" } }, "pivotItems.displayScale"],
    ];
    for (const [body, field] of cases) {
      const res = await rawPost(`/api/v1/deployments/1/reports`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.json as { field?: string }).field).toBe(field);
    }
    const notJson = await fetch(`${platform.info.baseUrl}/api/v1/deployments/1/reports`, {
      method: "POST",
      headers: { Authorization: `Bearer ${platform.info.apiKeys.analyst}` },
      body: "{oops",
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ field: "(body)" });
  });
});

async function rawPost(path: string, body: unknown, method = "POST", key = platform.info.apiKeys.analyst) {
  const res = await fetch(platform.info.baseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as unknown };
}

describe("§4.1 update rules", () => {
  it("rule 1: publicId is write-once; a legacy report may be given one", async () => {
    const r = await analyst.createReport(1, { name: "wo" });
    await expect(analyst.updateReport(1, r.id, { publicId: generatePublicId() })).rejects.toBeInstanceOf(PublicIdImmutableError);
    expect((await analyst.updateReport(1, r.id, { publicId: r.publicId, name: "same id is fine" })).publicId).toBe(r.publicId);
    const legacy = await admin.createReport(1, { name: "tmp" }); // a non-legacy id cannot be cleared, so use the seeded legacy report
    expect(legacy.publicId).not.toMatch(/^LGCY/);
    const seeded = (await admin.listReports(1)).items.find((x) => x.id === 1617)!;
    expect(seeded.publicId).toBe(platform.info.legacyPublicIds.ambiguous);
    const fresh = generatePublicId();
    expect((await admin.updateReport(1, 1617, { publicId: fresh })).publicId).toBe(fresh);
    await expect(admin.updateReport(1, 1617, { publicId: generatePublicId() })).rejects.toBeInstanceOf(PublicIdImmutableError);
  });
  it("rule 2: a publicId used by another report is 409", async () => {
    const seeded = (await admin.listReports(1)).items.find((x) => x.id === 1616)!;
    await expect(admin.updateReport(1, seeded.id, { publicId: "SharedRpt002" })).rejects.toBeInstanceOf(PublicIdTakenError);
  });
  it("rule 3: a synthesized placeholder id is 400", async () => {
    await expect(admin.updateReport(1, 1616, { publicId: "LGCY00000999" })).rejects.toBeInstanceOf(PlaceholderPublicIdError);
  });
  it("only the fields sent change, and a rejected update changes nothing", async () => {
    const r = await analyst.createReport(1, { name: "partial", title: "T", jsonQuery: q("orders.count") });
    const u = await analyst.updateReport(1, r.id, { title: "T2" });
    expect(u.name).toBe("partial");
    expect(u.jsonQuery).toBe(r.jsonQuery);
    await expect(analyst.updateReport(1, r.id, { name: "half", placementId: "no-such-placement" })).rejects.toBeInstanceOf(NotFoundError);
    await expect(analyst.updateReport(1, r.id, { name: "half", publicId: generatePublicId() })).rejects.toBeInstanceOf(
      PublicIdImmutableError,
    );
    const after = (await analyst.listReports(1)).items.find((x) => x.id === r.id)!;
    expect(after.name).toBe("partial");
    expect(after.version).toBe(u.version);
  });
});

describe("§4.1 upsert rules", () => {
  it("rules 1-3: creates, then updates; re-applying changes nothing; source only at creation", async () => {
    const id = generatePublicId();
    const a = await analyst.upsertReport(1, id, { name: "u", jsonQuery: q("orders.count"), source: "PLAYGROUND" });
    expect(a.publicId).toBe(id);
    expect(a.source).toBe("PLAYGROUND");
    const b = await analyst.upsertReport(1, id, { name: "u", jsonQuery: q("orders.count"), source: "PLAYGROUND" });
    expect(b).toEqual(a);
    const c = await analyst.upsertReport(1, id, { name: "u2", source: "CHART_LIB" });
    expect(c.id).toBe(a.id);
    expect(c.name).toBe("u2");
    expect(c.source).toBe("PLAYGROUND");
  });
  it("rule 1: updating through upsert needs edit access", async () => {
    await expect(analyst.upsertReport(1, "SharedRpt002", { name: "x" })).rejects.toBeInstanceOf(ForbiddenError);
  });
  it("rule 4: a placeholder matching exactly one report is adopted as its publicId", async () => {
    const id = platform.info.legacyPublicIds.unique;
    const r = await analyst.upsertReport(1, id, { name: "adopted" });
    expect(r.id).toBe(1600);
    expect(r.publicId).toBe(id);
    expect((await analyst.upsertReport(1, id, { name: "adopted" })).version).toBe(r.version);
    await expect(analyst.updateReport(1, 1600, { publicId: generatePublicId() })).rejects.toBeInstanceOf(PublicIdImmutableError);
  });
  it("rule 5: 409 without code when the publicId belongs to another deployment (even unreadable)", async () => {
    await expect(analyst.upsertReport(1, "OscarFin0004", { name: "x" })).rejects.toBeInstanceOf(PublicIdInOtherDeploymentError);
    await expect(admin.upsertReport(2, "SharedRpt002", { name: "x" })).rejects.toBeInstanceOf(PublicIdInOtherDeploymentError);
  });
  it("rule 5: ambiguous_legacy_id when the placeholder matches several reports; nothing changes", async () => {
    const sharedPlaceholderReports = [1616];
    const before = (await admin.listReports(1)).items.filter((r) => sharedPlaceholderReports.includes(r.id));
    // 1617 got its own id in an update test; recreate ambiguity by using a fresh platform state check:
    const amb = await startPlatform({ log: () => {} });
    try {
      const c = createPlatformClient({ baseUrl: amb.info.baseUrl, credential: amb.info.apiKeys.analyst, retry: noRetry });
      const listBefore = await c.listReports(1);
      const e = await c.upsertReport(1, amb.info.legacyPublicIds.ambiguous, { name: "x" }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AmbiguousLegacyIdError);
      expect((e as AmbiguousLegacyIdError).transient).toBe(false);
      expect(await c.listReports(1)).toEqual(listBefore);
    } finally {
      await amb.close();
    }
    expect(before).toHaveLength(1);
  });
  it("rule 5: upsert_branch_changed when another writer creates the report mid-upsert; retried, it then succeeds", async () => {
    const id = generatePublicId();
    platform.hooks.raceNextUpsert("create");
    const e = await analyst.upsertReport(1, id, { name: "raced" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UpsertBranchChangedError);
    expect((e as UpsertBranchChangedError).transient).toBe(true);
    // With retries, the second attempt sees the concurrent writer's report (owned by admin).
    const id2 = generatePublicId();
    platform.hooks.raceNextUpsert("create");
    const retrying = client(platform.info.apiKeys.admin, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 });
    const r = await retrying.upsertReport(1, id2, { name: "raced ok" });
    expect(r.publicId).toBe(id2);
    expect(r.name).toBe("raced ok");
  });
  it("rule 5: upsert_branch_changed when the report is deleted mid-upsert; retries are bounded", async () => {
    const id = generatePublicId();
    await admin.upsertReport(1, id, { name: "to delete" });
    platform.hooks.raceNextUpsert("delete");
    await expect(admin.upsertReport(1, id, { name: "changed" })).rejects.toBeInstanceOf(UpsertBranchChangedError);
    // Every attempt races: the client gives up after maxAttempts, with the cause attached.
    const gen = generatePublicId();
    platform.hooks.raceNextUpsert("flip", 3);
    const bounded = client(platform.info.apiKeys.admin, { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 });
    const out = await bounded.upsertReport(1, gen, { name: "x" }).catch((x: unknown) => x);
    expect(out).toBeInstanceOf(RetryExhaustedError);
    expect((out as RetryExhaustedError).cause).toBeInstanceOf(UpsertBranchChangedError);
    // The race hook is used up: the next upsert goes through.
    expect((await bounded.upsertReport(1, gen, { name: "x" })).publicId).toBe(gen);
  });
  it("400 naming publicId for a malformed publicId in the path", async () => {
    const res = await rawPost(`/api/v1/deployments/1/reports/by-public-id/short`, { name: "x" }, "PUT");
    expect(res).toMatchObject({ status: 400, json: { field: "publicId" } });
  });
  it("400 when the body's publicId differs from the path", async () => {
    await expect(analyst.upsertReport(1, generatePublicId(), { publicId: generatePublicId() })).rejects.toBeInstanceOf(
      PublicIdImmutableError,
    );
  });
});

describe("§4.1 placements: connect, refresh, disconnect, syncStatus", () => {
  const wb = "wb-contract-1";
  it("connect creates a placement UP_TO_DATE; a query change makes it CHANGED; refresh makes it UP_TO_DATE again", async () => {
    const r = await analyst.createReport(1, { name: "placed", jsonQuery: q("orders.count"), externalWorkbookId: wb });
    const c = await analyst.connectWorkbook(1, r.id, {
      sheetId: "s1",
      sheetName: "Sheet1",
      anchorCell: "B2",
      resultLocation: "B2:D10",
      endResultCell: "D10",
      host: "SHEETS_DESKTOP",
      workbookName: "Book.xlsx",
      resultChecksum: checksum(),
    });
    const p = c.externalWorkbookPlacements![0]!;
    expect(p).toMatchObject({
      workbookId: wb,
      sheetName: "Sheet1",
      anchorCell: "B2",
      resultLocation: "B2:D10",
      syncStatus: "UP_TO_DATE",
      placedByUserId: 2,
      queryChecksum: c.currentQueryChecksum,
    });
    const changed = await analyst.updateReport(1, r.id, { jsonQuery: q("orders.total_amount") });
    expect(changed.currentQueryChecksum).not.toBe(c.currentQueryChecksum);
    expect(changed.externalWorkbookPlacements![0]!.syncStatus).toBe("CHANGED");
    const before = Date.now();
    const refreshed = await analyst.refreshReport(1, r.id, { placementId: p.id, resultChecksum: checksum("p2") });
    const rp = refreshed.externalWorkbookPlacements![0]!;
    expect(rp.syncStatus).toBe("UP_TO_DATE");
    expect(rp.resultChecksum.payload).toBe("p2");
    expect(rp.refreshedByUserId).toBe(2);
    expect(Date.parse(rp.refreshedAt)).toBeGreaterThanOrEqual(before - 1000);
    // Refresh addressed by workbook + sheet name + anchor.
    const again = await analyst.refreshReport(1, r.id, { externalWorkbookId: wb, sheetName: "Sheet1", anchorCell: "B2" });
    expect(again.externalWorkbookPlacements![0]!.id).toBe(p.id);
  });
  it("connect with addressOnly corrects the address and keeps the fingerprint", async () => {
    const r = await analyst.createReport(1, { name: "rename", jsonQuery: q("orders.count"), externalWorkbookId: wb });
    const c = await analyst.connectWorkbook(1, r.id, {
      sheetId: "s9",
      sheetName: "Old",
      anchorCell: "A1",
      resultChecksum: checksum("keep"),
    });
    const p = c.externalWorkbookPlacements![0]!;
    const moved = await analyst.connectWorkbook(1, r.id, {
      placementId: p.id,
      sheetId: "s9",
      sheetName: "New name",
      anchorCell: "A3",
      addressOnly: true,
      resultChecksum: checksum("dropped"),
    });
    const mp = moved.externalWorkbookPlacements![0]!;
    expect(mp).toMatchObject({ id: p.id, sheetName: "New name", anchorCell: "A3" });
    expect(mp.resultChecksum.payload).toBe("keep");
  });
  it("disconnect removes one sheet-and-anchor placement; the others stay", async () => {
    const r = await analyst.createReport(1, { name: "two places", externalWorkbookId: wb });
    await analyst.connectWorkbook(1, r.id, { sheetId: "s2", sheetName: "A", anchorCell: "A1", resultChecksum: checksum() });
    const two = await analyst.connectWorkbook(1, r.id, { sheetId: "s3", sheetName: "B", anchorCell: "C3", resultChecksum: checksum() });
    expect(two.externalWorkbookPlacements).toHaveLength(2);
    expect(two.externalWorkbookPlacements!.every((p) => p.syncStatus === "UNKNOWN")).toBe(true); // no query yet
    const one = await analyst.disconnectWorkbook(1, r.id, { externalWorkbookId: wb, sheetName: "A", anchorCell: "A1" });
    expect(one.externalWorkbookPlacements!.map((p) => p.sheetName)).toEqual(["B"]);
    const none = await analyst.disconnectWorkbook(1, r.id, { placementId: one.externalWorkbookPlacements![0]!.id });
    expect(none.externalWorkbookPlacements).toEqual([]);
    await expect(analyst.disconnectWorkbook(1, r.id, { placementId: "nope" })).rejects.toBeInstanceOf(NotFoundError);
    await expect(analyst.disconnectWorkbook(1, r.id, { sheetName: "A" })).rejects.toBeInstanceOf(BadRequestError);
  });
  it("resultChecksum.payload is 1 to 128 characters", async () => {
    const r = await analyst.createReport(1, { name: "payload", externalWorkbookId: wb });
    const ok = await analyst.connectWorkbook(1, r.id, {
      sheetId: "s4",
      sheetName: "P",
      anchorCell: "A1",
      resultChecksum: checksum("x".repeat(128)),
    });
    expect(ok.externalWorkbookPlacements![0]!.resultChecksum.payload).toHaveLength(128);
    const tooLong = await analyst
      .connectWorkbook(1, r.id, { sheetId: "s5", sheetName: "P", anchorCell: "A1", resultChecksum: checksum("x".repeat(129)) })
      .catch((x: unknown) => x);
    expect(tooLong).toBeInstanceOf(FieldTooLongError);
    expect((tooLong as FieldTooLongError).field).toBe("resultChecksum.payload");
    const empty = await analyst
      .connectWorkbook(1, r.id, { sheetId: "s5", sheetName: "P", anchorCell: "A1", resultChecksum: checksum("") })
      .catch((x: unknown) => x);
    expect(empty).toBeInstanceOf(BadRequestError);
    expect((empty as BadRequestError).field).toBe("resultChecksum.payload");
    expect(
      (await analyst.listReports(1, { externalWorkbookId: wb })).items.find((x) => x.id === r.id)!.externalWorkbookPlacements,
    ).toHaveLength(1);
  });
  it("a viewer cannot connect; the list filter externalWorkbookId returns only reports placed there", async () => {
    await expect(
      viewer.connectWorkbook(1, 2, { sheetId: "s", sheetName: "S", anchorCell: "A1", externalWorkbookId: wb, resultChecksum: checksum() }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const listed = (await analyst.listReports(1, { externalWorkbookId: wb })).items;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((r) => r.externalWorkbookPlacements!.every((p) => p.workbookId === wb))).toBe(true);
  });
});

describe("cursor pagination", () => {
  it("pages with first/after; the async iterator yields every readable report once", async () => {
    const all = (await admin.listReports(1)).items.map((r) => r.id);
    const p1 = await admin.listReports(1, { first: 2 });
    expect(p1.items.map((r) => r.id)).toEqual(all.slice(0, 2));
    expect(p1.pageInfo.hasNextPage).toBe(true);
    const p2 = await admin.listReports(1, { first: 2, after: p1.pageInfo.endCursor! });
    expect(p2.items.map((r) => r.id)).toEqual(all.slice(2, 4));
    const seen: number[] = [];
    for await (const r of admin.iterateReports(1, { first: 3 })) seen.push(r.id);
    expect(seen).toEqual(all);
    await expect(admin.listReports(1, { first: 0 })).rejects.toBeInstanceOf(BadRequestError);
    await expect(admin.listReports(1, { first: 2, after: "garbage" })).rejects.toBeInstanceOf(BadRequestError);
  });
});

describe("§4.1 external-document placements", () => {
  it("mixes GRANTED and DENIED; DENIED carries address, deploymentId, owner name and email, reportName null", async () => {
    const entries = [];
    for await (const e of analyst.iterateExternalPlacements(platform.info.externalWorkbooks.mixed, { first: 2 })) entries.push(e);
    expect(entries).toHaveLength(5);
    const denied = entries.filter((e) => e.access === "DENIED");
    expect(denied.map((e) => e.deploymentId).sort()).toEqual([1, 2]);
    for (const d of denied) {
      expect(d.reportName).toBeNull();
      expect(d.ownerName).toBe("Oscar Outsider");
      expect(d.ownerEmail).toBe("oscar.outsider@cellbound.test");
      expect(d.sheetName).not.toBe("");
      expect(d.anchorCell).toBe("A1");
    }
    const granted = entries.filter((e) => e.access === "GRANTED");
    expect(granted.map((e) => e.reportName)).toEqual(["Analyst pipeline", "Company revenue", "Company revenue"]);
    expect(new Set(entries.map((e) => e.syncStatus))).toEqual(new Set(["UP_TO_DATE", "CHANGED", "UNKNOWN"]));
    // The admin reads everything: all GRANTED.
    expect((await admin.listExternalPlacements(platform.info.externalWorkbooks.mixed)).items.every((e) => e.access === "GRANTED")).toBe(
      true,
    );
  });
  it("422 over 2000 placements (no truncated page, whatever `first`); exactly 2000 is served", async () => {
    const wb = platform.info.externalWorkbooks.oversized;
    await expect(admin.listExternalPlacements(wb)).rejects.toBeInstanceOf(PlacementLimitError);
    await expect(analyst.listExternalPlacements(wb, { first: 10 })).rejects.toBeInstanceOf(PlacementLimitError);
    const own = await startPlatform({ log: () => {} });
    try {
      const c = createPlatformClient({ baseUrl: own.info.baseUrl, credential: own.info.apiKeys.admin, retry: noRetry });
      const r = (await c.listReports(1, { externalWorkbookId: wb })).items[0]!;
      await c.disconnectWorkbook(1, r.id, { placementId: r.externalWorkbookPlacements![0]!.id });
      expect((await c.listExternalPlacements(wb)).items).toHaveLength(2000);
    } finally {
      await own.close();
    }
  });
  it("422 over 500 placed explorations; exactly 500 is served", async () => {
    const wb = "wb-explorations";
    const mk = async (i: number) => {
      const r = await admin.createReport(1, { name: `e${i}`, externalWorkbookId: wb });
      await admin.connectWorkbook(1, r.id, { sheetId: "s", sheetName: "S", anchorCell: `A${i + 1}`, resultChecksum: checksum() });
    };
    for (let i = 0; i < 500; i += 25) await Promise.all(Array.from({ length: 25 }, (_, k) => mk(i + k)));
    const page = await analyst.listExternalPlacements(wb);
    expect(page.items).toHaveLength(500);
    expect(page.items.every((e) => e.access === "DENIED")).toBe(true); // admin's private reports
    await mk(500);
    await expect(analyst.listExternalPlacements(wb)).rejects.toBeInstanceOf(PlacementLimitError);
  }, 120_000);
});

describe("§4.4 deployment token", () => {
  it("expiresIn 60..86400, default 24 h; out of range is 400 naming the field", async () => {
    const def = await analyst.createDeploymentToken(1);
    expect(def.expiresIn).toBe(86_400);
    expect(Math.abs(Date.parse(def.expiresAt) - Date.now() - 86_400_000)).toBeLessThan(5_000);
    expect((await analyst.createDeploymentToken(1, { expiresIn: 60 })).expiresIn).toBe(60);
    expect((await analyst.createDeploymentToken(1, { expiresIn: 86_400 })).expiresIn).toBe(86_400);
    for (const expiresIn of [59, 86_401, 1.5]) {
      const e = await analyst.createDeploymentToken(1, { expiresIn }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(BadRequestError);
      expect((e as BadRequestError).field).toBe("expiresIn");
    }
    await expect(analyst.createDeploymentToken(2)).rejects.toBeInstanceOf(ForbiddenError);
  });
});
