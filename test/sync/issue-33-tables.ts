// Issue 33: a placement as an Excel table. Written once and run per workbook kind (memory port; Office.js adapter
// over dev/excel): placed as a table named after the report, a person's formula column at its right filling exactly
// the table's rows after refreshes with more rows, fewer rows and a new column, never read as a hand edit; a sorted
// table told from edits and sorted again; pivots, a person's table just above, and a table converted to a range.
import { describe, expect, it } from "vitest";
import type { Report, ReportInput } from "../../src/api/index.ts";
import type { SheetPort, TableRead } from "../../src/host/port.ts";
import { check, type SyncEngine } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { byCustomer, useEnv, type TestWorkbook, type WorkbookKind } from "./support.ts";

/** Customers with their order count, `limit` rows; `extra` adds a measure (a new column at the right of the report's). */
const customers = (limit: number, extra = false): ReportInput =>
  extra
    ? {
        jsonQuery: JSON.stringify({
          measures: ["orders.count", "orders.customers_count"],
          dimensions: ["customers.id", "customers.name"],
          order: [["customers.id", "asc"]],
          limit,
        }),
      }
    : byCustomer(limit);

async function tables(port: SheetPort): Promise<TableRead[]> {
  return (await port.snapshot({ tables: true })).tables ?? [];
}

export function tableScenarios(label: string, kind: WorkbookKind, computes: boolean): void {
  describe(`issue 33: a placement as an Excel table (${label})`, () => {
    const env = useEnv();
    let n = 0;
    const newBook = () => kind(`https://files.example/tables-${++n}.xlsx`);

    /** `customers(rows)` placed as a table at B2 of a new workbook. */
    async function placedTable(
      rows = 6,
    ): Promise<{ wb: TestWorkbook; s: string; engine: SyncEngine; key: string; reportId: number; name: string }> {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const report = await env().createReport(customers(rows));
      const out = await engine.place(report, { at: { sheetId: s, row: 1, col: 1 }, asTable: true });
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      const name = (await loadPlacements(wb.port)).find((p) => p.key === out.key)!.table!.name;
      return { wb, s, engine, key: out.key, reportId: report.id, name };
    }
    /** A report the analyst owns and shares with the deployment: a viewer may read it (view-only.test.ts). */
    async function sharedReport(): Promise<Report> {
      for await (const r of env().client("viewer").iterateReports(env().deploymentId)) if (r.jsonQuery) return r;
      throw new Error("no report a viewer may read");
    }
    const change = (reportId: number, input: ReportInput) => env().client().updateReport(env().deploymentId, reportId, input);

    it("issue 33: placed as a table named after the report, header row the report's titles, the built-in style, recorded with its columns", async () => {
      const { wb, s, name, key, engine } = await placedTable(6);
      expect(name).toMatch(/^Report_\d+$/);
      const [t] = await tables(wb.port);
      expect(t).toMatchObject({ name, area: { sheetId: s, row: 1, col: 1, rows: 7, cols: 3 }, style: "TableStyleMedium2", sort: [] });
      expect(t!.columns).toEqual([wb.user.cell(s, 1, 1), wb.user.cell(s, 1, 2), wb.user.cell(s, 1, 3)].map(String));
      const p = (await loadPlacements(wb.port)).find((x) => x.key === key)!;
      expect(p.table).toEqual({ name, columns: ["customers.id", "customers.name", "orders.count"] });
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean", table: name });
    });

    it("issue 33: a formula column at the table's right fills exactly its rows after more rows, fewer rows and a new column; nothing reads as edited", async () => {
      const { wb, s, engine, key, reportId, name } = await placedTable(6);
      const count = String(wb.user.cell(s, 1, 3));
      wb.user.formulaColumn(name, "Double", `=[@[${count}]]*2`);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      const widths: number[] = [];
      for (const [rows, extra] of [
        [10, false],
        [3, false],
        [5, true],
      ] as const) {
        await change(reportId, customers(rows, extra));
        expect((await engine.refresh(key, "ask")).kind).toBe("refreshed");
        const [t] = await tables(wb.port);
        const cols = extra ? 4 : 3;
        expect(t).toMatchObject({ name, area: { sheetId: s, row: 1, col: 1, rows: rows + 1, cols: cols + 1 } });
        expect(t!.columns[cols]).toBe("Double"); // the person's column stays at the table's right
        widths.push(t!.area.cols);
        // Below the table: nothing left behind (no orphaned formulas, no old rows).
        for (let c = 1; c <= cols + 1; c++) expect(wb.user.cell(s, 2 + rows, c)).toBe("");
        if (computes) for (let r = 0; r < rows; r++) expect(wb.user.cell(s, 2 + r, 1 + cols)).toBe(Number(wb.user.cell(s, 2 + r, 3)) * 2);
        expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      }
      expect(widths).toEqual([4, 4, 5]);
      const p = (await loadPlacements(wb.port)).find((x) => x.key === key)!;
      expect(p.table?.columns).toEqual(["customers.id", "customers.name", "orders.count", "orders.customers_count"]);
    });

    it("issue 33: a sorted table is the person's view, not an edit: check says clean; a refresh writes the new rows and sorts them again", async () => {
      const { wb, s, engine, key, reportId, name } = await placedTable(6);
      wb.user.sortTable(name, 1, false); // by name, descending
      const names = () => Array.from({ length: 8 }, (_, r) => wb.user.cell(s, 2 + r, 2)).filter((v) => v !== "");
      const sorted = names();
      expect(sorted).toEqual([...sorted].sort().reverse());
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      await change(reportId, customers(8));
      expect((await engine.refresh(key, "ask")).kind).toBe("refreshed");
      const after = names();
      expect(after).toHaveLength(8);
      expect(after).toEqual([...after].sort().reverse());
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      // A value typed into a report column is still a hand edit, named as today.
      wb.user.edit(s, 3, 3, 999);
      const c = (await check(engine)).placements[0]!;
      expect(c.edit).toBe("edited");
    });

    it("issue 33: a table the person filtered is refreshed (its filter is theirs, not an obstacle) and filtered again over the new rows", async () => {
      const { wb, s, engine, key, reportId, name } = await placedTable(6);
      const keep = [wb.user.cell(s, 2, 2), wb.user.cell(s, 4, 2)].map(String);
      wb.user.filterTable(name, 1, keep);
      expect((await tables(wb.port))[0]?.filtered).toBe(true);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
      await change(reportId, customers(9));
      expect((await engine.refresh(key, "ask")).kind).toBe("refreshed");
      const [t] = await tables(wb.port);
      expect(t).toMatchObject({ name, filtered: true, area: { rows: 10 } });
      // The filter hides the new rows whose name is not one kept (dev/excel computes it; the memory port hides none).
      const hidden = wb.user.hiddenRows(s);
      const shown = Array.from({ length: 9 }, (_, r) => 2 + r).filter((r) => !hidden.includes(r));
      if (computes) expect(shown.map((r) => String(wb.user.cell(s, r, 2))).sort()).toEqual([...keep].sort());
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("issue 33: a refresh whose record the platform refuses puts the table back as it was (its columns, its rows), not only the cells", async () => {
      const shared = await sharedReport();
      const owner = (input: ReportInput) => env().client("admin").updateReport(env().deploymentId, shared.id, input);
      await owner(customers(4));
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const out = await engine.place(shared, { at: { sheetId: s, row: 1, col: 1 }, asTable: true });
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      const key = out.key;
      const name = (await loadPlacements(wb.port))[0]!.table!.name;
      wb.user.formulaColumn(name, "Double", "=1");
      const before = new Map(wb.user.cells(s));
      const tablesBefore = await tables(wb.port);
      const recordBefore = await loadPlacements(wb.port);
      await owner(customers(6, true)); // a new column and more rows
      const viewer = env().engine(wb, "viewer"); // no role given: the 403 on the record is the proof
      const err = await viewer.refresh(key, "overwrite").catch((e: unknown) => e);
      expect((err as Error).name).toBe("ViewOnly");
      expect((err as Error).message).toContain("Its cells were put back as they were");
      expect(await tables(wb.port)).toEqual(tablesBefore);
      expect(new Map(wb.user.cells(s))).toEqual(before);
      expect(await loadPlacements(wb.port)).toEqual(recordBefore);
      expect((await check(engine)).placements[0]).toMatchObject({ edit: "clean" });
    });

    it("issue 33: a place as a table whose record the platform refuses leaves no table behind", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const viewer = env().engine(wb, "viewer");
      const err = await viewer.place(await sharedReport(), { at: { sheetId: s, row: 1, col: 1 }, asTable: true }).catch((e: unknown) => e);
      expect((err as Error).name).toBe("ViewOnly");
      expect(await tables(wb.port)).toEqual([]);
      expect(wb.user.cells(s).size).toBe(0);
    });

    it("issue 33: a pivot is refused as a table in words, nothing written", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const pivot = await env().createReport({
        jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status", "customers.country"] }),
        pivotItems: { rows: ["customers.country"], columns: ["orders.status"], measures: ["orders.count"], filters: [] },
      });
      const err = await engine.place(pivot, { at: { sheetId: s, row: 0, col: 0 }, asTable: true }).catch((e: unknown) => e);
      expect((err as Error).message).toContain("is a pivot: a pivot is placed as cells, not as an Excel table");
      expect(wb.user.cells(s).size).toBe(0);
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("issue 33: a report placed just below a person's table is refused in words (Excel would stretch the table over it)", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 0, 0, "Item");
      wb.user.edit(s, 1, 0, "Pen");
      wb.user.addTable("Stock", s, 0, 0, 2, 1);
      const engine = env().engine(wb);
      const report = await env().createReport(customers(3));
      const err = await engine.place(report, { at: { sheetId: s, row: 2, col: 0 } }).catch((e: unknown) => e);
      expect((err as Error).message).toContain("it starts just below or beside the table Stock (Sheet1!A1:A2)");
      expect(wb.user.cell(s, 2, 0)).toBe("");
      expect((await tables(wb.port)).find((t) => t.name === "Stock")?.area.rows).toBe(2);
    });

    it("issue 33: a person's cell below the table, in a row the placement held but the table no longer does, stays through an overwrite", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 7, 4, "note"); // E8: below where the table will end, typed before it was there
      const engine = env().engine(wb);
      const report = await env().createReport(customers(5));
      const out = await engine.place(report, { at: { sheetId: s, row: 1, col: 1 }, asTable: true }); // B2:D7
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      const name = (await loadPlacements(wb.port))[0]!.table!.name;
      wb.user.formulaColumn(name, "Double", `=[@[${String(wb.user.cell(s, 1, 3))}]]*2`); // E: the table's B2:E7
      wb.user.deleteRows(s, 3, 1); // a row of the table deleted: it ends at row 6, the note is at E7, the record still holds rows to 7
      expect(wb.user.cell(s, 6, 4)).toBe("note");
      expect((await tables(wb.port))[0]!.area.rows).toBe(5);
      await change(report.id, customers(3));
      const asked = await engine.refresh(out.key, "ask");
      expect(asked.kind).toBe("handEdited");
      expect((await engine.refresh(out.key, "overwrite")).kind).toBe("refreshed");
      expect(wb.user.cell(s, 6, 4)).toBe("note");
      const [t] = await tables(wb.port);
      expect(t!.area).toMatchObject({ row: 1, col: 1, rows: 4, cols: 4 });
      for (let c = 1; c <= 4; c++) expect(wb.user.cell(s, 5, c), `row 6, column ${c}`).toBe(""); // the rows the table lost, cleared
    });

    it("issue 33: disconnect with clear takes the table with the report's cells (no emptied table whose headers Excel names Column1…); the person's column stays as cells", async () => {
      const { wb, s, engine, key, name } = await placedTable(4);
      wb.user.formulaColumn(name, "Double", `=[@[${String(wb.user.cell(s, 1, 3))}]]*2`);
      await engine.disconnect(key, { clear: true });
      expect(await tables(wb.port)).toEqual([]);
      for (let r = 1; r <= 5; r++) for (let c = 1; c <= 3; c++) expect(wb.user.cell(s, r, c), `${r},${c}`).toBe("");
      expect(wb.user.cell(s, 1, 4)).toBe("Double");
      expect(await loadPlacements(wb.port)).toEqual([]);
    });

    it("issue 33: disconnect without clear leaves the table to the person, cells and all", async () => {
      const { wb, s, engine, key, name } = await placedTable(3);
      const before = new Map(wb.user.cells(s));
      await engine.disconnect(key);
      expect((await tables(wb.port)).map((t) => t.name)).toEqual([name]);
      expect(new Map(wb.user.cells(s))).toEqual(before);
    });

    it("issue 33: a table converted to a range by the person: refreshed as cells, said once, the record no longer a table", async () => {
      const { wb, engine, key, reportId, name } = await placedTable(4);
      wb.user.dropTable(name);
      await change(reportId, customers(5));
      const out = await engine.refresh(key, "ask");
      expect(out).toMatchObject({ kind: "refreshed" });
      expect(out.kind === "refreshed" && out.notices.join(" ")).toContain(`The Excel table “${name}” is no longer there`);
      expect((await loadPlacements(wb.port)).find((x) => x.key === key)!.table).toBeUndefined();
      expect(await tables(wb.port)).toEqual([]);
    });
  });
}
