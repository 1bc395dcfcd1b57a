// The Excel object model dev/excel implements: Workbook, Application, WorksheetCollection,
// Worksheet, Range, NamedItemCollection/NamedItem, CustomXmlPartCollection/CustomXmlPart,
// SettingCollection/Setting, and event handlers (tables: tables.ts; shapes: shapes.ts). Only what
// Cellbound's adapter (and its contract driver) uses; everything else is absent, as an unsupported API would be.

import { cellA1, MAX_COLS, MAX_ROWS, parseAddress } from "../../src/host/a1.ts";
import { OfficeError } from "./errors.ts";
import { formatValue, isDateFormat } from "../../src/host/number-format.ts";
import { DEFAULT_COLUMN_WIDTH_PT, textWidthPoints } from "../../src/host/column-width.ts";
import {
  cellFormula,
  cellValue,
  cellValueType,
  contains,
  formatOnly,
  overlaps,
  orNothing,
  rectA1,
  type Cell,
  type ModelName,
  type ModelSheet,
  type ModelXmlPart,
  type Rect,
  type WorkbookEvent,
} from "./model.ts";
import { DevClientObject, DevClientResult, DevCollection, type DevRequestContext, type SyncState, versionAtLeast } from "./proxy.ts";
import { DevShapeCollection, rectGeometry } from "./shapes.ts";
import { DevChartCollection } from "./charts.ts";
import { DevTable, DevTableCollection, readTable } from "./tables.ts";
import { tablesAfterWrite, type ModelTable } from "./tables-model.ts";
import { nameExcelTakes } from "./names.ts";

const bad = (what: string) =>
  new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${what})`);

// ---- events -------------------------------------------------------------------------------------
export class DevEventHandlerResult {
  private off: (() => void) | null = null;
  constructor(
    readonly context: DevRequestContext,
    private readonly subscribe: () => () => void,
  ) {}
  _register(): void {
    this.off = this.subscribe();
  }
  remove(): void {
    this.context.enqueue({ removeHandler: 1 }, () => {
      this.off?.();
      this.off = null;
    });
  }
}

export class DevEventHandlers<A> {
  constructor(
    private readonly context: DevRequestContext,
    private readonly toArgs: (e: WorkbookEvent) => A | null,
  ) {}
  add(handler: (args: A) => unknown): DevEventHandlerResult {
    const wb = this.context.env.wb;
    const result = new DevEventHandlerResult(this.context, () =>
      wb.subscribe((e) => {
        const args = this.toArgs(e);
        if (args !== null)
          void Promise.resolve()
            .then(() => handler(args))
            .catch(() => undefined);
      }),
    );
    this.context.enqueue({ addHandler: 1 }, () => result._register());
    return result;
  }
}

function changedArgs(ctx: DevRequestContext, e: WorkbookEvent, sheetId: string | null): Record<string, unknown> | null {
  if (e.kind !== "changed" || (sheetId !== null && e.worksheetId !== sheetId)) return null;
  const v = ctx.env.apiVersion;
  const args: Record<string, unknown> = {
    type: "WorksheetChanged",
    worksheetId: e.worksheetId,
    address: e.address,
    changeType: e.changeType,
    source: "Local",
    getRange: (c: DevRequestContext) => new DevWorksheet(c, () => c.env.wb.sheetById(e.worksheetId) ?? null).getRange(e.address),
  };
  if (versionAtLeast(v, "1.14")) args.triggerSource = e.triggerSource;
  if (versionAtLeast(v, "1.9") && e.details) args.details = e.details;
  return args;
}

// ---- workbook, application -----------------------------------------------------------------------
export class DevWorkbookProxy extends DevClientObject<true> {
  protected readonly _scalarProps = ["name"] as const;
  readonly worksheets: DevWorksheetCollection;
  readonly names: DevNamedItemCollection;
  readonly customXmlParts: DevCustomXmlPartCollection;
  readonly settings: DevSettingCollection;
  readonly application: DevApplication;
  constructor(ctx: DevRequestContext) {
    super(ctx, () => true);
    this.worksheets = new DevWorksheetCollection(ctx);
    this.names = new DevNamedItemCollection(ctx);
    this.customXmlParts = new DevCustomXmlPartCollection(ctx);
    this.settings = new DevSettingCollection(ctx);
    this.application = new DevApplication(ctx);
  }
  protected _read(_t: true, prop: string): unknown {
    if (prop === "name") return this.context.env.wb.name;
    throw bad(`Workbook.${prop} is not modelled`);
  }
  get name(): string {
    return this._get("name");
  }
  /** ExcelApi 1.1: every sheet's tables (dev/excel/tables.ts). */
  get tables(): DevTableCollection {
    return new DevTableCollection(this.context, null);
  }
  /** ExcelApi 1.2: worksheet functions evaluated without a cell (only DATE is modelled). */
  get functions(): DevFunctions {
    return new DevFunctions(this.context);
  }
  /** "If there are multiple ranges selected, this method will throw an error" (Workbook.getSelectedRange). */
  getSelectedRange(): DevRange {
    const wb = this.context.env.wb;
    return new DevRange(this.context, () => {
      if (wb.selectionAreas)
        throw new OfficeError("InvalidSelection", "The current selection is invalid for this operation: more than one range is selected.");
      const s = wb.sheetById(wb.activeSheetId);
      return s ? { sheet: s, rect: { ...wb.selection } } : null;
    });
  }
  getActiveCell(): DevRange {
    const wb = this.context.env.wb;
    return new DevRange(this.context, () => {
      const s = wb.sheetById(wb.activeSheetId);
      return s ? { sheet: s, rect: { row: wb.selection.row, col: wb.selection.col, rows: 1, cols: 1 } } : null;
    });
  }
}

/** Days from 1 Jan 1904 (serial 0 of the 1904 date system) to 30 Dec 1899 (serial 0 of the 1900 system, from March 1900). */
export const DATE1904_OFFSET = 1462;

export class DevFunctions {
  constructor(readonly context: DevRequestContext) {}
  /** DATE(year, month, day): the serial number in the workbook's date system. */
  date(year: number, month: number, day: number): DevFunctionResult {
    return new DevFunctionResult(this.context, () => {
      const days = Math.round((Date.UTC(year, month - 1, day) - Date.UTC(1899, 11, 30)) / 86_400_000);
      const serial1900 = days < 61 ? days - 1 : days; // Excel's fictitious 29 Feb 1900
      const serial = this.context.env.wb.date1904 ? serial1900 - DATE1904_OFFSET : serial1900;
      return serial < 0 ? { value: null, error: "#NUM!" } : { value: serial, error: null };
    });
  }
}
export class DevFunctionResult extends DevClientObject<{ value: number | null; error: string | null }> {
  protected readonly _scalarProps = ["value", "error"] as const;
  protected _read(t: { value: number | null; error: string | null }, prop: string): unknown {
    if (prop === "value") return t.value;
    if (prop === "error") return t.error;
    throw bad(`FunctionResult.${prop} is not modelled`);
  }
  get value(): number | null {
    return this._get("value");
  }
  get error(): string | null {
    return this._get("error");
  }
}

export class DevApplication extends DevClientObject<true> {
  protected readonly _scalarProps = ["calculationMode"] as const;
  constructor(ctx: DevRequestContext) {
    super(ctx, () => true);
  }
  protected _read(): unknown {
    return "Automatic";
  }
  get calculationMode(): string {
    return this._get("calculationMode");
  }
  suspendApiCalculationUntilNextSync(): void {
    this.context.enqueue({ suspendApiCalculationUntilNextSync: 1 }, () => {
      this.context.env.wb.stats.calcSuspensions++;
    });
  }
  suspendScreenUpdatingUntilNextSync(): void {
    this.context.enqueue({ suspendScreenUpdatingUntilNextSync: 1 }, () => {
      this.context.env.wb.stats.screenSuspensions++;
    });
  }
}

// ---- worksheets ---------------------------------------------------------------------------------
export class DevWorksheetCollection extends DevCollection<ModelSheet, DevWorksheet> {
  protected readonly _itemScalarProps = ["id", "name", "position", "visibility"] as const;
  readonly onChanged: DevEventHandlers<Record<string, unknown>>;
  readonly onAdded: DevEventHandlers<Record<string, unknown>>;
  readonly onDeleted: DevEventHandlers<Record<string, unknown>>;
  private readonly nameChanged: DevEventHandlers<Record<string, unknown>>;
  constructor(ctx: DevRequestContext) {
    super(ctx);
    this.onChanged = new DevEventHandlers(ctx, (e) => changedArgs(ctx, e, null));
    this.onAdded = new DevEventHandlers(ctx, (e) =>
      e.kind === "added" ? { type: "WorksheetAdded", worksheetId: e.worksheetId, source: "Local" } : null,
    );
    this.onDeleted = new DevEventHandlers(ctx, (e) =>
      e.kind === "deleted" ? { type: "WorksheetDeleted", worksheetId: e.worksheetId, source: "Local" } : null,
    );
    this.nameChanged = new DevEventHandlers(ctx, (e) =>
      e.kind === "nameChanged"
        ? { type: "WorksheetNameChanged", worksheetId: e.worksheetId, nameBefore: e.nameBefore, nameAfter: e.nameAfter, source: "Local" }
        : null,
    );
  }
  /** ExcelApi 1.17. */
  get onNameChanged(): DevEventHandlers<Record<string, unknown>> {
    if (!versionAtLeast(this.context.env.apiVersion, "1.17"))
      throw new OfficeError("InvalidArgument", "onNameChanged requires ExcelApi 1.17");
    return this.nameChanged;
  }
  protected _list(): ModelSheet[] {
    return this.context.env.wb.sheets;
  }
  protected _proxy(s: ModelSheet): DevWorksheet {
    return new DevWorksheet(this.context, () => s);
  }
  protected _readItem(s: ModelSheet, prop: string): unknown {
    return readSheet(this.context, s, prop);
  }
  getItem(key: string): DevWorksheet {
    return new DevWorksheet(this.context, () => this.context.env.wb.sheetByKey(key) ?? null);
  }
  getItemOrNullObject(key: string): DevWorksheet {
    return new DevWorksheet(this.context, () => this.context.env.wb.sheetByKey(key) ?? null, true);
  }
  getActiveWorksheet(): DevWorksheet {
    const wb = this.context.env.wb;
    return new DevWorksheet(this.context, () => wb.sheetById(wb.activeSheetId) ?? null);
  }
  add(name?: string): DevWorksheet {
    let created: ModelSheet | null = null;
    this.context.enqueue({ addWorksheet: name ?? null }, (st) => {
      const wb = this.context.env.wb;
      let n = name;
      for (let i = wb.sheets.length + 1; n === undefined; i++) if (!wb.sheetByKey(`Sheet${i}`)) n = `Sheet${i}`;
      created = wb.addSheetRaw(n);
      st.events.push({ kind: "added", worksheetId: created.id });
    });
    return new DevWorksheet(this.context, () => created);
  }
}

function readSheet(ctx: DevRequestContext, s: ModelSheet, prop: string): unknown {
  switch (prop) {
    case "id":
      return s.id;
    case "name":
      return s.name;
    case "position":
      return ctx.env.wb.sheets.indexOf(s);
    case "visibility":
      return s.visibility;
    default:
      throw bad(`Worksheet.${prop} is not modelled`);
  }
}

// ---- formatting: Range.format.font / .fill, Worksheet.freezePanes ------------------------------
/** Every cell of a rectangle (empty ones as undefined). */
function cellsOf(t: RangeTarget, wb: DevRequestContext["env"]["wb"]): Array<Cell | undefined> {
  const out: Array<Cell | undefined> = [];
  const rows = Math.min(t.rect.rows, 100_000),
    cols = Math.min(t.rect.cols, 16_384);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out.push(wb.cell(t.sheet, t.rect.row + r, t.rect.col + c));
  return out;
}
/** The one value all cells share, or null when they differ (as Excel reports mixed formatting). */
function shared<V>(cells: Array<Cell | undefined>, get: (c: Cell | undefined) => V): V | null {
  const first = get(cells[0]);
  return cells.every((c) => get(c) === first) ? first : null;
}
/** `=SEQUENCE(rows[, cols])`'s results (1, 2, 3… row by row), or null for any other input. */
function sequenceOf(v: string): number[][] | null {
  const m = /^=SEQUENCE\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)$/i.exec(v.trim());
  if (!m) return null;
  const rows = Number(m[1]),
    cols = Number(m[2] ?? 1);
  if (rows < 1 || cols < 1 || rows * cols > 10_000) return null;
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => r * cols + c + 1));
}
/** A written value that leaves the cell empty ("" clears it; null leaves it as it is). */
function isEmptyInput(v: unknown): boolean {
  return v === "" || v === null || v === undefined;
}
/** A protected sheet refuses changes to its (locked) cells. */
export function guardProtected(sheet: ModelSheet): void {
  if (sheet.protected)
    throw new OfficeError(
      "AccessDenied",
      "The cell or chart you're trying to change is on a protected sheet. (worksheet " + sheet.name + ")",
    );
}
function restyle(t: RangeTarget, wb: DevRequestContext["env"]["wb"], change: (c: Cell) => void): void {
  guardProtected(t.sheet);
  for (let r = 0; r < t.rect.rows; r++) {
    for (let c = 0; c < t.rect.cols; c++) {
      const next: Cell = { ...(wb.cell(t.sheet, t.rect.row + r, t.rect.col + c) ?? { t: "s", v: "" }) };
      change(next);
      wb.setCell(t.sheet, t.rect.row + r, t.rect.col + c, orNothing(next));
    }
  }
}
const NAMED_COLOURS: Record<string, string> = {
  white: "#FFFFFF",
  black: "#000000",
  red: "#FF0000",
  green: "#008000",
  blue: "#0000FF",
  yellow: "#FFFF00",
  orange: "#FFA500",
  gray: "#808080",
  grey: "#808080",
};
/** RangeFill.color accepts "#RRGGBB" or a named HTML colour; Excel reports "#RRGGBB" in capitals. */
function parseColour(v: unknown): string {
  if (typeof v === "string") {
    if (/^#[0-9A-Fa-f]{6}$/.test(v)) return v.toUpperCase();
    const named = NAMED_COLOURS[v.toLowerCase()];
    if (named) return named;
  }
  throw bad(`color ${JSON.stringify(v)}`);
}

export class DevRangeFormat extends DevClientObject<RangeTarget> {
  protected readonly _scalarProps = ["columnWidth"] as const;
  protected _read(t: RangeTarget, prop: string): unknown {
    if (prop === "columnWidth") {
      const w = (c: number) => t.sheet.colWidths?.[c] ?? DEFAULT_COLUMN_WIDTH_PT;
      const first = w(t.rect.col);
      for (let c = 1; c < Math.min(t.rect.cols, 16_384); c++) if (w(t.rect.col + c) !== first) return null;
      return first;
    }
    throw bad(`RangeFormat.${prop} is not modelled`);
  }
  get font(): DevRangeFont {
    return new DevRangeFont(this.context, () => this._target());
  }
  get fill(): DevRangeFill {
    return new DevRangeFill(this.context, () => this._target());
  }
  /**
   * Fit each column of the range to the widest text ANY used cell of that column shows (Range.text
   * through the number format): Excel's autofitColumns fits the entire column, not the range
   * (OfficeDev/office-js issues 1017 and 5999). Widths are modelled by `textWidthPoints` (Calibri 11:
   * 7 px per character plus 5 px padding, one more character for bold, in points); real Excel measures
   * the font, so only "wide enough to show the text" is meant to match.
   */
  autofitColumns(): void {
    this._do({ autofitColumns: 1 }, (t) => {
      guardProtected(t.sheet);
      const widths = (t.sheet.colWidths ??= {});
      const cols = Math.min(t.rect.cols, 16_384);
      const chars = new Array<number>(cols).fill(0);
      for (const row of t.sheet.rows) {
        if (!row) continue;
        for (let c = 0; c < cols; c++) {
          const cell = row[t.rect.col + c];
          if (cell) chars[c] = Math.max(chars[c]!, formatValue(cellValue(cell), cell.nf).length + (cell.b ? 1 : 0));
        }
      }
      for (let c = 0; c < cols; c++) widths[t.rect.col + c] = textWidthPoints(chars[c]!);
    });
  }
  /** ExcelApi 1.2: the width of the range's columns in points (null when they differ); setting it sets every column's. */
  get columnWidth(): number | null {
    return this._get("columnWidth");
  }
  set columnWidth(v: number | null) {
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1_000) throw bad(`columnWidth ${v}`);
    this._do({ columnWidth: v }, (t) => {
      guardProtected(t.sheet);
      const widths = (t.sheet.colWidths ??= {});
      for (let c = 0; c < Math.min(t.rect.cols, 16_384); c++) widths[t.rect.col + c] = v;
    });
  }
}

export class DevRangeFont extends DevClientObject<RangeTarget> {
  protected readonly _scalarProps = ["bold"] as const;
  protected _read(t: RangeTarget, prop: string): unknown {
    if (prop !== "bold") throw bad(`RangeFont.${prop} is not modelled`);
    return shared(cellsOf(t, this.context.env.wb), (c) => c?.b === true);
  }
  get bold(): boolean | null {
    return this._get("bold");
  }
  set bold(v: boolean | null) {
    if (typeof v !== "boolean") throw bad("bold");
    this._do({ bold: v }, (t) =>
      restyle(t, this.context.env.wb, (c) => {
        if (v) c.b = true;
        else delete c.b;
      }),
    );
  }
}

export class DevRangeFill extends DevClientObject<RangeTarget> {
  protected readonly _scalarProps = ["color"] as const;
  protected _read(t: RangeTarget, prop: string): unknown {
    if (prop !== "color") throw bad(`RangeFill.${prop} is not modelled`);
    return shared(cellsOf(t, this.context.env.wb), (c) => c?.fill ?? "#FFFFFF"); // no fill reads as white
  }
  get color(): string | null {
    return this._get("color");
  }
  set color(v: string | null) {
    const colour = parseColour(v);
    this._do({ color: colour }, (t) =>
      restyle(t, this.context.env.wb, (c) => {
        c.fill = colour;
      }),
    );
  }
  clear(): void {
    this._do({ clearFill: 1 }, (t) =>
      restyle(t, this.context.env.wb, (c) => {
        delete c.fill;
      }),
    );
  }
}

export class DevWorksheetFreezePanes {
  constructor(
    readonly context: DevRequestContext,
    private readonly sheet: () => ModelSheet,
  ) {}
  /** freezeRows(count): "the number of rows to freeze, or zero to unfreeze all rows" (default 1). */
  freezeRows(count = 1): void {
    if (!Number.isInteger(count) || count < 0 || count >= MAX_ROWS) throw bad(`freezeRows(${count})`);
    this.context.enqueue({ freezeRows: count }, () => {
      const s = this.sheet();
      if (count === 0) delete s.frozenRows;
      else s.frozenRows = count;
    });
  }
  unfreeze(): void {
    this.context.enqueue({ unfreeze: 1 }, () => {
      delete this.sheet().frozenRows;
    });
  }
  /** The frozen rows as a range (whole rows), or a null object when nothing is frozen. */
  getLocationOrNullObject(): DevRange {
    return new DevRange(
      this.context,
      () => {
        const s = this.sheet();
        return s.frozenRows ? { sheet: s, rect: { row: 0, col: 0, rows: s.frozenRows, cols: MAX_COLS } } : null;
      },
      true,
    );
  }
}

export class DevWorksheetProtection extends DevClientObject<ModelSheet> {
  protected readonly _scalarProps = ["protected"] as const;
  protected _read(s: ModelSheet, prop: string): unknown {
    if (prop === "protected") return s.protected === true;
    throw bad(`WorksheetProtection.${prop} is not modelled`);
  }
  get protected(): boolean {
    return this._get("protected");
  }
  protect(): void {
    this._do({ protect: 1 }, (s) => {
      s.protected = true;
    });
  }
  unprotect(): void {
    this._do({ unprotect: 1 }, (s) => {
      delete s.protected;
    });
  }
}

/** Worksheet.autoFilter (ExcelApi 1.9): enabled, isDataFiltered, its range; apply with "Values" criteria, clearCriteria, remove. */
export class DevAutoFilter extends DevClientObject<ModelSheet> {
  protected readonly _scalarProps = ["enabled", "isDataFiltered"] as const;
  protected _read(s: ModelSheet, prop: string): unknown {
    if (prop === "enabled") return s.autoFilter !== undefined;
    if (prop === "isDataFiltered") return (s.autoFilter?.criteria.length ?? 0) > 0;
    throw bad(`AutoFilter.${prop} is not modelled`);
  }
  get enabled(): boolean {
    return this._get("enabled");
  }
  get isDataFiltered(): boolean {
    return this._get("isDataFiltered");
  }
  getRangeOrNullObject(): DevRange {
    return new DevRange(
      this.context,
      () => {
        const s = this._target();
        return s.autoFilter ? { sheet: s, rect: { ...s.autoFilter.rect } } : null;
      },
      true,
    );
  }
  /** Only "Values" criteria are modelled. */
  apply(range: DevRange | string, columnIndex?: number, criteria?: { filterOn?: string; values?: unknown[] }): void {
    if (criteria && criteria.filterOn !== "Values") throw bad(`AutoFilter criteria ${String(criteria.filterOn)} are not modelled`);
    this._do({ autoFilter: columnIndex ?? null }, (s) => {
      const wb = this.context.env.wb;
      const rect =
        typeof range === "string"
          ? (() => {
              const a = parseAddress(range);
              return { row: a.row, col: a.col, rows: a.rows, cols: a.cols };
            })()
          : range.rangeTarget().rect;
      wb.applyFilter(s, rect, columnIndex, criteria?.values?.map(String));
    });
  }
  clearCriteria(): void {
    this._do({ clearCriteria: 1 }, (s) => this.context.env.wb.clearFilter(s.id));
  }
  remove(): void {
    this._do({ removeAutoFilter: 1 }, (s) => {
      delete s.autoFilter;
    });
  }
}

/** Range.getMergedAreasOrNullObject() (ExcelApi 1.13): the merged areas that overlap a range. */
export class DevRangeAreas extends DevClientObject<{ sheet: ModelSheet; areas: Rect[] }> {
  protected readonly _scalarProps = ["address", "areaCount", "cellCount"] as const;
  protected _read(t: { sheet: ModelSheet; areas: Rect[] }, prop: string): unknown {
    const wb = this.context.env.wb;
    if (prop === "address") return t.areas.map((a) => wb.address(t.sheet, a)).join(", ");
    if (prop === "areaCount") return t.areas.length;
    if (prop === "cellCount") return t.areas.reduce((n, a) => n + a.rows * a.cols, 0);
    throw bad(`RangeAreas.${prop} is not modelled`);
  }
  get address(): string {
    return this._get("address");
  }
  get areaCount(): number {
    return this._get("areaCount");
  }
  get cellCount(): number {
    return this._get("cellCount");
  }
}

/** Range.getTables() (ExcelApi 1.9): the tables that overlap a range. */
export class DevTableScopedCollection extends DevCollection<ModelTable, DevTable> {
  protected readonly _itemScalarProps = ["name"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly list: () => ModelTable[],
  ) {
    super(ctx);
  }
  protected _list(): ModelTable[] {
    return this.list();
  }
  protected _proxy(t: ModelTable): DevTable {
    return new DevTable(this.context, () => t);
  }
  protected _readItem(t: ModelTable, prop: string): unknown {
    return readTable(this.context, t, prop);
  }
}

export class DevWorksheet extends DevClientObject<ModelSheet> {
  protected readonly _scalarProps = ["id", "name", "position", "visibility"] as const;
  readonly onChanged: DevEventHandlers<Record<string, unknown>>;
  constructor(ctx: DevRequestContext, resolve: () => ModelSheet | null, nullable = false) {
    super(ctx, resolve, nullable);
    this.onChanged = new DevEventHandlers(ctx, (e) => {
      const s = this._tryTarget();
      return s ? changedArgs(ctx, e, s.id) : null;
    });
  }
  protected _read(s: ModelSheet, prop: string): unknown {
    return readSheet(this.context, s, prop);
  }
  get id(): string {
    return this._get("id");
  }
  get name(): string {
    return this._get("name");
  }
  set name(v: string) {
    this._do({ name: v }, (s, st) => {
      const before = this.context.env.wb.renameSheetRaw(s, v);
      if (before !== v) st.events.push({ kind: "nameChanged", worksheetId: s.id, nameBefore: before, nameAfter: v });
    });
  }
  get position(): number {
    return this._get("position");
  }
  get freezePanes(): DevWorksheetFreezePanes {
    return new DevWorksheetFreezePanes(this.context, () => this._target());
  }
  /** ExcelApi 1.2: protected, protect(), unprotect(). */
  get protection(): DevWorksheetProtection {
    return new DevWorksheetProtection(this.context, () => this._target());
  }
  /** ExcelApi 1.9: the sheet's AutoFilter (Data › Filter). */
  get autoFilter(): DevAutoFilter {
    if (!versionAtLeast(this.context.env.apiVersion, "1.9")) throw bad("Worksheet.autoFilter requires ExcelApi 1.9");
    return new DevAutoFilter(this.context, () => this._target());
  }
  get visibility(): string {
    return this._get("visibility");
  }
  set visibility(v: string) {
    if (v !== "Visible" && v !== "Hidden" && v !== "VeryHidden") throw bad(`visibility ${v}`);
    this._do({ visibility: v }, (s) => {
      s.visibility = v;
    });
  }
  activate(): void {
    this._do({ activate: 1 }, (s) => {
      const wb = this.context.env.wb;
      if (wb.activeSheetId !== s.id) {
        wb.activeSheetId = s.id;
        wb.selection = { row: 0, col: 0, rows: 1, cols: 1 };
      }
    });
  }
  delete(): void {
    this._do({ delete: 1 }, (s, st) => {
      this.context.env.wb.deleteSheetRaw(s);
      st.events.push({ kind: "deleted", worksheetId: s.id });
    });
  }
  /** ExcelApi 1.1: the sheet's tables (dev/excel/tables.ts). */
  get tables(): DevTableCollection {
    return new DevTableCollection(this.context, () => this._target());
  }
  /** ExcelApi 1.1 (dev/excel/charts.ts). */
  get charts(): DevChartCollection {
    return new DevChartCollection(this.context, () => this._target());
  }
  /** ExcelApi 1.9 (dev/excel/shapes.ts). */
  get shapes(): DevShapeCollection {
    return new DevShapeCollection(this.context, () => this._target());
  }
  getRange(address?: string): DevRange {
    return new DevRange(this.context, () => {
      const s = this._target();
      if (address === undefined) return { sheet: s, rect: { row: 0, col: 0, rows: MAX_ROWS, cols: MAX_COLS } };
      let a;
      try {
        a = parseAddress(address);
      } catch {
        throw bad(`address ${address}`);
      }
      if (a.sheet !== null && a.sheet.toLowerCase() !== s.name.toLowerCase()) throw bad(`address ${address} is on another sheet`);
      return { sheet: s, rect: { row: a.row, col: a.col, rows: a.rows, cols: a.cols } };
    });
  }
  getRangeByIndexes(startRow: number, startColumn: number, rowCount: number, columnCount: number): DevRange {
    return new DevRange(this.context, () => {
      const rect = { row: startRow, col: startColumn, rows: rowCount, cols: columnCount };
      checkRect(rect);
      return { sheet: this._target(), rect };
    });
  }
}

/** Range.text of a cell: its value through its format; in the 1904 date system a date shows 1,462 days later. */
function shownText(c: Cell | undefined, date1904: boolean): string {
  const v = cellValue(c);
  if (date1904 && typeof v === "number" && c?.nf && isDateFormat(c.nf)) return formatValue(v + DATE1904_OFFSET, c.nf);
  return formatValue(v, c?.nf);
}

function checkRect(r: Rect): void {
  const ok =
    [r.row, r.col, r.rows, r.cols].every(Number.isInteger) &&
    r.row >= 0 &&
    r.col >= 0 &&
    r.rows >= 1 &&
    r.cols >= 1 &&
    r.row + r.rows <= MAX_ROWS &&
    r.col + r.cols <= MAX_COLS;
  if (!ok) throw bad(`range ${JSON.stringify(r)}`);
}

// ---- ranges -------------------------------------------------------------------------------------
interface RangeTarget {
  sheet: ModelSheet;
  rect: Rect;
}
const GRID_PROPS = new Set(["values", "formulas", "numberFormat", "valueTypes", "text"]);

export class DevRange extends DevClientObject<RangeTarget> {
  protected readonly _scalarProps = [
    "address",
    "addressLocal",
    "values",
    "formulas",
    "numberFormat",
    "valueTypes",
    "text",
    "rowIndex",
    "columnIndex",
    "rowCount",
    "columnCount",
    "cellCount",
    "hasSpill",
    "rowHidden",
    "columnHidden",
  ] as const;
  constructor(ctx: DevRequestContext, resolve: () => RangeTarget | null, nullable = false) {
    super(ctx, resolve, nullable);
  }

  protected _read(t: RangeTarget, prop: string, st: SyncState): unknown {
    const wb = this.context.env.wb;
    const { rect, sheet } = t;
    if (GRID_PROPS.has(prop)) {
      st.cellsRead += rect.rows * rect.cols;
      if (st.cellsRead > 5_000_000) {
        throw new OfficeError(
          "RangeExceedsLimit",
          `The cell count in the range has exceeded the maximum supported number (${st.cellsRead} cells in one sync).`,
        );
      }
      const f =
        prop === "values" || prop === "text"
          ? (c: Cell | undefined) => (prop === "text" ? shownText(c, wb.date1904) : cellValue(c))
          : prop === "formulas"
            ? cellFormula
            : prop === "numberFormat"
              ? (c: Cell | undefined) => c?.nf ?? "General"
              : cellValueType;
      const out: unknown[][] = new Array(rect.rows);
      for (let r = 0; r < rect.rows; r++) {
        const src = sheet.rows[rect.row + r];
        const row = new Array(rect.cols);
        for (let c = 0; c < rect.cols; c++) row[c] = f(src?.[rect.col + c]);
        out[r] = row;
      }
      return out;
    }
    switch (prop) {
      case "address":
      case "addressLocal":
        return wb.address(sheet, rect);
      case "rowIndex":
        return rect.row;
      case "columnIndex":
        return rect.col;
      case "rowCount":
        return rect.rows;
      case "columnCount":
        return rect.cols;
      case "cellCount":
        return rect.rows * rect.cols;
      case "hasSpill": {
        // ExcelApi 1.12: true when every cell is in a spill range, false when none, null when some.
        if (!versionAtLeast(this.context.env.apiVersion, "1.12")) throw bad("Range.hasSpill requires ExcelApi 1.12");
        let inside = 0;
        for (const sp of sheet.spills ?? []) {
          if (!overlaps(sp.rect, rect)) continue;
          const rows = Math.min(sp.rect.row + sp.rect.rows, rect.row + rect.rows) - Math.max(sp.rect.row, rect.row);
          const cols = Math.min(sp.rect.col + sp.rect.cols, rect.col + rect.cols) - Math.max(sp.rect.col, rect.col);
          inside += rows * cols;
        }
        return inside === 0 ? false : inside >= rect.rows * rect.cols ? true : null;
      }
      case "rowHidden":
      case "columnHidden": {
        // ExcelApi 1.2: true when every row (column) is hidden, false when none, null when some.
        const n = prop === "rowHidden" ? rect.rows : rect.cols;
        let hidden = 0;
        for (let i = 0; i < n; i++) {
          if (prop === "rowHidden" ? wb.rowHidden(sheet, rect.row + i) : (sheet.hiddenCols ?? []).includes(rect.col + i)) hidden++;
        }
        return hidden === 0 ? false : hidden === n ? true : null;
      }
      case "left":
      case "top":
      case "width":
      case "height":
        return rectGeometry(rect, prop);
      default:
        throw bad(`Range.${prop} is not modelled`);
    }
  }
  get address(): string {
    return this._get("address");
  }
  get left(): number {
    return this._get("left");
  }
  get top(): number {
    return this._get("top");
  }
  get width(): number {
    return this._get("width");
  }
  get height(): number {
    return this._get("height");
  }
  get addressLocal(): string {
    return this._get("addressLocal");
  }
  get values(): unknown[][] {
    return this._get("values");
  }
  set values(v: unknown) {
    this.setGrid("values", v);
  }
  get formulas(): unknown[][] {
    return this._get("formulas");
  }
  set formulas(v: unknown) {
    this.setGrid("formulas", v);
  }
  get numberFormat(): unknown[][] {
    return this._get("numberFormat");
  }
  set numberFormat(v: unknown) {
    this.setGrid("numberFormat", v);
  }
  get valueTypes(): string[][] {
    return this._get("valueTypes");
  }
  get text(): string[][] {
    return this._get("text");
  }
  get rowIndex(): number {
    return this._get("rowIndex");
  }
  get columnIndex(): number {
    return this._get("columnIndex");
  }
  get rowCount(): number {
    return this._get("rowCount");
  }
  get columnCount(): number {
    return this._get("columnCount");
  }
  get cellCount(): number {
    return this._get("cellCount");
  }
  get hasSpill(): boolean {
    return this._get("hasSpill");
  }
  /** The range's sheet and cells, resolved at sync time (for methods that take a Range argument). */
  rangeTarget(): RangeTarget {
    return this._target();
  }
  get rowHidden(): boolean {
    return this._get("rowHidden");
  }
  set rowHidden(v: boolean) {
    this._do({ rowHidden: v }, (t) => this.context.env.wb.hideRows(t.sheet.id, t.rect.row, t.rect.rows, v === true));
  }
  get columnHidden(): boolean {
    return this._get("columnHidden");
  }
  set columnHidden(v: boolean) {
    this._do({ columnHidden: v }, (t) => this.context.env.wb.hideColumns(t.sheet.id, t.rect.col, t.rect.cols, v === true));
  }
  /** ExcelApi 1.12: the anchor cell of the spill this one cell is in (a null object for several cells or none). */
  getSpillParentOrNullObject(): DevRange {
    if (!versionAtLeast(this.context.env.apiVersion, "1.12")) throw bad("getSpillParentOrNullObject requires ExcelApi 1.12");
    return new DevRange(
      this.context,
      () => {
        const t = this._target();
        if (t.rect.rows !== 1 || t.rect.cols !== 1) return null;
        const sp = this.context.env.wb.spillAt(t.sheet, t.rect.row, t.rect.col);
        return sp ? { sheet: t.sheet, rect: { row: sp.rect.row, col: sp.rect.col, rows: 1, cols: 1 } } : null;
      },
      true,
    );
  }
  /** ExcelApi 1.12: the spill range of this anchor cell (a null object when it is not one). */
  getSpillingToRangeOrNullObject(): DevRange {
    if (!versionAtLeast(this.context.env.apiVersion, "1.12")) throw bad("getSpillingToRangeOrNullObject requires ExcelApi 1.12");
    return new DevRange(
      this.context,
      () => {
        const t = this._target();
        if (t.rect.rows !== 1 || t.rect.cols !== 1) return null;
        const sp = (t.sheet.spills ?? []).find((x) => x.rect.row === t.rect.row && x.rect.col === t.rect.col);
        return sp ? { sheet: t.sheet, rect: { ...sp.rect } } : null;
      },
      true,
    );
  }
  get worksheet(): DevWorksheet {
    return new DevWorksheet(this.context, () => this._target().sheet);
  }
  /** Range.format (font and fill only). */
  get format(): DevRangeFormat {
    return new DevRangeFormat(this.context, () => this._target());
  }
  /**
   * ExcelApi 1.4: the smallest range holding every used cell of this range, or a null object when none
   * is. valuesOnly: only cells with a value (or formula) count; otherwise formatted cells count too.
   */
  getUsedRangeOrNullObject(valuesOnly = false): DevRange {
    return new DevRange(
      this.context,
      () => {
        const { sheet, rect } = this._target();
        let top = -1,
          bottom = -1,
          left = Infinity,
          right = -1;
        const end = Math.min(rect.row + rect.rows, sheet.rows.length);
        for (let r = rect.row; r < end; r++) {
          const row = sheet.rows[r];
          if (!row) continue;
          const last = Math.min(rect.col + rect.cols, row.length);
          for (let c = rect.col; c < last; c++) {
            const cell = row[c];
            if (cell === undefined || (valuesOnly && cellValue(cell) === "" && cell.f === undefined)) continue; // a formula counts, even one showing ""
            if (top < 0) top = r;
            bottom = r;
            left = Math.min(left, c);
            right = Math.max(right, c);
          }
        }
        return top < 0 ? null : { sheet, rect: { row: top, col: left, rows: bottom - top + 1, cols: right - left + 1 } };
      },
      true,
    );
  }
  /** ExcelApi 1.13: the merged areas overlapping this range, or a null object when there are none. */
  getMergedAreasOrNullObject(): DevRangeAreas {
    if (!versionAtLeast(this.context.env.apiVersion, "1.13"))
      throw new OfficeError("InvalidArgument", "getMergedAreasOrNullObject requires ExcelApi 1.13");
    return new DevRangeAreas(
      this.context,
      () => {
        const t = this._target();
        const areas = (t.sheet.merges ?? []).filter((m) => overlaps(m, t.rect));
        return areas.length ? { sheet: t.sheet, areas } : null;
      },
      true,
    );
  }
  /** ExcelApi 1.2: merge the range into one cell (the top-left value stays, the others are cleared). */
  merge(across = false): void {
    this._do({ merge: across }, (t) => {
      guardProtected(t.sheet);
      const wb = this.context.env.wb;
      if (!across) wb.mergeRaw(t.sheet, t.rect);
      else for (let r = 0; r < t.rect.rows; r++) wb.mergeRaw(t.sheet, { ...t.rect, row: t.rect.row + r, rows: 1 });
    });
  }
  /** ExcelApi 1.2: unmerge every merged area overlapping the range. */
  unmerge(): void {
    this._do({ unmerge: 1 }, (t) => {
      guardProtected(t.sheet);
      t.sheet.merges = (t.sheet.merges ?? []).filter((m) => !overlaps(m, t.rect));
    });
  }
  /** ExcelApi 1.9: the tables overlapping the range (fullyContained: only those inside it). */
  getTables(fullyContained = false): DevTableScopedCollection {
    return new DevTableScopedCollection(this.context, () => {
      const t = this._target();
      return (t.sheet.tables ?? []).filter((x) => (fullyContained ? contains(t.rect, x.rect) : overlaps(x.rect, t.rect)));
    });
  }

  private setGrid(prop: "values" | "formulas" | "numberFormat", input: unknown): void {
    this._do({ [prop]: input }, (t, st) => {
      const { sheet, rect } = t;
      const wb = this.context.env.wb;
      const at = (r: number, c: number): unknown => {
        if (!Array.isArray(input)) return input; // one value for every cell
        return (input[r] as unknown[])[c];
      };
      if (input === null || input === undefined) throw bad(`Range.${prop} cannot be set to null`); // null is valid only inside a 2-D array
      guardProtected(sheet);
      // Merged areas: a write must cover a merged area whole; only its top-left cell holds a value.
      const merges = (sheet.merges ?? []).filter((m) => overlaps(m, rect));
      if (prop !== "numberFormat" && merges.some((m) => !contains(rect, m)))
        throw new OfficeError("InvalidOperation", "The operation isn't allowed: cannot change part of a merged cell.");
      const hidden = (row: number, col: number) =>
        prop !== "numberFormat" && merges.some((m) => contains(m, { row, col, rows: 1, cols: 1 }) && (m.row !== row || m.col !== col));
      if (Array.isArray(input)) {
        if (input.length !== rect.rows || input.some((row) => !Array.isArray(row) || row.length !== rect.cols)) {
          throw new OfficeError(
            "InvalidArgument",
            "The number of rows or columns in the input array doesn't match the size or dimensions of the range.",
          );
        }
      }
      // A value written into another formula's spill results blocks it (#SPILL! at its anchor); one written over the anchor replaces it.
      if (prop !== "numberFormat") wb.spillsWritten(sheet, rect, (row, col) => !isEmptyInput(at(row - rect.row, col - rect.col)));
      const arrays: Array<{ row: number; col: number; formula: string; grid: number[][] }> = [];
      for (let r = 0; r < rect.rows; r++) {
        for (let c = 0; c < rect.cols; c++) {
          const v = at(r, c);
          const row = rect.row + r,
            col = rect.col + c;
          if (prop === "numberFormat") {
            if (v === null || v === undefined) continue;
            if (typeof v !== "string") throw bad(`numberFormat [${r}][${c}]`);
            const old = wb.cell(sheet, row, col);
            const next: Cell = old ? { ...old } : { t: "s", v: "" }; // copied: a cell object is never shared
            if (v === "General" || v === "") delete next.nf;
            else next.nf = v; // "" resets to General
            wb.setCell(sheet, row, col, orNothing(next));
          } else if (!hidden(row, col)) {
            wb.writeValue(sheet, row, col, v, `Range.${prop}[${r}][${c}]`);
            const seq = typeof v === "string" ? sequenceOf(v) : null;
            if (seq) arrays.push({ row, col, formula: v as string, grid: seq });
          }
        }
      }
      // Dynamic arrays: the one function dev/excel computes is SEQUENCE, so the probes can spill in real Excel and here alike.
      for (const x of arrays) wb.enterArrayFormula(sheet.id, cellA1(x.row, x.col), x.formula, x.grid);
      if (prop !== "numberFormat")
        tablesAfterWrite(wb, sheet, {
          rect,
          nonEmpty: (row, col) => !isEmptyInput(at(row - rect.row, col - rect.col)),
          formulaAt: (row, col) => {
            const v = at(row - rect.row, col - rect.col);
            return typeof v === "string" && v.startsWith("=") ? v : null;
          },
        });
      if (prop !== "numberFormat")
        st.events.push({
          kind: "changed",
          worksheetId: sheet.id,
          address: rectA1(rect),
          changeType: "RangeEdited",
          triggerSource: "ThisLocalAddin",
        });
    });
  }

  clear(applyTo: string = "All"): void {
    this._do({ clear: applyTo }, (t, st) => {
      const wb = this.context.env.wb;
      const { sheet, rect } = t;
      guardProtected(sheet);
      // Clearing a spill's anchor removes its formula and results; clearing only its results changes nothing (they are computed).
      if (applyTo !== "Formats") wb.spillsWritten(sheet, rect, () => false);
      const spilled = (row: number, col: number) => applyTo !== "Formats" && wb.spillAt(sheet, row, col) !== undefined;
      for (let r = 0; r < rect.rows; r++) {
        const src = sheet.rows[rect.row + r];
        if (!src) continue;
        for (let c = 0; c < rect.cols; c++) {
          const cell = src[rect.col + c];
          if (!cell || spilled(rect.row + r, rect.col + c)) continue;
          if (applyTo === "Formats") {
            const n = { ...cell };
            delete n.nf;
            delete n.b;
            delete n.fill;
            src[rect.col + c] = orNothing(n);
          } else if (applyTo === "Contents") src[rect.col + c] = formatOnly(cell);
          else src[rect.col + c] = undefined;
        }
      }
      if (applyTo !== "Formats") tablesAfterWrite(wb, sheet, { rect, nonEmpty: () => false, formulaAt: () => null });
      if (applyTo !== "Formats")
        st.events.push({
          kind: "changed",
          worksheetId: sheet.id,
          address: rectA1(rect),
          changeType: "RangeEdited",
          triggerSource: "ThisLocalAddin",
        });
    });
  }
  select(): void {
    this._do({ select: 1 }, (t) => {
      const wb = this.context.env.wb;
      wb.activeSheetId = t.sheet.id;
      wb.selectionAreas = null; // one range selected again
      wb.selection = { ...t.rect, rows: Math.min(t.rect.rows, MAX_ROWS), cols: Math.min(t.rect.cols, MAX_COLS) };
    });
  }
  getCell(row: number, column: number): DevRange {
    return new DevRange(this.context, () => {
      const t = this._target();
      const rect = { row: t.rect.row + row, col: t.rect.col + column, rows: 1, cols: 1 };
      checkRect(rect);
      return { sheet: t.sheet, rect };
    });
  }
  getEntireRow(): DevRange {
    return new DevRange(this.context, () => {
      const t = this._target();
      return { sheet: t.sheet, rect: { row: t.rect.row, rows: t.rect.rows, col: 0, cols: MAX_COLS } };
    });
  }
  getEntireColumn(): DevRange {
    return new DevRange(this.context, () => {
      const t = this._target();
      return { sheet: t.sheet, rect: { col: t.rect.col, cols: t.rect.cols, row: 0, rows: MAX_ROWS } };
    });
  }
  getResizedRange(deltaRows: number, deltaColumns: number): DevRange {
    return new DevRange(this.context, () => {
      const t = this._target();
      const rect = { ...t.rect, rows: t.rect.rows + deltaRows, cols: t.rect.cols + deltaColumns };
      checkRect(rect);
      return { sheet: t.sheet, rect };
    });
  }
  /** Whole rows or whole columns only (shifting part of a row is not modelled: NotImplemented). */
  insert(shift: string): DevRange {
    const out: { t: RangeTarget | null } = { t: null };
    this._do({ insert: shift }, (t, st) => {
      const axis = wholeAxis(t.rect, shift, "insert");
      const at = axis === "row" ? t.rect.row : t.rect.col;
      const n = axis === "row" ? t.rect.rows : t.rect.cols;
      this.context.env.wb.shiftRaw(t.sheet, axis, at, n);
      st.events.push({
        kind: "changed",
        worksheetId: t.sheet.id,
        address: rectA1(t.rect),
        changeType: axis === "row" ? "RowInserted" : "ColumnInserted",
        triggerSource: "ThisLocalAddin",
      });
      out.t = t;
    });
    return new DevRange(this.context, () => out.t);
  }
  delete(shift: string): void {
    this._do({ delete: shift }, (t, st) => {
      const axis = wholeAxis(t.rect, shift, "delete");
      const at = axis === "row" ? t.rect.row : t.rect.col;
      const n = axis === "row" ? t.rect.rows : t.rect.cols;
      this.context.env.wb.shiftRaw(t.sheet, axis, at, -n);
      st.events.push({
        kind: "changed",
        worksheetId: t.sheet.id,
        address: rectA1(t.rect),
        changeType: axis === "row" ? "RowDeleted" : "ColumnDeleted",
        triggerSource: "ThisLocalAddin",
      });
    });
  }
}

function wholeAxis(rect: Rect, shift: string, op: string): "row" | "col" {
  if (rect.col === 0 && rect.cols === MAX_COLS && (shift === "Down" || shift === "Up")) return "row";
  if (rect.row === 0 && rect.rows === MAX_ROWS && (shift === "Right" || shift === "Left")) return "col";
  throw new OfficeError("NotImplemented", `dev/excel models ${op} of whole rows (Down/Up) or whole columns (Right/Left) only.`);
}

// ---- named items --------------------------------------------------------------------------------
/** On Excel on the web NamedItem.comment has no undo support and clears the user's undo stack (excel-add-ins-undo-capabilities). */
function commentTouched(ctx: DevRequestContext): void {
  if (ctx.env.platform === "OfficeOnline") ctx.env.wb.stats.undoStackCleared++;
}

export class DevNamedItemCollection extends DevCollection<ModelName, DevNamedItem> {
  protected readonly _itemScalarProps = ["name", "type", "value", "visible", "comment", "formula"] as const;
  protected _list(): ModelName[] {
    return this.context.env.wb.names;
  }
  protected _proxy(n: ModelName): DevNamedItem {
    return new DevNamedItem(this.context, () => n);
  }
  protected _readItem(n: ModelName, prop: string): unknown {
    return readName(this.context, n, prop);
  }
  getItem(name: string): DevNamedItem {
    return new DevNamedItem(this.context, () => this.context.env.wb.nameItem(name) ?? null);
  }
  getItemOrNullObject(name: string): DevNamedItem {
    return new DevNamedItem(this.context, () => this.context.env.wb.nameItem(name) ?? null, true);
  }
  add(name: string, reference: DevRange | string, comment?: string): DevNamedItem {
    let created: ModelName | null = null;
    const refPayload = typeof reference === "string" ? reference : "[Range]";
    this.context.enqueue({ addName: name, reference: refPayload, comment: comment ?? "" }, () => {
      if (comment) commentTouched(this.context);
      const wb = this.context.env.wb;
      if (!nameExcelTakes(name)) throw bad(`name ${JSON.stringify(name)}`);
      if (wb.nameItem(name))
        throw new OfficeError("ItemAlreadyExists", `A resource with the same name or identifier already exists. (name ${name})`);
      let target: { sheetId: string } & Rect;
      if (typeof reference === "string") {
        let a;
        try {
          a = parseAddress(reference.replace(/^=/, ""));
        } catch {
          throw bad(`reference ${reference}`);
        }
        if (a.sheet === null) throw bad(`reference ${reference} has no sheet`);
        const s = wb.requireSheet(a.sheet);
        target = { sheetId: s.id, row: a.row, col: a.col, rows: a.rows, cols: a.cols };
      } else {
        const t = (reference as unknown as { _target(): RangeTarget })._target();
        target = { sheetId: t.sheet.id, ...t.rect };
      }
      created = { name, visible: true, comment: comment ?? "", ref: target };
      wb.names.push(created);
    });
    return new DevNamedItem(this.context, () => created);
  }
}

function readName(ctx: DevRequestContext, n: ModelName, prop: string): unknown {
  const wb = ctx.env.wb;
  const s = n.ref ? wb.sheetById(n.ref.sheetId) : undefined;
  // A named item refers to an absolute reference: Sheet1!$B$7:$C$8.
  const addr =
    n.ref && s ? wb.address(s, n.ref).replace(/!(.*)$/, (_, a: string) => `!${a.replace(/([A-Z]+)([0-9]+)/g, "$$$1$$$2")}`) : null;
  switch (prop) {
    case "name":
      return n.name;
    case "type":
      return addr ? "Range" : "Error";
    case "value":
      return addr ?? "#REF!";
    case "formula":
      return addr ? `=${addr}` : "=#REF!";
    case "visible":
      return n.visible;
    case "comment":
      return n.comment;
    default:
      throw bad(`NamedItem.${prop} is not modelled`);
  }
}

export class DevNamedItem extends DevClientObject<ModelName> {
  protected readonly _scalarProps = ["name", "type", "value", "visible", "comment", "formula"] as const;
  constructor(ctx: DevRequestContext, resolve: () => ModelName | null, nullable = false) {
    super(ctx, resolve, nullable);
  }
  protected _read(n: ModelName, prop: string): unknown {
    return readName(this.context, n, prop);
  }
  get name(): string {
    return this._get("name");
  }
  get type(): string {
    return this._get("type");
  }
  get value(): unknown {
    return this._get("value");
  }
  get formula(): string {
    return this._get("formula");
  }
  /** ExcelApi 1.7: point the name at another reference ("=Sheet1!$A$1:$B$2") in one command. */
  set formula(v: string) {
    this._do({ formula: v }, (n) => {
      const wb = this.context.env.wb;
      let a;
      try {
        a = parseAddress(String(v).replace(/^=/, ""));
      } catch {
        throw bad(`formula ${v}`);
      }
      if (a.sheet === null) throw bad(`formula ${v} has no sheet`);
      const s = wb.requireSheet(a.sheet);
      n.ref = { sheetId: s.id, row: a.row, col: a.col, rows: a.rows, cols: a.cols };
    });
  }
  get visible(): boolean {
    return this._get("visible");
  }
  set visible(v: boolean) {
    this._do({ visible: v }, (n) => {
      n.visible = Boolean(v);
    });
  }
  get comment(): string {
    return this._get("comment");
  }
  set comment(v: string) {
    this._do({ comment: v }, (n) => {
      commentTouched(this.context);
      n.comment = String(v);
    });
  }
  delete(): void {
    this._do({ delete: 1 }, (n) => {
      const wb = this.context.env.wb;
      wb.names.splice(wb.names.indexOf(n), 1);
    });
  }
  private rangeOf(n: ModelName): RangeTarget | null {
    const s = n.ref ? this.context.env.wb.sheetById(n.ref.sheetId) : undefined;
    return n.ref && s ? { sheet: s, rect: { row: n.ref.row, col: n.ref.col, rows: n.ref.rows, cols: n.ref.cols } } : null;
  }
  getRange(): DevRange {
    return new DevRange(this.context, () => {
      const t = this.rangeOf(this._target());
      if (!t) throw new OfficeError("InvalidReference", "This reference isn't valid for the current operation. (#REF!)");
      return t;
    });
  }
  getRangeOrNullObject(): DevRange {
    return new DevRange(
      this.context,
      () => {
        const n = this._tryTarget();
        return n ? this.rangeOf(n) : null;
      },
      true,
    );
  }
}

// ---- custom XML parts -------------------------------------------------------------------------
export class DevCustomXmlPart extends DevClientObject<ModelXmlPart> {
  protected readonly _scalarProps = ["id", "namespaceUri"] as const;
  constructor(ctx: DevRequestContext, resolve: () => ModelXmlPart | null, nullable = false) {
    super(ctx, resolve, nullable);
  }
  protected _read(p: ModelXmlPart, prop: string): unknown {
    if (prop === "id") return p.id;
    if (prop === "namespaceUri") return p.namespaceUri;
    throw bad(`CustomXmlPart.${prop} is not modelled`);
  }
  get id(): string {
    return this._get("id");
  }
  get namespaceUri(): string {
    return this._get("namespaceUri");
  }
  getXml(): DevClientResult<string> {
    const r = new DevClientResult<string>();
    this._do({ getXml: 1 }, (p, st) => {
      const x = p.xml;
      st.responseBytes += x.length;
      st.commits.push(() => {
        r.set(x);
        this.context.env.faults?.partRead(p);
      });
    });
    return r;
  }
  setXml(xml: string): void {
    this._do({ setXml: xml }, (p) => {
      const ns = namespaceOf(xml);
      if (ns === null) throw bad("setXml: not an XML document with a root element");
      p.xml = xml;
      p.namespaceUri = ns;
    });
  }
  delete(): void {
    this._do({ delete: 1 }, (p) => {
      const wb = this.context.env.wb;
      wb.xmlParts.splice(wb.xmlParts.indexOf(p), 1);
    });
  }
}

/** The root element's default namespace ("" when none), or null when this is not XML with a root element. */
function namespaceOf(xml: string): string | null {
  for (let i = 0; i < xml.length; i++) {
    const c = xml.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0xfffe || c === 0xffff) return null; // not XML 1.0
  }
  const m = /^\s*(?:<\?xml[^>]*\?>\s*)?<([A-Za-z_][\w.-]*(?::[\w.-]+)?)(\s[^>]*)?\/?>/.exec(xml);
  if (!m) return null;
  const ns = /\sxmlns\s*=\s*"([^"]*)"/.exec(m[2] ?? "");
  return ns ? ns[1]! : "";
}

export class DevCustomXmlPartScopedCollection extends DevCollection<ModelXmlPart, DevCustomXmlPart> {
  protected readonly _itemScalarProps = ["id", "namespaceUri"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly ns: string,
  ) {
    super(ctx);
  }
  protected _list(): ModelXmlPart[] {
    return this.context.env.wb.xmlParts.filter((p) => p.namespaceUri === this.ns);
  }
  protected _proxy(p: ModelXmlPart): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => p);
  }
  protected _readItem(p: ModelXmlPart, prop: string): unknown {
    return prop === "id" ? p.id : p.namespaceUri;
  }
  getItem(id: string): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => this._list().find((p) => p.id === id) ?? null);
  }
  getItemOrNullObject(id: string): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => this._list().find((p) => p.id === id) ?? null, true);
  }
  private only(): ModelXmlPart | null {
    const l = this._list();
    if (l.length > 1)
      throw new OfficeError("InvalidOperation", "The operation isn't allowed: more than one custom XML part has this namespace.");
    return l[0] ?? null;
  }
  getOnlyItem(): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => this.only());
  }
  getOnlyItemOrNullObject(): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => this.only(), true);
  }
}

export class DevCustomXmlPartCollection extends DevCollection<ModelXmlPart, DevCustomXmlPart> {
  protected readonly _itemScalarProps = ["id", "namespaceUri"] as const;
  protected _list(): ModelXmlPart[] {
    return this.context.env.wb.xmlParts;
  }
  protected _proxy(p: ModelXmlPart): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => p);
  }
  protected _readItem(p: ModelXmlPart, prop: string): unknown {
    return prop === "id" ? p.id : p.namespaceUri;
  }
  add(xml: string): DevCustomXmlPart {
    let created: ModelXmlPart | null = null;
    this.context.enqueue({ addXml: xml }, () => {
      const ns = namespaceOf(xml);
      if (ns === null) throw bad("customXmlParts.add: not an XML document with a root element");
      const wb = this.context.env.wb;
      created = { id: wb.newPartId(), namespaceUri: ns, xml };
      wb.xmlParts.push(created);
    });
    return new DevCustomXmlPart(this.context, () => created);
  }
  getByNamespace(namespaceUri: string): DevCustomXmlPartScopedCollection {
    return new DevCustomXmlPartScopedCollection(this.context, namespaceUri);
  }
  getItem(id: string): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => this._list().find((p) => p.id === id) ?? null);
  }
  getItemOrNullObject(id: string): DevCustomXmlPart {
    return new DevCustomXmlPart(this.context, () => this._list().find((p) => p.id === id) ?? null, true);
  }
}

// ---- settings -----------------------------------------------------------------------------------
interface SettingRef {
  key: string;
}
export class DevSetting extends DevClientObject<SettingRef> {
  protected readonly _scalarProps = ["key", "value"] as const;
  constructor(ctx: DevRequestContext, resolve: () => SettingRef | null, nullable = false) {
    super(ctx, resolve, nullable);
  }
  protected _read(s: SettingRef, prop: string): unknown {
    if (prop === "key") return s.key;
    if (prop === "value") return structuredClone(this.context.env.wb.settings.get(s.key));
    throw bad(`Setting.${prop} is not modelled`);
  }
  get key(): string {
    return this._get("key");
  }
  get value(): unknown {
    return this._get("value");
  }
  set value(v: unknown) {
    this._do({ value: v }, (s) => {
      this.context.env.wb.settings.set(s.key, structuredClone(v));
    });
  }
  delete(): void {
    this._do({ delete: 1 }, (s) => {
      this.context.env.wb.settings.delete(s.key);
    });
  }
}

export class DevSettingCollection extends DevCollection<SettingRef, DevSetting> {
  protected readonly _itemScalarProps = ["key", "value"] as const;
  protected _list(): SettingRef[] {
    return [...this.context.env.wb.settings.keys()].map((key) => ({ key }));
  }
  protected _proxy(s: SettingRef): DevSetting {
    return new DevSetting(this.context, () => s);
  }
  protected _readItem(s: SettingRef, prop: string): unknown {
    return prop === "key" ? s.key : structuredClone(this.context.env.wb.settings.get(s.key));
  }
  private find(key: string): SettingRef | null {
    return this.context.env.wb.settings.has(key) ? { key } : null;
  }
  add(key: string, value: unknown): DevSetting {
    this.context.enqueue({ addSetting: key, value }, () => {
      if (typeof key !== "string" || key.length === 0 || key.length > 255) throw bad(`setting key ${JSON.stringify(key)}`);
      let copy: unknown;
      try {
        copy = JSON.parse(JSON.stringify(value));
      } catch {
        throw bad(`setting ${key}: value is not JSON`);
      }
      this.context.env.wb.settings.set(key, copy);
    });
    return new DevSetting(this.context, () => this.find(key));
  }
  getItem(key: string): DevSetting {
    return new DevSetting(this.context, () => this.find(key));
  }
  getItemOrNullObject(key: string): DevSetting {
    return new DevSetting(this.context, () => this.find(key), true);
  }
}
