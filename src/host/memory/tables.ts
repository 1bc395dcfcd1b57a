// Tables (issue 33) in the memory port's model: where each table is, its style, its calculated columns'
// formulas (kept, not computed: this port has no formulas), the sort and filter a person applied. Column
// names are the header cells (an empty one reads Column<n>, a repeated one gets a number), so writing a
// header cell renames its column as in Excel. The .xlsx file port loads its tables into this model and
// writes them back (src/host/xlsx). It models the port's contract (port.ts "Excel tables"), not Excel.
import { areaA1 } from "../a1.ts";
import type { Area, Obstacle, SheetValue, TableColumnEdit, TableRead } from "../port.ts";
import { PortInputError } from "../validate.ts";
import { isExcelName } from "../names.ts";

export interface MemTable {
  name: string;
  /** The whole table (header row first), on its sheet. */
  row: number;
  col: number;
  rows: number;
  cols: number;
  style: string;
  /** Per column: a calculated column's formula ("=[@Amount]*1.2"), null when none (kept, not computed). */
  formulas: Array<string | null>;
  totals: boolean;
  sort: Array<{ column: number; ascending: boolean }>;
  filtered: boolean;
  /** Other parts of the table as a file had them (the file port's business): kept as they are. */
  extra?: unknown;
}

/** What the table code needs of a sheet: its cells, read and moved. */
export interface TableSheet {
  id: string;
  tables: MemTable[];
  value(row: number, col: number): SheetValue;
  setValue(row: number, col: number, v: SheetValue): void;
  /** Move the cells of rows [row, row + rows) from column `from` on by `delta` columns (cells moved over are lost). */
  shiftRight(row: number, rows: number, from: number, delta: number): void;
}

export function areaOf(sheetId: string, t: MemTable): Area {
  return { sheetId, row: t.row, col: t.col, rows: t.rows, cols: t.cols };
}

/** Column names from the header cells: empty → Column<n>, repeated → a number added (Amount2). */
export function columnNames(raw: readonly SheetValue[]): string[] {
  const out: string[] = [];
  raw.forEach((v, i) => {
    const base = v === "" ? `Column${i + 1}` : String(v);
    let name = base;
    for (let n = 2; out.some((x) => x.toLowerCase() === name.toLowerCase()); n++) name = `${base}${n}`;
    out.push(name);
  });
  return out;
}

export function readTable(sheet: TableSheet, t: MemTable): TableRead {
  const header = Array.from({ length: t.cols }, (_, c) => sheet.value(t.row, t.col + c));
  return {
    name: t.name,
    area: areaOf(sheet.id, t),
    columns: columnNames(header),
    style: t.style,
    totals: t.totals,
    sort: t.sort.map((s) => ({ ...s })),
    filtered: t.filtered,
  };
}

function intersects(a: Omit<Area, "sheetId">, b: Omit<Area, "sheetId">): boolean {
  return a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;
}

/** Tables overlapping an area, and tables it would join by Excel's auto-expansion (port.ts Obstacle). */
export function tableObstacles(sheet: TableSheet, area: Area): Obstacle[] {
  const out: Obstacle[] = [];
  for (const t of sheet.tables) {
    const address = areaA1(t);
    if (intersects(t, area)) out.push({ kind: "table", address, name: t.name });
    else {
      const below = t.row + t.rows === area.row && t.col < area.col + area.cols && area.col < t.col + t.cols;
      const right = t.col + t.cols === area.col && t.row < area.row + area.rows && area.row < t.row + t.rows;
      if (below || right) out.push({ kind: "joinsTable", address, name: t.name });
    }
  }
  return out;
}

/** Apply a tableColumns command: insert, delete or rename columns; the table's rows right of them move. */
export function editColumns(sheet: TableSheet, t: MemTable, edits: readonly TableColumnEdit[]): void {
  for (const e of edits) {
    const last = e.op === "insert" ? t.cols : t.cols - 1;
    if (e.index > last) throw new PortInputError(`table ${t.name} has no column at index ${e.index}`);
    const at = t.col + e.index;
    if (e.op === "insert") {
      sheet.shiftRight(t.row, t.rows, at, 1);
      for (let r = 0; r < t.rows; r++) sheet.setValue(t.row + r, at, "");
      sheet.setValue(t.row, at, e.name);
      t.formulas.splice(e.index, 0, null);
      t.cols += 1;
      t.sort = t.sort.map((s) => (s.column >= e.index ? { ...s, column: s.column + 1 } : s));
    } else if (e.op === "delete") {
      if (t.cols === 1) throw new PortInputError(`table ${t.name} cannot lose its last column`);
      sheet.shiftRight(t.row, t.rows, at + 1, -1);
      t.formulas.splice(e.index, 1);
      t.cols -= 1;
      t.sort = t.sort.filter((s) => s.column !== e.index).map((s) => (s.column > e.index ? { ...s, column: s.column - 1 } : s));
    } else sheet.setValue(t.row, at, e.name);
  }
}

/**
 * Apply a table command: make a table over `area` (create, when none has that name) or resize it — the header
 * row stays in its row and the new area overlaps the old one, as Excel's Table.resize requires.
 */
export function setTable(
  sheet: TableSheet,
  all: readonly MemTable[],
  name: string,
  area: Area,
  create: { style: string } | undefined,
): MemTable {
  const t = all.find((x) => x.name.toLowerCase() === name.toLowerCase());
  const others = all.filter((x) => x !== t);
  const clash = sheet.tables.find((x) => x !== t && intersects(x, area));
  if (clash) throw new PortInputError(`table ${name} would overlap table ${clash.name}`);
  if (!t) {
    if (!create) throw new PortInputError(`there is no table ${name}`);
    if (!isExcelName(name) || others.some((x) => x.name.toLowerCase() === name.toLowerCase()))
      throw new PortInputError(`${JSON.stringify(name)} is not a table name Excel allows`);
    const made: MemTable = {
      name,
      row: area.row,
      col: area.col,
      rows: area.rows,
      cols: area.cols,
      style: create.style,
      formulas: Array.from({ length: area.cols }, () => null),
      totals: false,
      sort: [],
      filtered: false,
    };
    sheet.tables.push(made);
    return made;
  }
  if (!sheet.tables.includes(t)) throw new PortInputError(`table ${name} is on another sheet`);
  if (area.row !== t.row || !intersects(t, area))
    throw new PortInputError(`table ${name} keeps its header row in row ${t.row + 1}; the new range must overlap the old one`);
  const cols = area.cols;
  t.formulas = Array.from({ length: cols }, (_, c) => t.formulas[c - (area.col - t.col)] ?? null);
  Object.assign(t, { col: area.col, rows: area.rows, cols });
  t.sort = t.sort.filter((s) => s.column < cols);
  return t;
}

/** Sort the table's data rows by its sort fields (numbers before text, blanks last), as Excel's sort.reapply(). */
export function reapplySort(sheet: TableSheet, t: MemTable): void {
  if (!t.sort.length) return;
  const first = t.row + 1;
  const body = t.rows - 1 - (t.totals ? 1 : 0);
  const rows = Array.from({ length: body }, (_, r) => Array.from({ length: t.cols }, (_, c) => sheet.value(first + r, t.col + c)));
  rows.sort((a, b) => {
    for (const s of t.sort) {
      const d = compareCells(a[s.column] ?? "", b[s.column] ?? "", s.ascending);
      if (d !== 0) return d;
    }
    return 0;
  });
  rows.forEach((row, r) => row.forEach((v, c) => sheet.setValue(first + r, t.col + c, v)));
}

function compareCells(a: SheetValue, b: SheetValue, ascending: boolean): number {
  if (a === "" || b === "") return a === b ? 0 : a === "" ? 1 : -1; // blanks last in both directions
  const rank = (v: SheetValue) => (typeof v === "number" ? 0 : typeof v === "string" ? 1 : 2);
  const d = rank(a) - rank(b) || (typeof a === "string" ? a.localeCompare(String(b)) : Number(a) - Number(b));
  return ascending ? d : -d;
}
