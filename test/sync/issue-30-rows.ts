// Issue 30 §1: rows inserted or deleted inside a placement are named as such, Overwrite my edits restores
// exactly the report (its rows, number formats and header style; nothing stale below), Keep my edits loses
// nothing of the person's. The story of the issue: a 20-row × 4 report at B2, a row inserted (or deleted)
// at row 8. Written once and run per workbook kind (memory port; Office.js adapter over dev/excel).
import { describe, expect, it } from "vitest";
import type { ReportInput } from "../../src/api/index.ts";
import { check, structureWords, type SyncEngine } from "../../src/sync/index.ts";
import { HEADER_STYLE } from "../../src/sync/formats.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { at, placed, useEnv, type TestWorkbook, type WorkbookKind } from "./support.ts";

/** 19 customers and a header: 20 rows × 4 columns (id, name, count, total amount as "$#,##0.00"). */
const customers: ReportInput = {
  jsonQuery: JSON.stringify({
    measures: ["orders.count", "orders.total_amount"],
    dimensions: ["customers.id", "customers.name"],
    order: [["customers.id", "asc"]],
    limit: 19,
  }),
};
const AMOUNT = "$#,##0.00";
/** B2: the placement's first cell (zero-based row 1, column 1). */
const TOP = 1,
  LEFT = 1,
  ROWS = 20,
  COLS = 4;

export function rowScenarios(label: string, kind: WorkbookKind): void {
  describe(`issue 30 §1: rows inserted or deleted inside a placement (${label})`, () => {
    const env = useEnv();
    let n = 0;
    const newBook = () => kind(`https://files.example/rows-${++n}.xlsx`);

    /** The report placed at B2; its cells as placed (sheet rows 2–21, columns B–E). */
    async function placedReport(): Promise<{ wb: TestWorkbook; s: string; engine: SyncEngine; key: string; grid: unknown[][] }> {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const report = await env().createReport(customers);
      const out = await placed(engine, report, at(wb, TOP, LEFT));
      expect(out.range).toBe("B2:E21");
      return { wb, s, engine, key: out.key, grid: block(wb, s, TOP, ROWS) };
    }
    const block = (wb: TestWorkbook, s: string, from: number, rows: number) =>
      Array.from({ length: rows }, (_, r) => Array.from({ length: COLS }, (_, c) => wb.user.cell(s, from + r, LEFT + c)));
    const trackedArea = async (wb: TestWorkbook, key: string) => {
      const p = (await loadPlacements(wb.port)).find((x) => x.key === key)!;
      return (await wb.port.tracked()).find((t) => t.name.toLowerCase() === p.name.toLowerCase())?.area ?? null;
    };
    /** The placement is exactly the report again: its cells, its formats, its header style; nothing below it. */
    async function restored(wb: TestWorkbook, s: string, key: string, grid: unknown[][]) {
      expect(block(wb, s, TOP, ROWS)).toEqual(grid);
      expect(
        block(wb, s, TOP + ROWS, 2)
          .flat()
          .every((v) => v === ""),
      ).toBe(true); // nothing stale below
      const formats = await wb.port.readStyle({ sheetId: s, row: TOP + 1, col: LEFT + 3, rows: ROWS - 1, cols: 1 });
      expect(formats.numberFormats.map((r) => r[0])).toEqual(Array.from({ length: ROWS - 1 }, () => AMOUNT));
      const head = await wb.port.readStyle({ sheetId: s, row: TOP, col: LEFT, rows: 1, cols: COLS });
      expect([head.bold, head.fill]).toEqual([HEADER_STYLE.bold, HEADER_STYLE.fill]);
      const body = await wb.port.readStyle({ sheetId: s, row: TOP + 1, col: LEFT, rows: ROWS - 1, cols: COLS });
      expect(body.bold).toBe(false);
      expect(await trackedArea(wb, key)).toMatchObject({ row: TOP, col: LEFT, rows: ROWS, cols: COLS });
      const c = await check(env().engine(wb));
      expect(c.placements[0]).toMatchObject({ edit: "clean", range: "B2:E21" });
    }

    it("issue 30 §1: a row inserted at row 8 is one row inserted by hand, not every row below it edited", async () => {
      const { wb, s, engine, key } = await placedReport();
      wb.user.insertRows(s, 7, 1); // Insert above row 8: the placement is B2:E22 now
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure).toEqual({ insertedRows: [{ from: 6, to: 6 }], deletedRows: [], insertedCols: [], deletedCols: [] });
      expect(structureWords(c.structure!, TOP, LEFT)).toEqual(["1 row inserted by hand at row 8"]);
      expect(c.editedRows).toEqual([{ from: 6, to: 6 }]);
      expect(c.editedRowsExact).toBe(true);
      const asked = await engine.refresh(key, "ask");
      expect(asked.kind).toBe("handEdited");
      if (asked.kind !== "handEdited") return;
      expect(asked.edits.structure).toEqual(c.structure);
      expect(asked.edits.rows).toEqual([{ from: 6, to: 6 }]);
      expect(asked.edits.cellCount).toBe(0); // an empty row: no cell of it holds anything
    });

    it("issue 30 §1: a block of rows moved (cut at rows 5–6, inserted above row 13) is named as one move", async () => {
      const { wb, s, engine, key } = await placedReport();
      // Cut rows 5–6 (zero-based 4–5) and insert them above row 13 as Excel does: delete, insert, write.
      const cut = block(wb, s, 4, 2);
      wb.user.deleteRows(s, 4, 2);
      wb.user.insertRows(s, 10, 2); // above row 13 as it was: row 11 now
      cut.forEach((row, r) => row.forEach((v, c) => wb.user.edit(s, 10 + r, LEFT + c, v as string | number)));
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure?.movedRows).toEqual([{ from: 3, to: 9, count: 2, at: 3 }]);
      expect(structureWords(c.structure!, TOP, LEFT)).toEqual(["2 rows moved by hand from rows 5–6 to rows 11–12"]);
      const asked = await engine.refresh(key, "ask");
      expect(asked.kind).toBe("handEdited");
    });

    it("issue 30 §1: a row deleted at row 8 is one row deleted by hand", async () => {
      const { wb, s, engine, key } = await placedReport();
      wb.user.deleteRows(s, 7, 1);
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure).toEqual({ insertedRows: [], deletedRows: [{ at: 6, count: 1 }], insertedCols: [], deletedCols: [] });
      expect(structureWords(c.structure!, TOP, LEFT)).toEqual(["1 row deleted by hand at row 8"]);
      expect(c.editedRows).toEqual([]);
      const asked = await engine.refresh(key, "ask");
      expect(asked).toMatchObject({ kind: "handEdited", edits: { structure: c.structure, cellCount: 0 } });
    });

    it("issue 30 §1: with a row inserted, a value changed further down is still named exactly", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      wb.user.insertRows(s, 7, 1);
      wb.user.edit(s, 7, 2, "my row"); // C8, in the inserted row
      wb.user.edit(s, 15, 3, 7); // D16: was row 15 of the report (D15)
      const c = (await check(engine)).placements[0]!;
      expect(c.structure?.insertedRows).toEqual([{ from: 6, to: 6 }]);
      expect(c.editedRows).toEqual([
        { from: 6, to: 6 },
        { from: 14, to: 14 },
      ]);
      const asked = await engine.refresh(key, "ask");
      if (asked.kind !== "handEdited") throw new Error(`expected handEdited, got ${asked.kind}`);
      expect(asked.edits.cellCount).toBe(2);
      expect(asked.edits.cells).toEqual([
        { address: "C8", lastWritten: "", now: "my row", incoming: grid[6]![1], inserted: true },
        // D16 holds what the report's row 14 held (it moved down a row); a refresh writes row 15 there.
        { address: "D16", lastWritten: grid[13]![2], now: 7, incoming: grid[14]![2] },
      ]);
    });

    it("issue 30 §1: Overwrite my edits after a row inserted restores the report exactly, with nothing stale below", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      wb.user.insertRows(s, 7, 1);
      wb.user.edit(s, 7, 1, "mine");
      const out = await engine.refresh(key, "overwrite");
      expect(out.kind).toBe("refreshed");
      await restored(wb, s, key, grid);
    });

    it("issue 30 §1: Overwrite my edits after a row deleted restores the report exactly", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      wb.user.deleteRows(s, 7, 1);
      const out = await engine.refresh(key, "overwrite");
      expect(out.kind).toBe("refreshed");
      await restored(wb, s, key, grid);
    });

    it("issue 30 §1: Keep my edits keeps the inserted row with the person's formula and every report row; it stays edited", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      wb.user.insertRows(s, 7, 1);
      wb.user.edit(s, 7, 4, "=SUM(E3:E7)");
      const mine = wb.user.cell(s, 7, 4);
      const out = await engine.refresh(key, "keep");
      expect(out.kind).toBe("kept");
      if (out.kind !== "kept") return;
      expect(out.edits.structure?.insertedRows).toEqual([{ from: 6, to: 6 }]);
      expect(wb.user.cell(s, 7, 4)).toBe(mine);
      expect(block(wb, s, TOP, 6)).toEqual(grid.slice(0, 6));
      expect(block(wb, s, TOP + 7, ROWS - 6)).toEqual(grid.slice(6)); // every report row, the last one included
      expect(await trackedArea(wb, key)).toMatchObject({ row: TOP, rows: ROWS + 1 });
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure?.insertedRows).toEqual([{ from: 6, to: 6 }]);
      // Overwrite later still restores the report exactly.
      expect((await engine.refresh(key, "overwrite")).kind).toBe("refreshed");
      await restored(wb, s, key, grid);
    });

    it("issue 30 §1: a column inserted at D or deleted at D is one column inserted or deleted by hand; Overwrite restores the report", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      wb.user.insertColumns(s, 3, 1); // Insert left of column D: the placement is B2:F21 now
      wb.user.edit(s, 4, 3, "mine");
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure).toEqual({ insertedRows: [], deletedRows: [], insertedCols: [{ from: 2, to: 2 }], deletedCols: [] });
      expect(structureWords(c.structure!, TOP, LEFT)).toEqual(["1 column inserted by hand at column D"]);
      expect((await engine.refresh(key, "overwrite")).kind).toBe("refreshed");
      await restored(wb, s, key, grid);
      expect(block(wb, s, TOP, ROWS).length).toBe(ROWS);
      expect(Array.from({ length: ROWS }, (_, r) => wb.user.cell(s, TOP + r, LEFT + COLS)).every((v) => v === "")).toBe(true); // nothing stale right

      wb.user.deleteColumns(s, 3, 1);
      const d = (await check(engine)).placements[0]!;
      expect(d.structure).toEqual({ insertedRows: [], deletedRows: [], insertedCols: [], deletedCols: [{ at: 2, count: 1 }] });
      expect(structureWords(d.structure!, TOP, LEFT)).toEqual(["1 column deleted by hand at column D"]);
      expect((await engine.refresh(key, "overwrite")).kind).toBe("refreshed");
      await restored(wb, s, key, grid);
    });

    it("issue 30 §1: Keep my edits over a column inserted inside keeps it and every report column; it stays edited", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      wb.user.insertColumns(s, 3, 1);
      wb.user.edit(s, 4, 3, "mine");
      const asked = await engine.refresh(key, "ask");
      if (asked.kind !== "handEdited") throw new Error(`expected handEdited, got ${asked.kind}`);
      expect(asked.edits.cells).toEqual([{ address: "D5", lastWritten: "", now: "mine", incoming: grid[3]![2], inserted: true }]);
      const out = await engine.refresh(key, "keep");
      expect(out.kind).toBe("kept");
      expect(wb.user.cell(s, 4, 3)).toBe("mine");
      expect(Array.from({ length: ROWS }, (_, r) => wb.user.cell(s, TOP + r, 5))).toEqual(grid.map((row) => row[3]));
      expect(await trackedArea(wb, key)).toMatchObject({ row: TOP, col: LEFT, rows: ROWS, cols: COLS + 1 });
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure?.insertedCols).toEqual([{ from: 2, to: 2 }]);
    });

    it("issue 30 §1 (journeys seed 30001): after Keep my edits over an inserted row, a smaller report whose rows are unchanged still asks before clearing the kept rows", async () => {
      const { wb, s, engine, key } = await placedReport();
      const reportId = (await loadPlacements(wb.port)).find((x) => x.key === key)!.reportId;
      wb.user.insertRows(s, 7, 1);
      wb.user.edit(s, 7, 1, "mine");
      await env()
        .client()
        .updateReport(env().deploymentId, reportId, { jsonQuery: customers.jsonQuery!.replace('"limit":19', '"limit":5') });
      expect((await engine.refresh(key, "keep")).kind).toBe("kept");
      // The report's first 6 rows are what B2:E7 hold: only the rows kept below say it is still edited.
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
      const asked = await engine.refresh(key, "ask");
      expect(asked.kind).toBe("handEdited");
      expect(wb.user.cell(s, 7, 1)).toBe("mine");
      expect((await engine.refresh(key, "overwrite")).kind).toBe("refreshed");
      expect(wb.user.cell(s, 7, 1)).toBe("");
      expect(
        block(wb, s, TOP + 6, ROWS)
          .flat()
          .every((v) => v === ""),
      ).toBe(true); // nothing stale below the 6 rows
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", range: "B2:E7" });
    });

    it("issue 30 §1 (journeys seed 30001, again): a second Keep my edits, after the report changed its columns, clears nothing the first one kept", async () => {
      const { wb, s, engine, key, grid } = await placedReport();
      const reportId = (await loadPlacements(wb.port)).find((x) => x.key === key)!.reportId;
      wb.user.insertRows(s, 2, 1); // inside, above the report's first data row
      const statuses = { jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], limit: 2 }) };
      await env().client().updateReport(env().deploymentId, reportId, statuses);
      expect((await engine.refresh(key, "keep")).kind).toBe("kept");
      wb.user.edit(s, 10, 1, "p1"); // B11, a row the first Keep kept, beyond the new report's 3 rows × 2 columns
      const again = await engine.refresh(key, "keep");
      expect(again.kind).toBe("kept");
      expect(wb.user.cell(s, 10, 1)).toBe("p1");
      expect(wb.user.cell(s, 21, 4)).toBe(grid[19]![3]); // the report's last row, where the insert moved it
      expect((await check(engine)).placements[0]!.edit).toBe("edited");
    });

    it("issue 30 §1 (journeys seed 20261130): Keep my edits over an inserted column whose record failed is finished by check over all it kept", async () => {
      const { wb, s, key, grid } = await placedReport();
      const reportId = (await loadPlacements(wb.port)).find((x) => x.key === key)!.reportId;
      await env()
        .client()
        .updateReport(env().deploymentId, reportId, { jsonQuery: customers.jsonQuery!.replace('"limit":19', '"limit":2') });
      wb.user.insertColumns(s, 3, 1);
      const failing = new Proxy(env().client(), {
        get(target, prop, receiver) {
          if (prop === "refreshReport") return async () => Promise.reject(new Error("The platform answered 503 (Service Unavailable)."));
          return Reflect.get(target, prop, receiver) as unknown;
        },
      });
      await expect(env().engine(wb, "analyst", { platform: failing }).refresh(key, "keep")).rejects.toThrow(/503/);
      const c = (await check(env().engine(wb))).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(await trackedArea(wb, key)).toMatchObject({ row: TOP, col: LEFT, rows: ROWS, cols: COLS + 1 });
      expect(Array.from({ length: ROWS }, (_, r) => wb.user.cell(s, TOP + r, 5))).toEqual(grid.map((row) => row[3]));
    });

    it("issue 30 §1: a workbook without row prints (placed by an older version) is named by chunk, as before", async () => {
      const { wb, s, engine, key } = await placedReport();
      const data = (await wb.port.getData(`cellbound.rows.v1.${key}`)) as unknown;
      expect(data).toBeTruthy();
      await wb.port.setData(`cellbound.rows.v1.${key}`, null);
      wb.user.insertRows(s, 7, 1);
      const c = (await check(env().engine(wb))).placements[0]!;
      expect(c.edit).toBe("edited");
      expect(c.structure).toBeUndefined();
      expect(c.editedRows).toEqual([{ from: 0, to: ROWS - 1 }]);
      void engine;
    });
  });
}
