// src/host/memory: a plain in-memory SheetPort for the pure sync tests.
// It keeps cells, number formats, tracked areas and per-workbook data in maps, and has a small
// "user side" (MemoryWorkbook) to simulate edits, row/column insertions and copies.
// It models the port's contract, not Excel: strings are always stored as text.

import { areaA1 } from "../a1.ts";
import { shiftArea } from "../geometry.ts";
import { commitVia, recheckVia, snapshotVia, type KeepsTables } from "../batch.ts";
import { isExcelName } from "../names.ts";
import { editColumns, reapplySort, readTable, setTable, tableObstacles, type MemTable, type TableSheet } from "./tables.ts";
import type {
  Area,
  AreaStyle,
  Command,
  CommitOptions,
  CommitStats,
  FoundCells,
  Recheck,
  RecheckRequest,
  Snapshot,
  SnapshotRequest,
  AreaStyleRead,
  HostKind,
  ReadOptions,
  SheetChange,
  SheetPort,
  SheetRef,
  SheetValue,
  TrackedArea,
  WorkbookIdentity,
  WriteOptions,
  WriteStats,
  SetDataOptions,
  Obstacle,
  TableColumnEdit,
  TableRead,
} from "../port.ts";
import { DataChangedError, sameData } from "../port.ts";
import {
  dataToJson,
  pictureSize,
  validateColumnFormats,
  validateStyle,
  PortInputError,
  to15Digits,
  validateArea,
  validateDataKey,
  validateGrid,
  validatePlacement,
  validateTrackName,
} from "../validate.ts";

interface MemCell {
  v: SheetValue;
  nf: string | null;
  b?: boolean;
  fill?: string;
}
/** Cells by row, then column (sparse). */
type MemCells = Map<number, Map<number, MemCell>>;
interface MemSheet {
  id: string;
  name: string;
  cells: MemCells;
  frozenRows?: number;
  autofitted?: Set<number>;
  /** Tables (issue 33), header row first. */
  tables?: MemTable[];
}
interface MemTrack {
  name: string;
  sheetId: string;
  area: Omit<Area, "sheetId"> | null;
}

function getCell(cells: MemCells, r: number, c: number): MemCell | undefined {
  return cells.get(r)?.get(c);
}
function setCell(cells: MemCells, r: number, c: number, cell: MemCell | undefined): void {
  let row = cells.get(r);
  if (!cell) {
    row?.delete(c);
    return;
  }
  if (!row) cells.set(r, (row = new Map()));
  row.set(c, cell);
}
function copyCells(cells: MemCells): MemCells {
  return new Map([...cells].map(([r, row]) => [r, new Map([...row].map(([c, cell]) => [c, { ...cell }]))]));
}

export class MemoryWorkbook {
  readonly sheets: MemSheet[] = [];
  readonly tracks = new Map<string, MemTrack>(); // by lower-case name
  /** The person's own workbook-scoped defined names (Formulas › Define Name), by lower-case name. */
  readonly names = new Map<string, MemTrack>();
  readonly data = new Map<string, string>();
  /** Pictures per sheet id (putPicture). */
  readonly pictures = new Map<string, Array<{ name: string; base64: string; row: number; col: number; width: number; height: number }>>();
  workbookId: string | null = null;
  recordedUrl: string | null = null;
  selection: { sheetId: string; area: Omit<Area, "sheetId"> } | null = null;
  private nextSheet = 1;
  private readonly listeners = new Set<(c: SheetChange) => void>();

  constructor(
    public url: string | null = null,
    public name = "Book1",
  ) {
    this.addSheet("Sheet1");
  }

  // ---- user side -------------------------------------------------------------------------
  addSheet(name: string): SheetRef {
    if (this.sheets.some((s) => s.name.toLowerCase() === name.toLowerCase())) throw new PortInputError(`a sheet named ${name} exists`);
    const sheet: MemSheet = { id: `mem-sheet-${this.nextSheet++}`, name, cells: new Map() };
    this.sheets.push(sheet);
    this.emit({ sheetId: sheet.id, address: "", kind: "SheetAdded", source: "Local" });
    return { id: sheet.id, name };
  }
  renameSheet(id: string, name: string): void {
    const s = this.sheet(id);
    if (this.sheets.some((o) => o !== s && o.name.toLowerCase() === name.toLowerCase()))
      throw new PortInputError(`a sheet named ${name} exists`);
    s.name = name;
    this.emit({ sheetId: id, address: "", kind: "SheetRenamed", source: "Local" });
  }
  deleteSheet(id: string): void {
    const s = this.sheet(id);
    if (this.sheets.length === 1) throw new PortInputError("a workbook must keep at least one sheet");
    this.sheets.splice(this.sheets.indexOf(s), 1);
    for (const t of [...this.tracks.values(), ...this.names.values()]) if (t.sheetId === id) t.area = null;
    if (this.selection?.sheetId === id) this.selection = null;
    this.emit({ sheetId: id, address: "", kind: "SheetDeleted", source: "Local" });
  }
  /**
   * The person defines a workbook-scoped name for an area (Formulas › Define Name), as Excel allows:
   * a letter, "_" or "\\" first, then letters, digits, "_", "."; not a cell reference; unique whatever its case.
   */
  defineName(name: string, area: Area): void {
    if (!isExcelName(name)) throw new PortInputError(`${JSON.stringify(name)} is not a name Excel allows`);
    if (this.names.has(name.toLowerCase())) throw new PortInputError(`a name ${name} exists`);
    validateArea(area);
    this.sheet(area.sheetId);
    this.names.set(name.toLowerCase(), {
      name,
      sheetId: area.sheetId,
      area: { row: area.row, col: area.col, rows: area.rows, cols: area.cols },
    });
  }
  /** The person deletes a defined name (Name Manager › Delete). */
  deleteName(name: string): void {
    this.names.delete(name.toLowerCase());
  }
  /** The user picks a number format for a cell (no change event, as in Excel). */
  userFormat(sheetId: string, row: number, col: number, format: string): void {
    const s = this.sheet(sheetId);
    const c = getCell(s.cells, row, col);
    setCell(s.cells, row, col, { ...(c ?? { v: "" }), nf: format === "General" ? null : format });
  }
  /** Type a value into a cell as the user. */
  userEdit(sheetId: string, row: number, col: number, value: SheetValue): void {
    const s = this.sheet(sheetId);
    if (value === "") setCell(s.cells, row, col, undefined);
    else
      setCell(s.cells, row, col, { v: typeof value === "number" ? to15Digits(value) : value, nf: getCell(s.cells, row, col)?.nf ?? null });
    this.emit({ sheetId, address: areaA1({ row, col, rows: 1, cols: 1 }), kind: "RangeEdited", source: "Local" });
  }
  insertRows(sheetId: string, at: number, count: number, source: SheetChange["source"] = "Local"): void {
    this.shift(sheetId, "row", at, count);
    this.emit({ sheetId, address: `${at + 1}:${at + count}`, kind: "RowInserted", source });
  }
  deleteRows(sheetId: string, at: number, count: number, source: SheetChange["source"] = "Local"): void {
    this.shift(sheetId, "row", at, -count);
    this.emit({ sheetId, address: `${at + 1}:${at + count}`, kind: "RowDeleted", source });
  }
  insertColumns(sheetId: string, at: number, count: number, source: SheetChange["source"] = "Local"): void {
    this.shift(sheetId, "col", at, count);
    this.emit({ sheetId, address: colSpan(at, count), kind: "ColumnInserted", source });
  }
  deleteColumns(sheetId: string, at: number, count: number, source: SheetChange["source"] = "Local"): void {
    this.shift(sheetId, "col", at, -count);
    this.emit({ sheetId, address: colSpan(at, count), kind: "ColumnDeleted", source });
  }
  /** The person makes a table (Insert › Table, "My table has headers") over an area whose first row is its headers. */
  addTable(area: Area, name: string, style = "TableStyleMedium2"): void {
    validateArea(area);
    setTable(this.tableSheet(area.sheetId), this.allTables(), name, area, { style });
  }
  /** The person sorts a table by one of its columns (Data › Sort): its data rows are reordered, the sort kept. */
  sortTable(name: string, column: number, ascending = true): void {
    const { sheet, table } = this.table(name);
    table.sort = [{ column, ascending }];
    reapplySort(this.tableSheet(sheet.id), table);
  }
  /** The person filters a table by a column's values (rows hidden; this model keeps only that it is filtered). */
  filterTable(name: string, filtered = true): void {
    this.table(name).table.filtered = filtered;
  }
  /** The person types a formula into a table column (a calculated column): kept, not computed here. */
  calculatedColumn(name: string, column: number, formula: string): void {
    this.table(name).table.formulas[column] = formula;
  }
  table(name: string): { sheet: MemSheet; table: MemTable } {
    for (const sheet of this.sheets)
      for (const table of sheet.tables ?? []) if (table.name.toLowerCase() === name.toLowerCase()) return { sheet, table };
    throw new PortInputError(`there is no table ${name}`);
  }
  allTables(): MemTable[] {
    return this.sheets.flatMap((s) => s.tables ?? []);
  }
  /** A sheet as the table code sees it. */
  tableSheet(id: string): TableSheet {
    const s = this.sheet(id);
    const tables = (s.tables ??= []);
    return {
      id,
      tables,
      value: (r, c) => getCell(s.cells, r, c)?.v ?? "",
      setValue: (r, c, v) => {
        const old = getCell(s.cells, r, c);
        setCell(s.cells, r, c, v === "" && !old?.nf && !old?.b && old?.fill === undefined ? undefined : { ...(old ?? { nf: null }), v });
      },
      shiftRight: (row, rows, from, delta) => {
        for (let r = row; r < row + rows; r++) {
          const line = s.cells.get(r);
          if (!line) continue;
          const moved = new Map<number, MemCell>();
          for (const [c, cell] of line) {
            if (c < from + Math.min(delta, 0)) moved.set(c, cell);
            else if (c >= from) moved.set(c + delta, cell);
          }
          s.cells.set(r, moved);
        }
      },
    };
  }

  /** A copy of the file saved under another URL: same cells, names, data and stored id. */
  saveAsCopy(url: string): MemoryWorkbook {
    const copy = new MemoryWorkbook(url, this.name);
    copy.sheets.length = 0;
    for (const s of this.sheets)
      copy.sheets.push({
        id: s.id,
        name: s.name,
        cells: copyCells(s.cells),
        ...(s.tables ? { tables: s.tables.map((t) => structuredClone(t)) } : {}),
      });
    for (const [k, t] of this.tracks) copy.tracks.set(k, { ...t, area: t.area && { ...t.area } });
    for (const [k, t] of this.names) copy.names.set(k, { ...t, area: t.area && { ...t.area } });
    for (const [k, v] of this.data) copy.data.set(k, v);
    copy.workbookId = this.workbookId;
    copy.recordedUrl = this.recordedUrl;
    copy.nextSheet = this.nextSheet;
    return copy;
  }
  cell(sheetId: string, row: number, col: number): { value: SheetValue; numberFormat: string } {
    const c = getCell(this.sheet(sheetId).cells, row, col);
    return { value: c?.v ?? "", numberFormat: c?.nf ?? "General" };
  }

  // ---- internals shared with MemoryPort --------------------------------------------------
  sheet(id: string): MemSheet {
    const s = this.sheets.find((x) => x.id === id);
    if (!s) throw new PortInputError(`no sheet with id ${id}`);
    return s;
  }
  on(listener: (c: SheetChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(change: SheetChange): void {
    for (const l of [...this.listeners]) queueMicrotask(() => l(change));
  }

  private shift(sheetId: string, axis: "row" | "col", at: number, delta: number): void {
    const s = this.sheet(sheetId);
    const moved: MemCells = new Map();
    for (const [r, row] of s.cells) {
      for (const [col, c] of row) {
        const p = axis === "row" ? r : col;
        if (delta < 0 && p >= at && p < at - delta) continue; // deleted
        const np = p >= at ? p + delta : p;
        if (axis === "row") setCell(moved, np, col, c);
        else setCell(moved, r, np, c);
      }
    }
    s.cells = moved;
    // Tables move with their cells, grow with rows or columns inserted inside, go when all their cells do.
    s.tables = (s.tables ?? []).flatMap((t) => {
      const a = shiftArea(t, axis, at, delta);
      if (!a) return [];
      if (axis === "col" && a.cols !== t.cols) {
        const inside = at - t.col;
        if (delta > 0) t.formulas.splice(inside, 0, ...Array.from({ length: delta }, () => null));
        else t.formulas.splice(Math.max(inside, 0), Math.min(-delta, t.cols - a.cols));
      }
      return [Object.assign(t, { row: a.row, col: a.col, rows: a.rows, cols: a.cols })];
    });
    for (const t of [...this.tracks.values(), ...this.names.values()]) {
      if (t.sheetId !== sheetId || !t.area) continue;
      t.area = shiftArea(t.area, axis, at, delta);
    }
  }
}

function colSpan(at: number, count: number): string {
  const a = areaA1({ row: 0, col: at, rows: 1, cols: count }).replace(/[0-9]/g, "");
  return a.includes(":") ? a : `${a}:${a}`;
}

export class MemoryPort implements SheetPort, KeepsTables {
  constructor(
    readonly wb: MemoryWorkbook = new MemoryWorkbook(),
    readonly host: HostKind = "SHEETS_DESKTOP",
  ) {}

  /** Batched steps cost nothing here: the same contract, built from the methods below (src/host/batch.ts). */
  snapshot(req?: SnapshotRequest): Promise<Snapshot> {
    return snapshotVia(this, req);
  }
  commit(commands: readonly Command[], options?: CommitOptions): Promise<CommitStats> {
    return commitVia(this, commands, options);
  }
  recheck(req?: RecheckRequest): Promise<Recheck> {
    return recheckVia(this, req);
  }
  /** The non-empty cells of an area (this port has no formulas: a cell's formula is its value). */
  async cellsIn(area: Area): Promise<FoundCells | null> {
    const used = await this.usedArea(area);
    if (!used) return null;
    const s = this.wb.sheet(area.sheetId);
    const rows = Array.from({ length: used.rows }, (_, r) =>
      Array.from({ length: used.cols }, (_, c) => getCell(s.cells, used.row + r, used.col + c)),
    );
    const values = rows.map((row) => row.map((c) => c?.v ?? ""));
    return {
      area: used,
      values,
      formulas: values.map((row) => [...row]),
      numberFormats: rows.map((row) => row.map((c) => c?.nf ?? "General")),
    };
  }
  /** Put cells back as found: their values and number formats (bold and fill stay as they are). */
  async restoreCells(found: FoundCells): Promise<void> {
    validateArea(found.area);
    const s = this.wb.sheet(found.area.sheetId);
    found.formulas.forEach((row, r) =>
      row.forEach((v, c) => {
        const old = getCell(s.cells, found.area.row + r, found.area.col + c);
        const f = found.numberFormats[r]?.[c] ?? "General";
        const cell: MemCell = { ...old, v: typeof v === "number" ? to15Digits(v) : v, nf: f === "General" ? null : f };
        setCell(
          s.cells,
          found.area.row + r,
          found.area.col + c,
          v === "" && cell.nf === null && !cell.b && cell.fill === undefined ? undefined : cell,
        );
      }),
    );
  }
  dataKeys(): string[] {
    return [...this.wb.data.keys()];
  }

  // ---- tables (issue 33; src/host/memory/tables.ts) ------------------------------------------
  tableList(): TableRead[] {
    return this.wb.sheets.flatMap((s) => (s.tables ?? []).map((t) => readTable(this.wb.tableSheet(s.id), t)));
  }
  editTableColumns(table: string, edits: readonly TableColumnEdit[]): void {
    const { sheet, table: t } = this.wb.table(table);
    editColumns(this.wb.tableSheet(sheet.id), t, edits);
  }
  setTable(table: string, area: Area, create: { style: string } | undefined, reapply: boolean): void {
    validateArea(area);
    const t = setTable(this.wb.tableSheet(area.sheetId), this.wb.allTables(), table, area, create);
    if (reapply) reapplySort(this.wb.tableSheet(area.sheetId), t);
  }
  dropTable(table: string): void {
    for (const s of this.wb.sheets) {
      const i = (s.tables ?? []).findIndex((t) => t.name.toLowerCase() === table.toLowerCase());
      if (i >= 0) s.tables!.splice(i, 1);
    }
  }
  /** What would refuse or break a write here: tables only (this port has no merged cells or protection). */
  async obstacles(area: Area): Promise<Obstacle[]> {
    validateArea(area);
    return tableObstacles(this.wb.tableSheet(area.sheetId), area);
  }

  async identity(): Promise<WorkbookIdentity> {
    if (!this.wb.workbookId) {
      this.wb.workbookId = crypto.randomUUID();
      this.wb.recordedUrl = this.wb.url;
    } else if (this.wb.recordedUrl === null && this.wb.url !== null) {
      this.wb.recordedUrl = this.wb.url; // first save of a new file: not a copy
    }
    return this.describe();
  }
  async forkIdentity(): Promise<WorkbookIdentity> {
    this.wb.workbookId = crypto.randomUUID();
    this.wb.recordedUrl = this.wb.url;
    return this.describe();
  }
  async takeIdentity(workbookId: string): Promise<WorkbookIdentity> {
    this.wb.workbookId = workbookId;
    this.wb.recordedUrl = this.wb.url;
    return this.describe();
  }
  async keepIdentity(): Promise<WorkbookIdentity> {
    await this.identity();
    this.wb.recordedUrl = this.wb.url;
    return this.describe();
  }
  private describe(): WorkbookIdentity {
    const { workbookId, url, recordedUrl, name } = this.wb;
    return {
      workbookId: workbookId!,
      documentUrl: url,
      recordedUrl,
      copied: recordedUrl !== null && url !== null && recordedUrl !== url,
      name,
    };
  }
  async sheets(): Promise<SheetRef[]> {
    return this.wb.sheets.map((s) => ({ id: s.id, name: s.name }));
  }
  async selection(): Promise<{ sheet: SheetRef; area: Area }> {
    const sel = this.wb.selection ?? { sheetId: this.wb.sheets[0]!.id, area: { row: 0, col: 0, rows: 1, cols: 1 } };
    const s = this.wb.sheet(sel.sheetId);
    return { sheet: { id: s.id, name: s.name }, area: { sheetId: s.id, ...sel.area } };
  }
  async select(area: Area): Promise<void> {
    validateArea(area);
    this.wb.sheet(area.sheetId);
    this.wb.selection = { sheetId: area.sheetId, area: { row: area.row, col: area.col, rows: area.rows, cols: area.cols } };
  }

  async write(
    at: Pick<Area, "sheetId" | "row" | "col">,
    grid: ReadonlyArray<ReadonlyArray<SheetValue>>,
    options: WriteOptions = {},
  ): Promise<WriteStats> {
    const shape = validateGrid(grid);
    validatePlacement(at, shape);
    validateColumnFormats(options.columnFormats, shape.cols);
    const s = this.wb.sheet(at.sheetId);
    options.signal?.throwIfAborted();
    for (let r = 0; r < shape.rows; r++) {
      for (let c = 0; c < shape.cols; c++) {
        const raw = grid[r]![c]!;
        const v = typeof raw === "number" ? to15Digits(raw) : raw;
        const old = getCell(s.cells, at.row + r, at.col + c);
        const nf = options.keepFormats ? (old?.nf ?? null) : (options.columnFormats?.[c] ?? null);
        const cell: MemCell = { ...old, v, nf };
        setCell(s.cells, at.row + r, at.col + c, v === "" && nf === null && !cell.b && cell.fill === undefined ? undefined : cell);
      }
    }
    options.onProgress?.(shape.rows, shape.rows);
    if (shape.rows > 0 && shape.cols > 0) {
      this.wb.emit({
        sheetId: s.id,
        address: areaA1({ row: at.row, col: at.col, ...shape }),
        kind: "RangeEdited",
        source: "ThisLocalAddin",
      });
    }
    return { rows: shape.rows, cols: shape.cols, cells: shape.rows * shape.cols, syncs: 0, maxSyncBytes: 0 };
  }

  async *read(area: Area, options: ReadOptions = {}): AsyncIterable<SheetValue[][]> {
    validateArea(area);
    const block = Math.max(1, Math.floor(options.blockRows ?? 5000));
    for (let r0 = 0; r0 < area.rows; r0 += block) {
      options.signal?.throwIfAborted();
      const s = this.wb.sheet(area.sheetId);
      const out: SheetValue[][] = [];
      const formats: string[][] | null = options.numberFormats ? [] : null;
      for (let r = r0; r < Math.min(area.rows, r0 + block); r++) {
        const row: SheetValue[] = [];
        const src = s.cells.get(area.row + r);
        for (let c = 0; c < area.cols; c++) row.push(src?.get(area.col + c)?.v ?? "");
        out.push(row);
        formats?.push(Array.from({ length: area.cols }, (_, c) => src?.get(area.col + c)?.nf ?? "General"));
      }
      if (formats) options.numberFormats?.(formats);
      yield out;
    }
  }

  async usedArea(area: Area): Promise<Area | null> {
    validateArea(area);
    const s = this.wb.sheet(area.sheetId);
    let top = Infinity,
      bottom = -1,
      left = Infinity,
      right = -1;
    for (const [r, row] of s.cells) {
      if (r < area.row || r >= area.row + area.rows) continue;
      for (const [c, cell] of row) {
        if (c < area.col || c >= area.col + area.cols || cell.v === "") continue;
        top = Math.min(top, r);
        bottom = Math.max(bottom, r);
        left = Math.min(left, c);
        right = Math.max(right, c);
      }
    }
    return bottom < 0 ? null : { sheetId: area.sheetId, row: top, col: left, rows: bottom - top + 1, cols: right - left + 1 };
  }

  async clear(area: Area): Promise<void> {
    validateArea(area);
    const s = this.wb.sheet(area.sheetId);
    for (let r = 0; r < area.rows; r++) for (let c = 0; c < area.cols; c++) setCell(s.cells, area.row + r, area.col + c, undefined);
  }

  async style(area: Area, style: AreaStyle): Promise<void> {
    validateArea(area);
    validateStyle(style, area.cols);
    const s = this.wb.sheet(area.sheetId);
    if (style.autofit) for (let c = 0; c < area.cols; c++) (s.autofitted ??= new Set()).add(area.col + c); // widths are not modelled here
    for (let r = 0; r < area.rows; r++) {
      for (let c = 0; c < area.cols; c++) {
        const cell: MemCell = { ...(getCell(s.cells, area.row + r, area.col + c) ?? { v: "", nf: null }) };
        const nf = style.columnFormats?.[c];
        if (nf !== undefined && nf !== null) cell.nf = nf === "General" ? null : nf;
        if (style.bold !== undefined) {
          if (style.bold) cell.b = true;
          else delete cell.b;
        }
        if (style.fill === null) delete cell.fill;
        else if (style.fill !== undefined) cell.fill = style.fill.toUpperCase();
        setCell(s.cells, area.row + r, area.col + c, cell);
      }
    }
  }
  async readStyle(area: Area): Promise<AreaStyleRead> {
    validateArea(area);
    const s = this.wb.sheet(area.sheetId);
    const cells = Array.from({ length: area.rows }, (_, r) =>
      Array.from({ length: area.cols }, (_, c) => getCell(s.cells, area.row + r, area.col + c)),
    );
    const all = cells.flat();
    const same = <V>(f: (c: MemCell | undefined) => V): V | null => (all.every((c) => f(c) === f(all[0])) ? f(all[0]) : null);
    return {
      numberFormats: cells.map((row) => row.map((c) => c?.nf ?? "General")),
      bold: same((c) => c?.b === true),
      fill: same((c) => c?.fill ?? "#FFFFFF"),
    };
  }
  async freezeRows(sheetId: string, rows: number): Promise<void> {
    if (!Number.isInteger(rows) || rows < 0) throw new PortInputError(`cannot freeze ${rows} rows`);
    const s = this.wb.sheet(sheetId);
    if (rows === 0) delete s.frozenRows;
    else s.frozenRows = rows;
  }
  async frozenRows(sheetId: string): Promise<number> {
    return this.wb.sheet(sheetId).frozenRows ?? 0;
  }

  async namedArea(name: string): Promise<{ sheet: SheetRef; area: Area } | null> {
    if (typeof name !== "string") throw new PortInputError("a name must be text");
    const n = this.wb.names.get(name.toLowerCase());
    const s = n && this.wb.sheets.find((x) => x.id === n.sheetId);
    if (!n?.area || !s) return null;
    return { sheet: { id: s.id, name: s.name }, area: { sheetId: s.id, ...n.area } };
  }

  async track(name: string, area: Area): Promise<void> {
    validateTrackName(name);
    validateArea(area);
    this.wb.sheet(area.sheetId);
    this.wb.tracks.set(name.toLowerCase(), {
      name,
      sheetId: area.sheetId,
      area: { row: area.row, col: area.col, rows: area.rows, cols: area.cols },
    });
  }
  async untrack(name: string): Promise<void> {
    validateTrackName(name);
    this.wb.tracks.delete(name.toLowerCase());
  }
  async tracked(): Promise<TrackedArea[]> {
    return [...this.wb.tracks.values()].map((t) => {
      const s = this.wb.sheets.find((x) => x.id === t.sheetId);
      if (!s || !t.area) return { name: t.name, sheet: null, area: null };
      return { name: t.name, sheet: { id: s.id, name: s.name }, area: { sheetId: s.id, ...t.area } };
    });
  }

  async putPicture(name: string, base64: string, at?: Pick<Area, "sheetId" | "row" | "col">): Promise<{ sheetId: string; name: string }> {
    const size = pictureSize(base64);
    const sheetId = at?.sheetId ?? [...this.wb.pictures].find(([, l]) => l.some((p) => p.name === name))?.[0];
    if (!sheetId) throw new PortInputError(`no picture named ${name} to replace`);
    this.wb.sheet(sheetId);
    const list = this.wb.pictures.get(sheetId) ?? [];
    const old = list.find((p) => p.name === name);
    const place = at ?? old!;
    const pic = { name, base64, row: place.row, col: place.col, width: (size.widthPx * 72) / 96, height: (size.heightPx * 72) / 96 };
    this.wb.pictures.set(sheetId, [...list.filter((p) => p.name !== name), pic]);
    return { sheetId, name };
  }
  async pictures(sheetId: string): Promise<Array<{ name: string; width: number; height: number }>> {
    this.wb.sheet(sheetId);
    return (this.wb.pictures.get(sheetId) ?? []).map(({ name, width, height }) => ({ name, width, height }));
  }

  async getData(k: string): Promise<unknown> {
    validateDataKey(k);
    const text = this.wb.data.get(k);
    return text === undefined ? undefined : JSON.parse(text);
  }
  async setData(k: string, value: unknown, options: SetDataOptions = {}): Promise<void> {
    validateDataKey(k);
    const json = dataToJson(k, value);
    if (options.ifUnchanged && !sameData(await this.getData(k), options.ifUnchanged.value)) throw new DataChangedError(k);
    this.wb.data.set(k, json);
  }

  async onChange(listener: (change: SheetChange) => void): Promise<() => Promise<void>> {
    const off = this.wb.on(listener);
    return async () => {
      off();
    };
  }
}
