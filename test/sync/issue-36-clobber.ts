// Issue 36, "A person's cells overwritten or cleared" (items 1–4) and the overlaps found in the pane that
// are the engine's (items 15–17): a person types, inserts rows or renames the sheet while a place or a
// refresh waits on the network, or the platform's record fails after a shrink. Written once and run per
// workbook kind (memory port; Office.js adapter over dev/excel).
import { describe, expect, it } from "vitest";
import type { DataClient, PlatformClient } from "../../src/api/index.ts";
import { MAX_ROWS } from "../../src/host/a1.ts";
import type { SheetPort } from "../../src/host/port.ts";
import { check } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { at, byStatus, externalPlacements, placed, useEnv, type TestWorkbook, type WorkbookKind } from "./support.ts";

const ROWS = 4200;
/** A flat report without a limit: it comes in pages (of 1,500 rows here) and is placed as they arrive. */
const orders = {
  jsonQuery: JSON.stringify({
    measures: ["orders.total_quantity"],
    dimensions: ["orders.id", "orders.status"],
    filters: [{ member: "orders.id", operator: "lte", values: [String(ROWS)] }],
  }),
};
const PAGES = { pageRows: 1500 };

/** A data client that does `then` just before its n-th /v1/load request (the person acts while the data is on its way). */
function actingOnLoad(inner: DataClient, n: number, then: () => void): DataClient {
  let k = 0;
  return {
    ...inner,
    fetchLoad(q, s) {
      if (++k === n) then();
      return inner.fetchLoad(q, s);
    },
  };
}

/** A port that does `then` once, right after the first commit that wrote cells. */
function afterFirstWrite(port: SheetPort, then: () => void): SheetPort {
  let done = false;
  const p = Object.create(port) as SheetPort;
  p.commit = async (commands, o) => {
    const out = await port.commit(commands, o);
    if (!done && commands.some((c) => c.kind === "write")) {
      done = true;
      then();
    }
    return out;
  };
  return p;
}

/** A platform client that does `then` just before the first call of `method` (the person acts while it runs). */
function actingOn(inner: PlatformClient, method: keyof PlatformClient, then: () => void): PlatformClient {
  let done = false;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== method || typeof v !== "function") return v;
      return (...args: unknown[]) => {
        if (!done) {
          done = true;
          then();
        }
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** A platform client whose record of a refresh (PUT …/refresh) fails. */
function failingRecord(inner: PlatformClient): PlatformClient {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "refreshReport") return async () => Promise.reject(new Error("The platform answered 503 (Service Unavailable)."));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

export function clobberScenarios(label: string, kind: WorkbookKind): void {
  describe(`issue 36: a person's cells are never overwritten or cleared by a write planned before a wait (${label})`, () => {
    const env = useEnv();
    let n = 0;
    const newBook = () => kind(`https://files.example/clobber-${++n}.xlsx`);
    const sheetOf = (wb: TestWorkbook) => wb.user.firstSheetId();
    const trackedArea = async (wb: TestWorkbook, key: string) => {
      const p = (await loadPlacements(wb.port)).find((x) => x.key === key)!;
      return (await wb.port.tracked()).find((t) => t.name.toLowerCase() === p.name.toLowerCase())?.area ?? null;
    };

    it("item 1: a value typed into the target while the platform records the report is not overwritten: Place asks again", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const report = await env().createReport(byStatus(4));
      const engine = env().engine(wb, "analyst", {
        platform: actingOn(env().client(), "upsertReport", () => wb.user.edit(s, 2, 1, "mine")),
      });
      const out = await engine.place(report, { at: at(wb, 1, 0) }); // A2:B6; "mine" typed into B3 meanwhile
      expect(out).toMatchObject({ kind: "wouldOverwrite", count: 1, addresses: ["B3"] });
      expect(wb.user.cell(s, 2, 1)).toBe("mine");
      expect(wb.user.cell(s, 1, 0)).toBe(""); // nothing of the report stays
      expect(wb.user.cell(s, 5, 1)).toBe("");
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
      expect(await externalPlacements(env().client(), (await wb.port.identity()).workbookId)).toEqual([]);
      // The person confirms: the report goes there.
      if (out.kind !== "wouldOverwrite") return;
      const again = await env().engine(wb).place(report, { at: out.at, confirmed: true });
      expect(again).toMatchObject({ kind: "placed", range: "A2:B6" });
      expect(wb.user.cell(s, 1, 0)).toBe("Status");
    });

    it("item 1: a confirmed overwrite whose cells someone changed meanwhile asks again, and puts back what they hold", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      wb.user.edit(s, 3, 0, "old note");
      const report = await env().createReport(byStatus(4));
      const first = await env()
        .engine(wb)
        .place(report, { at: at(wb, 0, 0) });
      expect(first).toMatchObject({ kind: "wouldOverwrite", addresses: ["A4"] });
      const engine = env().engine(wb, "analyst", {
        platform: actingOn(env().client(), "upsertReport", () => wb.user.edit(s, 1, 1, "typed since")),
      });
      const out = await engine.place(report, { at: at(wb, 0, 0), confirmed: true });
      expect(out).toMatchObject({ kind: "wouldOverwrite", count: 2 });
      expect(out.kind === "wouldOverwrite" && [...out.addresses].sort()).toEqual(["A4", "B2"]);
      expect(wb.user.cell(s, 3, 0)).toBe("old note");
      expect(wb.user.cell(s, 1, 1)).toBe("typed since");
      expect(wb.user.cell(s, 0, 0)).toBe("");
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("item 1 (found by the soak): a row inserted above a confirmed target while the report is saved: asked again, nothing copied one row off", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      wb.user.edit(s, 3, 0, "old note"); // A4
      wb.user.edit(s, 0, 3, "right"); // D1, beside the target
      const report = await env().createReport(byStatus(4));
      const first = await env()
        .engine(wb)
        .place(report, { at: at(wb, 0, 0) });
      expect(first).toMatchObject({ kind: "wouldOverwrite", addresses: ["A4"] });
      // The person confirms; while the platform saves the report, they insert a row at the top.
      const engine = env().engine(wb, "analyst", {
        platform: actingOn(env().client(), "upsertReport", () => wb.user.insertRows(s, 0, 1)),
      });
      const out = await engine.place(report, { at: at(wb, 0, 0), confirmed: true });
      // What A1:B5 holds now is not what was confirmed: asked again, naming what is there now.
      expect(out).toMatchObject({ kind: "wouldOverwrite", count: 1, addresses: ["A5"] });
      const cells: unknown[] = [];
      for (let r = 0; r < 8; r++) for (let c = 0; c < 4; c++) cells.push(wb.user.cell(s, r, c));
      const expected = Array.from({ length: 32 }, () => "");
      expected[4 * 4 + 0] = "old note"; // A5: moved down by the row, once (not also back at A4)
      expected[1 * 4 + 3] = "right"; // D2
      expect(cells).toEqual(expected);
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
    });

    it("item 1 (found by the soak): a value typed into the target after the question, while the confirmed report's data is on its way, is asked about, not overwritten", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      wb.user.edit(s, 3, 0, "old note"); // A4
      const report = await env().createReport(byStatus(4));
      let typed = false;
      const data = actingOnLoad(env().dataClient(), 2, () => {
        typed = true;
        wb.user.edit(s, 1, 1, "typed since"); // B2: after the question, before the confirmed write
      });
      const engine = env().engine(wb, "analyst", { data });
      const first = await engine.place(report, { at: at(wb, 0, 0) });
      expect(first).toMatchObject({ kind: "wouldOverwrite", addresses: ["A4"] });
      const out = await engine.place(report, { at: at(wb, 0, 0), confirmed: true });
      expect(typed).toBe(true);
      expect(out).toMatchObject({ kind: "wouldOverwrite", count: 2 });
      expect(out.kind === "wouldOverwrite" && [...out.addresses].sort()).toEqual(["A4", "B2"]);
      expect(wb.user.cell(s, 1, 1)).toBe("typed since");
      expect(wb.user.cell(s, 0, 0)).toBe("");
      expect(await loadPlacements(wb.port)).toEqual([]);
      // Confirmed again, over what this question showed: placed.
      expect(await engine.place(report, { at: at(wb, 0, 0), confirmed: true })).toMatchObject({ kind: "placed", range: "A1:B5" });
      expect(wb.user.cell(s, 1, 1)).not.toBe("typed since");
    });

    it("item 1: a value typed below the first rows of a large placement while a later page is fetched is not overwritten", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const report = await env().createReport(orders);
      // Right after the first rows are written, B4001 gets a value (a row a later page writes).
      const port = afterFirstWrite(wb.port, () => wb.user.edit(s, 4000, 1, "mine"));
      const out = await env()
        .engine({ ...wb, port }, "analyst", { filterDefaults: PAGES })
        .place(report, { at: at(wb, 0, 0) });
      expect(out).toMatchObject({ kind: "wouldOverwrite", count: 1, addresses: ["B4001"] });
      expect(wb.user.cell(s, 4000, 1)).toBe("mine");
      expect(wb.user.cell(s, 0, 0)).toBe(""); // the rows written before it were taken back
      expect(wb.user.cell(s, 2000, 0)).toBe("");
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
      expect(await externalPlacements(env().client(), (await wb.port.identity()).workbookId)).toEqual([]);
    });

    it("item 2: a shrink whose record failed never clears a note typed later where its rows were", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byStatus(4)), at(wb, 0, 0)); // A1:B5
      await env().client().updateReport(env().deploymentId, p.reportId, byStatus(2)); // A1:B3
      const broken = env().engine(wb, "analyst", { platform: failingRecord(env().client()) });
      await expect(broken.refresh(p.key, "ask")).rejects.toThrow(/503/);
      expect(wb.user.cell(s, 3, 0)).toBe(""); // the shrink's clears landed
      wb.user.edit(s, 4, 0, "my note"); // A5: outside the placement now
      const c = (await check(engine)).placements[0]!;
      expect(c).toMatchObject({ edit: "interrupted-finished", range: "A1:B3" });
      expect(wb.user.cell(s, 4, 0)).toBe("my note");
      expect(await engine.refresh(p.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect(wb.user.cell(s, 4, 0)).toBe("my note");
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: "A1:B3" });
    });

    it("item 2: a shrink stopped before its clears were done clears them later only where Cellbound's cells still are", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byStatus(4)), at(wb, 0, 0)); // A1:B5
      await env().client().updateReport(env().deploymentId, p.reportId, byStatus(2));
      // The commit stops at the clear: the rows below stay as Cellbound wrote them.
      const port = Object.create(wb.port) as typeof wb.port;
      port.commit = async (commands, o) => {
        const i = commands.findIndex((c) => c.kind === "clear");
        if (i < 0) return wb.port.commit(commands, o);
        await wb.port.commit(commands.slice(0, i), o);
        throw new Error("pane closed");
      };
      await expect(
        env()
          .engine({ ...wb, port })
          .refresh(p.key, "ask"),
      ).rejects.toThrow(/pane closed/);
      const stale = wb.user.cell(s, 3, 0);
      expect(stale).not.toBe("");
      wb.user.edit(s, 4, 1, "my note"); // one row of the left-over rows is the person's now
      await check(engine);
      expect(wb.user.cell(s, 4, 1)).toBe("my note");
      expect(wb.user.cell(s, 3, 0)).toBe(stale); // the rows are left as they are rather than clear a person's note
      expect(await engine.refresh(p.key, "ask")).toMatchObject({ kind: "refreshed" });
      expect(wb.user.cell(s, 4, 1)).toBe("my note");
    });

    it("item 3: a row inserted above while the refresh waits for data: it writes where the placement is, never over what was typed at the old place", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byStatus(2)), at(wb, 2, 0)); // A3:B5
      await env().client().updateReport(env().deploymentId, p.reportId, byStatus(3)); // A3:B6
      const data = actingOnLoad(env().dataClient(), 1, () => {
        wb.user.insertRows(s, 0, 1); // the placement moves to A4
        wb.user.edit(s, 2, 0, "mine"); // typed where it was
      });
      const out = await env().engine(wb, "analyst", { data }).refresh(p.key, "overwrite");
      expect(out).toMatchObject({ kind: "refreshed" });
      expect(wb.user.cell(s, 2, 0)).toBe("mine");
      expect(wb.user.cell(s, 3, 0)).toBe("Status");
      expect(wb.user.cell(s, 7, 0)).toBe(""); // no stale last row
      expect(await trackedArea(wb, p.key)).toMatchObject({ row: 3, col: 0, rows: 4, cols: 2 });
      const rec = (await externalPlacements(env().client(), (await wb.port.identity()).workbookId))[0]!;
      expect(rec.resultLocation).toMatch(/!A4:B7$/);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: "A4:B7", corrections: [] });
    });

    it("item 4: a large placement that would pass the sheet's last row is refused in words before anything is written", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const report = await env().createReport(orders);
      const row = MAX_ROWS - 3000;
      await expect(
        env()
          .engine(wb, "analyst", { filterDefaults: PAGES })
          .place(report, { at: at(wb, row, 0) }),
      ).rejects.toThrow(
        /does not fit there: it has 4,201 rows: from row 1,045,577 it would pass the sheet's last row \(1,048,576\)\. Nothing was written/,
      );
      expect(wb.user.cell(s, row, 0)).toBe("");
      expect(wb.user.cell(s, row + 1500, 0)).toBe("");
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("item 15: a row inserted above during a large placement: every page lands where the placement is, no row lost", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const report = await env().createReport(orders);
      // Right after the first page is written, while the next one is on its way.
      const port = afterFirstWrite(wb.port, () => wb.user.insertRows(s, 0, 1));
      const out = await env()
        .engine({ ...wb, port }, "analyst", { filterDefaults: PAGES })
        .place(report, { at: at(wb, 2, 1) }); // B3
      expect(out).toMatchObject({ kind: "placed", range: `B4:D${ROWS + 4}` });
      expect(wb.user.cell(s, 2, 1)).toBe(""); // B3 is empty: the header moved to B4 with the rows written before
      expect(wb.user.cell(s, 3, 1)).toBe("Id");
      // Every data row once, right below the header, and nothing below them.
      const ids = new Set<unknown>();
      for (let r = 4; r < 4 + ROWS; r++) ids.add(wb.user.cell(s, r, 1));
      expect(ids.size).toBe(ROWS);
      expect(ids.has("")).toBe(false);
      expect(wb.user.cell(s, 4 + ROWS, 1)).toBe("");
      const key = (await loadPlacements(wb.port))[0]!.key;
      expect(await trackedArea(wb, key)).toMatchObject({ row: 3, col: 1, rows: ROWS + 1, cols: 3 });
      const engine = env().engine(wb, "analyst", { filterDefaults: PAGES });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: `B4:D${ROWS + 4}` });
      const rec = (await externalPlacements(env().client(), (await wb.port.identity()).workbookId))[0]!;
      expect(rec.resultLocation).toMatch(new RegExp(`!B4:D${ROWS + 4}$`));
    });

    it("item 16: a sheet renamed during a refresh: written, recorded under the new name, no error", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byStatus(2)), at(wb, 1, 1));
      await env().client().updateReport(env().deploymentId, p.reportId, byStatus(4)); // it grows: its name is re-pointed
      const data = actingOnLoad(env().dataClient(), 1, () => wb.user.renameSheet(s, "Sales"));
      expect(await env().engine(wb, "analyst", { data }).refresh(p.key, "ask")).toMatchObject({ kind: "refreshed" });
      const rec = (await externalPlacements(env().client(), (await wb.port.identity()).workbookId))[0]!;
      expect(rec).toMatchObject({ sheetName: "Sales", resultLocation: "Sales!B2:C6" });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", sheetName: "Sales", range: "B2:C6" });
    });

    it("item 16: a sheet renamed during a large placement: placed whole and recorded under the new name", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const report = await env().createReport(orders);
      const port = afterFirstWrite(wb.port, () => wb.user.renameSheet(s, "Sales"));
      const out = await env()
        .engine({ ...wb, port }, "analyst", { filterDefaults: PAGES })
        .place(report, { at: at(wb, 0, 0) });
      expect(out).toMatchObject({ kind: "placed", sheetName: "Sales", range: `A1:C${ROWS + 1}` });
      const rec = (await externalPlacements(env().client(), (await wb.port.identity()).workbookId))[0]!;
      expect(rec.sheetName).toBe("Sales");
      expect((await check(env().engine(wb, "analyst", { filterDefaults: PAGES }))).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("item 17: a row inserted above during a refresh that grows: no false 'cannot grow', no false edits", async () => {
      const wb = newBook();
      const s = sheetOf(wb);
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byStatus(2)), at(wb, 4, 1)); // B5:C7
      await env().client().updateReport(env().deploymentId, p.reportId, byStatus(4)); // B5:C9
      const data = actingOnLoad(env().dataClient(), 1, () => wb.user.insertRows(s, 0, 1));
      const out = await env().engine(wb, "analyst", { data }).refresh(p.key, "ask");
      expect(out).toMatchObject({ kind: "refreshed", stats: { rowsAdded: 2 } });
      expect(wb.user.cell(s, 5, 1)).toBe("Status");
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: "B6:C10" });
    });
  });
}
