// src/host/xlsx: the SheetPort over an .xlsx/.xlsm file nobody has open.
//
// The file is read once into the memory port's model (src/host/memory): the engine runs on it
// unchanged, and `save()` writes what changed back into the package surgically and atomically
// (book.ts). Nothing is written until save(); a save with nothing changed leaves the file as it was
// (same bytes, same mtime). A file changed on disk since it was read is not overwritten.
//
//   const port = XlsxPort.open("Sales.xlsx");              // XlsxError when it is not a workbook
//   const port = XlsxPort.open("New.xlsx", { create: "Sheet1" }); // a new workbook when missing
//   …engine operations…
//   port.save();                                            // → SaveStats | null
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Area, HostKind, Obstacle, ReadOptions, SheetRef, SheetValue, TableColumnEdit, TableRead } from "../port.ts";
import { tableObstacles } from "../memory/tables.ts";
import { fileTableOf, renameInFormula, tableRead } from "./tables.ts";
import { MemoryPort, MemoryWorkbook } from "../memory/index.ts";
import { PortInputError, validateArea } from "../validate.ts";
import { Book, emptyWorkbook, openBook, saveFile, sheetIdOf } from "./book.ts";
import { XlsxError } from "./errors.ts";
import type { CellNote } from "./notes.ts";
import { SheetStore } from "./store.ts";
import { ZipReader } from "./zip.ts";

export interface SaveStats {
  /** Size of the new file. */
  bytes: number;
  /** Cells whose XML was written (values or formats). */
  cellsWritten: number;
  /** Parts replaced, added or removed ("-name"). */
  partsChanged: string[];
}

export interface OpenOptions {
  /** Create a new workbook with one sheet of this name when the file does not exist. */
  create?: string;
  /**
   * Refuse a file whose Cellbound names, data and workbook id do not agree (XlsxError "cellboundData"):
   * the default. false only where the port is tested alone (its contract tracks names without data).
   */
  checkData?: boolean;
}

function stamp(file: string): string | null {
  try {
    const s = statSync(file);
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * The file port's model: a sheet added gets the id the file will give it, xlsx-<the next free sheetId>,
 * so the records the engine writes name the sheet as the next run reads it — a saved file's first
 * refresh does not rewrite it only to renumber sheet ids (issue 35 §4).
 */
class FileWorkbook extends MemoryWorkbook {
  /** sheetId attributes the file uses (unset while MemoryWorkbook's constructor adds its first sheet, which load replaces). */
  fileSheetNos: (() => readonly number[]) | undefined;

  override addSheet(name: string): SheetRef {
    if (!this.fileSheetNos) return super.addSheet(name);
    if (this.sheets.some((s) => s.name.toLowerCase() === name.toLowerCase())) throw new PortInputError(`a sheet named ${name} exists`);
    const inModel = this.sheets.map((s) => Number(/^xlsx-(\d+)$/.exec(s.id)?.[1] ?? 0));
    const id = sheetIdOf(Math.max(0, ...this.fileSheetNos(), ...inModel) + 1);
    this.sheets.push({ id, name, cells: new Map() });
    this.emit({ sheetId: id, address: "", kind: "SheetAdded", source: "Local" });
    return { id, name };
  }
}

export class XlsxPort extends MemoryPort {
  private book: Book;
  private aliases = new Map<number, string>();
  private readStamp: string | null;
  private fresh: boolean;
  /** Notes left on cells in this run (noteCells), per sheet, with the sheet's store clock then. */
  private readonly notes = new Map<string, Array<CellNote & { at: number }>>();
  /** Per sheet: its store's clock when the file the port now holds was read or saved (0: opened). */
  private readonly bookAt = new Map<string, number>();

  private constructor(
    readonly file: string,
    book: Book,
    fresh: boolean,
    host: HostKind,
  ) {
    const wb = new FileWorkbook(null, path.basename(file));
    super(wb, host);
    this.book = book;
    wb.fileSheetNos = () => this.book.sheetNos;
    this.fresh = fresh;
    this.readStamp = fresh ? null : stamp(file);
    book.load(this.wb);
  }

  static open(file: string, options: OpenOptions = {}): XlsxPort {
    if (options.create !== undefined && !existsSync(file)) {
      if (!/\.xls[xm]$/i.test(file)) throw new XlsxError(file, "unsupported", "a new workbook must be named *.xlsx");
      return new XlsxPort(file, new Book(file, new ZipReader(file, emptyWorkbook(options.create))), true, "SHEETS_DESKTOP");
    }
    const book = openBook(file);
    const problem = options.checkData === false ? null : book.integrity();
    if (problem) throw new XlsxError(file, "cellboundData", problem);
    return new XlsxPort(file, book, false, "SHEETS_DESKTOP");
  }

  /**
   * A port on a copy of `from` that is saved to `file` (`cellbound refresh --out`, issue 32): `from` is
   * read and never written; the first save writes the whole workbook to `file` (replacing what is there),
   * even when nothing changed. Nothing is written until save().
   */
  static openCopy(from: string, file: string): XlsxPort {
    if (!/\.xls[xm]$/i.test(file)) throw new XlsxError(file, "unsupported", "a workbook must be named *.xlsx or *.xlsm");
    const book = openBook(from);
    const problem = book.integrity();
    if (problem) throw new XlsxError(from, "cellboundData", problem);
    return new XlsxPort(file, book, true, "SHEETS_DESKTOP");
  }

  /** Whether the model differs from the file (what save() would write). */
  pending(): boolean {
    return this.fresh || this.book.render(this.wb) !== null;
  }

  /**
   * Write the changes to the file atomically; null when there was nothing to write. `beforeRename`
   * (the command line's last check: its lock, the file's identity) runs right before the new file
   * replaces the old one; throwing stops the save with the old file in place.
   */
  save(o: { beforeRename?: () => void } = {}): SaveStats | null {
    const out = this.book.render(this.wb, (id) => this.notesNow(id));
    if (!out && !this.fresh) return null;
    const bytes = out?.bytes ?? this.book.zip.bytes;
    if (!this.fresh && stamp(this.file) !== this.readStamp)
      throw new XlsxError(
        this.file,
        "changed",
        "the file changed on disk while Cellbound was working on it; nothing was written, run it again",
      );
    saveFile(this.file, bytes, o.beforeRename);
    for (const s of this.wb.sheets)
      if (s.cells instanceof SheetStore) {
        s.cells.saved();
        this.bookAt.set(s.id, s.cells.now()); // the file's notes hold from here
      }
    for (const [no, id] of out?.addedSheets ?? []) this.aliases.set(no, id);
    this.fresh = false;
    this.readStamp = stamp(this.file);
    // The saved package becomes the baseline of the next save (the model already shows it).
    this.book = new Book(this.file, new ZipReader(this.file, bytes), this.aliases);
    this.book.adoptTables(this.wb);
    return { bytes: bytes.length, cellsWritten: out?.cellsWritten ?? 0, partsChanged: out?.partsChanged ?? [] };
  }

  /**
   * Give a sheet the id another host knows it by (the harness's Save as .xlsx: dev/excel's worksheet
   * ids). The file keeps it beside the workbook's Cellbound id, so the records the pane wrote with it
   * still name the sheet when the command line opens the file (issue 35 §4).
   */
  adoptSheetId(from: string, to: string): void {
    const s = this.wb.sheet(from);
    if (from === to) return;
    if (this.wb.sheets.some((x) => x.id === to)) throw new PortInputError(`a sheet with id ${to} exists`);
    s.id = to;
    for (const t of [...this.wb.tracks.values(), ...this.wb.names.values()]) if (t.sheetId === from) t.sheetId = to;
    for (const m of [this.notes, this.bookAt] as Array<Map<string, unknown>>)
      if (m.has(from)) {
        m.set(to, m.get(from));
        m.delete(from);
      }
    this.book.renameSheetId(from, to);
  }

  /**
   * The note last left on exactly this area's cells (noteCells, in this run or before the file was last
   * saved: notes.ts), while none of its rows has changed since; null otherwise. A refresh whose placement's
   * cells carry the note of what it recorded reads no cells (src/sync/cells-note.ts, issue 35 §3).
   */
  cellsNote(area: Area): string | null {
    const cells = this.storeOf(area.sheetId);
    if (!cells) return null;
    const last = area.row + area.rows - 1;
    const mine = this.notes.get(area.sheetId)?.find((n) => sameRect(n, area));
    if (mine) return cells.changedSince(mine.at, area.row, last) ? null : mine.note;
    const filed = this.book.notedCells(area.sheetId).find((n) => sameRect(n, area));
    return filed && !cells.changedSince(this.bookAt.get(area.sheetId) ?? 0, area.row, last) ? filed.note : null;
  }

  /** Leave a note on an area's cells: what they hold, as the engine puts it; kept while they stay as they are. */
  noteCells(area: Area, note: string): void {
    validateArea(area);
    const cells = this.storeOf(area.sheetId);
    if (!cells) return;
    const rect = { row: area.row, col: area.col, rows: area.rows, cols: area.cols };
    const list = (this.notes.get(area.sheetId) ?? []).filter((n) => !sameRect(n, area));
    this.notes.set(area.sheetId, [...list, { ...rect, note, at: cells.now() }]);
  }

  /** The notes that hold on a sheet's cells now (for the save): this run's, then the file's, where their rows did not change. */
  private notesNow(sheetId: string): CellNote[] {
    const out: CellNote[] = [];
    const rects = [...(this.notes.get(sheetId) ?? []), ...this.book.notedCells(sheetId)];
    for (const n of rects) {
      if (out.some((o) => sameRect(o, n))) continue;
      const note = this.cellsNote({ sheetId, row: n.row, col: n.col, rows: n.rows, cols: n.cols });
      if (note) out.push({ row: n.row, col: n.col, rows: n.rows, cols: n.cols, note });
    }
    return out;
  }

  private storeOf(sheetId: string): SheetStore | null {
    const cells = this.wb.sheets.find((s) => s.id === sheetId)?.cells;
    return cells instanceof SheetStore ? cells : null;
  }

  /** The workbook counts dates from 1904 (workbookPr date1904): its serial numbers are 1,462 days smaller. */
  get date1904(): boolean {
    return this.book.date1904;
  }

  /** Sheet ids, for tests: what a sheet added by the port is called after the next open. */
  get sheetAliases(): ReadonlyMap<number, string> {
    return this.aliases;
  }

  /**
   * Values in row blocks, read in place from the sheet's compact store (store.ts): a large placement's
   * cells are not copied into cell objects to be read (issue 35 §3).
   */
  override async *read(area: Area, options: ReadOptions = {}): AsyncIterable<SheetValue[][]> {
    validateArea(area);
    const cells = this.wb.sheet(area.sheetId).cells;
    if (!(cells instanceof SheetStore)) return yield* super.read(area, options);
    const block = Math.max(1, Math.floor(options.blockRows ?? 5000));
    for (let r0 = 0; r0 < area.rows; r0 += block) {
      options.signal?.throwIfAborted();
      const out: SheetValue[][] = [];
      const formats: string[][] | null = options.numberFormats ? [] : null;
      for (let r = r0; r < Math.min(area.rows, r0 + block); r++) {
        const row: SheetValue[] = [];
        const nf: string[] | undefined = formats ? new Array<string>(area.cols) : undefined;
        cells.readRow(area.row + r, area.col, area.cols, row, nf);
        out.push(row);
        if (nf) formats!.push(nf);
      }
      if (formats) options.numberFormats?.(formats);
      yield out;
    }
  }

  override async usedArea(area: Area): Promise<Area | null> {
    validateArea(area);
    const cells = this.wb.sheet(area.sheetId).cells;
    if (!(cells instanceof SheetStore)) return super.usedArea(area);
    const used = cells.usedIn(area.row, area.row + area.rows - 1, area.col, area.col + area.cols - 1);
    return used && { sheetId: area.sheetId, ...used };
  }

  /**
   * What would refuse or break a write to `area` (issue 36, item 12): merged cells, a table, a protected
   * sheet, a dynamic-array formula's results, rows an AutoFilter filters — as the file holds them.
   */
  override async obstacles(area: Area): Promise<Obstacle[]> {
    validateArea(area);
    this.wb.sheet(area.sheetId);
    // Tables as the model holds them (one made in this session too); a closed file does not auto-expand
    // a table, so a write just below or beside one does not join it (no joinsTable).
    // A sheet read when first looked at: its facts come with its cells (one scan); one read a group at a time
    // has them from its note and last group (book.ts segmentsOf), and only the groups written are read.
    const store = this.storeOf(area.sheetId);
    if (store && !store.segmented) store.load();
    const tables = tableObstacles(this.wb.tableSheet(area.sheetId), area).filter((o) => o.kind === "table");
    return [...this.book.obstacles(area).filter((o) => o.kind !== "table"), ...tables];
  }

  /** Every table (Snapshot.tables), the header cells read in place: reading marks no row for the next save. */
  override tableList(): TableRead[] {
    return this.wb.sheets.flatMap((s) => (s.tables ?? []).map((t) => tableRead(s.id, s.cells, t)));
  }

  /**
   * A tableColumns command (issue 33) on the model, with what the file needs to follow it: each column's
   * id in the table part, and a renamed column's structured references in the calculated columns' formulas.
   */
  override editTableColumns(table: string, edits: readonly TableColumnEdit[]): void {
    const { sheet, table: t } = this.wb.table(table);
    const ids = fileTableOf(t)?.ids.slice();
    const renames: Array<{ from: string; to: string }> = [];
    for (const e of edits) {
      if (e.op === "rename" && e.index < t.cols) renames.push({ from: tableRead(sheet.id, sheet.cells, t).columns[e.index]!, to: e.name });
      super.editTableColumns(table, [e]);
      if (e.op === "insert") ids?.splice(e.index, 0, null);
      else if (e.op === "delete") ids?.splice(e.index, 1);
    }
    const ft = fileTableOf(t);
    if (ft && ids) ft.ids = ids;
    for (const { from, to } of renames) t.formulas = t.formulas.map((f) => (f === null ? null : renameInFormula(f, from, to)));
  }

  /** A table command (issue 33) on the model; a resized table's column ids follow its columns. */
  override setTable(table: string, area: Area, create: { style: string } | undefined, reapply: boolean): void {
    const found = this.wb.allTables().find((x) => x.name.toLowerCase() === table.toLowerCase());
    const before = found && { col: found.col, ids: fileTableOf(found)?.ids.slice() };
    super.setTable(table, area, create, reapply);
    const ft = found && fileTableOf(found);
    if (ft && before?.ids) ft.ids = Array.from({ length: area.cols }, (_, c) => before.ids![c - (area.col - before.col)] ?? null);
  }

  /**
   * The date system of the serials this port reads and writes: always 1900. A 1904 workbook's date
   * cells are converted where the file is read and written (sheet.ts toModel/toFile), so the engine's
   * dates land as the dates the report holds and its 1904 refusal (src/sync/obstacles.ts) does not apply.
   * The file's own system is `date1904`.
   */
  async dateSystem(): Promise<1900 | 1904> {
    return 1900;
  }

  override async putPicture(): Promise<{ sheetId: string; name: string }> {
    throw new PortInputError("pictures are not written into files: place the dashboard picture from the task pane");
  }
  override async select(area: Area): Promise<void> {
    await super.select(area); // kept in the model only: a file has no live selection worth changing
  }
}

const sameRect = (a: Omit<CellNote, "note">, b: Omit<CellNote, "note">) =>
  a.row === b.row && a.col === b.col && a.rows === b.rows && a.cols === b.cols;
