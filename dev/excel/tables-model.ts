// Tables (ListObjects) in dev/excel's workbook: creation and its conflicts, column names from the header
// row, calculated columns, structured references of the same row, auto-expansion, resize, rows and
// columns inserted inside the table, sort and the table's AutoFilter. The proxies are in tables.ts;
// docs/EXCEL-FIDELITY.md "Tables" names the Microsoft page or office-js issue behind each rule.

import { MAX_COLS, MAX_ROWS } from "../../src/host/a1.ts";
import { shiftArea } from "../../src/host/geometry.ts";
import { followColumns, followTable } from "./charts.ts";
import { evaluate } from "./convert.ts";
import { OfficeError } from "./errors.ts";
import { cellValue, contains, formatOnly, overlaps, type Cell, type DevWorkbook, type ModelSheet, type Rect } from "./model.ts";
import { nameExcelTakes } from "./names.ts";

export interface TableColumnModel {
  id: number;
  name: string;
  /** The calculated column's formula (as written, e.g. "=[@Amount]*1.2"); absent = not calculated. */
  formula?: string;
}
export interface ModelTable {
  id: number;
  name: string;
  /** Header row included. */
  rect: Rect;
  style: string;
  showHeaders: boolean;
  showFilterButton: boolean;
  columns: TableColumnModel[];
  sort?: { fields: Array<{ key: number; ascending: boolean }>; matchCase: boolean };
  /** The table's AutoFilter ("Values" criteria by column index) and the rows (absolute) it hides. */
  filter?: { criteria: Array<{ col: number; values: string[] }>; hidden: number[] };
}

/** Built-in styles (Excel.Table.style): TableStyleLight1–21, Medium1–28, Dark1–11. */
export const TABLE_STYLES: ReadonlySet<string> = new Set([
  ...Array.from({ length: 21 }, (_, i) => `TableStyleLight${i + 1}`),
  ...Array.from({ length: 28 }, (_, i) => `TableStyleMedium${i + 1}`),
  ...Array.from({ length: 11 }, (_, i) => `TableStyleDark${i + 1}`),
]);
export const DEFAULT_TABLE_STYLE = "TableStyleMedium2";

const bad = (what: string) =>
  new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${what})`);

export function allTables(wb: DevWorkbook): Array<{ sheet: ModelSheet; table: ModelTable }> {
  return wb.sheets.flatMap((sheet) => (sheet.tables ?? []).map((table) => ({ sheet, table })));
}
export function sheetOf(wb: DevWorkbook, t: ModelTable): ModelSheet {
  const s = wb.sheets.find((x) => x.tables?.includes(t));
  if (!s) throw new OfficeError("ItemNotFound", `The requested resource doesn't exist. (table ${t.name})`);
  return s;
}
export function findTable(wb: DevWorkbook, key: string, sheet?: ModelSheet): ModelTable | null {
  const k = key.toLowerCase();
  const hit = allTables(wb).find(({ table }) => table.name.toLowerCase() === k || String(table.id) === key);
  return hit && (!sheet || hit.sheet === sheet) ? hit.table : null;
}
/** A table name is a valid name, unique among the workbook's tables and defined names. */
export function checkTableName(wb: DevWorkbook, name: unknown, self?: ModelTable): string {
  if (!nameExcelTakes(name)) throw bad(`table name ${JSON.stringify(name)}`);
  const taken = allTables(wb).some(({ table }) => table !== self && table.name.toLowerCase() === name.toLowerCase());
  if (taken || wb.nameItem(name))
    throw new OfficeError("ItemAlreadyExists", `A resource with the same name or identifier already exists. (table ${name})`);
  return name;
}
function nextTableName(wb: DevWorkbook): string {
  for (let i = 1; ; i++) if (!findTable(wb, `Table${i}`) && !wb.nameItem(`Table${i}`)) return `Table${i}`;
}
/** Column names from header cells: an empty header becomes Column<n>, a repeated one gets a number (Name2). */
export function headerNames(raw: unknown[]): string[] {
  const out: string[] = [];
  raw.forEach((v, i) => {
    const base = v === "" || v === null || v === undefined ? `Column${i + 1}` : String(v);
    let name = base;
    for (let n = 2; out.some((x) => x.toLowerCase() === name.toLowerCase()); n++) name = `${base}${n}`;
    out.push(name);
  });
  return out;
}

// ---- cells moved inside a table's rows or columns (Excel inserts cells, not whole rows) ------------
/** Moves the cells of columns [col, col+cols) at and below `at` down by n (up and dropped when n < 0). */
export function shiftDown(wb: DevWorkbook, sheet: ModelSheet, at: number, col: number, cols: number, n: number): void {
  const last = sheet.rows.length;
  for (let c = col; c < col + cols; c++) {
    const cells: Array<Cell | undefined> = [];
    for (let r = at; r < last; r++) {
      cells.push(wb.cell(sheet, r, c));
      wb.setCell(sheet, r, c, undefined);
    }
    cells.forEach((cell, i) => {
      const r = at + i + n;
      if ((n < 0 && i < -n) || !cell || r >= MAX_ROWS) return;
      wb.setCell(sheet, r, c, cell);
    });
  }
}
/** Moves the cells of rows [row, row+rows) at and right of `at` right by n (left and dropped when n < 0). */
export function shiftRight(wb: DevWorkbook, sheet: ModelSheet, at: number, row: number, rows: number, n: number): void {
  for (let r = row; r < row + rows; r++) {
    const src = sheet.rows[r];
    if (!src || src.length <= at) continue;
    const moved = src.splice(at);
    moved.forEach((cell, i) => {
      const c = at + i + n;
      if ((n < 0 && i < -n) || !cell || c >= MAX_COLS) return;
      wb.setCell(sheet, r, c, cell);
    });
  }
}

// ---- creation ------------------------------------------------------------------------------------
/** tables.add: refuses another table, merged cells, a spill and a protected sheet in the range. */
export function checkFree(sheet: ModelSheet, rect: Rect, self?: ModelTable): void {
  if (sheet.protected)
    throw new OfficeError("AccessDenied", `The cell or chart you're trying to change is on a protected sheet. (worksheet ${sheet.name})`);
  if ((sheet.tables ?? []).some((t) => t !== self && overlaps(t.rect, rect)))
    throw new OfficeError("InvalidOperation", "The operation isn't allowed: a table can't overlap another table.");
  if ((sheet.merges ?? []).some((m) => overlaps(m, rect)))
    throw new OfficeError("MergedRangeConflict", "The operation isn't allowed: the range contains merged cells.");
  if ((sheet.spills ?? []).some((s) => overlaps(s.rect, rect)))
    throw new OfficeError("InvalidOperation", "The operation isn't allowed: spilled array formulas aren't supported in tables.");
}
/**
 * worksheet.tables.add(range, hasHeaders): the first row is the header row; with hasHeaders=false Excel
 * inserts a header row above the data, pushing the cells of those columns down (office-js issue 196).
 * A table has at least one data row (a one-row range with headers gets an empty one).
 */
export function createTable(wb: DevWorkbook, sheet: ModelSheet, at: Rect, hasHeaders: boolean): ModelTable {
  const rect = { ...at };
  if (hasHeaders && rect.rows === 1) rect.rows = 2;
  checkFree(sheet, { ...rect, rows: hasHeaders ? rect.rows : rect.rows + 1 });
  if (!hasHeaders) {
    shiftDown(wb, sheet, rect.row, rect.col, rect.cols, 1);
    rect.rows += 1;
  }
  const raw = hasHeaders ? Array.from({ length: rect.cols }, (_, c) => wb.readCell(sheet, rect.row, rect.col + c)) : [];
  const names = headerNames(Array.from({ length: rect.cols }, (_, c) => raw[c] ?? ""));
  const id = Math.max(0, ...allTables(wb).map(({ table }) => table.id)) + 1;
  const table: ModelTable = {
    id,
    name: nextTableName(wb),
    rect,
    style: DEFAULT_TABLE_STYLE,
    showHeaders: true,
    showFilterButton: true,
    columns: names.map((name, i) => ({ id: i + 1, name })),
  };
  writeHeaders(wb, sheet, table);
  (sheet.tables ??= []).push(table);
  return table;
}
/** Header cells hold the column names as text. */
export function writeHeaders(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable): void {
  t.columns.forEach((c, i) => {
    const old = wb.cell(sheet, t.rect.row, t.rect.col + i);
    if (old?.t === "s" && old.v === c.name && old.f === undefined) return;
    wb.setCell(sheet, t.rect.row, t.rect.col + i, { ...(formatOnly(old) ?? {}), t: "s", v: c.name });
  });
}
export function normaliseTable(
  t: { name: string; rect: Rect } & Partial<ModelTable>,
  i: number,
  wb: DevWorkbook,
  sheet: ModelSheet,
): ModelTable {
  const raw = Array.from({ length: t.rect.cols }, (_, c) => wb.readCell(sheet, t.rect.row, t.rect.col + c));
  return {
    id: t.id ?? i + 1,
    name: t.name,
    rect: { ...t.rect },
    style: t.style ?? DEFAULT_TABLE_STYLE,
    showHeaders: t.showHeaders ?? true,
    showFilterButton: t.showFilterButton ?? true,
    columns: t.columns ?? headerNames(raw).map((name, k) => ({ id: k + 1, name })),
    ...(t.sort ? { sort: t.sort } : {}),
    ...(t.filter ? { filter: t.filter } : {}),
  };
}

// ---- structured references ----------------------------------------------------------------------
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function eachFormula(wb: DevWorkbook, f: (sheet: ModelSheet, row: number, col: number, formula: string) => string): void {
  for (const sheet of wb.sheets)
    sheet.rows.forEach((r, row) =>
      r?.forEach((cell, col) => {
        if (cell?.f === undefined) return;
        const next = f(sheet, row, col, cell.f);
        if (next !== cell.f) r[col] = { ...cell, f: next };
      }),
    );
}
/** A column renamed: `[@Old]`, `[Old]` (inside the table) and `Table1[Old]`, `Table1[[#This Row],[Old]]` follow. */
export function renameColumnRefs(wb: DevWorkbook, t: ModelTable, from: string, to: string): void {
  const tbl = esc(t.name),
    old = esc(from);
  const qualified = new RegExp(`(${tbl}\\[(?:@|\\[[^\\]]*\\],)?\\[?)${old}(\\]\\]?)`, "giu");
  const local = new RegExp(`((?:^|[^\\p{L}\\p{N}_.\\]])\\[@?\\[?)${old}(\\])`, "giu");
  const inside = (sheet: ModelSheet, row: number, col: number) =>
    sheet.tables?.includes(t) && contains(t.rect, { row, col, rows: 1, cols: 1 });
  eachFormula(wb, (sheet, row, col, f) => {
    let g = f.replace(qualified, (_, a: string, b: string) => a + to + b);
    if (inside(sheet, row, col)) g = g.replace(local, (_, a: string, b: string) => a + to + b);
    return g;
  });
  for (const c of t.columns)
    if (c.formula)
      c.formula = c.formula
        .replace(qualified, (_, a: string, b: string) => a + to + b)
        .replace(local, (_, a: string, b: string) => a + to + b);
}
/** A table renamed: `Old[...]` in formulas becomes `New[...]`. */
export function renameTableRefs(wb: DevWorkbook, from: string, to: string): void {
  const re = new RegExp(`(^|[^\\p{L}\\p{N}_.])${esc(from)}\\[`, "giu");
  eachFormula(wb, (_s, _r, _c, f) => f.replace(re, (_, a: string) => `${a}${to}[`));
  for (const { table } of allTables(wb))
    for (const c of table.columns) if (c.formula) c.formula = c.formula.replace(re, (_, a: string) => `${a}${to}[`);
}
/**
 * dev/excel's only formula evaluation inside tables: structured references of the same row
 * (`[@Amount]`, `[@[Unit price]]`, `Table1[@Amount]`, `Table1[[#This Row],[Amount]]`) replaced by that
 * row's values, then plain arithmetic. Anything else stays as convert.ts left it.
 */
function evaluateRow(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, row: number, f: string): Cell | null {
  const ref = /(?:[\p{L}_\\][\p{L}\p{N}_.\\]*)?\[(?:@(?:\[([^\]]+)\]|([^\][]+))|\[#This Row\],\[([^\]]+)\])\]/giu;
  let failed: string | null = null;
  let hits = 0;
  const expr = f.slice(1).replace(ref, (_m, a?: string, b?: string, c?: string) => {
    hits++;
    const name = (a ?? b ?? c ?? "").toLowerCase();
    const k = t.columns.findIndex((c) => c.name.toLowerCase() === name);
    if (k < 0) return ((failed ??= "#REF!"), "0");
    const v = wb.readCell(sheet, row, t.rect.col + k);
    if (v === "") return "0";
    if (typeof v === "boolean") return v ? "1" : "0";
    if (typeof v !== "number") return ((failed ??= "#VALUE!"), "0");
    return `(${v})`;
  });
  if (!hits) return null;
  if (failed) return { t: "e", v: failed, f };
  const n = evaluate(expr);
  return n === null ? null : { t: "n", v: Number(n.toPrecision(15)), f };
}
/** Recomputes the table's formulas that reference the same row. */
export function recalcTable(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable): void {
  for (let r = t.rect.row + 1; r < t.rect.row + t.rect.rows; r++)
    for (let c = t.rect.col; c < t.rect.col + t.rect.cols; c++) {
      const cell = wb.cell(sheet, r, c);
      if (cell?.f === undefined || !cell.f.includes("[")) continue;
      const next = evaluateRow(wb, sheet, t, r, cell.f);
      if (next)
        wb.setCell(sheet, r, c, {
          ...next,
          ...(cell.nf ? { nf: cell.nf } : {}),
          ...(cell.b ? { b: true } : {}),
          ...(cell.fill ? { fill: cell.fill } : {}),
        });
    }
}
/** Calculated columns fill the given (absolute) rows' empty cells. */
export function fillCalculated(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, rows: number[], force = false): void {
  t.columns.forEach((c, i) => {
    if (!c.formula) return;
    for (const r of rows) {
      const old = wb.cell(sheet, r, t.rect.col + i);
      if (!force && old && (old.f !== undefined || cellValue(old) !== "")) continue;
      wb.setCell(sheet, r, t.rect.col + i, { ...(formatOnly(old) ?? {}), t: "s", v: "", f: c.formula });
    }
  });
}
export function dataRows(t: ModelTable, from = t.rect.row + 1, to = t.rect.row + t.rect.rows): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

// ---- writes into and beside a table -----------------------------------------------------------------
/** What a Range write put where: whether (row, col) got a non-empty value, and the formula it got. */
export interface Written {
  rect: Rect;
  nonEmpty(row: number, col: number): boolean;
  formulaAt(row: number, col: number): string | null;
}
/**
 * After Range.values/formulas (or clear): a write into the row just below a table, or the column just
 * right of it, expands the table (AutoCorrect's "Include new rows and columns in table", on by default);
 * a header cell written renames its column; a formula written to a whole data column (or into an empty
 * one) makes it a calculated column; the table's same-row formulas are recomputed.
 */
export function tablesAfterWrite(wb: DevWorkbook, sheet: ModelSheet, w: Written): void {
  for (const t of sheet.tables ?? []) {
    autoExpand(wb, sheet, t, w);
    if (!overlaps(t.rect, w.rect)) continue;
    if (w.rect.row <= t.rect.row && w.rect.row + w.rect.rows > t.rect.row) headersWritten(wb, sheet, t);
    calculatedWritten(wb, sheet, t, w);
    recalcTable(wb, sheet, t);
  }
}
function anyNonEmpty(w: Written, rows: [number, number], cols: [number, number]): boolean {
  for (let r = rows[0]; r < rows[1]; r++) for (let c = cols[0]; c < cols[1]; c++) if (w.nonEmpty(r, c)) return true;
  return false;
}
function autoExpand(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, w: Written): void {
  const bottom = t.rect.row + t.rect.rows,
    right = t.rect.col + t.rect.cols;
  const colsHit = w.rect.col < right && w.rect.col + w.rect.cols > t.rect.col;
  if (w.rect.row === bottom && colsHit) {
    const cols: [number, number] = [Math.max(w.rect.col, t.rect.col), Math.min(w.rect.col + w.rect.cols, right)];
    let rows = 0;
    while (rows < w.rect.rows && anyNonEmpty(w, [bottom + rows, bottom + rows + 1], cols)) rows++;
    const grown = { ...t.rect, rows: t.rect.rows + rows };
    if (rows && !(sheet.tables ?? []).some((x) => x !== t && overlaps(x.rect, grown))) {
      followTable(sheet, t.rect, grown);
      t.rect = grown;
      fillCalculated(wb, sheet, t, dataRows(t, bottom, bottom + rows));
    }
  }
  const rowsHit = w.rect.row < bottom && w.rect.row + w.rect.rows > t.rect.row;
  if (
    w.rect.col === right &&
    rowsHit &&
    anyNonEmpty(w, [Math.max(w.rect.row, t.rect.row), Math.min(w.rect.row + w.rect.rows, bottom)], [right, right + 1])
  ) {
    const grown = { ...t.rect, cols: t.rect.cols + 1 };
    if ((sheet.tables ?? []).some((x) => x !== t && overlaps(x.rect, grown))) return;
    t.rect = grown;
    t.columns.push({ id: Math.max(0, ...t.columns.map((c) => c.id)) + 1, name: "" });
    headersWritten(wb, sheet, t);
  }
}
/** Header cells are the column names: renamed columns rewrite structured references. */
export function headersWritten(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable): void {
  const raw = t.columns.map((_, i) => wb.readCell(sheet, t.rect.row, t.rect.col + i));
  const names = headerNames(raw);
  t.columns.forEach((c, i) => {
    const next = names[i]!;
    if (c.name && c.name !== next) renameColumnRefs(wb, t, c.name, next);
    c.name = next;
  });
  writeHeaders(wb, sheet, t);
}
function calculatedWritten(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, w: Written): void {
  const first = t.rect.row + 1,
    last = t.rect.row + t.rect.rows; // exclusive
  t.columns.forEach((c, i) => {
    const col = t.rect.col + i;
    if (col < w.rect.col || col >= w.rect.col + w.rect.cols) return;
    const rows = dataRows(t).filter((r) => r >= w.rect.row && r < w.rect.row + w.rect.rows);
    if (!rows.length) return;
    const formulas = new Set(rows.map((r) => w.formulaAt(r, col)));
    const whole = rows.length === last - first;
    const [f] = [...formulas];
    if (whole && formulas.size === 1 && f) c.formula = f;
    else if (whole && [...formulas].every((x) => x === null)) delete c.formula;
    else if (!c.formula && rows.length === 1 && f && dataRows(t).every((r) => r === rows[0] || wb.readCell(sheet, r, col) === "")) {
      c.formula = f; // a formula typed into an empty column fills it (AutoCorrect "Fill formulas in tables to create calculated columns")
      fillCalculated(wb, sheet, t, dataRows(t));
    }
  });
}

// ---- resize, rows, columns ------------------------------------------------------------------------
/** Table.resize (ExcelApi 1.13): the header row stays in its row; the new range overlaps the old one; no data moves. */
export function resizeTable(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, rect: Rect): void {
  if (rect.row !== t.rect.row) throw bad(`Table.resize: the header row must stay in row ${t.rect.row + 1}`);
  if (!overlaps(rect, t.rect)) throw bad("Table.resize: the new range must overlap the table's range");
  if (rect.rows < 2) throw bad("Table.resize: a table needs a header row and at least one data row");
  checkFree(sheet, rect, t);
  const oldRect = t.rect;
  const cols = t.columns.slice(0, rect.cols);
  for (let i = cols.length; i < rect.cols; i++)
    cols.push({ id: Math.max(0, ...t.columns.map((c) => c.id), ...cols.map((c) => c.id)) + 1, name: "" });
  if (rect.col !== oldRect.col) throw new OfficeError("NotImplemented", "dev/excel models Table.resize with the same first column only.");
  followTable(sheet, oldRect, rect);
  t.rect = { ...rect };
  t.columns = cols;
  headersWritten(wb, sheet, t);
  const bottom = oldRect.row + oldRect.rows;
  if (rect.row + rect.rows > bottom) fillCalculated(wb, sheet, t, dataRows(t, bottom));
  recalcTable(wb, sheet, t);
}
/** TableRowCollection.add(index, values): cells of the table's columns move down; calculated columns fill the new rows. */
export function addRows(
  wb: DevWorkbook,
  sheet: ModelSheet,
  t: ModelTable,
  index: number | null,
  values: unknown[][] | null,
  count: number,
): number {
  const dataCount = t.rect.rows - 1;
  const i = index ?? dataCount;
  if (!Number.isInteger(i) || i < 0 || i > dataCount) throw bad(`TableRowCollection.add index ${String(index)}`);
  if (values && values.some((r) => !Array.isArray(r) || r.length !== t.rect.cols))
    throw new OfficeError(
      "InvalidArgument",
      "The number of rows or columns in the input array doesn't match the size or dimensions of the range.",
    );
  const at = t.rect.row + 1 + i;
  shiftDown(wb, sheet, at, t.rect.col, t.rect.cols, count);
  followTable(sheet, t.rect, { ...t.rect, rows: t.rect.rows + count });
  t.rect = { ...t.rect, rows: t.rect.rows + count };
  values?.forEach((row, r) =>
    row.forEach((v, c) => wb.writeValue(sheet, at + r, t.rect.col + c, v, `TableRowCollection.add values[${r}][${c}]`)),
  );
  fillCalculated(wb, sheet, t, dataRows(t, at, at + count));
  recalcTable(wb, sheet, t);
  return at;
}
/** Data rows (indexes inside the data body) deleted: the cells below in the table's columns move up. */
export function deleteRows(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, indexes: number[]): void {
  const dataCount = t.rect.rows - 1;
  if (indexes.some((i) => !Number.isInteger(i) || i < 0 || i >= dataCount)) throw bad(`table row ${indexes.join(",")}`);
  if (new Set(indexes).size >= dataCount) throw bad("a table keeps at least one data row");
  for (const i of [...new Set(indexes)].sort((a, b) => b - a)) shiftDown(wb, sheet, t.rect.row + 1 + i, t.rect.col, t.rect.cols, -1);
  followTable(sheet, t.rect, { ...t.rect, rows: t.rect.rows - new Set(indexes).size });
  t.rect = { ...t.rect, rows: t.rect.rows - new Set(indexes).size };
  if (t.filter) t.filter.hidden = [];
}
/** TableColumnCollection.add(index, values, name): cells of the table's rows move right inside the table. */
export function addColumn(
  wb: DevWorkbook,
  sheet: ModelSheet,
  t: ModelTable,
  index: number | null,
  values: unknown[][] | null,
  name: string | null,
): number {
  const i = index ?? t.columns.length;
  if (!Number.isInteger(i) || i < 0 || i > t.columns.length) throw bad(`TableColumnCollection.add index ${String(index)}`);
  if (values && (values.length !== t.rect.rows || values.some((r) => !Array.isArray(r) || r.length !== 1)))
    throw new OfficeError(
      "InvalidArgument",
      "The number of rows or columns in the input array doesn't match the size or dimensions of the range.",
    );
  const col = t.rect.col + i;
  shiftRight(wb, sheet, col, t.rect.row, t.rect.rows, 1);
  followColumns(sheet, t.rect.row, t.rect.rows, col, 1);
  t.rect = { ...t.rect, cols: t.rect.cols + 1 };
  t.columns.splice(i, 0, { id: Math.max(0, ...t.columns.map((c) => c.id)) + 1, name: "" });
  values?.forEach((row, r) => wb.writeValue(sheet, t.rect.row + r, col, row[0], `TableColumnCollection.add values[${r}][0]`));
  if (name !== null) wb.setCell(sheet, t.rect.row, col, { t: "s", v: name });
  headersWritten(wb, sheet, t);
  const body = values?.slice(1).map((r) => r[0]) ?? [];
  const f = body[0];
  if (typeof f === "string" && f.startsWith("=") && body.every((x) => x === f)) t.columns[i]!.formula = f;
  recalcTable(wb, sheet, t);
  return i;
}
export function deleteColumn(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, i: number): void {
  if (t.columns.length === 1) throw bad("a table keeps at least one column");
  shiftRight(wb, sheet, t.rect.col + i, t.rect.row, t.rect.rows, -1); // the column's cells go, those right of it move left
  followColumns(sheet, t.rect.row, t.rect.rows, t.rect.col + i, -1);
  t.columns.splice(i, 1);
  t.rect = { ...t.rect, cols: t.rect.cols - 1 };
}
/** TableColumn.name: a valid, unique column name; the header cell and structured references follow. */
export function renameColumn(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable, i: number, name: unknown): void {
  if (typeof name !== "string" || name.trim() === "") throw bad(`column name ${JSON.stringify(name)}`);
  if (t.columns.some((c, k) => k !== i && c.name.toLowerCase() === name.toLowerCase()))
    throw new OfficeError("ItemAlreadyExists", `A resource with the same name or identifier already exists. (column ${name})`);
  const c = t.columns[i]!;
  renameColumnRefs(wb, t, c.name, name);
  c.name = name;
  writeHeaders(wb, sheet, t);
  recalcTable(wb, sheet, t);
}

// ---- sort and filter ----------------------------------------------------------------------------------
function sortRank(c: Cell | undefined): number {
  if (!c || (c.t === "s" && c.v === "")) return 4;
  return c.t === "n" ? 0 : c.t === "s" ? 1 : c.t === "b" ? 2 : 3;
}
/** TableSort.apply / reapply: data rows reordered by the fields (numbers, text, logicals, errors; blanks last). */
export function sortTable(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable): void {
  const s = t.sort;
  if (!s) return;
  const rows = dataRows(t).map((r) => Array.from({ length: t.rect.cols }, (_, c) => wb.cell(sheet, r, t.rect.col + c)));
  const cmp = (a: Array<Cell | undefined>, b: Array<Cell | undefined>): number => {
    for (const f of s.fields) {
      const x = a[f.key],
        y = b[f.key];
      const rx = sortRank(x),
        ry = sortRank(y);
      if (rx === 4 || ry === 4) {
        if (rx !== ry) return rx - ry;
        continue;
      }
      let d = rx - ry;
      if (!d && x!.t === "n") d = (x!.v as number) - (y!.v as number);
      else if (!d) {
        const [p, q] = [String(x!.v), String(y!.v)].map((v) => (s.matchCase ? v : v.toLowerCase()));
        d = p! < q! ? -1 : p! > q! ? 1 : 0;
      }
      if (d) return f.ascending ? d : -d;
    }
    return 0;
  };
  rows.sort(cmp).forEach((cells, i) => cells.forEach((cell, c) => wb.setCell(sheet, t.rect.row + 1 + i, t.rect.col + c, cell)));
  recalcTable(wb, sheet, t);
}
/** The table's AutoFilter applied again: data rows whose shown value is not among a column's values are hidden. */
export function refilterTable(wb: DevWorkbook, sheet: ModelSheet, t: ModelTable): void {
  const f = t.filter;
  if (!f) return;
  f.hidden = dataRows(t).filter((r) => f.criteria.some((c) => !c.values.includes(String(wb.readCell(sheet, r, t.rect.col + c.col)))));
}
export function tableHidesRow(sheet: ModelSheet, row: number): boolean {
  return (sheet.tables ?? []).some((t) => t.filter?.hidden.includes(row));
}

/**
 * Whole rows or columns inserted (count > 0) or deleted (count < 0) on the sheet: tables move with their
 * cells; rows or columns inserted inside a table join it (new columns are Column<n>, calculated columns
 * fill new rows); deleted ones leave it; a table whose header row or every cell is deleted goes.
 */
export function shiftTables(wb: DevWorkbook, sheet: ModelSheet, axis: "row" | "col", at: number, count: number): void {
  for (const t of [...(sheet.tables ?? [])]) {
    const next = shiftArea(t.rect, axis, at, count);
    const headerGone = axis === "row" && count < 0 && at <= t.rect.row && t.rect.row < at - count;
    if (!next || headerGone) {
      sheet.tables = sheet.tables!.filter((x) => x !== t);
      continue;
    }
    const old = t.rect;
    if (axis === "row") followTable(sheet, old, next);
    t.rect = next;
    if (axis === "col" && next.cols !== old.cols) {
      if (count > 0) {
        const i = at - old.col;
        const fresh = Array.from({ length: count }, (_, k) => ({ id: Math.max(0, ...t.columns.map((c) => c.id)) + 1 + k, name: "" }));
        t.columns.splice(i, 0, ...fresh);
      } else {
        const from = Math.max(at, old.col) - old.col;
        t.columns.splice(from, old.cols - next.cols);
      }
      headersWritten(wb, sheet, t);
    }
    if (axis === "row" && count > 0 && next.rows > old.rows) fillCalculated(wb, sheet, t, dataRows(t, at, at + count));
    if (axis === "row" && t.rect.rows < 2) t.rect = { ...t.rect, rows: 2 };
    refilterTable(wb, sheet, t);
    recalcTable(wb, sheet, t);
  }
}
