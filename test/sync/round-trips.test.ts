// Round trips (issue 20; docs/SYNC.md "Round trips"): what the engine's operations cost in context.sync()
// calls on the Office.js adapter over dev/excel (Excel on the web limits), counted by dev/excel itself
// (workbook.stats.syncs), with the behaviour each saving must keep:
//   - a first placement fits its columns' widths in the commit's own sync (no read of the text after it),
//     to the placed cells' shown text, never narrowing a column the user widened;
//   - a refresh that changes one value costs at most 3 syncs more than one that changes nothing (the
//     number formats come with the re-read of the rows it writes), and a number still never lands in a
//     text-formatted ("@") cell;
//   - the pane's home check (check + home) reads the workbook in one snapshot.
import { createDevExcel } from "../../dev/excel/index.ts";
import { cellA1 } from "../../src/host/a1.ts";
import { DEFAULT_COLUMN_WIDTH_PT, textWidthPoints } from "../../src/host/column-width.ts";
import { formatValue } from "../../src/host/number-format.ts";
import type { SheetValue } from "../../src/host/port.ts";
import { homeCheck } from "../../src/sync/check.ts";
import { useEnv, wrapDevExcel } from "./support.ts";

const sql = (rows: number, changedId?: number) =>
  `SELECT id, status, ${changedId === undefined ? "amount" : `CASE WHEN id = ${changedId} THEN amount + 1 ELSE amount END AS amount`} FROM orders WHERE id <= ${rows} ORDER BY id`;

const book = () => wrapDevExcel(createDevExcel({ platform: "OfficeOnline" }).workbook.saveAsCopy("https://files.example/trips.xlsx"));

describe("round trips on the Office.js adapter over dev/excel", () => {
  const env = useEnv();

  it("a first placement is snapshot 2 + commit 1 + state 1 syncs: the widths are fitted in the commit, to the placed text, never narrower", async () => {
    const wb = book();
    const sheetId = wb.user.firstSheetId();
    wb.workbook.typeInto(sheetId, "B400", "a long note of the user's in column B, below the report"); // not the placed cells: no effect
    wb.workbook.sheetById(sheetId)!.colWidths = { 2: 300 }; // the user widened column C
    const engine = env().engine(wb);
    const report = await env().createReport({ sqlQuery: sql(300) });
    wb.workbook.resetStats();
    const out = await engine.place(report, { at: { sheetId, row: 0, col: 0 } });
    expect(out.kind).toBe("placed");
    expect(wb.workbook.stats).toMatchObject({ syncs: 4, emptySyncs: 0 });
    // The widths the text shown needs (dev/excel's Range.text model), as the read-after fit would set them.
    const cells = wb.workbook.inspect(sheetId, "A1:C301");
    const width = (c: number) =>
      textWidthPoints(Math.max(...cells.values.map((row, r) => formatValue(row[c] as SheetValue, cells.numberFormats[r]![c]).length)) + 1);
    const widths = wb.workbook.sheetById(sheetId)!.colWidths ?? {};
    expect(widths[0] ?? DEFAULT_COLUMN_WIDTH_PT).toBe(width(0)); // left as it is when the default shows the text
    expect(widths[1]).toBe(width(1)); // not the user's long note in B400
    expect(width(1)).toBeGreaterThan(DEFAULT_COLUMN_WIDTH_PT);
    expect(widths[1]).toBeLessThan(textWidthPoints("a long note of the user's in column B, below the report".length));
    expect(widths[2]).toBe(300);
  });

  it('Refresh all with one value changed costs at most 3 syncs more than with none, and the number never lands as text in an "@" cell', async () => {
    const wb = book();
    const sheetId = wb.user.firstSheetId();
    const engine = env().engine(wb);
    const reports = [];
    for (let i = 0; i < 3; i++) {
      const r = await env().createReport({ sqlQuery: sql(200) });
      const out = await engine.place(r, { at: { sheetId, row: 0, col: i * 4 } });
      expect(out.kind).toBe("placed");
      reports.push(r);
    }
    wb.workbook.resetStats();
    const unchanged = await engine.refreshAll();
    expect(Object.values(unchanged.items).map((x) => x.state)).toEqual(["done", "done", "done"]);
    const base = wb.workbook.stats.syncs;
    expect(base).toBeLessThanOrEqual(4);
    // Id 50 is on row 51; its amount (column C of the first placement) is formatted as text by the user.
    const cell = cellA1(50, 2);
    wb.workbook.setNumberFormat(sheetId, cell, "@");
    const before = wb.workbook.inspect(sheetId, cell).values[0]![0] as number;
    await env()
      .client()
      .updateReport(env().deploymentId, reports[0]!.id, { sqlQuery: sql(200, 50) });
    wb.workbook.resetStats();
    const changed = await engine.refreshAll();
    expect(Object.values(changed.items).map((x) => x.state)).toEqual(["done", "done", "done"]);
    expect(wb.workbook.stats).toMatchObject({ emptySyncs: 0 });
    expect(wb.workbook.stats.syncs).toBeLessThanOrEqual(base + 3);
    const now = wb.workbook.inspect(sheetId, cell);
    expect(now.values).toEqual([[before + 1]]);
    expect(now.valueTypes).toEqual([["Double"]]);
    expect(now.numberFormats[0]![0]).not.toBe("@");
  });

  it("the pane's home check (check + home of 3 placements) reads the workbook in one snapshot: 2 syncs", async () => {
    const wb = book();
    const sheetId = wb.user.firstSheetId();
    const engine = env().engine(wb);
    for (let i = 0; i < 3; i++) {
      const out = await engine.place(await env().createReport({ sqlQuery: sql(50) }), { at: { sheetId, row: 0, col: i * 4 } });
      expect(out.kind).toBe("placed");
    }
    wb.workbook.typeInto(sheetId, "B10", "typed by hand");
    wb.workbook.resetStats();
    const { checked, data } = await homeCheck(engine);
    expect(wb.workbook.stats).toMatchObject({ syncs: 2, emptySyncs: 0 });
    expect(checked.placements.map((p) => p.edit)).toEqual(["edited", "clean", "clean"]);
    expect(data.entries).toHaveLength(3);
    expect(data.entries.every((e) => e.range !== null && !e.missing)).toBe(true);
  });

  it("issue 32: an unchanged refresh of a placement bound to a cell reads its input in the same snapshot: 2 syncs", async () => {
    const wb = book();
    const sheetId = wb.user.firstSheetId();
    wb.workbook.typeInto(sheetId, "A1", "Germany");
    const engine = env().engine(wb);
    const report = await env().createReport({
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["customers.country", "orders.status"] }),
    });
    const out = await engine.place(report, {
      at: { sheetId, row: 0, col: 3 },
      inputs: [{ member: "customers.country", ref: "Sheet1!A1" }],
    });
    expect(out.kind).toBe("placed");
    if (out.kind !== "placed") return;
    wb.workbook.resetStats();
    const r = await engine.refresh(out.key, "ask");
    expect(r.kind === "refreshed" && r.stats.cellsWritten).toBe(0);
    expect(wb.workbook.stats).toMatchObject({ syncs: 2, emptySyncs: 0 });
    // The pane's home check says whether the inputs changed from its own snapshot: no read more.
    wb.workbook.typeInto(sheetId, "A1", "France");
    wb.workbook.resetStats();
    const { checked } = await homeCheck(engine);
    expect(checked.placements[0]!.inputs).toEqual({ count: 1, changed: true, problem: null, autoRefresh: false });
    expect(wb.workbook.stats).toMatchObject({ syncs: 2, emptySyncs: 0 });
  });

  it("issue 33: a table placement's refresh that changes nothing is 2 syncs, like a range's; one with more rows costs no more syncs than a range's", async () => {
    const costs: Array<{ unchanged: number; grown: number }> = [];
    for (const asTable of [false, true]) {
      const wb = book();
      const sheetId = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const report = await env().createReport({ sqlQuery: sql(200) });
      const out = await engine.place(report, { at: { sheetId, row: 0, col: 0 }, asTable });
      if (out.kind !== "placed") throw new Error(JSON.stringify(out));
      wb.workbook.resetStats();
      expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
      const unchanged = wb.workbook.stats.syncs;
      expect(wb.workbook.stats.emptySyncs).toBe(0);
      await env()
        .client()
        .updateReport(env().deploymentId, report.id, { sqlQuery: sql(260) });
      wb.workbook.resetStats();
      expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
      costs.push({ unchanged, grown: wb.workbook.stats.syncs });
      if (asTable) expect(wb.workbook.sheetById(sheetId)!.tables?.[0]?.rect).toMatchObject({ row: 0, col: 0, rows: 261, cols: 3 });
    }
    expect(costs[1]!.unchanged).toBe(2);
    expect(costs[1]!.unchanged).toBe(costs[0]!.unchanged);
    expect(costs[1]!.grown).toBeLessThanOrEqual(costs[0]!.grown);
  });

  it("issue 35 §3: a large SQL placement keeps what its chunks were laid out from at no sync of its own, in place and in refresh", async () => {
    // Over MAX_ROW_PRINTS rows: the record keeps the answer's chunk prints (rows.ts `answer`) where a smaller one keeps row prints.
    const wb = book();
    const sheetId = wb.user.firstSheetId();
    const engine = env().engine(wb);
    const report = await env().createReport({ sqlQuery: sql(12_000) });
    wb.workbook.resetStats();
    const out = await engine.place(report, { at: { sheetId, row: 0, col: 0 } });
    if (out.kind !== "placed") throw new Error(JSON.stringify(out));
    const placed = wb.workbook.stats.syncs;
    await env()
      .client()
      .updateReport(env().deploymentId, report.id, { sqlQuery: sql(12_000, 11_500) });
    wb.workbook.resetStats();
    expect((await engine.refresh(out.key, "ask")).kind).toBe("refreshed");
    const refreshed = wb.workbook.stats.syncs;
    // What the build before the prints were kept cost (b9b1d58, the same test): place 4 syncs, refresh 5.
    expect({ placed, refreshed }).toEqual({ placed: 4, refreshed: 5 });
    const stored = (await wb.port.getData(`cellbound.rows.v1.${out.key}`)) as { answer?: { chunks: string[] } } | null;
    expect(stored?.answer?.chunks).toHaveLength(13); // 12,001 rows: 13 chunks
    expect(wb.workbook.stats.emptySyncs).toBe(0);
  });
});
