// Issue 12 §1–§3 on the engine: hung calls never hold the lock, interrupted writes are never
// called hand edits (journal, chunk-aligned writes, grown rows, shrinks, first placements),
// Stop finishes the write under way, Place lands where the user chose, disconnect is
// idempotent, several deployments in one workbook, exact edited rows, what a refresh changed.
// Written once and run per workbook kind (memory port; Office.js adapter over dev/excel).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type DataClient, type PlatformClient } from "../../src/api/index.ts";
import { check } from "../../src/sync/index.ts";
import { describeChange, placementStatus } from "../../src/sync/status.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import type { SheetPort } from "../../src/host/port.ts";
import { at, byCustomer, byStatus, externalPlacements, flakyPort, placed, startEnv, type Env, type WorkbookKind } from "./support.ts";

/** A fetch that never answers the requests `hang` picks (and ignores their AbortSignal), else the real one. */
function hangingFetch(hang: (url: string, init?: RequestInit) => boolean, onHang?: () => void): typeof fetch {
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (hang(url, init)) {
      onHang?.();
      return new Promise<Response>(() => {});
    }
    return fetch(input, init);
  }) as typeof fetch;
}

export function faultScenarios(label: string, kind: WorkbookKind): void {
  describe(`faults: never hang, never lie (${label})`, () => {
    let env: Env;
    let n = 0;
    const newBook = () => kind(`https://files.example/faults-${++n}.xlsx`);
    beforeAll(async () => {
      env = await startEnv();
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });
    const hangingClient = (hang: (url: string, init?: RequestInit) => boolean, onHang?: () => void): PlatformClient =>
      createPlatformClient({
        baseUrl: env.platform.info.baseUrl,
        credential: env.platform.info.apiKeys.analyst,
        retry: { baseDelayMs: 5, maxDelayMs: 20 },
        fetch: hangingFetch(hang, onHang),
      });

    it("a hung record (fetch never answers) ends at Cancel, and check/disconnect work again at once", async () => {
      const wb = newBook();
      const p = await placed(env.engine(wb), await env.createReport(byStatus(2)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(4));
      const cancel = new AbortController();
      const isRecord = (url: string, init?: RequestInit) => init?.method === "PUT" && url.endsWith("/refresh");
      const engine = env.engine(wb, "analyst", { platform: hangingClient(isRecord, () => setTimeout(() => cancel.abort(), 10)) });
      const t0 = Date.now();
      await expect(engine.refresh(p.key, "ask", { signal: cancel.signal })).rejects.toThrow();
      expect(Date.now() - t0).toBeLessThan(4000);
      // The lock is free: check runs now (its own record of the finished write hangs too: Cancel it as well).
      const cancelCheck = new AbortController();
      setTimeout(() => cancelCheck.abort(), 200);
      const t1 = Date.now();
      await check(engine, { signal: cancelCheck.signal }).catch(() => undefined);
      expect(Date.now() - t1).toBeLessThan(4000);
      // …and disconnect too (a different call: it answers).
      await engine.disconnect(p.key);
      expect(await loadPlacements(wb.port)).toEqual([]);
    }, 20_000);

    it("Place lands on the cell selected when it was pressed, not where the selection is when the data arrives", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const base = env.engine(wb);
      const real = env.dataClient();
      await wb.port.select({ sheetId: s, row: 1, col: 1, rows: 1, cols: 1 }); // B2
      const slow: Pick<DataClient, "fetchLoad" | "fetchSql"> = {
        fetchLoad: async (...a: Parameters<DataClient["fetchLoad"]>) => {
          await wb.port.select({ sheetId: s, row: 2, col: 2, rows: 1, cols: 1 }); // the user clicks C3 meanwhile
          return real.fetchLoad(...a);
        },
        fetchSql: (...a: Parameters<DataClient["fetchSql"]>) => real.fetchSql(...a),
      };
      const engine = env.engine(wb, "analyst", { data: slow });
      void base;
      const out = await engine.place(await env.createReport(byStatus(2)));
      expect(out).toMatchObject({ kind: "placed", range: expect.stringMatching(/^B2:/) });
      expect(wb.user.cell(s, 1, 1)).toBe("Status");
    });

    it("Stop in Refresh all stops between placements: the write under way is finished and recorded", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const a = await placed(engine, await env.createReport(byCustomer(1200)), at(wb, 0, 0));
      const b = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 6));
      await env.client().updateReport(env.deploymentId, a.reportId, { jsonQuery: byCustomer(1200).jsonQuery!.replace('"asc"', '"desc"') });
      const stop = new AbortController();
      let writes = 0;
      const port = Object.create(wb.port) as SheetPort;
      port.commit = async (commands, options) => {
        if (commands.some((c) => c.kind === "write") && ++writes === 1) stop.abort(); // Stop pressed while the first write runs
        return wb.port.commit(commands, options);
      };
      const stopping = env.engine({ ...wb, port }, "analyst", { writeChunksPerCall: 1, queryConcurrency: 1 });
      const out = await stopping.refreshAll({ signal: stop.signal });
      expect(out.items[a.key]).toMatchObject({ state: "done" });
      expect(out.items[b.key]).toMatchObject({ state: "not-refreshed", reason: expect.stringMatching(/^Stopped/) });
      const local = (await loadPlacements(wb.port)).find((x) => x.key === a.key)!;
      expect(local.pending).toBeNull();
      expect((await check(engine)).placements.find((c) => c.key === a.key)).toMatchObject({ edit: "clean" });
    });

    it("a write stopped inside a call (half its rows landed) is Interrupted — finish refresh, never Edited by hand", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byCustomer(1200)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, { jsonQuery: byCustomer(1200).jsonQuery!.replace('"asc"', '"desc"') });
      const broken = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 1, halfWrite: true }) }, "analyst", {
        writeChunksPerCall: 1,
      });
      await expect(broken.refresh(p.key, "overwrite")).rejects.toThrow(/pane closed/);
      const local = (await loadPlacements(wb.port))[0]!;
      expect(local.pending).toMatchObject({ phase: "writing", inFlight: { from: 1, to: 999 } }); // the header row did not change
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("interrupted");
      const status = placementStatus({
        access: "GRANTED",
        missing: false,
        edit: c.edit,
        editedRows: [],
        editedRowsExact: false,
        syncStatus: c.syncStatus,
        noAccess: null,
      });
      expect(status).toMatchObject({ kind: "interrupted", label: "Interrupted — finish refresh" });
      const done = await engine.refresh(p.key, "ask");
      expect(done.kind).toBe("refreshed");
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("a refresh interrupted over an earlier interrupted one: the rows the first left half written stay Interrupted (soak seed 20261123)", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const asc = byCustomer(1200);
      const p = await placed(engine, await env.createReport(asc), at(wb, 0, 0));
      const desc = { jsonQuery: asc.jsonQuery!.replace('"asc"', '"desc"') };
      await env.client().updateReport(env.deploymentId, p.reportId, desc);
      // First write: chunk 0 lands, then the call for chunk 1 stops after half its rows.
      const first = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 2, halfWrite: true }) }, "analyst", {
        writeChunksPerCall: 1,
      });
      await expect(first.refresh(p.key, "ask")).rejects.toThrow(/pane closed/);
      expect((await check(engine)).placements[0]!.edit).toBe("interrupted");
      // The report changes again; Refresh all starts writing it and fails on its first call (chunk 0), nothing landed.
      await env.client().updateReport(env.deploymentId, p.reportId, asc);
      const second = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 1 }) }, "analyst", { writeChunksPerCall: 1 });
      const all = await second.refreshAll({});
      expect(all.items[p.key]).toMatchObject({ state: "not-refreshed", reason: "pane closed" });
      // Chunk 1 still holds the first write's half: Cellbound's, not a hand edit.
      expect((await check(engine)).placements[0]!.edit).toBe("interrupted");
      const done = await engine.refresh(p.key, "ask");
      expect(done.kind).toBe("refreshed");
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("a refresh interrupted over an unrecorded one: the earlier write's chunks it did not reach stay Interrupted", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const asc = byCustomer(1200);
      const p = await placed(engine, await env.createReport(asc), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, { jsonQuery: asc.jsonQuery!.replace('"asc"', '"desc"') });
      // Every cell lands, then the record never answers (Cancel): the journal ends "written", unrecorded.
      const cancel = new AbortController();
      const isRecord = (url: string, init?: RequestInit) => init?.method === "PUT" && url.endsWith("/refresh");
      const unrecorded = env.engine(wb, "analyst", { platform: hangingClient(isRecord, () => setTimeout(() => cancel.abort(), 10)) });
      await expect(unrecorded.refresh(p.key, "ask", { signal: cancel.signal })).rejects.toThrow();
      expect((await loadPlacements(wb.port))[0]!.pending).toMatchObject({ phase: "written" });
      // The report changes back; the next write fails on its first call (chunk 0): chunk 1 still holds the earlier grid.
      await env.client().updateReport(env.deploymentId, p.reportId, asc);
      const broken = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 1 }) }, "analyst", { writeChunksPerCall: 1 });
      await expect(broken.refresh(p.key, "ask")).rejects.toThrow(/pane closed/);
      expect((await check(engine)).placements[0]!.edit).toBe("interrupted");
      expect(await engine.refresh(p.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("a person's edit kept by a write over an earlier interrupted one is still reported after it is interrupted too", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env.engine(wb);
      const asc = byCustomer(1200);
      const p = await placed(engine, await env.createReport(asc), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, { jsonQuery: asc.jsonQuery!.replace('"asc"', '"desc"') });
      // The first write fails on its first call, nothing landed: every chunk is still the committed grid.
      const first = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 1 }) }, "analyst", { writeChunksPerCall: 1 });
      await expect(first.refresh(p.key, "ask")).rejects.toThrow(/pane closed/);
      wb.user.edit(s, 1100, 1, "typed by hand"); // chunk 1
      // "Keep my edits": the next write leaves chunk 1 alone, and fails on its first call (chunk 0).
      const second = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 1 }) }, "analyst", { writeChunksPerCall: 1 });
      await expect(second.refresh(p.key, "keep")).rejects.toThrow(/pane closed/);
      expect((await loadPlacements(wb.port))[0]!.pending?.carried ?? []).toEqual([]);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "edited", editedRows: [{ from: 1100, to: 1100 }] });
    });

    it("rows the placement grew into (still empty after an interruption) are not counted as edited", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byCustomer(600)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, byCustomer(1200));
      // The write call fails before any of its rows landed.
      const port = flakyPort(wb.port, { failWrite: 1 });
      const broken = env.engine({ ...wb, port }, "analyst", { writeChunksPerCall: 1 });
      await expect(broken.refresh(p.key, "ask")).rejects.toThrow(/pane closed/);
      // Drop the in-flight entry: the grown rows alone must still read as ours.
      const { updatePlacement } = await import("../../src/sync/state.ts");
      await updatePlacement(wb.port, p.key, (x) => ({ ...x, pending: x.pending && { ...x.pending, inFlight: null } }));
      expect((await check(engine)).placements[0]!.edit).toBe("interrupted");
      const done = await engine.refresh(p.key, "ask");
      expect(done).toMatchObject({ kind: "refreshed", stats: { rowsAdded: 600 } });
    });

    it("an interrupted first placement is tracked and recorded by the next refresh", async () => {
      const wb = newBook();
      const report = await env.createReport(byStatus(4));
      const broken = env.engine({ ...wb, port: flakyPort(wb.port, { failWrite: 1, halfWrite: true }) });
      await expect(broken.place(report, { at: at(wb, 1, 1) })).rejects.toThrow(/pane closed/);
      const local = (await loadPlacements(wb.port))[0]!;
      expect(local.placementId).toBeNull();
      expect((await wb.port.tracked()).map((t) => t.name)).toContain(local.name);
      const engine = env.engine(wb);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "interrupted", missing: false });
      const out = await engine.refresh(local.key, "ask");
      expect(out.kind).toBe("refreshed");
      const after = (await loadPlacements(wb.port))[0]!;
      expect(after.placementId).not.toBeNull();
      expect(after.pending).toBeNull();
      expect(await externalPlacements(env.client(), (await wb.port.identity()).workbookId)).toHaveLength(1);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", missing: false, range: "B2:C6" });
    });

    it("a first placement stopped between its journal and its tracking name is found where its record says and finished (soak seed 20261126)", async () => {
      const wb = newBook();
      const report = await env.createReport(byStatus(4));
      // The sync stops at the name: the journal before it landed, nothing after it.
      const stopAtName = Object.create(wb.port) as SheetPort;
      stopAtName.commit = async (commands, options) => {
        const i = commands.findIndex((c) => c.kind === "track");
        if (i < 0) return wb.port.commit(commands, options);
        await wb.port.commit(commands.slice(0, i), options);
        throw new Error("pane closed");
      };
      await expect(env.engine({ ...wb, port: stopAtName }).place(report, { at: at(wb, 1, 1) })).rejects.toThrow(/pane closed/);
      const local = (await loadPlacements(wb.port))[0]!;
      expect((await wb.port.tracked()).map((t) => t.name)).not.toContain(local.name);
      const engine = env.engine(wb);
      expect((await check(engine)).placements[0]).toMatchObject({ missing: false, range: "B2:C6" });
      expect(await engine.refresh(local.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect((await wb.port.tracked()).map((t) => t.name)).toContain(local.name);
      expect((await loadPlacements(wb.port))[0]).toMatchObject({ pending: null, placementId: expect.any(String) as unknown });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", missing: false, range: "B2:C6" });
    });

    it("an interrupted shrink is finished by the next check: the rows it left are cleared", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byStatus(5)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(2));
      const broken = env.engine({ ...wb, port: flakyPort(wb.port, { failClear: 1 }) });
      await expect(broken.refresh(p.key, "overwrite")).rejects.toThrow(/pane closed/);
      expect(wb.user.cell(s, 4, 0)).not.toBe(""); // the stale rows are still there
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("interrupted-finished");
      expect(wb.user.cell(s, 3, 0)).toBe("");
      expect(wb.user.cell(s, 5, 1)).toBe("");
      expect(c.range).toBe("A1:B3");
    });

    it("disconnect is idempotent: a placement already gone on the platform still loses its local record", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      await env.client().disconnectWorkbook(env.deploymentId, p.reportId, { placementId: p.placementId });
      await engine.disconnect(p.key);
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
    });

    it("disconnect whose clearing fails still stops tracking (the platform no longer has it) and says the cells stay", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      const broken = env.engine({ ...wb, port: flakyPort(wb.port, { failClear: 1 }) });
      await expect(broken.disconnect(p.key, { clear: true })).rejects.toThrow(
        /is disconnected, but its cells at .+ could not all be cleared/,
      );
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
      const listed = await env.client().listExternalPlacements((await wb.port.identity()).workbookId);
      expect(listed.items.filter((x) => x.placementId === p.placementId)).toEqual([]);
    });

    it("check names the exact edited rows (the same rows a refresh reports)", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byStatus(5)), at(wb, 1, 0));
      wb.user.edit(s, 4, 1, 12345); // sheet row 5 = relative row 3
      const c = (await check(engine)).placements[0]!;
      expect(c).toMatchObject({ edit: "edited", editedRows: [{ from: 3, to: 3 }], editedRowsExact: true });
      const out = await engine.refresh(p.key, "ask");
      expect(out).toMatchObject({ kind: "handEdited", edits: { rows: [{ from: 3, to: 3 }] } });
    });

    it("after a refresh the outcome says what changed", async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const p = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
      const same = await engine.refresh(p.key, "ask");
      expect(same.kind === "refreshed" && describeChange(same.stats)).toBe("No change");
      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(4));
      const grown = await engine.refresh(p.key, "ask");
      expect(grown.kind === "refreshed" && describeChange(grown.stats)).toBe("2 rows added, 4 cells changed");
    });

    it("several deployments in one workbook: each placement refreshes with its own deployment's data; without it, it says why", async () => {
      const [d1, d2] = env.platform.info.deployments;
      expect(d2).toBeDefined();
      const wb = newBook();
      const first = env.engine(wb, "analyst", { deploymentName: d1!.name });
      const p = await placed(first, await env.createReport(byStatus(2)), at(wb, 0, 0));
      await env.client().updateReport(env.deploymentId, p.reportId, byStatus(3));
      // Signed in to the second deployment, without a data client for the first: No access, with the reason.
      const blind = env.engine(wb, "analyst", { deploymentId: d2!.id, deploymentName: d2!.name });
      await expect(blind.refresh(p.key, "ask")).rejects.toThrow(new RegExp(`deployment ${d1!.name}`));
      const all = await blind.refreshAll({});
      expect(all.done).toBe(0);
      expect(all.items[p.key]).toMatchObject({ state: "not-refreshed", reason: expect.stringMatching(/^No access: /) });
      // With one data client (token manager) per deployment it refreshes from the second.
      const both = env.engine(wb, "analyst", { deploymentId: d2!.id, dataFor: (id) => (id === d1!.id ? env.dataClient() : undefined) });
      const out = await both.refresh(p.key, "ask");
      expect(out).toMatchObject({ kind: "refreshed", stats: { rowsAdded: 1 } });
    });
  });
}
