// dev/excel's workbook: the state behind the API proxies (sheets of cells, named items, custom XML
// parts, settings, selection), its events, and the "user side" the harness and tests drive
// (typing into cells, inserting rows, renaming sheets, saving a copy, inspecting cells, snapshots).
// No Node-only APIs: this runs in the browser harness too.

import { z } from "zod";
import { areaA1, cellA1, columnLetters, MAX_COLS, MAX_ROWS, parseAddress, quoteSheetName } from "../../src/host/a1.ts";
import { shiftArea } from "../../src/host/geometry.ts";
import { convertInput, type CellContent } from "./convert.ts";
import { OfficeError } from "./errors.ts";
import {
  checkTableName,
  createTable,
  normaliseTable,
  shiftTables,
  tableHidesRow,
  tablesAfterWrite,
  type ModelTable,
} from "./tables-model.ts";
import type { ModelChart } from "./charts.ts";

export interface Cell extends CellContent {
  /** Number format; absent = "General". */
  nf?: string;
  /** Bold font (Range.format.font.bold); absent = not bold. */
  b?: boolean;
  /** Fill colour "#RRGGBB" (Range.format.fill.color); absent = no fill. */
  fill?: string;
}

/** The formatting part of a cell (what clearing its contents keeps). */
export function formatOnly(c: Cell | undefined): Cell | undefined {
  if (!c || (c.nf === undefined && !c.b && c.fill === undefined)) return undefined;
  const out: Cell = { t: "s", v: "" };
  if (c.nf !== undefined) out.nf = c.nf;
  if (c.b) out.b = true;
  if (c.fill !== undefined) out.fill = c.fill;
  return out;
}

/** A cell with no value and no formatting is no cell at all. */
export function orNothing(c: Cell): Cell | undefined {
  return c.t === "s" && c.v === "" && c.f === undefined && c.nf === undefined && !c.b && c.fill === undefined ? undefined : c;
}
export interface Rect {
  row: number;
  col: number;
  rows: number;
  cols: number;
}
export interface ModelSheet {
  id: string;
  name: string;
  visibility: "Visible" | "Hidden" | "VeryHidden";
  rows: Array<Array<Cell | undefined> | undefined>;
  /** Rows frozen at the top (worksheet.freezePanes.freezeRows); absent = none. */
  frozenRows?: number;
  /** Column widths in points set by Range.format.autofitColumns (absent = Excel's default, 48 pt). */
  colWidths?: Record<number, number>;
  /** Merged areas (Range.merge; the user's Merge & Center). */
  merges?: Rect[];
  /** Tables (ListObjects): name, range (header row included), columns, style, sort and filter (tables-model.ts). */
  tables?: ModelTable[];
  /** Charts (Worksheet.charts, dev/excel/charts.ts): the cells each series reads. */
  charts?: ModelChart[];
  /** Worksheet.protection.protected: every cell is locked (Excel's default), so writes are refused. */
  protected?: boolean;
  /** Dynamic-array formulas whose results spill (issue 22, item 8): the anchor holds the formula, `rect` the results. */
  spills?: Spill[];
  /** Rows and columns hidden by the user (Home › Format › Hide; Range.rowHidden / columnHidden). */
  hiddenRows?: number[];
  hiddenCols?: number[];
  /** The sheet's AutoFilter (Data › Filter; Worksheet.autoFilter, ExcelApi 1.9): its range, header row first. */
  autoFilter?: SheetFilter;
}

/** A spilled array formula: `rect` starts at the anchor cell, which holds `formula`. */
export interface Spill {
  rect: Rect;
  formula: string;
}

/** An AutoFilter: `criteria` keep the data rows whose value in that column (relative) is one of `values`. */
export interface SheetFilter {
  rect: Rect;
  criteria: Array<{ col: number; values: string[] }>;
  /** Rows (absolute) the criteria hide now. */
  hidden: number[];
}

/** Whether two rectangles share a cell. */
export function overlaps(a: Rect, b: Rect): boolean {
  return a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;
}
/** Whether `inner` lies wholly inside `outer`. */
export function contains(outer: Rect, inner: Rect): boolean {
  return (
    inner.row >= outer.row &&
    inner.col >= outer.col &&
    inner.row + inner.rows <= outer.row + outer.rows &&
    inner.col + inner.cols <= outer.col + outer.cols
  );
}
export interface ModelName {
  name: string;
  visible: boolean;
  comment: string;
  /** null once the range was deleted (#REF!). */
  ref: ({ sheetId: string } & Rect) | null;
}
export interface ModelXmlPart {
  id: string;
  namespaceUri: string;
  xml: string;
}

export type TriggerSource = "ThisLocalAddin" | "Unknown";
export type DataChangeType =
  "RangeEdited" | "RowInserted" | "RowDeleted" | "ColumnInserted" | "ColumnDeleted" | "CellInserted" | "CellDeleted" | "Unknown";

export type WorkbookEvent =
  | {
      kind: "changed";
      worksheetId: string;
      address: string;
      changeType: DataChangeType;
      triggerSource: TriggerSource;
      details?: { valueBefore: unknown; valueAfter: unknown };
    }
  | { kind: "added"; worksheetId: string }
  | { kind: "deleted"; worksheetId: string }
  | { kind: "nameChanged"; worksheetId: string; nameBefore: string; nameAfter: string }
  | { kind: "selectionChanged"; worksheetId: string; address: string };

export interface SyncStats {
  syncs: number;
  /** Syncs that carried no command at all (a round trip for nothing). */
  emptySyncs: number;
  /** Round-trip time the latency profile charged (proxy.ts; 0 under "none"). */
  modelledMs: number;
  totalResponseBytes: number;
  maxRequestBytes: number;
  maxResponseBytes: number;
  totalRequestBytes: number;
  calcSuspensions: number;
  screenSuspensions: number;
  /** Excel.run calls made with mergeUndoGroup: true. */
  undoGroups: number;
  /** Undo records the add-in's syncs made (one per changing sync; one per Excel.run with mergeUndoGroup). */
  undoRecords: number;
  /** Times the add-in cleared the user's undo stack (NamedItem.comment on Excel on the web). */
  undoStackCleared: number;
  failedSyncs: number;
}

const SNAPSHOT_VERSION = 1;

export class DevWorkbook {
  sheets: ModelSheet[] = [];
  names: ModelName[] = [];
  xmlParts: ModelXmlPart[] = [];
  settings = new Map<string, unknown>();
  activeSheetId = "";
  selection: Rect = { row: 0, col: 0, rows: 1, cols: 1 };
  /**
   * File › Options › Advanced › "Use 1904 date system": serial 0 is 1 Jan 1904 instead of 0 Jan 1900, so
   * the same number shows a date 1,462 days later (Range.text) and DATE() returns 1,462 less.
   */
  date1904 = false;
  /** More than one selected area (Ctrl+click): getSelectedRange() fails; null for a single range. */
  selectionAreas: Rect[] | null = null;
  stats: SyncStats = emptyStats();
  /** The user is typing in a cell (cell-edit mode): Excel refuses API batches meanwhile (cellEdit below). */
  private editing: { ended: Promise<void>; end: () => void } | null = null;
  private nextSheet = 1;
  private nextPart = 1;
  private readonly listeners = new Set<(e: WorkbookEvent) => void>();

  constructor(
    public url: string | null = null,
    public name = "Book1",
  ) {
    this.addSheetRaw("Sheet1");
  }

  // ---- lookups -----------------------------------------------------------------------------
  sheetById(id: string): ModelSheet | undefined {
    return this.sheets.find((s) => s.id === id);
  }
  sheetByKey(key: string): ModelSheet | undefined {
    return this.sheetById(key) ?? this.sheets.find((s) => s.name.toLowerCase() === key.toLowerCase());
  }
  requireSheet(key: string): ModelSheet {
    const s = this.sheetByKey(key);
    if (!s) throw new OfficeError("ItemNotFound", `The requested resource doesn't exist. (worksheet ${key})`);
    return s;
  }
  nameItem(name: string): ModelName | undefined {
    return this.names.find((n) => n.name.toLowerCase() === name.toLowerCase());
  }
  cell(sheet: ModelSheet, row: number, col: number): Cell | undefined {
    return sheet.rows[row]?.[col];
  }
  setCell(sheet: ModelSheet, row: number, col: number, cell: Cell | undefined): void {
    let r = sheet.rows[row];
    if (!r) {
      if (cell === undefined) return;
      r = sheet.rows[row] = [];
    }
    r[col] = cell;
  }
  /** "Sheet1!A1:B2" as Range.address returns it. */
  address(sheet: ModelSheet, rect: Rect): string {
    return `${quoteSheetName(sheet.name)}!${rectA1(rect)}`;
  }

  // ---- events ------------------------------------------------------------------------------
  subscribe(listener: (e: WorkbookEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  /** Events are delivered asynchronously, as Excel delivers them after the change. */
  emit(e: WorkbookEvent): void {
    const ls = [...this.listeners];
    setTimeout(() => {
      for (const l of ls) l(e);
    }, 0);
  }

  // ---- mutations shared by the API and the user side -------------------------------------
  addSheetRaw(name: string): ModelSheet {
    validateSheetName(name);
    if (this.sheetByKey(name) && this.sheets.some((s) => s.name.toLowerCase() === name.toLowerCase())) {
      throw new OfficeError("ItemAlreadyExists", `A resource with the same name or identifier already exists. (worksheet ${name})`);
    }
    const n = this.nextSheet++;
    const id = `{00000000-${n.toString(16).toUpperCase().padStart(4, "0")}-0000-0000-000000000000}`;
    const sheet: ModelSheet = { id, name, visibility: "Visible", rows: [] };
    this.sheets.push(sheet);
    if (!this.activeSheetId) this.activeSheetId = id;
    return sheet;
  }
  renameSheetRaw(sheet: ModelSheet, name: string): string {
    validateSheetName(name);
    if (this.sheets.some((s) => s !== sheet && s.name.toLowerCase() === name.toLowerCase())) {
      throw new OfficeError("ItemAlreadyExists", `A resource with the same name or identifier already exists. (worksheet ${name})`);
    }
    const before = sheet.name;
    sheet.name = name;
    return before;
  }
  deleteSheetRaw(sheet: ModelSheet): void {
    if (this.sheets.filter((s) => s.visibility === "Visible").length === 1 && sheet.visibility === "Visible") {
      throw new OfficeError("InvalidOperation", "The operation isn't allowed: a workbook must contain at least one visible worksheet.");
    }
    this.sheets.splice(this.sheets.indexOf(sheet), 1);
    for (const n of this.names) if (n.ref?.sheetId === sheet.id) n.ref = null;
    if (this.activeSheetId === sheet.id) {
      this.activeSheetId = this.sheets[0]!.id;
      this.selection = { row: 0, col: 0, rows: 1, cols: 1 };
    }
  }
  /** Inserts (count > 0) or deletes (count < 0) whole rows or columns, moving cells and named items. */
  shiftRaw(sheet: ModelSheet, axis: "row" | "col", at: number, count: number): void {
    if (axis === "row") {
      if (count > 0) {
        if (at < sheet.rows.length) sheet.rows.splice(at, 0, ...new Array<undefined>(count));
        if (sheet.rows.length > MAX_ROWS) sheet.rows.length = MAX_ROWS;
      } else sheet.rows.splice(at, -count);
    } else {
      for (const r of sheet.rows) {
        if (!r || r.length <= at) continue;
        if (count > 0) {
          r.splice(at, 0, ...new Array<undefined>(count));
          if (r.length > MAX_COLS) r.length = MAX_COLS;
        } else r.splice(at, -count);
      }
    }
    for (const n of this.names) {
      if (n.ref?.sheetId !== sheet.id) continue;
      n.ref = shiftArea(n.ref, axis, at, count);
    }
    shiftTables(this, sheet, axis, at, count);
  }
  /** Writes one input value as Range.values does; returns whether the cell changed. */
  writeValue(sheet: ModelSheet, row: number, col: number, input: unknown, where: string): void {
    const old = this.cell(sheet, row, col);
    const nf = old?.nf ?? "General";
    const c = convertInput(input, nf, where);
    if (c === "unchanged") return;
    if (c === "clear") {
      this.setCell(sheet, row, col, formatOnly(old));
      return;
    }
    const cell: Cell = { t: c.t, v: c.v };
    if (c.f !== undefined) cell.f = c.f;
    if (old?.b) cell.b = true;
    if (old?.fill !== undefined) cell.fill = old.fill;
    const newNf = nf === "General" && c.autoFormat ? c.autoFormat : old?.nf;
    if (newNf) cell.nf = newNf;
    this.setCell(sheet, row, col, cell);
  }

  // ---- the user side -------------------------------------------------------------------------
  /** The user starts typing in a cell: until leaveCellEdit(), batches fail or wait (proxy.ts sync). */
  enterCellEdit(): void {
    if (this.editing) return;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.editing = { ended, end };
  }
  /** The user presses Enter or Esc: batches delayed with delayForCellEdit run now. */
  leaveCellEdit(): void {
    const e = this.editing;
    this.editing = null;
    e?.end();
  }
  /** null when not in cell-edit mode, else a promise that settles when the user leaves it. */
  cellEdit(): Promise<void> | null {
    return this.editing?.ended ?? null;
  }
  /** Type into a cell as the user: converted like a typed entry; fires onChanged with triggerSource "Unknown". */
  typeInto(sheetKey: string, address: string, text: string): void {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    const before = this.readCell(sheet, a.row, a.col);
    this.writeValue(sheet, a.row, a.col, text, address);
    tablesAfterWrite(this, sheet, {
      rect: { row: a.row, col: a.col, rows: 1, cols: 1 },
      nonEmpty: () => text !== "",
      formulaAt: () => (text.startsWith("=") ? text : null),
    });
    this.emit({
      kind: "changed",
      worksheetId: sheet.id,
      address: cellA1(a.row, a.col),
      changeType: "RangeEdited",
      triggerSource: "Unknown",
      details: { valueBefore: before, valueAfter: this.readCell(sheet, a.row, a.col) },
    });
  }
  insertRows(sheetKey: string, at: number, count: number, trigger: TriggerSource = "Unknown"): void {
    const sheet = this.requireSheet(sheetKey);
    this.shiftRaw(sheet, "row", at, count);
    this.emit({
      kind: "changed",
      worksheetId: sheet.id,
      address: `${at + 1}:${at + count}`,
      changeType: "RowInserted",
      triggerSource: trigger,
    });
  }
  deleteRows(sheetKey: string, at: number, count: number, trigger: TriggerSource = "Unknown"): void {
    const sheet = this.requireSheet(sheetKey);
    this.shiftRaw(sheet, "row", at, -count);
    this.emit({
      kind: "changed",
      worksheetId: sheet.id,
      address: `${at + 1}:${at + count}`,
      changeType: "RowDeleted",
      triggerSource: trigger,
    });
  }
  insertColumns(sheetKey: string, at: number, count: number, trigger: TriggerSource = "Unknown"): void {
    const sheet = this.requireSheet(sheetKey);
    this.shiftRaw(sheet, "col", at, count);
    this.emit({
      kind: "changed",
      worksheetId: sheet.id,
      address: colSpan(at, count),
      changeType: "ColumnInserted",
      triggerSource: trigger,
    });
  }
  deleteColumns(sheetKey: string, at: number, count: number, trigger: TriggerSource = "Unknown"): void {
    const sheet = this.requireSheet(sheetKey);
    this.shiftRaw(sheet, "col", at, -count);
    this.emit({ kind: "changed", worksheetId: sheet.id, address: colSpan(at, count), changeType: "ColumnDeleted", triggerSource: trigger });
  }
  addSheet(name: string): { id: string; name: string } {
    const s = this.addSheetRaw(name);
    this.emit({ kind: "added", worksheetId: s.id });
    return { id: s.id, name: s.name };
  }
  renameSheet(sheetKey: string, name: string): void {
    const s = this.requireSheet(sheetKey);
    const before = this.renameSheetRaw(s, name);
    this.emit({ kind: "nameChanged", worksheetId: s.id, nameBefore: before, nameAfter: name });
  }
  deleteSheet(sheetKey: string): void {
    const s = this.requireSheet(sheetKey);
    this.deleteSheetRaw(s);
    this.emit({ kind: "deleted", worksheetId: s.id });
  }
  /** The user selects several areas at once (Ctrl+click); the first is where the active cell is. */
  selectAreas(sheetKey: string, addresses: string[]): void {
    this.select(sheetKey, addresses[0]!);
    this.selectionAreas = addresses.map((x) => {
      const a = parseAddress(x);
      return { row: a.row, col: a.col, rows: a.rows, cols: a.cols };
    });
    if (this.selectionAreas.length < 2) this.selectionAreas = null;
  }
  /** Merge & Center: the area becomes one merged cell keeping the top-left value (the others are cleared). */
  mergeCells(sheetKey: string, address: string): void {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    this.mergeRaw(sheet, { row: a.row, col: a.col, rows: a.rows, cols: a.cols });
  }
  mergeRaw(sheet: ModelSheet, rect: Rect): void {
    if ((sheet.merges ?? []).some((m) => overlaps(m, rect)))
      throw new OfficeError("InvalidOperation", "The operation isn't allowed: the range overlaps a merged area.");
    for (let r = 0; r < rect.rows; r++)
      for (let c = 0; c < rect.cols; c++) if (r || c) this.setCell(sheet, rect.row + r, rect.col + c, undefined);
    (sheet.merges ??= []).push({ ...rect });
  }
  /**
   * The user enters a dynamic-array formula whose results are `grid` (dev/excel computes no formulas):
   * when the cells it needs are empty, the results spill there from the anchor; otherwise the anchor
   * shows #SPILL! ("Spill range isn't blank"), as Excel does.
   */
  enterArrayFormula(sheetKey: string, anchor: string, formula: string, grid: Array<Array<string | number | boolean>>): void {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(anchor);
    const rect = { row: a.row, col: a.col, rows: grid.length, cols: grid[0]?.length ?? 1 };
    // A spill into (or from inside) a table is a #SPILL! ("Spilled array formulas aren't supported in Excel tables").
    const blocked =
      (sheet.tables ?? []).some((t) => overlaps(t.rect, rect)) ||
      grid.some((row, r) => row.some((_, c) => (r || c) && this.readCell(sheet, rect.row + r, rect.col + c) !== ""));
    if (blocked) {
      this.setCell(sheet, a.row, a.col, { t: "e", v: "#SPILL!", f: formula });
      return;
    }
    grid.forEach((row, r) =>
      row.forEach((v, c) => {
        const cell: Cell = { t: typeof v === "number" ? "n" : typeof v === "boolean" ? "b" : "s", v };
        if (!r && !c) cell.f = formula;
        this.setCell(sheet, rect.row + r, rect.col + c, cell);
      }),
    );
    (sheet.spills ??= []).push({ rect, formula });
  }
  /** The spill whose results hold a cell (the anchor included), if any. */
  spillAt(sheet: ModelSheet, row: number, col: number): Spill | undefined {
    return (sheet.spills ?? []).find((s) => contains(s.rect, { row, col, rows: 1, cols: 1 }));
  }
  /**
   * Something writes into `rect` (Range.values/formulas; `values` says which cells get a non-empty value):
   * a spill whose anchor is written is replaced, its results vanish; a spill that gets a value into
   * its results is blocked — the anchor shows #SPILL! and its other results vanish (the write lands).
   */
  spillsWritten(sheet: ModelSheet, rect: Rect, nonEmpty: (row: number, col: number) => boolean): void {
    for (const s of [...(sheet.spills ?? [])]) {
      if (!overlaps(s.rect, rect)) continue;
      const anchorHit = contains(rect, { row: s.rect.row, col: s.rect.col, rows: 1, cols: 1 });
      let hit = anchorHit;
      for (let r = 0; r < s.rect.rows && !hit; r++)
        for (let c = 0; c < s.rect.cols && !hit; c++) {
          const row = s.rect.row + r,
            col = s.rect.col + c;
          if (contains(rect, { row, col, rows: 1, cols: 1 }) && nonEmpty(row, col)) hit = true;
        }
      if (!hit) continue;
      sheet.spills = sheet.spills!.filter((x) => x !== s);
      for (let r = 0; r < s.rect.rows; r++)
        for (let c = 0; c < s.rect.cols; c++) {
          if (!r && !c) continue;
          this.setCell(sheet, s.rect.row + r, s.rect.col + c, formatOnly(this.cell(sheet, s.rect.row + r, s.rect.col + c)));
        }
      if (!anchorHit) {
        const old = this.cell(sheet, s.rect.row, s.rect.col);
        this.setCell(sheet, s.rect.row, s.rect.col, { ...(old?.nf ? { nf: old.nf } : {}), t: "e", v: "#SPILL!", f: s.formula });
      }
    }
  }
  /** Home › Format › Hide & Unhide: rows (or columns) hidden or shown again. */
  hideRows(sheetKey: string, at: number, count: number, hidden = true): void {
    setHidden((this.requireSheet(sheetKey).hiddenRows ??= []), at, count, hidden);
  }
  hideColumns(sheetKey: string, at: number, count: number, hidden = true): void {
    setHidden((this.requireSheet(sheetKey).hiddenCols ??= []), at, count, hidden);
  }
  /** Row hidden by the user or by the sheet's filter. */
  rowHidden(sheet: ModelSheet, row: number): boolean {
    return (sheet.hiddenRows ?? []).includes(row) || (sheet.autoFilter?.hidden ?? []).includes(row) || tableHidesRow(sheet, row);
  }
  /**
   * Data › Filter on `address` (its first row is the header), then, with `values`, a filter on one of
   * its columns (relative index): data rows whose shown value is not among `values` are hidden.
   */
  filter(sheetKey: string, address: string, column?: number, values?: string[]): void {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    this.applyFilter(sheet, { row: a.row, col: a.col, rows: a.rows, cols: a.cols }, column, values);
  }
  applyFilter(sheet: ModelSheet, rect: Rect, column?: number, values?: string[]): void {
    const f: SheetFilter =
      sheet.autoFilter && sameRect(sheet.autoFilter.rect, rect) ? sheet.autoFilter : { rect, criteria: [], hidden: [] };
    if (column !== undefined && values) f.criteria = [...f.criteria.filter((c) => c.col !== column), { col: column, values }];
    sheet.autoFilter = f;
    this.refilter(sheet);
  }
  /** Data › Clear: the filter stays on (its buttons), its criteria go and every row shows. */
  clearFilter(sheetKey: string): void {
    const f = this.requireSheet(sheetKey).autoFilter;
    if (!f) return;
    f.criteria = [];
    f.hidden = [];
  }
  /** Apply the filter's criteria again (Excel does it on apply/reapply, not when values change). */
  refilter(sheet: ModelSheet): void {
    const f = sheet.autoFilter;
    if (!f) return;
    f.hidden = [];
    for (let r = f.rect.row + 1; r < f.rect.row + f.rect.rows; r++) {
      if (f.criteria.some((c) => !c.values.includes(String(this.readCell(sheet, r, f.rect.col + c.col))))) f.hidden.push(r);
    }
  }
  /** Format as Table (with headers): a ListObject named `name` over the area (its first row is the header row). */
  addTable(sheetKey: string, address: string, name: string): void {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    const t = createTable(this, sheet, { row: a.row, col: a.col, rows: a.rows, cols: a.cols }, true);
    t.name = checkTableName(this, name, t);
  }
  /** Review › Protect Sheet (on) or Unprotect Sheet (off). */
  protectSheet(sheetKey: string, on = true): void {
    const sheet = this.requireSheet(sheetKey);
    if (on) sheet.protected = true;
    else delete sheet.protected;
  }
  select(sheetKey: string, address: string): void {
    const s = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    this.activeSheetId = s.id;
    this.selectionAreas = null;
    this.selection = { row: a.row, col: a.col, rows: a.rows, cols: a.cols };
    this.emit({ kind: "selectionChanged", worksheetId: s.id, address: rectA1(this.selection) });
  }
  /**
   * The user renames or moves the file: Office.context.document.url changes (it is the file's address),
   * the stored id and everything else stay. A guest on the web sees no URL at all (url = null).
   */
  renameFile(url: string | null): void {
    this.url = url;
    if (url) this.name = decodeURIComponent(url.split("/").pop() || this.name);
  }
  /** "Save as copy": another file with the same cells, names, custom XML parts and settings, at another URL. */
  saveAsCopy(url: string): DevWorkbook {
    const copy = DevWorkbook.restore(this.snapshot());
    copy.url = url;
    copy.name = url.split("/").pop() || copy.name;
    return copy;
  }
  /** The user picks a number format for a range (Home › Number Format); Excel raises no onChanged for it. */
  setNumberFormat(sheetKey: string, address: string, format: string): void {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    for (let r = 0; r < a.rows; r++) {
      for (let c = 0; c < a.cols; c++) {
        const next: Cell = { ...(this.cell(sheet, a.row + r, a.col + c) ?? { t: "s", v: "" }) };
        if (format === "" || format === "General") delete next.nf;
        else next.nf = format;
        this.setCell(sheet, a.row + r, a.col + c, orNothing(next));
      }
    }
  }
  /** What a cell shows: values, formulas, number formats and value types of a rectangle. */
  inspect(
    sheetKey: string,
    address: string,
  ): { values: unknown[][]; formulas: unknown[][]; numberFormats: string[][]; valueTypes: string[][] } {
    const sheet = this.requireSheet(sheetKey);
    const a = parseAddress(address);
    const grid = <T>(f: (c: Cell | undefined) => T): T[][] =>
      Array.from({ length: a.rows }, (_, r) => Array.from({ length: a.cols }, (_, c) => f(this.cell(sheet, a.row + r, a.col + c))));
    return {
      values: grid(cellValue),
      formulas: grid(cellFormula),
      numberFormats: grid((c) => c?.nf ?? "General"),
      valueTypes: grid(cellValueType),
    };
  }
  readCell(sheet: ModelSheet, row: number, col: number): string | number | boolean {
    return cellValue(this.cell(sheet, row, col));
  }
  resetStats(): void {
    this.stats = emptyStats();
  }

  // ---- snapshot / restore (the harness persists a workbook as JSON) ---------------------------
  snapshot(): WorkbookSnapshot {
    return {
      version: SNAPSHOT_VERSION,
      url: this.url,
      name: this.name,
      nextSheet: this.nextSheet,
      nextPart: this.nextPart,
      activeSheetId: this.activeSheetId,
      selection: { ...this.selection },
      ...(this.date1904 ? { date1904: true } : {}),
      sheets: this.sheets.map((s) => ({
        id: s.id,
        name: s.name,
        visibility: s.visibility,
        ...(s.frozenRows ? { frozenRows: s.frozenRows } : {}),
        ...(s.merges?.length ? { merges: s.merges.map((m) => ({ ...m })) } : {}),
        ...(s.tables?.length ? { tables: s.tables.map((t) => structuredClone(t)) } : {}),
        ...(s.charts?.length ? { charts: s.charts.map((c) => structuredClone(c)) } : {}),
        ...(s.protected ? { protected: true } : {}),
        ...(s.spills?.length ? { spills: s.spills.map((x) => ({ rect: { ...x.rect }, formula: x.formula })) } : {}),
        ...(s.hiddenRows?.length ? { hiddenRows: [...s.hiddenRows] } : {}),
        ...(s.hiddenCols?.length ? { hiddenCols: [...s.hiddenCols] } : {}),
        ...(s.autoFilter ? { autoFilter: structuredClone(s.autoFilter) } : {}),
        cells: s.rows.flatMap((r, ri) => (r ? r.flatMap((c, ci) => (c ? [[ri, ci, { ...c }] as [number, number, Cell]] : [])) : [])),
      })),
      names: this.names.map((n) => ({ ...n, ref: n.ref && { ...n.ref } })),
      xmlParts: this.xmlParts.map((p) => ({ ...p })),
      settings: [...this.settings].map(([k, v]) => [k, structuredClone(v)] as [string, unknown]),
    };
  }
  static restore(json: unknown): DevWorkbook {
    const snap = snapshotSchema.parse(json);
    const wb = new DevWorkbook(snap.url, snap.name);
    wb.sheets = snap.sheets.map((s) => {
      const sheet: ModelSheet = { id: s.id, name: s.name, visibility: s.visibility, rows: [] };
      if (s.frozenRows) sheet.frozenRows = s.frozenRows;
      if (s.merges?.length) sheet.merges = s.merges;
      if (s.protected) sheet.protected = true;
      if (s.spills?.length) sheet.spills = s.spills;
      if (s.hiddenRows?.length) sheet.hiddenRows = s.hiddenRows;
      if (s.hiddenCols?.length) sheet.hiddenCols = s.hiddenCols;
      if (s.autoFilter) sheet.autoFilter = s.autoFilter;
      for (const [r, c, cell] of s.cells) wb.setCell(sheet, r, c, stripUndefined(cell));
      if (s.tables?.length) sheet.tables = s.tables.map((t, i) => normaliseTable(stripOptional(t), i, wb, sheet));
      if (s.charts?.length) sheet.charts = s.charts;
      return sheet;
    });
    wb.names = snap.names.map((n) => ({ ...n, ref: n.ref ?? null }));
    wb.xmlParts = snap.xmlParts;
    wb.settings = new Map(snap.settings.map(([k, v]) => [k, v] as [string, unknown]));
    wb.activeSheetId = snap.activeSheetId;
    wb.date1904 = snap.date1904 === true;
    wb.selection = snap.selection;
    wb.nextSheet = snap.nextSheet;
    wb.nextPart = snap.nextPart;
    return wb;
  }
  newPartId(): string {
    return `{${(this.nextPart++).toString(16).toUpperCase().padStart(8, "0")}-CB00-4000-8000-000000000000}`;
  }
}

function setHidden(list: number[], at: number, count: number, hidden: boolean): void {
  for (let i = at; i < at + count; i++) {
    const k = list.indexOf(i);
    if (hidden && k < 0) list.push(i);
    if (!hidden && k >= 0) list.splice(k, 1);
  }
}
function sameRect(a: Rect, b: Rect): boolean {
  return a.row === b.row && a.col === b.col && a.rows === b.rows && a.cols === b.cols;
}

function stripUndefined(c: {
  t: Cell["t"];
  v: Cell["v"];
  f?: string | undefined;
  nf?: string | undefined;
  b?: boolean | undefined;
  fill?: string | undefined;
}): Cell {
  const cell: Cell = { t: c.t, v: c.v };
  if (c.f !== undefined) cell.f = c.f;
  if (c.nf !== undefined) cell.nf = c.nf;
  if (c.b) cell.b = true;
  if (c.fill !== undefined) cell.fill = c.fill;
  return cell;
}

export function cellValue(c: Cell | undefined): string | number | boolean {
  return c === undefined ? "" : c.v;
}
export function cellFormula(c: Cell | undefined): string | number | boolean {
  return c === undefined ? "" : (c.f ?? c.v);
}
export function cellValueType(c: Cell | undefined): string {
  if (c === undefined || (c.t === "s" && c.v === "")) return "Empty";
  return c.t === "s" ? "String" : c.t === "n" ? "Double" : c.t === "b" ? "Boolean" : "Error";
}
export function rectA1(r: Rect): string {
  if (r.cols === MAX_COLS && r.col === 0 && r.rows < MAX_ROWS) return `$${r.row + 1}:$${r.row + r.rows}`;
  if (r.rows === MAX_ROWS && r.row === 0) return `$${columnLetters(r.col)}:$${columnLetters(r.col + r.cols - 1)}`;
  return areaA1(r);
}
function colSpan(at: number, count: number): string {
  return `${columnLetters(at)}:${columnLetters(at + count - 1)}`;
}
function validateSheetName(name: string): void {
  if (
    typeof name !== "string" ||
    name.length === 0 ||
    name.length > 31 ||
    /[\\/?*[\]:]/.test(name) ||
    name.startsWith("'") ||
    name.endsWith("'")
  ) {
    throw new OfficeError(
      "InvalidArgument",
      `The argument is invalid or missing or has an incorrect format. (sheet name ${JSON.stringify(name)})`,
    );
  }
}
function emptyStats(): SyncStats {
  return {
    syncs: 0,
    emptySyncs: 0,
    modelledMs: 0,
    totalResponseBytes: 0,
    maxRequestBytes: 0,
    maxResponseBytes: 0,
    totalRequestBytes: 0,
    calcSuspensions: 0,
    screenSuspensions: 0,
    undoGroups: 0,
    undoRecords: 0,
    undoStackCleared: 0,
    failedSyncs: 0,
  };
}

const rectSchema = z.object({
  row: z.number().int().min(0),
  col: z.number().int().min(0),
  rows: z.number().int().min(1),
  cols: z.number().int().min(1),
});
const cellSchema = z.object({
  t: z.enum(["s", "n", "b", "e"]),
  v: z.union([z.string(), z.number(), z.boolean()]),
  f: z.string().optional(),
  nf: z.string().optional(),
  b: z.boolean().optional(),
  fill: z
    .string()
    .regex(/^#[0-9A-F]{6}$/)
    .optional(),
});
const tableSchema = z.object({
  name: z.string(),
  rect: rectSchema,
  id: z.number().int().min(1).optional(),
  style: z.string().optional(),
  showHeaders: z.boolean().optional(),
  showFilterButton: z.boolean().optional(),
  columns: z.array(z.object({ id: z.number().int(), name: z.string(), formula: z.string().optional() })).optional(),
  sort: z
    .object({ fields: z.array(z.object({ key: z.number().int().min(0), ascending: z.boolean() })), matchCase: z.boolean() })
    .optional(),
  filter: z
    .object({
      criteria: z.array(z.object({ col: z.number().int().min(0), values: z.array(z.string()) })),
      hidden: z.array(z.number().int().min(0)),
    })
    .optional(),
});
/** Optional fields zod reads as `undefined` are left out (exactOptionalPropertyTypes). */
function stripOptional<T extends object>(o: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  const out = JSON.parse(JSON.stringify(o)) as { [K in keyof T]: Exclude<T[K], undefined> };
  for (const c of (out as { columns?: Array<{ formula?: string }> }).columns ?? []) if (c.formula === undefined) delete c.formula;
  return out;
}
const snapshotSchema = z.object({
  version: z.literal(SNAPSHOT_VERSION),
  url: z.string().nullable(),
  name: z.string(),
  nextSheet: z.number().int().min(1),
  nextPart: z.number().int().min(1),
  activeSheetId: z.string(),
  selection: rectSchema,
  date1904: z.boolean().optional(),
  sheets: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        visibility: z.enum(["Visible", "Hidden", "VeryHidden"]),
        frozenRows: z
          .number()
          .int()
          .min(1)
          .max(MAX_ROWS - 1)
          .optional(),
        merges: z.array(rectSchema).optional(),
        tables: z.array(tableSchema).optional(),
        charts: z
          .array(
            z.object({
              id: z.string(),
              name: z.string(),
              chartType: z.string(),
              series: z.array(z.object({ name: z.string(), values: rectSchema, categories: rectSchema.nullable() })),
            }),
          )
          .optional(),
        protected: z.boolean().optional(),
        spills: z.array(z.object({ rect: rectSchema, formula: z.string() })).optional(),
        hiddenRows: z.array(z.number().int().min(0)).optional(),
        hiddenCols: z.array(z.number().int().min(0)).optional(),
        autoFilter: z
          .object({
            rect: rectSchema,
            criteria: z.array(z.object({ col: z.number().int().min(0), values: z.array(z.string()) })),
            hidden: z.array(z.number().int().min(0)),
          })
          .optional(),
        cells: z.array(
          z.tuple([
            z
              .number()
              .int()
              .min(0)
              .max(MAX_ROWS - 1),
            z
              .number()
              .int()
              .min(0)
              .max(MAX_COLS - 1),
            cellSchema,
          ]),
        ),
      }),
    )
    .min(1),
  names: z.array(
    z.object({ name: z.string(), visible: z.boolean(), comment: z.string(), ref: rectSchema.extend({ sheetId: z.string() }).nullable() }),
  ),
  xmlParts: z.array(z.object({ id: z.string(), namespaceUri: z.string(), xml: z.string() })),
  settings: z.array(z.tuple([z.string(), z.unknown()])),
});
export type WorkbookSnapshot = z.infer<typeof snapshotSchema>;
