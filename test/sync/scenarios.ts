// The sync scenarios of issue 6, written once and run per workbook kind (the in-memory port,
// and the Office.js adapter over dev/excel): place, refresh, hand edits, grow/shrink, interrupted
// refresh, refresh all, check (moves, renames, deletes, copies), home (DENIED, 422), upsert 409s,
// disconnect. Each starts its own platform stand-in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPlatformClient,
  isPlaceholderPublicId,
  type DataClient,
  type FetchLike,
  type PlatformClient,
  type Report,
} from "../../src/api/index.ts";
import {
  check,
  factsOf,
  fork,
  home,
  keepIdentity,
  placementStatus,
  upsertReport,
  assignNewPublicId,
  UpsertStopped,
} from "../../src/sync/index.ts";
import { unlistedLine } from "../../src/sync/status.ts";
import type { SheetPort } from "../../src/host/port.ts";
import { loadPlacements, STATE_KEY } from "../../src/sync/state.ts";
import { PlacementLimitReached } from "../../src/sync/limits.ts";
import {
  at,
  byCustomer,
  byStatus,
  externalPlacements,
  flakyPort,
  placed,
  startEnv,
  type Env,
  type TestWorkbook,
  type WorkbookKind,
} from "./support.ts";

export function syncScenarios(label: string, kind: WorkbookKind): void {
  describe(`sync scenarios (${label})`, () => {
    let env: Env;
    let n = 0;
    const newBook = () => kind(`https://files.example/book-${++n}.xlsx`);
    beforeAll(async () => {
      env = await startEnv();
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });

    it("places a report: writes, fingerprints, tracks, upserts and connects", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const report = await env.createReport(byStatus());
      const out = await placed(engine, report, at(wb, 1, 1));
      const s = wb.user.firstSheetId();
      expect(wb.user.cell(s, 1, 1)).toBe("Status");
      expect(wb.user.cell(s, 1, 2)).toBe("Count");
      expect(typeof wb.user.cell(s, 2, 2)).toBe("number");
      expect(out.range).toMatch(/^B2:C\d+$/);
      const id = (await wb.port.identity()).workbookId;
      const remote = await externalPlacements(env.client(), id);
      expect(remote.map((r) => r.placementId)).toEqual([out.placementId]);
      expect(remote[0]).toMatchObject({ access: "GRANTED", anchorCell: "B2", sheetId: s });
      const local = await loadPlacements(wb.port);
      expect(local[0]!.committed).not.toBeNull();
      expect(local[0]!.pending).toBeNull();
      expect((await wb.port.tracked()).map((t) => t.name)).toContain(local[0]!.name);
      const c = await check(engine);
      expect(c.placements[0]).toMatchObject({ edit: "clean", syncStatus: "UP_TO_DATE", missing: false });
    });

    it("stops before overwriting user content unless confirmed, and never overlaps a placement", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const report = await env.createReport(byStatus());
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 3, 2, "mine");
      wb.user.edit(s, 4, 1, 42);
      const first = await engine.place(report, { at: at(wb, 1, 1) });
      expect(first).toMatchObject({ kind: "wouldOverwrite", count: 2, addresses: ["C4", "B5"] });
      expect(wb.user.cell(s, 1, 1)).toBe("");
      expect(await loadPlacements(wb.port)).toEqual([]);
      const second = await engine.place(report, { at: at(wb, 1, 1), confirmed: true });
      expect(second.kind).toBe("placed");
      const third = await engine.place(report, { at: at(wb, 3, 2), confirmed: true });
      expect(third.kind).toBe("collides");
    });

    it("refresh with unchanged data writes 0 cells", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byStatus()), at(wb, 0, 0));
      const out = await engine.refresh(p.key, "ask");
      expect(out).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0, chunksWritten: 0 } });
      const remote = await externalPlacements(env.client(), (await wb.port.identity()).workbookId);
      expect(remote[0]!.refreshedAt >= remote[0]!.placedAt).toBe(true);
    });

    it("an answer identical to the one last written is not decoded again; cells cleared by hand are still found and written back", async () => {
      const wb = newBook();
      const base = env.dataClient();
      let decoded = 0;
      const data: Pick<DataClient, "fetchLoad" | "fetchSql"> = {
        fetchLoad: async (q, signal) => {
          const f = await base.fetchLoad(q, signal);
          return { source: f.source, result: () => (decoded++, f.result()) };
        },
        fetchSql: (q, o, signal) => base.fetchSql(q, o, signal),
      };
      const engine = env.engine(wb, "analyst", { data });
      const p = await placed(engine, await env.createReport(byCustomer(1200)), at(wb, 0, 0));
      expect(decoded).toBe(1);
      const local = (await loadPlacements(wb.port))[0]!;
      expect(local.source).toMatch(/^[0-9a-f]{16}$/);
      const same = await engine.refresh(p.key, "ask");
      expect(same).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0, chunksWritten: 0, timings: { fingerprintMs: 0 } } });
      expect(decoded).toBe(1); // fetched and compared with the sheet, never decoded or laid out

      const s = wb.user.firstSheetId();
      const original = wb.user.cell(s, 5, 1);
      wb.user.edit(s, 5, 1, "");
      const ask = await engine.refresh(p.key, "ask");
      if (ask.kind !== "handEdited") throw new Error(`expected handEdited, got ${ask.kind}`);
      expect(ask.edits.cells).toEqual([{ address: "B6", lastWritten: original, now: "", incoming: original }]);
      expect(decoded).toBe(2); // laid out to tell the incoming values
      const over = await engine.refresh(p.key, "overwrite");
      expect(over.kind).toBe("refreshed");
      if (over.kind === "refreshed") expect(over.stats.chunksWritten).toBe(1);
      expect(wb.user.cell(s, 5, 1)).toBe(original);

      // Another report definition is another source, even with the same rows.
      await env.client().updateReport(env.deploymentId, p.reportId, {
        jsonQuery: JSON.stringify({ ...JSON.parse(byCustomer(1200).jsonQuery!), timezone: "UTC" }),
      });
      const before = decoded;
      expect(await engine.refresh(p.key, "ask")).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0 } });
      expect(decoded).toBe(before + 1);
    });

    it("cells read while the query ran that changed before the write are read again: a fresh edit is never cleared or overwritten", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byCustomer(1200)), at(wb, 0, 0));
      const s = wb.user.firstSheetId();
      const ahead = await engine.session({ trackedValues: "all" }); // what a read-ahead saw
      // Meanwhile the report shrinks (rows past 1,101 are to be cleared) and the user types there.
      await env.client().updateReport(env.deploymentId, p.reportId, byCustomer(1100));
      wb.user.edit(s, 1150, 1, "typed while the query ran");
      const out = await engine.applyRefresh(await engine.prepareRefresh(p.key), "ask", undefined, ahead);
      if (out.kind !== "handEdited") throw new Error(`expected handEdited, got ${out.kind}`);
      expect(out.edits.ranges).toEqual(["A1151:C1151"]);
      expect(wb.user.cell(s, 1150, 1)).toBe("typed while the query ran");
      // A read-ahead that is still true is used as it is.
      const kept = await engine.applyRefresh(
        await engine.prepareRefresh(p.key),
        "keep",
        undefined,
        await engine.session({ trackedValues: "all" }),
      );
      expect(kept.kind).toBe("kept");
      expect(wb.user.cell(s, 1150, 1)).toBe("typed while the query ran");
      expect(wb.user.cell(s, 1101, 0)).toBe(""); // outside the kept rows: cleared
    });

    it("hand edits: reports rows and last written / now / incoming; overwrite or keep", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const report = await env.createReport(byCustomer(1200));
      const p = await placed(engine, report, at(wb, 0, 0));
      const s = wb.user.firstSheetId();
      const original = wb.user.cell(s, 700, 2);
      wb.user.edit(s, 700, 2, 999_999);
      wb.user.edit(s, 701, 1, "typed over");
      const ask = await engine.refresh(p.key, "ask");
      if (ask.kind !== "handEdited") throw new Error(`expected handEdited, got ${ask.kind}`);
      expect(ask.edits.rows).toEqual([{ from: 700, to: 701 }]);
      expect(ask.edits.ranges).toEqual(["A701:C702"]);
      expect(ask.edits.cells[0]).toEqual({ address: "C701", lastWritten: original, now: 999_999, incoming: original });
      expect(ask.edits.cells).toHaveLength(2);
      expect(wb.user.cell(s, 700, 2)).toBe(999_999); // nothing written

      // Another session does not know what was last written: "unknown", not a guess.
      const other = env.engine(wb);
      const ask2 = await other.refresh(p.key, "ask");
      if (ask2.kind !== "handEdited") throw new Error("expected handEdited");
      expect(ask2.edits.cells[0]).toMatchObject({ address: "C701", lastWritten: undefined, now: 999_999, incoming: original });

      // Keep my edits: edited chunk skipped, placement stays marked edited.
      await env.client().updateReport(env.deploymentId, p.reportId, byCustomer(1100));
      const kept = await engine.refresh(p.key, "keep");
      expect(kept.kind).toBe("kept");
      expect(wb.user.cell(s, 700, 2)).toBe(999_999);
      expect(wb.user.cell(s, 1101, 0)).toBe(""); // shrink cleared rows outside the kept chunk
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "edited" });

      // Overwrite: the edits are replaced and the placement is clean again.
      const over = await engine.refresh(p.key, "overwrite");
      expect(over.kind).toBe("refreshed");
      expect(wb.user.cell(s, 700, 2)).toBe(original);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("grows only into empty cells: stops next to another placement and next to user content; shrinks clear", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      const grow = await env.createReport(byStatus(2));
      const p = await placed(engine, grow, at(wb, 0, 0));
      const below = await placed(engine, await env.createReport(byStatus(1)), at(wb, 3, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(10));
      const blocked = await engine.refresh(p.key, "ask");
      expect(blocked.kind).toBe("cannotGrow");
      if (blocked.kind === "cannotGrow") expect(blocked.placements.length).toBe(1);
      expect(wb.user.cell(s, 3, 0)).toBe("Status"); // the neighbour is untouched

      await engine.disconnect(below.key, { clear: true });
      wb.user.edit(s, 3, 1, "note");
      const blocked2 = await engine.refresh(p.key, "ask");
      expect(blocked2).toMatchObject({ kind: "cannotGrow", occupied: [{ address: "B4", value: "note" }] });

      wb.user.edit(s, 3, 1, "");
      const grown = await engine.refresh(p.key, "ask");
      expect(grown.kind).toBe("refreshed");
      const rows = (await loadPlacements(wb.port)).find((x) => x.key === p.key)!.shape.rows;
      expect(rows).toBeGreaterThan(3);
      expect(wb.user.cell(s, rows - 1, 0)).not.toBe("");

      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(1));
      const shrunk = await engine.refresh(p.key, "ask");
      expect(shrunk.kind).toBe("refreshed");
      if (shrunk.kind === "refreshed") expect(shrunk.stats.cellsCleared).toBe((rows - 2) * 2);
      expect(wb.user.cell(s, 2, 0)).toBe("");
      expect(wb.user.cell(s, rows - 1, 1)).toBe("");
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: "A1:B2" });
    });

    it("a refresh interrupted between the write and the record is not a hand edit", async () => {
      const wb = newBook();
      const base = env.engine(wb);
      const p = await placed(base, await env.createReport(byStatus(2)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(4));
      // The record step fails (network gone) after the cells were written.
      const real = env.client();
      const failing: PlatformClient = {
        ...real,
        refreshReport: async () => {
          throw new Error("network down");
        },
      };
      const broken = env.engine(wb, "analyst", { platform: failing });
      await expect(broken.refresh(p.key, "ask")).rejects.toThrow(/network down/);
      expect(wb.user.cell(wb.user.firstSheetId(), 4, 0)).not.toBe(""); // the new rows are on the sheet
      const stored = (await externalPlacements(real, (await wb.port.identity()).workbookId))[0]!;
      // On the next check the cells equal the pending fingerprint: the record is finished.
      const engine = env.engine(wb);
      const c = await check(engine);
      expect(c.placements[0]).toMatchObject({ edit: "interrupted-finished" });
      const after = (await externalPlacements(real, (await wb.port.identity()).workbookId))[0]!;
      expect(after.endResultCell).not.toBe(stored.endResultCell);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      const again = await engine.refresh(p.key, "ask");
      expect(again).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0 } });
    });

    it("a write interrupted midway (some chunks new, some old) is not a hand edit either", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byCustomer(1200)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, { jsonQuery: byCustomer(1200).jsonQuery!.replace('"asc"', '"desc"') });
      // The pane dies after the first write call (one chunk) landed.
      const broken = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 2 }) }, "analyst", { writeChunksPerCall: 1 });
      // Descending order changes every chunk; write the first run only, then fail.
      await expect(broken.refresh(p.key, "overwrite")).rejects.toThrow(/pane closed/);
      const c = await check(engine);
      expect(c.placements[0]!.edit).toBe("interrupted");
      const done = await engine.refresh(p.key, "ask");
      expect(done.kind).toBe("refreshed");
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("refresh all: queue with progress, isolated failures, stop", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      const a = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      const b = await placed(engine, await env.createReport(byStatus(3)), at(wb, 0, 4));
      const c = await placed(engine, await env.createReport(byStatus(3)), at(wb, 0, 8));
      wb.user.edit(s, 1, 5, "edited"); // b edited by hand
      await env.client().updateReport(env.deploymentId, a.reportId, { jsonQuery: '{"measures":["orders.nope"]}' }); // a fails
      const seen: string[] = [];
      const out = await engine.refreshAll({ onProgress: (p) => seen.push(`${p.done}/${p.total}`) });
      expect(out.total).toBe(3);
      expect(out.done).toBe(1);
      expect(out.items[c.key]).toMatchObject({ state: "done" });
      expect(out.items[a.key]).toMatchObject({ state: "not-refreshed" });
      expect(out.items[b.key]).toMatchObject({ state: "not-refreshed", reason: expect.stringMatching(/Edited by hand/) });
      expect(seen[0]).toBe("0/3");
      expect(seen.at(-1)).toBe("1/3");
      const stop = new AbortController();
      const stopped = await engine.refreshAll({
        signal: stop.signal,
        onProgress: (p) => {
          if (Object.values(p.items).some((i) => i.state === "refreshing")) stop.abort();
        },
      });
      expect(stopped.done).toBe(0);
      expect(Object.values(stopped.items).every((i) => i.state === "not-refreshed")).toBe(true);
      expect(Object.values(stopped.items).map((i) => (i.state === "not-refreshed" ? i.reason : ""))).toContain(
        "Stopped before it started.",
      );
    });

    it("check follows rows inserted above and a renamed sheet (address-only, fingerprint kept)", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      const p = await placed(engine, await env.createReport(byStatus(3)), at(wb, 1, 1));
      const id = (await wb.port.identity()).workbookId;
      const before = (await externalPlacements(env.client(), id))[0]!;
      wb.user.insertRows(s, 0, 3);
      wb.user.renameSheet(s, "Q3 numbers");
      const c = await check(engine);
      expect(c.placements[0]).toMatchObject({ edit: "clean", sheetName: "Q3 numbers", missing: false });
      expect(c.placements[0]!.corrections.join("; ")).toMatch(/anchor moved from B2 to B5; sheet renamed from Sheet1 to Q3 numbers/);
      const after = (await externalPlacements(env.client(), id))[0]!;
      expect(after).toMatchObject({ placementId: before.placementId, anchorCell: "B5", sheetName: "Q3 numbers", sheetId: s });
      const report = (await env.client().iterateReports(env.deploymentId, { externalWorkbookId: id })[Symbol.asyncIterator]().next())
        .value!;
      expect(report.externalWorkbookPlacements![0]!.resultChecksum).toEqual((await loadPlacements(wb.port))[0]!.committed);
      const again = await engine.refresh(p.key, "ask");
      expect(again).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0 } });
    });

    it("a deleted sheet makes the placement missing, with an offer to disconnect", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const other = wb.user.addSheet("Scratch");
      const p = await placed(engine, await env.createReport(byStatus(2)), { sheetId: other, row: 0, col: 0 });
      wb.user.deleteSheet(other);
      const c = await check(engine);
      expect(c.placements[0]).toMatchObject({ missing: true, offers: ["disconnect"] });
      expect(await engine.refresh(p.key, "ask")).toMatchObject({ kind: "missing" });
      await engine.disconnect(p.key);
      expect(await externalPlacements(env.client(), (await wb.port.identity()).workbookId)).toEqual([]);
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("a copied workbook is offered a fork; fork re-connects the copy and leaves the original", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      const originalId = (await wb.port.identity()).workbookId;
      const copy = wb.user.saveAsCopy("https://files.example/copy-of-book.xlsx");
      const copyEngine = env.engine(copy);
      const c = await check(copyEngine);
      expect(c).toMatchObject({ copied: true, offers: ["fork"] });
      const f = await fork(copyEngine);
      expect(f.workbookId).not.toBe(originalId);
      expect(Object.keys(f.failed)).toEqual([]);
      const originals = await externalPlacements(env.client(), originalId);
      const copies = await externalPlacements(env.client(), f.workbookId);
      expect(originals).toHaveLength(1);
      expect(copies).toHaveLength(1);
      expect(copies[0]!.placementId).not.toBe(originals[0]!.placementId);
      expect((await check(copyEngine)).copied).toBe(false);
      expect((await check(engine)).placements[0]).toMatchObject({ placementId: originals[0]!.placementId, edit: "clean" });
    });

    /**
     * A copy's engine whose connect-workbook of `failing` reports answers 503 while `down` is true
     * (the platform unreachable for those calls; the client retries, then gives up).
     */
    const copyWithFailingConnect = (copy: TestWorkbook, failing: Set<number>) => {
      const gate = { down: true };
      const fetch: FetchLike = (url, init) => {
        const m = /\/reports\/(\d+)\/connect-workbook$/.exec(new URL(url).pathname);
        if (gate.down && init.method === "POST" && m && failing.has(Number(m[1])))
          return Promise.resolve(new Response(JSON.stringify({ error: "Service unavailable" }), { status: 503 }));
        return globalThis.fetch(url, init);
      };
      const platform = createPlatformClient({
        baseUrl: env.platform.info.baseUrl,
        credential: env.platform.info.apiKeys.analyst,
        retry: { baseDelayMs: 1, maxDelayMs: 2 },
        fetch,
      });
      return { engine: env.engine(copy, "analyst", { platform }), gate };
    };

    /** The original workbook with two placements on Sheet1, its id and its platform entries; a copy of it. */
    const originalAndCopy = async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const a = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      const b = await placed(engine, await env.createReport(byStatus(3)), at(wb, 0, 4));
      const originalId = (await wb.port.identity()).workbookId;
      const before = await externalPlacements(env.client(), originalId);
      const copy = wb.user.saveAsCopy(`https://files.example/copy-${++n}.xlsx`);
      return { wb, engine, a, b, originalId, before, copy };
    };

    it("issue 36 item 5: a fork that fails for one placement leaves the original's record alone; the copy's next check finishes it", async () => {
      const { engine, a, b, originalId, before, copy } = await originalAndCopy();
      const { engine: copyEngine, gate } = copyWithFailingConnect(copy, new Set([b.reportId]));
      const f = await fork(copyEngine);
      expect(Object.keys(f.reconnected)).toEqual([a.key]);
      expect(Object.keys(f.failed)).toEqual([b.key]);
      expect(f.failed[b.key]).toMatch(/next check/);
      // No record of the copy holds the original's placement id.
      const originalIds = new Set(before.map((p) => p.placementId));
      for (const p of await loadPlacements(copy.port)) expect(originalIds.has(p.placementId ?? "")).toBe(false);

      copy.user.renameSheet(copy.user.firstSheetId(), "CopySheet");
      const stillDown = await check(copyEngine);
      expect(stillDown.placements.find((x) => x.key === b.key)?.problem).toMatch(/not connected to this copy yet/);
      expect(await externalPlacements(env.client(), originalId)).toEqual(before); // nothing sent with the original's ids

      gate.down = false;
      const c = await check(copyEngine);
      expect(c.placements.map((x) => x.problem)).toEqual([undefined, undefined]);
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
      const copies = await externalPlacements(env.client(), f.workbookId);
      expect(copies.map((x) => [x.reportId, x.sheetName]).sort()).toEqual(
        [
          [a.reportId, "CopySheet"],
          [b.reportId, "CopySheet"],
        ].sort(),
      );
      const local = (await loadPlacements(copy.port)).find((x) => x.key === b.key)!;
      expect(copies.map((x) => x.placementId)).toContain(local.placementId);

      expect(await copyEngine.refresh(b.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
      expect((await check(engine)).placements.map((x) => x.edit)).toEqual(["clean", "clean"]);
    });

    it("issue 36 item 5: a copy's refresh finishes a fork that failed for its placement; the original stays as it was", async () => {
      const { a, b, originalId, before, copy } = await originalAndCopy();
      const { engine: copyEngine, gate } = copyWithFailingConnect(copy, new Set([a.reportId, b.reportId]));
      const f = await fork(copyEngine);
      expect(Object.keys(f.failed).sort()).toEqual([a.key, b.key].sort());
      copy.user.renameSheet(copy.user.firstSheetId(), "CopySheet");
      gate.down = false;
      expect(await copyEngine.refresh(b.key, "overwrite")).toMatchObject({ kind: "refreshed" });
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
      const copies = await externalPlacements(env.client(), f.workbookId);
      expect(copies).toHaveLength(1);
      expect(copies[0]).toMatchObject({ reportId: b.reportId, sheetName: "CopySheet", access: "GRANTED" });
      expect((await loadPlacements(copy.port)).find((x) => x.key === b.key)?.placementId).toBe(copies[0]!.placementId);
      // And the refresh after it addresses the copy's own placement.
      expect(await copyEngine.refresh(b.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
    });

    it("issue 36 item 5: a fork stopped before the copy got its id sends nothing with the original's ids; forked again, or kept as the same file, it ends whole", async () => {
      const { wb, a, b, originalId, before, copy } = await originalAndCopy();
      const stopping = (port: SheetPort): SheetPort => {
        const p = Object.create(port) as SheetPort;
        p.forkIdentity = () => Promise.reject(new Error("pane closed"));
        return p;
      };
      const stopped = env.engine({ port: stopping(copy.port), user: copy.user });
      await expect(fork(stopped)).rejects.toThrow("pane closed");
      expect((await loadPlacements(copy.port)).map((p) => p.placementId)).toEqual([null, null]);
      copy.user.renameSheet(copy.user.firstSheetId(), "CopySheet");
      const copyEngine = env.engine(copy);
      expect(await check(copyEngine)).toMatchObject({ copied: true, offers: ["fork"] });
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
      const f = await fork(copyEngine);
      expect(Object.keys(f.reconnected).sort()).toEqual([a.key, b.key].sort());
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
      expect((await externalPlacements(env.client(), f.workbookId)).map((x) => x.sheetName)).toEqual(["CopySheet", "CopySheet"]);

      // The same stop, then the person says it is the same file (renamed or moved): its ids are its own again.
      const moved = wb.user.saveAsCopy(`https://files.example/moved-${++n}.xlsx`);
      await expect(fork(env.engine({ port: stopping(moved.port), user: moved.user }))).rejects.toThrow("pane closed");
      const movedEngine = env.engine(moved);
      await keepIdentity(movedEngine);
      const c = await check(movedEngine);
      expect(c.placements.map((x) => [x.placementId, x.problem])).toEqual(before.map((x) => [x.placementId, undefined]));
      expect(await externalPlacements(env.client(), originalId)).toEqual(before);
    });

    /** The workbook's records: `real` (placed) and `count` more, of `reportOf(i)` (the real one's report by default), untracked. */
    const withRecords = async (wb: TestWorkbook, count: number, reportOf?: (i: number) => number) => {
      const real = await loadPlacements(wb.port);
      const more = Array.from({ length: count }, (_, i) => ({
        ...real[0]!,
        key: `More${i}`,
        name: `CB_More${i}`,
        placementId: null,
        committed: null,
        pending: null,
        reportId: reportOf ? reportOf(i) : real[0]!.reportId,
      }));
      await wb.port.setData(STATE_KEY, { v: 1, placements: [...real, ...more] });
    };
    /** A data client that counts the queries sent. */
    const countingData = () => {
      const base = env.dataClient();
      const data: Pick<DataClient, "fetchLoad" | "fetchSql"> & { queries: number } = {
        queries: 0,
        fetchLoad: (q, signal) => (data.queries++, base.fetchLoad(q, signal)),
        fetchSql: (q, o, signal) => (data.queries++, base.fetchSql(q, o, signal)),
      };
      return data;
    };

    it("issue 36 item 6: a placement past the platform's 2,000 placements per workbook is refused before anything is written", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      await withRecords(wb, 1998);
      const id = (await wb.port.identity()).workbookId;
      // The 2,000th is placed.
      await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 4));
      expect(await loadPlacements(wb.port)).toHaveLength(2000);
      // The 2,001st is not: nothing written, nothing recorded, here or on the platform.
      const third = await env.createReport(byStatus(2));
      const err = await engine.place(third, { at: at(wb, 0, 8) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlacementLimitReached);
      expect((err as Error).message).toBe(
        `“${third.name}” was not placed: this workbook already holds 2,000 placements, the most the platform records for one workbook. Disconnect some before placing another.`,
      );
      expect(wb.user.cell(s, 0, 8)).toBe("");
      expect(await loadPlacements(wb.port)).toHaveLength(2000);
      expect((await wb.port.tracked()).map((t) => t.name)).toHaveLength(2);
      expect(await externalPlacements(env.client(), id)).toHaveLength(2);

      // After the home read what the workbook holds, the refusal comes before the report's data is fetched.
      const data = countingData();
      const pane = env.engine(wb, "analyst", { data });
      await home(pane);
      await expect(pane.place(third, { at: at(wb, 0, 8) })).rejects.toBeInstanceOf(PlacementLimitReached);
      expect(data.queries).toBe(0);
      expect(wb.user.cell(s, 0, 8)).toBe("");
    });

    it("issue 36 item 6: a new report past the platform's 500 placed reports per workbook is refused; another placement of a placed report is not", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      const report = await env.createReport(byStatus(2));
      await placed(engine, report, at(wb, 0, 0));
      await withRecords(wb, 499, (i) => 900_000 + i);
      const other = await env.createReport(byStatus(2));
      const err = await engine.place(other, { at: at(wb, 0, 4) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlacementLimitReached);
      expect((err as Error).message).toMatch(/already holds placements of 500 reports, the most the platform records for one workbook/);
      expect(wb.user.cell(s, 0, 4)).toBe("");
      expect(await loadPlacements(wb.port)).toHaveLength(500);
      await placed(engine, report, at(wb, 0, 4));
      expect(await loadPlacements(wb.port)).toHaveLength(501);
    });

    it("another user's placement in the same file is DENIED for us: listed read-only, never refreshed, cleared or moved", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const outsider = env.engine(wb, "outsider");
      const secret = await env.createReport(byStatus(2), "outsider");
      const theirs = await placed(outsider, secret, at(wb, 0, 0));
      const analyst = env.engine(wb);
      const mine = await placed(analyst, await env.createReport(byStatus(2)), at(wb, 0, 4));
      const h = await home(analyst);
      const denied = h.entries.find((e) => e.placementId === theirs.placementId)!;
      expect(denied).toMatchObject({ access: "DENIED", readOnly: true, reportName: null, reportId: null, deploymentId: env.deploymentId });
      expect(denied.owner?.email).toMatch(/outsider|@/);
      expect(h.entries.find((e) => e.placementId === mine.placementId)).toMatchObject({
        access: "GRANTED",
        reportName: expect.any(String),
      });
      const before = wb.user.cell(s, 1, 1);
      const all = await analyst.refreshAll({});
      // Refresh all lists it, never counts it as refreshed, and says why.
      expect(all.done).toBe(1);
      expect(all.items[mine.key]).toMatchObject({ state: "done" });
      expect(all.items[theirs.key]).toMatchObject({ state: "not-refreshed", reason: expect.stringMatching(/^No access: you cannot read/) });
      await expect(analyst.refresh(theirs.key, "overwrite")).rejects.toThrow(/cannot read|not found/i);
      await expect(analyst.disconnect(theirs.key, { clear: true })).rejects.toThrow();
      expect(wb.user.cell(s, 1, 1)).toBe(before);
      expect((await wb.port.tracked()).length).toBe(2);
    });

    it("disconnect keeps the cells by default, or clears them", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      const a = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      const b = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 3));
      await engine.disconnect(a.key);
      await engine.disconnect(b.key, { clear: true });
      expect(wb.user.cell(s, 0, 0)).toBe("Status");
      expect(wb.user.cell(s, 0, 3)).toBe("");
      expect(await wb.port.tracked()).toEqual([]);
      expect(await externalPlacements(env.client(), (await wb.port.identity()).workbookId)).toEqual([]);
    });
  });
}

/**
 * Scenarios that need the stand-in's seeded workbooks (a mixed GRANTED/DENIED document, one over the
 * 422 limit) or no workbook at all (upsert semantics). They adopt a seeded workbook id, which only
 * the in-memory port allows, so they run once, on it.
 */
export function platformScenarios(kind: WorkbookKind): void {
  describe("workbook home (seeded documents) and upsert semantics", () => {
    let env: Env;
    beforeAll(async () => {
      env = await startEnv();
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });

    it("home lists every placement of a seeded document; DENIED read-only with owner and deployment; never refreshed", async () => {
      const wb = kind("https://files.example/mixed.xlsx");
      await wb.port.identity();
      await wb.port.setData("unused", null);
      // Adopt the seeded workbook id whose placements mix GRANTED and DENIED for the analyst.
      const engine = env.engine(wb);
      const mixed = env.platform.info.externalWorkbooks.mixed;
      const port = wb.port as unknown as { wb?: { workbookId: string | null } };
      if (port.wb) port.wb.workbookId = mixed;
      else await adoptId(wb, mixed);
      const h = await home(engine);
      const denied = h.entries.filter((e) => e.access === "DENIED");
      const granted = h.entries.filter((e) => e.access === "GRANTED");
      expect(denied.length).toBeGreaterThan(0);
      expect(granted.length).toBeGreaterThan(0);
      for (const d of denied) {
        expect(d).toMatchObject({ readOnly: true, reportName: null, reportId: null });
        expect(d.owner?.email).toMatch(/@/);
        expect(typeof d.deploymentId).toBe("number");
      }
      for (const g of granted) expect(g.reportName).toEqual(expect.any(String));
      const all = await engine.refreshAll({});
      expect(all.total).toBe(0); // nothing tracked locally here; DENIED are never queued
    });

    it("a pivot with totals from separate total queries (averages total correctly) and the filter summary", async () => {
      const wb = kind("https://files.example/pivot.xlsx");
      const engine = env.engine(wb, "analyst", { filterDefaults: { user: null, account: true } });
      const query = {
        measures: ["orders.avg_amount", "orders.count"],
        dimensions: ["orders.status", "orders.is_returned"],
        filters: [
          { member: "orders.status", operator: "notEquals", values: ["cancelled"] },
          { member: "orders.count", operator: "gt", values: ["1"] },
        ],
        order: [
          ["orders.status", "asc"],
          ["orders.is_returned", "asc"],
        ],
      };
      const report = await env.createReport({
        jsonQuery: JSON.stringify(query),
        pivotItems: {
          rows: ["orders.status"],
          columns: ["orders.is_returned"],
          measures: ["orders.avg_amount"],
          filters: [],
          showRowTotals: true,
          showColumnTotals: true,
        },
      });
      const out = await placed(engine, report, { sheetId: wb.user.firstSheetId(), row: 0, col: 0 });
      const s = wb.user.firstSheetId();
      // Filter summary (account setting on; the report does not say) above the table.
      expect(wb.user.cell(s, 0, 0)).toBe("Applied filter: Orders Status is not cancelled");
      expect(wb.user.cell(s, 1, 0)).toBe("Applied filter: Orders Count > 1");
      expect(wb.user.cell(s, 2, 0)).toBe("");
      // The grand total is the average over all rows from its own query, not an average of averages.
      const c = env.client();
      const data = (await import("../../src/api/index.ts")).createDataClient({
        dataUrl: env.platform.info.dataUrl,
        token: (await c.createDeploymentToken(env.deploymentId)).token,
      });
      const grand = await data.load({
        measures: ["orders.avg_amount"],
        filters: [{ member: "orders.status", operator: "notEquals", values: ["cancelled"] }],
      });
      const rows = Number(out.range.split(":")[1]!.replace(/[A-Z]+/, ""));
      const corner = wb.user.cell(s, rows - 1, 3);
      expect(wb.user.cell(s, rows - 1, 0)).toBe("Total");
      expect(corner).toBeCloseTo(grand.rows[0]![0] as number, 6);
      expect(wb.user.cell(s, 3, 3)).toBe("Total");
      // The report changes after its cells were written: CHANGED.
      await c.updateReport(env.deploymentId, out.reportId, {
        pivotItems: { rows: ["orders.status"], columns: ["orders.is_returned"], measures: ["orders.count"], filters: [] },
      });
      expect((await check(engine)).placements[0]).toMatchObject({ syncStatus: "CHANGED", edit: "clean" });
    });

    it("a sqlQuery report runs through /v1/svcsql as a typed flat table", async () => {
      const wb = kind("https://files.example/sql.xlsx");
      const engine = env.engine(wb);
      const report = await env.createReport({
        sqlQuery: "SELECT id, status, created_at, amount, is_returned FROM orders WHERE id <= 3 ORDER BY id",
      });
      const out = await placed(engine, report, { sheetId: wb.user.firstSheetId(), row: 0, col: 0 });
      expect(out.range).toBe("A1:E4");
      const s = wb.user.firstSheetId();
      expect([0, 1, 2, 3, 4].map((c) => typeof wb.user.cell(s, 1, c))).toEqual(["number", "string", "number", "number", "boolean"]);
      expect(await engine.refresh(out.key, "ask")).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0 } });
    });

    it("places a report the user may read but not edit; an ambiguous legacy id stops before any cell is written", async () => {
      const wb = kind("https://files.example/shared.xlsx");
      const engine = env.engine(wb);
      let shared: Report | undefined;
      for await (const r of env.client().iterateReports(env.deploymentId))
        if (r.canEdit === false && !isPlaceholderPublicId(r.publicId) && (r.jsonQuery || r.sqlQuery)) shared = r;
      expect(shared).toBeDefined();
      const out = await engine.place(shared!, { at: { sheetId: wb.user.firstSheetId(), row: 0, col: 0 } });
      expect(out).toMatchObject({ kind: "placed", reportId: shared!.id, publicId: shared!.publicId });

      const wb2 = kind("https://files.example/legacy.xlsx");
      const admin = env.engine(wb2, "admin");
      let legacy: Report | undefined;
      for await (const r of env.client("admin").iterateReports(env.deploymentId))
        if (r.publicId === env.platform.info.legacyPublicIds.ambiguous) legacy = r;
      const err = await admin
        .place({ ...legacy!, ...byStatus() }, { at: { sheetId: wb2.user.firstSheetId(), row: 0, col: 0 } })
        .catch((e) => e);
      expect(err).toBeInstanceOf(UpsertStopped);
      expect(wb2.user.cell(wb2.user.firstSheetId(), 0, 0)).toBe("");
      expect(await loadPlacements(wb2.port)).toEqual([]);
    });

    it("422 turns into a clear message naming the limit", async () => {
      const wb = kind("https://files.example/big.xlsx");
      await adoptId(wb, env.platform.info.externalWorkbooks.oversized);
      const engine = env.engine(wb);
      const h = await home(engine);
      expect(h.entries).toEqual([]);
      expect(h.platformProblem).toMatch(/records at most 2,000 placements and 500 placed reports for one workbook/);
      const c = await check(engine);
      expect(c.platformProblem).toMatch(/500 placed reports or over 2,000 placements/);
    });

    it("issue 36 item 6: a workbook over the platform's limits keeps its home: its own placements, their state from the workbook, and what to do; placing is refused", async () => {
      const wb = kind("https://files.example/big-home.xlsx");
      await adoptId(wb, env.platform.info.externalWorkbooks.oversized);
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      const a = await placed(engine, await env.createReport(byStatus(2)), { sheetId: s, row: 0, col: 0 });
      const b = await placed(engine, await env.createReport(byStatus(3)), { sheetId: s, row: 0, col: 4 });
      wb.user.edit(s, 1, 4, "typed");
      const checked = await check(engine);
      const h = await home(engine);
      expect(h.platformProblem).toBe(
        "The platform lists none of this workbook's placements: it records at most 2,000 placements and 500 placed reports for one workbook, and it holds more for this one. This workbook's own record has 2 placements of 2 reports: the cards below; what the platform holds of them is unknown. Disconnect placements you no longer need, then check the workbook again.",
      );
      expect(h.entries.map((e) => [e.key, e.access, e.range, e.syncStatus])).toEqual([
        [a.key, "UNLISTED", a.range, "UNKNOWN"],
        [b.key, "UNLISTED", b.range, "UNKNOWN"],
      ]);
      const status = (key: string) =>
        placementStatus(
          factsOf(
            h.entries.find((e) => e.key === key)!,
            checked.placements.find((c) => c.key === key),
          ),
        );
      expect(status(a.key)).toMatchObject({ kind: "unknown", canRefresh: true, canDisconnect: true });
      expect(status(a.key).lines).toEqual([unlistedLine]);
      expect(status(b.key)).toMatchObject({ kind: "editedByHand" });
      expect(status(b.key).lines).toEqual(["Row 2 edited by hand", unlistedLine]);

      const err = await engine.place(await env.createReport(byStatus(2)), { at: { sheetId: s, row: 0, col: 8 } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PlacementLimitReached);
      expect((err as Error).message).toMatch(
        /holds more than the platform records for one workbook .*Disconnect some before placing another\.$/,
      );
      expect(wb.user.cell(s, 0, 8)).toBe("");
      expect(await loadPlacements(wb.port)).toHaveLength(2);
    });

    it("409 without code: a new publicId is chosen, said, and the upsert carries on", async () => {
      const admin = env.client("admin");
      const other = await admin.createReport(env.platform.info.deployments[1]!.id, {
        name: "Elsewhere",
        title: "Elsewhere",
        ...byStatus(),
      });
      const ids = ["NewId0000001"];
      const out = await upsertReport(
        admin,
        env.deploymentId,
        other.publicId,
        { name: "Moved", title: "Moved", ...byStatus() },
        { newPublicId: () => ids.shift()! },
      );
      expect(out.publicId).toBe("NewId0000001");
      expect(out.report.publicId).toBe("NewId0000001");
      expect(out.report.deploymentId).toBe(env.deploymentId);
      expect(out.notices[0]).toMatch(/another deployment/);
      // Idempotent: the same request again changes nothing.
      const again = await upsertReport(admin, env.deploymentId, "NewId0000001", { name: "Moved", title: "Moved", ...byStatus() });
      expect(again.report.id).toBe(out.report.id);
      expect(again.report.version).toBe(out.report.version);
    });

    it("upsert_branch_changed is retried with backoff", async () => {
      const admin = env.client("admin");
      const r = await admin.createReport(env.deploymentId, { name: "Raced", title: "Raced", publicId: "RacedReport1", ...byStatus() });
      env.platform.hooks.raceNextUpsert("delete");
      const out = await upsertReport(admin, env.deploymentId, "RacedReport1", { name: "Raced again", title: "Raced", ...byStatus() });
      expect(out.report.publicId).toBe("RacedReport1");
      expect(out.report.id).not.toBe(r.id); // the other writer deleted it; the retry created it anew
    });

    it("ambiguous_legacy_id stops with an explanation and the offer to assign a new id by reportId", async () => {
      const admin = env.client("admin");
      const ambiguous = env.platform.info.legacyPublicIds.ambiguous;
      const err = await upsertReport(admin, env.deploymentId, ambiguous, { name: "x", title: "x" }).catch((e) => e);
      expect(err).toBeInstanceOf(UpsertStopped);
      expect(err).toMatchObject({ reason: "ambiguous-legacy-id", offer: "assign-new-public-id" });
      let legacy: number | undefined;
      for await (const rep of admin.iterateReports(env.deploymentId)) if (rep.publicId === ambiguous) legacy = rep.id;
      expect(legacy).toBeDefined();
      const fixed = await assignNewPublicId(admin, env.deploymentId, legacy!, { newPublicId: () => "OwnIdAssign1" });
      expect(fixed.publicId).toBe("OwnIdAssign1");
    });
  });
}

/** Give a workbook a known stored id (the seeded external workbooks) through its port. */
async function adoptId(wb: TestWorkbook, id: string): Promise<void> {
  const port = wb.port as unknown as { wb?: { workbookId: string | null } };
  if (port.wb) {
    port.wb.workbookId = id;
    return;
  }
  throw new Error("This workbook kind cannot adopt a workbook id");
}
