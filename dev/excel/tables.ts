// Excel.TableCollection, Table, TableColumnCollection/TableColumn, TableRowCollection/TableRow, TableSort
// and the table's AutoFilter, as dev/excel's proxies (the model is tables-model.ts). API versions as
// Microsoft documents them: tables.add, columns, rows 1.1; sort 1.2; autoFilter 1.9; resize 1.13;
// TableRowCollection.deleteRows ExcelApiOnline 1.1 (Excel on the web only).

import { parseAddress } from "../../src/host/a1.ts";
import { OfficeError } from "./errors.ts";
import type { ModelSheet, Rect } from "./model.ts";
import { DevRange } from "./objects.ts";
import { DevClientObject, DevCollection, type DevRequestContext, type SyncState, versionAtLeast } from "./proxy.ts";
import {
  addColumn,
  addRows,
  allTables,
  checkTableName,
  createTable,
  deleteColumn,
  deleteRows,
  findTable,
  refilterTable,
  renameColumn,
  renameTableRefs,
  resizeTable,
  sheetOf,
  sortTable,
  TABLE_STYLES,
  type ModelTable,
} from "./tables-model.ts";

const bad = (what: string) =>
  new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${what})`);
function needs(ctx: DevRequestContext, version: string, what: string): void {
  if (!versionAtLeast(ctx.env.apiVersion, version)) throw bad(`${what} requires ExcelApi ${version}`);
}
/** A range argument: an address (on `sheet`, or naming its sheet) or a Range proxy, resolved at sync. */
function rangeArg(ctx: DevRequestContext, arg: unknown, sheet: ModelSheet | null): { sheet: ModelSheet; rect: Rect } {
  if (arg instanceof DevRange) return arg.rangeTarget();
  if (typeof arg !== "string") throw bad("range");
  let a;
  try {
    a = parseAddress(arg);
  } catch {
    throw bad(`address ${arg}`);
  }
  // "If the address does not contain a sheet name, the currently-active sheet is used" (TableCollection.add).
  const s = a.sheet !== null ? ctx.env.wb.requireSheet(a.sheet) : (sheet ?? ctx.env.wb.sheetById(ctx.env.wb.activeSheetId) ?? null);
  if (!s || (sheet && s !== sheet)) throw bad(`address ${arg}`);
  return { sheet: s, rect: { row: a.row, col: a.col, rows: a.rows, cols: a.cols } };
}
function changed(st: SyncState, sheet: ModelSheet, ctx: DevRequestContext, rect: Rect): void {
  st.events.push({
    kind: "changed",
    worksheetId: sheet.id,
    address: ctx.env.wb.address(sheet, rect).split("!")[1]!,
    changeType: "RangeEdited",
    triggerSource: "ThisLocalAddin",
  });
}

/** Worksheet.tables (the sheet's) and Workbook.tables (every sheet's). */
export class DevTableCollection extends DevCollection<ModelTable, DevTable> {
  protected readonly _itemScalarProps = ["id", "name", "style", "showHeaders", "showFilterButton", "showTotals"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly sheet: (() => ModelSheet) | null,
  ) {
    super(ctx);
  }
  protected _list(): ModelTable[] {
    return this.sheet ? [...(this.sheet().tables ?? [])] : allTables(this.context.env.wb).map((x) => x.table);
  }
  protected _proxy(t: ModelTable): DevTable {
    return new DevTable(this.context, () => t);
  }
  protected _readItem(t: ModelTable, prop: string): unknown {
    return readTable(this.context, t, prop);
  }
  /** ExcelApi 1.1: a table over the range; fails on another table, merged cells, a spill (tables-model.ts checkFree). */
  add(address: unknown, hasHeaders: boolean): DevTable {
    let made: ModelTable | null = null;
    this.context.enqueue({ addTable: typeof address === "string" ? address : "range", hasHeaders }, (st) => {
      const { sheet, rect } = rangeArg(this.context, address, this.sheet ? this.sheet() : null);
      made = createTable(this.context.env.wb, sheet, rect, hasHeaders === true);
      changed(st, sheet, this.context, made.rect);
    });
    return new DevTable(this.context, () => made);
  }
  getItem(key: string): DevTable {
    return new DevTable(this.context, () => findTable(this.context.env.wb, key, this.sheet?.()) ?? null);
  }
  getItemOrNullObject(key: string): DevTable {
    return new DevTable(this.context, () => findTable(this.context.env.wb, key, this.sheet?.()) ?? null, true);
  }
  getItemAt(index: number): DevTable {
    return new DevTable(this.context, () => this._list()[index] ?? null);
  }
}

export function readTable(ctx: DevRequestContext, t: ModelTable, prop: string): unknown {
  switch (prop) {
    case "id":
      return String(t.id);
    case "name":
      return t.name;
    case "style":
      return t.style;
    case "showHeaders":
      return t.showHeaders;
    case "showFilterButton":
      return t.showFilterButton;
    case "showTotals":
      return false;
    case "worksheetId":
      return sheetOf(ctx.env.wb, t).id;
    default:
      throw bad(`Table.${prop} is not modelled`);
  }
}

export class DevTable extends DevClientObject<ModelTable> {
  protected readonly _scalarProps = ["id", "name", "style", "showHeaders", "showFilterButton", "showTotals"] as const;
  // Navigation properties answer the same object each time, as Office.js's do (load on one, read on it later).
  private _columns?: DevTableColumnCollection;
  private _rows?: DevTableRowCollection;
  private _sort?: DevTableSort;
  private _autoFilter?: DevTableAutoFilter;
  protected _read(t: ModelTable, prop: string): unknown {
    return readTable(this.context, t, prop);
  }
  private wb() {
    return this.context.env.wb;
  }
  get id(): string {
    return this._get("id");
  }
  get name(): string {
    return this._get("name");
  }
  /** Valid and unique among the workbook's tables and names; structured references follow the new name. */
  set name(v: string) {
    this._do({ tableName: v }, (t) => {
      const before = t.name;
      t.name = checkTableName(this.wb(), v, t);
      if (before !== t.name) renameTableRefs(this.wb(), before, t.name);
    });
  }
  get style(): string {
    return this._get("style");
  }
  set style(v: string) {
    this._do({ style: v }, (t) => {
      if (!TABLE_STYLES.has(v)) throw bad(`table style ${JSON.stringify(v)}`);
      t.style = v;
    });
  }
  get showHeaders(): boolean {
    return this._get("showHeaders");
  }
  set showHeaders(v: boolean) {
    this._do({ showHeaders: v }, (t) => void (t.showHeaders = v === true));
  }
  get showFilterButton(): boolean {
    return this._get("showFilterButton");
  }
  set showFilterButton(v: boolean) {
    this._do({ showFilterButton: v }, (t) => void (t.showFilterButton = v === true));
  }
  get showTotals(): boolean {
    return this._get("showTotals");
  }
  get columns(): DevTableColumnCollection {
    return (this._columns ??= new DevTableColumnCollection(this.context, () => this._target()));
  }
  get rows(): DevTableRowCollection {
    return (this._rows ??= new DevTableRowCollection(this.context, () => this._target()));
  }
  /** ExcelApi 1.2. */
  get sort(): DevTableSort {
    needs(this.context, "1.2", "Table.sort");
    return (this._sort ??= new DevTableSort(this.context, () => this._target()));
  }
  /** ExcelApi 1.9. */
  get autoFilter(): DevTableAutoFilter {
    needs(this.context, "1.9", "Table.autoFilter");
    return (this._autoFilter ??= new DevTableAutoFilter(this.context, () => this._target()));
  }
  get worksheet() {
    return new DevRange(this.context, () => {
      const t = this._target();
      return { sheet: sheetOf(this.wb(), t), rect: t.rect };
    }).worksheet;
  }
  private part(pick: (t: ModelTable) => Rect): DevRange {
    return new DevRange(this.context, () => {
      const t = this._target();
      return { sheet: sheetOf(this.wb(), t), rect: pick(t) };
    });
  }
  getRange(): DevRange {
    return this.part((t) => ({ ...t.rect }));
  }
  getHeaderRowRange(): DevRange {
    return this.part((t) => ({ ...t.rect, rows: 1 }));
  }
  getDataBodyRange(): DevRange {
    return this.part((t) => ({ ...t.rect, row: t.rect.row + 1, rows: t.rect.rows - 1 }));
  }
  /** ExcelApi 1.13: see tables-model.ts resizeTable for Excel's rules. */
  resize(newRange: unknown): void {
    needs(this.context, "1.13", "Table.resize");
    this._do({ resize: typeof newRange === "string" ? newRange : "range" }, (t, st) => {
      const sheet = sheetOf(this.wb(), t);
      const { sheet: s, rect } = rangeArg(this.context, newRange, sheet);
      if (s !== sheet) throw bad("Table.resize: the new range is on another sheet");
      resizeTable(this.wb(), sheet, t, rect);
      changed(st, sheet, this.context, t.rect);
    });
  }
  /** Deletes the table and its cells. */
  delete(): void {
    this._do({ deleteTable: 1 }, (t, st) => {
      const sheet = sheetOf(this.wb(), t);
      for (let r = 0; r < t.rect.rows; r++)
        for (let c = 0; c < t.rect.cols; c++) this.wb().setCell(sheet, t.rect.row + r, t.rect.col + c, undefined);
      sheet.tables = sheet.tables!.filter((x) => x !== t);
      changed(st, sheet, this.context, t.rect);
    });
  }
  /** ExcelApi 1.2: the table goes, its cells stay (structured references are not rewritten: see the fidelity doc). */
  convertToRange(): DevRange {
    const out: { t: { sheet: ModelSheet; rect: Rect } | null } = { t: null };
    this._do({ convertToRange: 1 }, (t) => {
      const sheet = sheetOf(this.wb(), t);
      sheet.tables = sheet.tables!.filter((x) => x !== t);
      out.t = { sheet, rect: { ...t.rect } };
    });
    return new DevRange(this.context, () => out.t);
  }
}

// ---- columns ------------------------------------------------------------------------------------------
interface ColumnRef {
  table: ModelTable;
  index: number;
}
export class DevTableColumnCollection extends DevCollection<ColumnRef, DevTableColumn> {
  protected readonly _itemScalarProps = ["id", "index", "name"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly table: () => ModelTable,
  ) {
    super(ctx);
  }
  protected _list(): ColumnRef[] {
    const t = this.table();
    return t.columns.map((_, index) => ({ table: t, index }));
  }
  protected _proxy(c: ColumnRef): DevTableColumn {
    return new DevTableColumn(this.context, () => c);
  }
  protected _readItem(c: ColumnRef, prop: string): unknown {
    return readColumn(c, prop);
  }
  /** ExcelApi 1.1 (name: 1.4): a column at index (default: the end); values include the header row. */
  add(index?: number | null, values?: unknown[][] | null, name?: string | null): DevTableColumn {
    if (name != null) needs(this.context, "1.4", "TableColumnCollection.add name");
    let made: ColumnRef | null = null;
    this.context.enqueue({ addColumn: index ?? null, values: values ?? null, name: name ?? null }, (st) => {
      const t = this.table();
      const sheet = sheetOf(this.context.env.wb, t);
      const i = addColumn(this.context.env.wb, sheet, t, index ?? null, values ?? null, name ?? null);
      made = { table: t, index: i };
      changed(st, sheet, this.context, t.rect);
    });
    return new DevTableColumn(this.context, () => made);
  }
  getItemAt(index: number): DevTableColumn {
    return new DevTableColumn(this.context, () => {
      const t = this.table();
      return index >= 0 && index < t.columns.length ? { table: t, index } : null;
    });
  }
  private byKey(key: string | number): ColumnRef | null {
    const t = this.table();
    const i = t.columns.findIndex((c) => String(c.id) === String(key) || c.name.toLowerCase() === String(key).toLowerCase());
    return i < 0 ? null : { table: t, index: i };
  }
  getItem(key: string | number): DevTableColumn {
    return new DevTableColumn(this.context, () => this.byKey(key));
  }
  getItemOrNullObject(key: string | number): DevTableColumn {
    return new DevTableColumn(this.context, () => this.byKey(key), true);
  }
}
function readColumn(c: ColumnRef, prop: string): unknown {
  const col = c.table.columns[c.index];
  if (!col) throw new OfficeError("ItemNotFound", "The requested resource doesn't exist. (table column)");
  if (prop === "id") return col.id;
  if (prop === "index") return c.index;
  if (prop === "name") return col.name;
  throw bad(`TableColumn.${prop} is not modelled`);
}
export class DevTableColumn extends DevClientObject<ColumnRef> {
  protected readonly _scalarProps = ["id", "index", "name"] as const;
  protected _read(c: ColumnRef, prop: string): unknown {
    return readColumn(c, prop);
  }
  get id(): number {
    return this._get("id");
  }
  get index(): number {
    return this._get("index");
  }
  get name(): string {
    return this._get("name");
  }
  /** Renames the column: its header cell and the structured references to it follow. */
  set name(v: string) {
    this._do({ columnName: v }, (c) => renameColumn(this.context.env.wb, sheetOf(this.context.env.wb, c.table), c.table, c.index, v));
  }
  delete(): void {
    this._do({ deleteColumn: 1 }, (c, st) => {
      const sheet = sheetOf(this.context.env.wb, c.table);
      const before = { ...c.table.rect };
      deleteColumn(this.context.env.wb, sheet, c.table, c.index);
      changed(st, sheet, this.context, before);
    });
  }
  private part(header: boolean | null): DevRange {
    return new DevRange(this.context, () => {
      const { table: t, index } = this._target();
      const sheet = sheetOf(this.context.env.wb, t);
      const col = t.rect.col + index;
      if (header === true) return { sheet, rect: { row: t.rect.row, col, rows: 1, cols: 1 } };
      return header === false
        ? { sheet, rect: { row: t.rect.row + 1, col, rows: t.rect.rows - 1, cols: 1 } }
        : { sheet, rect: { row: t.rect.row, col, rows: t.rect.rows, cols: 1 } };
    });
  }
  getRange(): DevRange {
    return this.part(null);
  }
  getHeaderRowRange(): DevRange {
    return this.part(true);
  }
  getDataBodyRange(): DevRange {
    return this.part(false);
  }
}

// ---- rows ---------------------------------------------------------------------------------------------
interface RowRef {
  table: ModelTable;
  index: number;
}
export class DevTableRowCollection extends DevCollection<RowRef, DevTableRow> {
  protected readonly _itemScalarProps = ["index", "values"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly table: () => ModelTable,
  ) {
    super(ctx);
  }
  protected _list(): RowRef[] {
    const t = this.table();
    return Array.from({ length: t.rect.rows - 1 }, (_, index) => ({ table: t, index }));
  }
  protected _proxy(r: RowRef): DevTableRow {
    return new DevTableRow(this.context, () => r);
  }
  protected _readItem(r: RowRef, prop: string, st: SyncState): unknown {
    return readRow(this.context, r, prop, st);
  }
  /** ExcelApi 1.1: rows at index (default: the end), cells of the table's columns move down. */
  add(index?: number | null, values?: unknown[][] | null): DevTableRow {
    let made: RowRef | null = null;
    this.context.enqueue({ addRows: index ?? null, values: values ?? null }, (st) => {
      const t = this.table();
      const sheet = sheetOf(this.context.env.wb, t);
      const count = values?.length ?? 1;
      const at = addRows(this.context.env.wb, sheet, t, index ?? null, values ?? null, count);
      made = { table: t, index: at - t.rect.row - 1 };
      changed(st, sheet, this.context, t.rect);
    });
    return new DevTableRow(this.context, () => made);
  }
  getItemAt(index: number): DevTableRow {
    return new DevTableRow(this.context, () => {
      const t = this.table();
      return index >= 0 && index < t.rect.rows - 1 ? { table: t, index } : null;
    });
  }
  /**
   * ExcelApiOnline 1.1 (Excel on the web): deletes rows (indexes or TableRow objects, not necessarily
   * adjacent); InsertDeleteConflict while the table's AutoFilter hides rows.
   */
  deleteRows(rows: Array<number | DevTableRow>): void {
    if (this.context.env.platform !== "OfficeOnline")
      throw new OfficeError("ApiNotFound", "TableRowCollection.deleteRows is in ExcelApiOnline 1.1 (Excel on the web) only.");
    this.context.enqueue({ deleteRows: rows.map((r) => (typeof r === "number" ? r : "row")) }, (st) => {
      const t = this.table();
      const sheet = sheetOf(this.context.env.wb, t);
      if (t.filter && t.filter.criteria.length)
        throw new OfficeError(
          "InsertDeleteConflict",
          "The insert or delete operation attempted resulted in a conflict: the table is filtered.",
        );
      const before = { ...t.rect };
      deleteRows(
        this.context.env.wb,
        sheet,
        t,
        rows.map((r) => (typeof r === "number" ? r : r.rowRef().index)),
      );
      changed(st, sheet, this.context, before);
    });
  }
}
function readRow(ctx: DevRequestContext, r: RowRef, prop: string, st: SyncState): unknown {
  if (prop === "index") return r.index;
  if (prop === "values") {
    const wb = ctx.env.wb;
    const sheet = sheetOf(wb, r.table);
    st.cellsRead += r.table.rect.cols;
    return [Array.from({ length: r.table.rect.cols }, (_, c) => wb.readCell(sheet, r.table.rect.row + 1 + r.index, r.table.rect.col + c))];
  }
  throw bad(`TableRow.${prop} is not modelled`);
}
export class DevTableRow extends DevClientObject<RowRef> {
  protected readonly _scalarProps = ["index", "values"] as const;
  protected _read(r: RowRef, prop: string, st: SyncState): unknown {
    return readRow(this.context, r, prop, st);
  }
  get index(): number {
    return this._get("index");
  }
  get values(): unknown[][] {
    return this._get("values");
  }
  /** The row's place, resolved at sync (deleteRows takes TableRow objects). */
  rowRef(): RowRef {
    return this._target();
  }
  getRange(): DevRange {
    return new DevRange(this.context, () => {
      const { table: t, index } = this._target();
      return { sheet: sheetOf(this.context.env.wb, t), rect: { row: t.rect.row + 1 + index, col: t.rect.col, rows: 1, cols: t.rect.cols } };
    });
  }
  delete(): void {
    this._do({ deleteRow: 1 }, (r, st) => {
      const sheet = sheetOf(this.context.env.wb, r.table);
      const before = { ...r.table.rect };
      deleteRows(this.context.env.wb, sheet, r.table, [r.index]);
      changed(st, sheet, this.context, before);
    });
  }
}

// ---- sort and filter ----------------------------------------------------------------------------------
export class DevTableSort extends DevClientObject<ModelTable> {
  protected readonly _scalarProps = ["fields", "matchCase", "method"] as const;
  protected _read(t: ModelTable, prop: string): unknown {
    if (prop === "fields") return (t.sort?.fields ?? []).map((f) => ({ key: f.key, ascending: f.ascending }));
    if (prop === "matchCase") return t.sort?.matchCase ?? false;
    if (prop === "method") return "PinYin";
    throw bad(`TableSort.${prop} is not modelled`);
  }
  get fields(): Array<{ key: number; ascending: boolean }> {
    return this._get("fields");
  }
  get matchCase(): boolean {
    return this._get("matchCase");
  }
  /** fields: { key (column index in the table), ascending (default true) }; only value sorts are modelled. */
  apply(fields: Array<{ key: number; ascending?: boolean; sortOn?: string }>, matchCase = false): void {
    this._do({ sortApply: fields, matchCase }, (t, st) => {
      if (!fields.length || fields.some((f) => !Number.isInteger(f.key) || f.key < 0 || f.key >= t.columns.length))
        throw bad("TableSort.apply fields");
      if (fields.some((f) => f.sortOn !== undefined && f.sortOn !== "Value")) throw bad("only sortOn Value is modelled");
      t.sort = { fields: fields.map((f) => ({ key: f.key, ascending: f.ascending !== false })), matchCase };
      sortTable(this.context.env.wb, sheetOf(this.context.env.wb, t), t);
      changed(st, sheetOf(this.context.env.wb, t), this.context, t.rect);
    });
  }
  reapply(): void {
    this._do({ sortReapply: 1 }, (t, st) => {
      sortTable(this.context.env.wb, sheetOf(this.context.env.wb, t), t);
      changed(st, sheetOf(this.context.env.wb, t), this.context, t.rect);
    });
  }
  /** The sort state goes; the rows stay in their order. */
  clear(): void {
    this._do({ sortClear: 1 }, (t) => void delete t.sort);
  }
}

export class DevTableAutoFilter extends DevClientObject<ModelTable> {
  protected readonly _scalarProps = ["enabled", "isDataFiltered", "criteria"] as const;
  protected _read(t: ModelTable, prop: string): unknown {
    if (prop === "enabled") return t.showFilterButton;
    if (prop === "isDataFiltered") return (t.filter?.criteria.length ?? 0) > 0;
    if (prop === "criteria")
      return t.columns.map((_, i) => {
        const c = t.filter?.criteria.find((x) => x.col === i);
        return c ? { filterOn: "Values", values: [...c.values] } : {};
      });
    throw bad(`AutoFilter.${prop} is not modelled`);
  }
  get enabled(): boolean {
    return this._get("enabled");
  }
  get isDataFiltered(): boolean {
    return this._get("isDataFiltered");
  }
  get criteria(): unknown[] {
    return this._get("criteria");
  }
  /** Only "Values" criteria are modelled; the range is the table's. */
  apply(_range: unknown, columnIndex?: number, criteria?: { filterOn?: string; values?: unknown[] }): void {
    if (criteria && criteria.filterOn !== "Values") throw bad(`AutoFilter criteria ${String(criteria.filterOn)} are not modelled`);
    this._do({ tableAutoFilter: columnIndex ?? null }, (t) => {
      const f = (t.filter ??= { criteria: [], hidden: [] });
      if (columnIndex !== undefined && (columnIndex < 0 || columnIndex >= t.columns.length)) throw bad(`columnIndex ${columnIndex}`);
      if (columnIndex !== undefined && criteria?.values)
        f.criteria = [...f.criteria.filter((c) => c.col !== columnIndex), { col: columnIndex, values: criteria.values.map(String) }];
      t.showFilterButton = true;
      refilterTable(this.context.env.wb, sheetOf(this.context.env.wb, t), t);
    });
  }
  reapply(): void {
    this._do({ tableAutoFilterReapply: 1 }, (t) => refilterTable(this.context.env.wb, sheetOf(this.context.env.wb, t), t));
  }
  clearCriteria(): void {
    this._do({ tableClearCriteria: 1 }, (t) => void delete t.filter);
  }
}
