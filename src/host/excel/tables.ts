// Excel tables (issue 33) through Office.js: what a snapshot reads of them, the table commands as commit
// ops, and the joinsTable obstacle (docs/EXCEL-FIDELITY.md "The adapter's tables").
//
//   snapshot — sync 1 lists the workbook's tables (name, style, totals row); sync 2, which the snapshot
//              takes anyway for its XML and values, reads each one's range, sheet, columns, sort and filter.
//   commit   — tableColumns: columns.add / getItemAt(i).delete() / getItemAt(i).name, in the commit's syncs;
//              table: tables.add (create) or Table.resize (ExcelApi 1.13) and sort/filter reapply, in the
//              commit's syncs; without ExcelApi 1.13 the resize is rows.add / TableRow.delete after one read
//              of where the table is (resizeFallback).
import { areaA1 } from "../a1.ts";
import type { Anchor, Area, Command, Obstacle, SheetValue, TableRead } from "../port.ts";
import { HostError } from "./errors.ts";

/** What a commit needs to know of a table (ExcelBasis.tables, by lower-case name). */
export interface TableFacts {
  /** A sort to re-apply, a filter with criteria to re-apply. */
  sort: boolean;
  filtered: boolean;
  /** Rows of the whole table as last read (header included), when known. */
  rows?: number;
}

/** Sync 1 of a snapshot: the workbook's tables. */
export function queueTableList(wb: Excel.Workbook): Excel.TableCollection {
  return wb.tables.load("items/name,items/style,items/showTotals");
}

/** Sync 2 of a snapshot: each table's range and sheet (and, `full`, columns, sort and filter); the reads after it. */
export function queueTableDetails(list: Excel.TableCollection, full: boolean): () => TableRead[] {
  const per = list.items.map((t) => ({
    t,
    range: t.getRange().load("rowIndex,columnIndex,rowCount,columnCount"),
    sheet: t.worksheet.load("id"),
    columns: full ? t.columns.load("items/name") : null,
    sort: full ? t.sort.load("fields") : null,
    filter: full ? t.autoFilter.load("isDataFiltered") : null,
  }));
  return () =>
    per.map((p) => ({
      name: p.t.name,
      area: { sheetId: p.sheet.id, row: p.range.rowIndex, col: p.range.columnIndex, rows: p.range.rowCount, cols: p.range.columnCount },
      columns: p.columns ? p.columns.items.map((c) => c.name) : [],
      style: p.t.style,
      totals: p.t.showTotals === true,
      sort: (p.sort?.fields ?? []).map((f) => ({ column: f.key, ascending: f.ascending !== false })),
      filtered: p.filter?.isDataFiltered === true,
    }));
}

/** The basis's facts of the tables read. */
export function tableFacts(tables: readonly TableRead[]): Map<string, TableFacts> {
  return new Map(tables.map((t) => [t.name.toLowerCase(), { sort: t.sort.length > 0, filtered: t.filtered, rows: t.area.rows }]));
}

/**
 * joinsTable (issue 33): the tables that end in the row just above `area` (in its columns) or in the
 * column just left of it (in its rows) — Excel's auto-expansion takes cells written there into them.
 */
export function joiningTables(area: Area, tables: ReadonlyArray<{ name: string; area: Area }>): Obstacle[] {
  const out: Obstacle[] = [];
  for (const t of tables) {
    const r = t.area;
    if (r.sheetId !== area.sheetId) continue;
    const colsMeet = r.col < area.col + area.cols && area.col < r.col + r.cols;
    const rowsMeet = r.row < area.row + area.rows && area.row < r.row + r.rows;
    const above = r.row + r.rows === area.row && colsMeet;
    const left = r.col + r.cols === area.col && rowsMeet;
    if (above || left) out.push({ kind: "joinsTable", address: areaA1(r), name: t.name });
  }
  return out;
}

/**
 * obstacles(area): the tables of the strips just above and just left of the area (Range.getTables, in
 * the same sync as the other obstacles). Those that also overlap the area are "table" obstacles, not
 * joinsTable (a table is one block: one that reaches the strip and goes on reaches the area).
 */
export function queueJoiningStrips(ws: Excel.Worksheet, area: Area): () => string[] {
  const strips: Excel.TableScopedCollection[] = [];
  if (area.row > 0)
    strips.push(
      ws
        .getRangeByIndexes(area.row - 1, area.col, 1, area.cols)
        .getTables(false)
        .load("items/name"),
    );
  if (area.col > 0)
    strips.push(
      ws
        .getRangeByIndexes(area.row, area.col - 1, area.rows, 1)
        .getTables(false)
        .load("items/name"),
    );
  return () => [...new Set(strips.flatMap((s) => s.items.map((t) => t.name)))];
}

/** Candidates from the strips (not overlapping the area): their ranges, read in one more sync. */
export function queueJoiningRanges(ctx: Excel.RequestContext, names: readonly string[]): () => Array<{ name: string; area: Area }> {
  const per = names.map((name) => {
    const t = ctx.workbook.tables.getItem(name);
    return { name, range: t.getRange().load("rowIndex,columnIndex,rowCount,columnCount"), sheet: t.worksheet.load("id") };
  });
  return () =>
    per.map((p) => ({
      name: p.name,
      area: { sheetId: p.sheet.id, row: p.range.rowIndex, col: p.range.columnIndex, rows: p.range.rowCount, cols: p.range.columnCount },
    }));
}

// ---------------------------------------------------------------- commit

type RangeAt = (ctx: Excel.RequestContext, a: Area, anchor?: Anchor) => Excel.Range;

/** tableColumns: the edits in order, on the table found by name (the anchor is not needed: the table moves with its cells). */
export function queueTableColumns(ctx: Excel.RequestContext, c: Extract<Command, { kind: "tableColumns" }>): void {
  const columns = ctx.workbook.tables.getItem(c.table).columns;
  for (const e of c.edits) {
    if (e.op === "insert") columns.add(e.index, undefined, e.name);
    else if (e.op === "delete") columns.getItemAt(e.index).delete();
    else columns.getItemAt(e.index).name = e.name;
  }
}

/** untable: the table becomes plain cells (convertToRange). The engine sends it only for a table it made in the same commit. */
export function queueUntable(ctx: Excel.RequestContext, c: Extract<Command, { kind: "untable" }>): void {
  ctx.workbook.tables.getItem(c.table).convertToRange();
}

/** Bytes a tableColumns command sends (names and a fixed cost per edit). */
export function tableColumnsBytes(c: Extract<Command, { kind: "tableColumns" }>): number {
  return 128 + c.edits.reduce((n, e) => n + 96 + ("name" in e ? e.name.length * 3 : 0), 0);
}

/**
 * table (create or ExcelApi 1.13 resize, then reapply) in the op's sync. `facts`: what is known of the
 * table (undefined: no such table known, so `create` makes one). Returns the table's facts after it.
 */
export function queueTable(
  ctx: Excel.RequestContext,
  c: Extract<Command, { kind: "table" }>,
  facts: TableFacts | undefined,
  rangeAt: RangeAt,
  resize: ((ctx: Excel.RequestContext, t: Excel.Table) => void) | null,
): TableFacts {
  const target = rangeAt(ctx, c.area, c.anchor);
  if (c.create && !facts) {
    const t = ctx.workbook.tables.add(target, true);
    t.name = c.table;
    t.style = c.create.style;
    t.showFilterButton = true;
    return { sort: false, filtered: false, rows: c.area.rows };
  }
  const t = ctx.workbook.tables.getItem(c.table);
  if (resize) resize(ctx, t);
  else t.resize(target);
  if (c.reapply && facts?.sort) t.sort.reapply();
  if (c.reapply && facts?.filtered) t.autoFilter.reapply();
  return { sort: facts?.sort ?? false, filtered: facts?.filtered ?? false, rows: c.area.rows };
}

/**
 * Without ExcelApi 1.13 (no Table.resize): where the table is now and the cells of the rows it may gain,
 * read in a sync of their own after the commands before it landed (a write below the table may have
 * expanded it). Then, in the op's sync: rows gained — their cells (written before, below the table) are
 * cleared and added again as table rows with rows.add(null, formulas), so the table keeps its name,
 * style and columns and its calculated columns fill them; rows lost — the trailing table rows are deleted
 * (TableRow.delete). Both move the cells below the table in its columns, as rows.add and TableRow.delete
 * do in Excel. A change of columns needs tableColumns first (else the command fails).
 */
export function resizeFallback(c: Extract<Command, { kind: "table" }>, known: TableFacts | undefined, rangeAt: RangeAt) {
  let table: Excel.Range | null = null;
  let gained: Excel.Range | null = null;
  // Read the rows past what the snapshot saw of the table (all data rows when it saw nothing).
  const from = Math.max(1, Math.min(known?.rows ?? 1, c.area.rows));
  return {
    read(ctx: Excel.RequestContext): void {
      table = ctx.workbook.tables.getItem(c.table).getRange().load("rowIndex,rowCount,columnCount");
      if (from < c.area.rows)
        gained = rangeAt(ctx, { ...c.area, row: c.area.row + from, rows: c.area.rows - from }, c.anchor).load("formulas");
    },
    resize(ctx: Excel.RequestContext, t: Excel.Table): void {
      const now = table!;
      if (now.columnCount !== c.area.cols)
        throw new HostError(
          "ApiNotSupported",
          `Table ${c.table} has ${now.columnCount} columns, not ${c.area.cols}: this Excel (without ExcelApi 1.13) changes a table's columns only through its columns.`,
        );
      const rows = c.area.rows;
      if (rows > now.rowCount) {
        if (now.rowCount < from) throw new HostError("UnexpectedResponse", `Table ${c.table} lost rows since it was read; refresh again.`);
        const formulas = (gained!.formulas as SheetValue[][]).slice(now.rowCount - from);
        rangeAt(ctx, { ...c.area, row: c.area.row + now.rowCount, rows: rows - now.rowCount }, c.anchor).clear("Contents");
        t.rows.add(undefined, formulas as (string | number | boolean)[][]);
      }
      for (let k = now.rowCount - 2; k >= rows - 1; k--) t.rows.getItemAt(k).delete();
    },
  };
}
