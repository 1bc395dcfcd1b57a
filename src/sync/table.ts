// A placement as an Excel table (issue 33, docs/SYNC.md "Tables"). Pure: no port, no network.
//
//   tableNameFor(report, taken)   a valid table name after the report's, unique among the workbook's tables;
//   columnEdits(was, now, …)      the table columns to insert, delete and rename so a person's columns at the
//                                 table's right stay beside the report's and structured references follow;
//   tableOf(tables, p, header)    the placement's table in a snapshot (by name, else the one at its header row,
//                                 renamed by the person);
//   unsorted(current, prints, …)  a table a person sorted, read back in the order Cellbound wrote it: the same
//                                 rows in another order are their view, not hand edits (null: not a reordering).
import type { Area, SheetValue, TableColumnEdit, TableRead } from "../host/port.ts";
import { rowPrints } from "./rows.ts";
import { isExcelName } from "../host/names.ts";
import type { TableRecord } from "./table-record.ts";
import type { Grid } from "./fingerprint.ts";

/** The built-in style a placed table gets (Excel's own default for Insert › Table). */
export const TABLE_STYLE = "TableStyleMedium2";
const MAX_NAME = 60;

/** A table name from the report's: spaces and other characters become "_", a number added when it is taken. */
export function tableNameFor(reportName: string | null, taken: Iterable<string>): string {
  let base = (reportName ?? "Report")
    .normalize("NFC")
    .replace(/[^\p{L}\p{N}_.\\]+/gu, "_")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, MAX_NAME);
  if (!/^[\p{L}_\\]/u.test(base)) base = `Report_${base}`.slice(0, MAX_NAME);
  if (!isExcelName(base)) base = `${base}_`;
  const used = new Set([...taken].map((n) => n.toLowerCase()));
  if (!used.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}_${n}`.toLowerCase())) return `${base}_${n}`;
}

/**
 * The edits that turn the table's report columns `was` (keys, left to right, as last written) into `now`:
 * deletes right to left, then inserts at their new index, then renames where a column's title changed.
 * `names` are the table's column names now (report columns first); `titles` the new header cells.
 */
export function columnEdits(
  was: readonly string[],
  now: readonly string[],
  titles: readonly SheetValue[],
  names: readonly string[],
): TableColumnEdit[] {
  const edits: TableColumnEdit[] = [];
  const keys = [...was];
  const cur = was.map((_, i) => names[i] ?? "");
  for (let i = keys.length - 1; i >= 0; i--)
    if (!now.includes(keys[i]!)) {
      edits.push({ op: "delete", index: i });
      keys.splice(i, 1);
      cur.splice(i, 1);
    }
  now.forEach((key, j) => {
    if (keys[j] === key) return;
    if (keys.includes(key)) return; // moved: its cells are rewritten where it is now
    const name = String(titles[j] ?? "") || `Column${j + 1}`;
    edits.push({ op: "insert", index: j, name });
    keys.splice(j, 0, key);
    cur.splice(j, 0, name);
  });
  now.forEach((_, j) => {
    const title = String(titles[j] ?? "");
    if (title && cur[j] !== undefined && cur[j] !== title) edits.push({ op: "rename", index: j, name: title });
  });
  return edits;
}

/** The placement's table: by its recorded name, else the table whose header row is the placement's (renamed by the person). */
export function tableOf(
  tables: readonly TableRead[] | undefined,
  name: string,
  header: Pick<Area, "sheetId" | "row" | "col">,
): TableRead | null {
  if (!tables) return null;
  return (
    tables.find((t) => t.name.toLowerCase() === name.toLowerCase()) ??
    tables.find((t) => t.area.sheetId === header.sheetId && t.area.row === header.row && t.area.col === header.col) ??
    null
  );
}

/**
 * The placement's cells in the order Cellbound wrote them, when a person reordered its data rows (sorted the
 * table): the rows now, matched to the prints of the rows last written (rows.ts). Null when nothing moved, or
 * when the rows now are not the rows written in another order (edits, inserted or deleted rows: named as
 * today), or when there are no prints (more than rows.ts MAX_ROW_PRINTS rows).
 */
export async function unsorted(
  current: Grid,
  prints: Uint32Array | null,
  shape: { rows: number; cols: number },
  headerRows: number,
): Promise<Grid | null> {
  if (!prints || prints.length !== shape.rows || current.length < shape.rows) return null;
  const now = await rowPrints(current.slice(0, shape.rows).map((row) => row.slice(0, shape.cols)));
  for (let r = 0; r < headerRows; r++) if (now[r] !== prints[r]) return null;
  const at = new Map<number, number[]>();
  for (let r = headerRows; r < shape.rows; r++) at.set(now[r]!, [...(at.get(now[r]!) ?? []), r]);
  const out: SheetValue[][] = current.slice(0, headerRows);
  let moved = false;
  for (let r = headerRows; r < shape.rows; r++) {
    const from = at.get(prints[r]!)?.shift();
    if (from === undefined) return null;
    if (from !== r) moved = true;
    out.push(current[from]!);
  }
  return moved ? [...out, ...current.slice(shape.rows)] : null;
}

/** What a refresh does to a table placement's table (refresh.ts): found in the snapshot, planned before the write. */
export interface TablePlan {
  /** The table's name now (the person may have renamed it). */
  name: string;
  /** Where its header row is (absolute row). */
  headerRow: number;
  /** The person's columns at the table's right (after the report's). */
  extra: number;
  /** Column edits before the cells are written. */
  edits: TableColumnEdit[];
  /** Its sort or filter is applied again after the write. */
  reapply: boolean;
  /** The person sorted it: the rows now are the rows written, in their order (set by the read). */
  sorted: boolean;
  /** The record after the refresh. */
  record: TableRecord;
  /** The table as read (its area and column names): what a refused record puts back (undoEdits). */
  was: Pick<TableRead, "area" | "columns">;
}

/** The edits that undo `edits` applied to a table whose columns were `names` (a refused record's rollback). */
export function undoEdits(edits: readonly TableColumnEdit[], names: readonly string[]): TableColumnEdit[] {
  const now = [...names];
  const undo: TableColumnEdit[] = [];
  for (const e of edits) {
    if (e.op === "insert") {
      undo.unshift({ op: "delete", index: e.index });
      now.splice(e.index, 0, e.name);
    } else if (e.op === "delete") {
      undo.unshift({ op: "insert", index: e.index, name: now[e.index] ?? `Column${e.index + 1}` });
      now.splice(e.index, 1);
    } else {
      undo.unshift({ op: "rename", index: e.index, name: now[e.index] ?? e.name });
      now[e.index] = e.name;
    }
  }
  return undo;
}

/**
 * The table's part of a refresh: "gone" when the placement's table is no longer there (converted to a range or
 * deleted: refreshed as cells), "moved" when the new answer's header row is not the table's (its applied-filters
 * summary grew or shrank: the header cannot move), null when the placement is not a table.
 */
export function planTable(
  recorded: TableRecord | undefined,
  tables: readonly TableRead[] | undefined,
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  layout: { cells: ReadonlyArray<ReadonlyArray<SheetValue>>; summaryRows?: number; columnKeys?: string[] },
): TablePlan | "gone" | "moved" | null {
  if (!recorded) return null;
  const top = layout.summaryRows ?? 0;
  const t = tableOf(tables, recorded.name, { sheetId: anchor.sheetId, row: anchor.row + top, col: anchor.col });
  if (!t || t.area.col !== anchor.col) return "gone";
  if (t.area.row !== anchor.row + top) return "moved";
  const keys = layout.columnKeys ?? [];
  const titles = layout.cells[top] ?? [];
  const same = (a: string, b: SheetValue) => a.toLowerCase() === String(b).toLowerCase();
  // An earlier refresh edited the columns and stopped before its record: the table has the new columns already.
  const done = t.columns.length >= keys.length && keys.every((_, j) => same(t.columns[j]!, titles[j] ?? ""));
  const edits = done ? [] : columnEdits(recorded.columns, keys, titles, t.columns);
  const was = done ? keys.length : recorded.columns.length;
  return {
    name: t.name,
    headerRow: t.area.row,
    extra: Math.max(0, t.area.cols - was),
    edits,
    reapply: t.sort.length > 0 || t.filtered,
    sorted: false,
    record: { name: t.name, columns: keys },
    was: { area: t.area, columns: t.columns },
  };
}

/** The table's cells after a refresh: its header row to the report's last row (≥ one data row), the person's columns too. */
export function refreshedTableArea(
  plan: TablePlan,
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  next: { rows: number; cols: number },
): Area {
  const above = plan.headerRow - anchor.row;
  return {
    sheetId: anchor.sheetId,
    row: plan.headerRow,
    col: anchor.col,
    rows: Math.max(2, next.rows - above),
    cols: next.cols + plan.extra,
  };
}

/**
 * What a table placement's refresh clears: the report's rows it no longer holds, and in the person's columns the
 * rows the table loses (their formulas go with the rows, as when rows of a table are deleted) — only rows the table
 * has now: a person's cell below the table (in a row the placement held but the table no longer does) is theirs.
 * Columns the report dropped are table columns deleted (the person's columns move left into them), never cleared.
 */
export function tableLeftovers(
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  next: { rows: number; cols: number },
  rowsHeld: number,
  extra: number,
  table: Area,
): Area[] {
  const out: Area[] = [];
  const from = anchor.row + next.rows;
  if (rowsHeld > next.rows) out.push({ sheetId: anchor.sheetId, row: from, col: anchor.col, rows: rowsHeld - next.rows, cols: next.cols });
  const tableTo = Math.min(anchor.row + rowsHeld, table.row + table.rows);
  if (extra > 0 && tableTo > from)
    out.push({ sheetId: anchor.sheetId, row: from, col: anchor.col + next.cols, rows: tableTo - from, cols: extra });
  return out;
}

/** Rows a table placement grows into: below it, across the table with the person's columns (those must be empty too). */
export function tableGrowth(
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  held: { rows: number; cols: number },
  next: { rows: number; cols: number },
  extra: number,
): Area[] {
  if (next.rows <= held.rows) return [];
  return [
    {
      sheetId: anchor.sheetId,
      row: anchor.row + held.rows,
      col: anchor.col,
      rows: next.rows - held.rows,
      cols: Math.max(held.cols, next.cols) + extra,
    },
  ];
}
