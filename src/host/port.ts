// The sheet port: the only way sync logic touches a workbook.
//
// Two implementations run the same contract suite (src/host/contract, wrapped by test/host):
//   - src/host/memory: a plain in-memory port for pure sync tests;
//   - src/host/excel:  the Office.js adapter (real Excel, or dev/excel in tests and the harness).
//
// Coordinates are zero-based (row 0, col 0 = A1). Addresses shown to people or sent to
// the platform are A1 strings built with src/host/a1.ts.

/** A cell as `range.values` returns it: an empty cell is "". */
export type SheetValue = string | number | boolean;

/** A worksheet's identity: the id survives renames; the name is what people see. */
export interface SheetRef {
  id: string;
  name: string;
}

/** A rectangle on one sheet. rows/cols ≥ 1. */
export interface Area {
  sheetId: string;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

export type HostKind = "SHEETS_DESKTOP" | "SHEETS_CLOUD";

export interface WorkbookIdentity {
  /** Cellbound's UUID for this workbook, stored in the file (custom XML part, mirrored in settings). */
  workbookId: string;
  /** The document URL Office reports now (null when unsaved or unknown). */
  documentUrl: string | null;
  /** The document URL stored beside the id when it was last confirmed. */
  recordedUrl: string | null;
  /**
   * Same stored id but another document URL: this file is a copy — or the same file renamed or moved
   * (the URL changes then too). Only the person can tell: never fork without asking (keepIdentity / forkIdentity).
   */
  copied: boolean;
  /** Human-readable file name, e.g. "Sales.xlsx" ("Book1" when unsaved). */
  name: string;
}

export interface WriteOptions {
  /** Number format per column (index within the written block), e.g. a date format; null = General. */
  columnFormats?: ReadonlyArray<string | null>;
  /**
   * Rows (relative to the grid, ascending) where a new chunk of the placement's fingerprint starts.
   * Each sync the adapter sends ends just before one of them or at the grid's end, so an
   * interruption between two syncs leaves every chunk all old or all new. Only a single chunk too
   * large for one request is split inside itself.
   */
  breakRows?: readonly number[];
  /**
   * Leave the number formats of non-text cells as they are (a refresh keeps the user's formats).
   * Strings still get the text format "@": that is what keeps them from becoming formulas.
   */
  keepFormats?: boolean;
  /**
   * Under keepFormats: the number formats the cells have now, row by row, read in the same round trip
   * that checked their values (ReadOptions.numberFormats). The writer keeps numbers out of "@" cells
   * with them instead of reading the formats again; when absent (or not the grid's shape) it reads them.
   */
  currentFormats?: ReadonlyArray<ReadonlyArray<string>>;
  /** Called after each block lands: rows written so far of the total. */
  onProgress?: (rowsWritten: number, totalRows: number) => void;
  signal?: AbortSignal;
}

export interface WriteStats {
  rows: number;
  cols: number;
  cells: number;
  syncs: number;
  /** Largest estimated request payload of one sync, in bytes. */
  maxSyncBytes: number;
}

/** Formatting of an area; never touches values. Absent fields are left as they are. */
export interface AreaStyle {
  /** Number format per column of the area; null = leave that column's formats unchanged. */
  columnFormats?: ReadonlyArray<string | null>;
  /** Bold font (Range.format.font.bold). */
  bold?: boolean;
  /** Fill colour "#RRGGBB" (Range.format.fill.color); null = no fill (Range.format.fill.clear()). */
  fill?: string | null;
  /**
   * Widen the columns to show these cells' text (never narrower than they are), so formatted numbers show,
   * not "####". Only this area's cells count, not the whole columns (unlike Range.format.autofitColumns).
   */
  autofit?: boolean;
}

/** An area's formatting as Excel reports it (bold/fill null when the cells differ). */
export interface AreaStyleRead {
  /** Number format of every cell, row by row ("General" when none). */
  numberFormats: string[][];
  bold: boolean | null;
  /** "#RRGGBB"; "#FFFFFF" when there is no fill, as Excel reports it. */
  fill: string | null;
}

export interface ReadOptions {
  /** Rows per block; the adapter may use fewer to stay under payload limits. */
  blockRows?: number;
  /**
   * Also read each block's number formats ("General" when none) in the same round trip as its values,
   * handed here before the block is yielded (for WriteOptions.currentFormats). A host that has no such
   * cost may skip it; then the writer reads the formats itself.
   */
  numberFormats?: (block: string[][]) => void;
  signal?: AbortSignal;
}

/** A tracked area's current position (it moves when rows/cols are inserted above/left of it). */
export interface TrackedArea {
  name: string;
  /** null when the tracked range or its sheet was deleted (#REF!). */
  sheet: SheetRef | null;
  area: Area | null;
}

export type ChangeKind =
  | "RangeEdited"
  | "RowInserted"
  | "RowDeleted"
  | "ColumnInserted"
  | "ColumnDeleted"
  | "CellInserted"
  | "CellDeleted"
  | "SheetRenamed"
  | "SheetAdded"
  | "SheetDeleted";

export interface SheetChange {
  sheetId: string;
  /** A1 address on that sheet (no sheet prefix); "" for sheet-level changes. */
  address: string;
  kind: ChangeKind;
  /**
   * "ThisLocalAddin" for our own writes; "Local" for anyone else's (the user, a co-author, another add-in);
   * "Unknown" when the host cannot tell (Excel before ExcelApi 1.14).
   */
  source: "ThisLocalAddin" | "Local" | "Unknown";
}

// ---- batched steps (docs/HOST.md "Round trips") ------------------------------------------------
// Every context.sync() is a round trip to Excel. An operation reads what it needs in one step
// (snapshot) and writes in one step (commit); the adapter runs each in as few syncs as Excel's limits
// allow. The single-purpose methods below stay for the pane's small reads and for simple callers.

export interface SnapshotRequest {
  /** Values of these tracked names' current areas (case-insensitive), or every tracked name. */
  trackedValues?: readonly string[] | "all";
  /** Values of these areas too (e.g. a placement's target). */
  areas?: readonly Area[];
  /** Frozen rows of these sheets. */
  frozenRows?: readonly string[];
  /** Also what would refuse a write to each area whose values are read (obstacles), and the date system. */
  writeChecks?: boolean;
  /**
   * Where each of these areas holds anything (usedArea's answer) without reading their values: a large
   * placement checks that the rows below its first page are empty before it writes that page. With
   * writeChecks, their obstacles are read too.
   */
  usedIn?: readonly Area[];
  /**
   * Widths of these areas' columns, where the host has widths: a commit planned on the snapshot can then
   * fit those columns (style autofit) in the same round trip as the cells, without reading them first.
   */
  columnWidths?: readonly Area[];
  /** Also every table of the workbook (Snapshot.tables), where the host has tables (issue 33). */
  tables?: boolean;
  signal?: AbortSignal;
}

export interface Snapshot {
  identity: WorkbookIdentity;
  sheets: SheetRef[];
  tracked: TrackedArea[];
  /** Every per-workbook data key and its value (getData's answers). */
  data: Map<string, unknown>;
  /** Values of the areas asked for (tracked ones at their current area), each with where it was read. */
  values: Array<{ area: Area; grid: SheetValue[][] }>;
  /** Frozen rows per sheet id asked for. */
  frozenRows: Map<string, number>;
  /** With writeChecks, where the host can tell: obstacles per area read, and the workbook's date system. */
  obstacles?: Array<{ area: Area; found: Obstacle[] }>;
  dateSystem?: 1900 | 1904;
  /** For each area of `usedIn`: the smallest area holding all its non-empty cells, null when it is empty. */
  used?: Array<{ area: Area; used: Area | null }>;
  /** With columnWidths, where the host has widths: each column's width in points (RangeFormat.columnWidth). */
  columnWidths?: Array<{ sheetId: string; col: number; points: number }>;
  /** With `tables`: every table (ListObject) of the workbook, where the host has tables (issue 33). */
  tables?: TableRead[];
  /** Port-private facts a commit based on this snapshot may use (e.g. which parts and names exist). */
  readonly basis?: unknown;
}

// ---- Excel tables (issue 33, docs/SYNC.md "Tables") ---------------------------------------------

/** A table (Excel's ListObject) as read: where it is and what a refresh keeps of it. */
export interface TableRead {
  /** The table's name (unique in the workbook, case-insensitive). */
  name: string;
  /** The whole table: its header row first, then its data rows (and its totals row when shown). */
  area: Area;
  /** The columns' names, left to right (the header cells). */
  columns: string[];
  /** Built-in style name, e.g. "TableStyleMedium2". */
  style: string;
  /** A totals row is shown (the table's last row). */
  totals: boolean;
  /** The sort a person applied (column index within the table, direction); empty when none. */
  sort: Array<{ column: number; ascending: boolean }>;
  /** The table's own AutoFilter has criteria (rows of it are hidden). */
  filtered: boolean;
}

/** A change to a table's columns, at an index within the table (0 = its first column). */
export type TableColumnEdit =
  /** A new column at `index` (its data cells empty); the columns from `index` on move one right. */
  | { op: "insert"; index: number; name: string }
  /** The column at `index` goes with its cells; the columns right of it move one left. */
  | { op: "delete"; index: number }
  /** The column at `index` is renamed: its header cell and every structured reference to it follow. */
  | { op: "rename"; index: number; name: string };

/**
 * A command placed relative to a tracking name (issue 36): its area is given for the name at `area`;
 * the port applies it at the same offset from where the name is when the command runs (Excel: derived
 * from the name's range in the same round trip), so rows inserted above or a sheet renamed while the
 * caller waited on the network cannot move the write off the placement. A name that covers no cells
 * any more (#REF!) fails the command (and, as any failure, leaves the commands before it applied).
 */
export interface Anchor {
  name: string;
  area: Area;
}

/**
 * What a write expects its cells to hold (issue 36): the port reads the non-empty cells of the area the
 * write lands on in the same round trip, just before writing, and when they are not `expect` (the values
 * the caller saw when it checked; "empty": none) reports them in the commit's `cellConflicts` — values,
 * formulas and number formats — so the caller can put them back (`restore`). Office.js cannot hold a
 * write back, so every port writes anyway and reports; it costs no round trip of its own, and the bytes
 * of the non-empty cells only.
 */
export interface WriteGuard {
  expect: ReadonlyArray<ReadonlyArray<SheetValue>> | "empty";
}

/** Cells as read: the smallest area holding every non-empty cell of what was looked at. */
export interface FoundCells {
  area: Area;
  values: SheetValue[][];
  /** Range.formulas: a formula cell's "=…", any other cell's value. */
  formulas: SheetValue[][];
  numberFormats: string[][];
}

/** A guarded write whose cells were not what the caller expected (they were written over all the same). */
export interface CellConflict {
  /** Where the write landed. */
  area: Area;
  /** Its non-empty cells just before the write (null: it was empty). */
  found: FoundCells | null;
}

/** One command of a commit; commands are applied in order. */
export type Command =
  /**
   * Store per-workbook data. With `ifUnchanged` (what the caller's snapshot held; `value` undefined when
   * there was none), the port reads the stored data in the same round trip, just before writing it, and
   * when it was no longer that (a co-author's save since the snapshot) reports it in the commit's
   * `conflicts` for the caller to merge (issue 22, item 5). Office.js has no conditional write, so the
   * write is not held back; it costs no round trip of its own. Later data commands of the same key in the
   * commit are checked against the one before them.
   */
  | { kind: "data"; key: string; value: unknown; ifUnchanged?: { value: unknown } }
  | {
      kind: "write";
      at: Pick<Area, "sheetId" | "row" | "col">;
      grid: ReadonlyArray<ReadonlyArray<SheetValue>>;
      options?: WriteOptions;
      anchor?: Anchor;
      guard?: WriteGuard;
    }
  | { kind: "clear"; area: Area; anchor?: Anchor }
  | { kind: "style"; area: Area; style: AreaStyle; anchor?: Anchor }
  | { kind: "freeze"; sheetId: string; rows: number }
  /**
   * Track an area under a name (re-point it when it exists). With `expect` (where the caller believes the
   * name is), the port reads where it is in the same round trip, just before re-pointing it, and reports a
   * difference in the commit's `moved` (the name was re-pointed all the same).
   */
  | { kind: "track"; name: string; area: Area; expect?: Area }
  | { kind: "untrack"; name: string }
  /** Put cells back as they were read (a guarded write's `found`): formulas and number formats included. */
  | { kind: "restore"; cells: FoundCells; anchor?: Anchor }
  /**
   * Issue 33: edit the columns of table `table`, in order (before the cells of the new columns are written).
   * The cells of the table's rows right of an inserted or deleted column move with it, inside the table's
   * rows: a person's formula columns at the table's right keep their formulas and stay beside the report.
   * No such table fails the command.
   */
  | { kind: "tableColumns"; table: string; edits: readonly TableColumnEdit[]; anchor?: Anchor }
  /**
   * Issue 33: make table `table` cover exactly `area` (its header row first; the cells are written before).
   * With `create` and no table of that name: a table is made over `area` (its first row the headers) with that
   * name and built-in style, filter buttons on. Otherwise the table is resized to `area`: its header row stays
   * in its row and the new area overlaps the old (Excel's Table.resize rules; a host without resize keeps the
   * table's name, style and columns another way); rows it gains take its calculated columns' formulas, rows
   * it loses keep their cells (clear them first). `reapply`: the person's sort and filter of the table are
   * applied again to the new cells. No such table (without `create`) fails the command.
   */
  | { kind: "table"; table: string; area: Area; create?: { style: string }; reapply?: boolean; anchor?: Anchor }
  /**
   * Issue 33: table `table` becomes plain cells (Excel's Table.convertToRange): its cells stay as they are. Sent only
   * for a table that exists (a placement taken back after its table was made); hosts without tables ignore it.
   */
  | { kind: "untable"; table: string };

export interface CommitOptions {
  /** The snapshot the commands were planned on: lets the adapter skip looking things up again. */
  basis?: Snapshot;
  signal?: AbortSignal;
}

export interface CommitStats {
  /** Round trips the commit took (0 when there was nothing to send). */
  syncs: number;
  /** Largest estimated request of one sync, in bytes. */
  maxSyncBytes: number;
  /** Estimated bytes sent in all. */
  bytes: number;
  cellsWritten: number;
  /**
   * Data commands (with ifUnchanged) that replaced something else than expected: `found` is what was
   * stored just before (null when the host cannot tell, e.g. a second part of the key appeared).
   */
  conflicts?: Array<{ key: string; found: { value: unknown } | null }>;
  /** Guarded writes whose cells held something else than expected (issue 36). */
  cellConflicts?: CellConflict[];
  /** Tracking names re-pointed with `expect` that were elsewhere: where each was (null: it covered no cells). */
  moved?: Array<{ name: string; found: Area | null }>;
  /** The sheets, when the commit had to look them up again (a sheet renamed since the snapshot: issue 36, item 16). */
  sheets?: SheetRef[];
}

/** What a recheck reads (issue 36): where things are now, after a wait. */
export interface RecheckRequest {
  /** Values of these areas (as they are now, where they are). */
  areas?: readonly Area[];
  /** Also their number formats, in the same round trip. */
  numberFormats?: boolean;
  signal?: AbortSignal;
}

export interface Recheck {
  sheets: SheetRef[];
  tracked: TrackedArea[];
  values: Array<{ area: Area; grid: SheetValue[][]; numberFormats: string[][] | null }>;
}

export interface SetDataOptions {
  /** The value read before (undefined when there was none): write only if the stored data still equals it. */
  ifUnchanged?: { value: unknown };
}

/** The stored data changed since it was read (setData with ifUnchanged). */
export class DataChangedError extends Error {
  override name = "DataChanged";
  constructor(
    readonly key: string,
    /** The cells of the step were written; only merging Cellbound's record with the co-author's kept failing. */
    readonly cellsWritten = false,
  ) {
    super(`Workbook data ${key} was changed by someone else (a co-author or another Cellbound pane) since it was read.`);
  }
}

/** Whether two stored values are the same data (compared as JSON text). */
export function sameData(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Something in a target area that refuses or breaks a write (issue 22, item 8):
 *   - merged: merged cells (address: the merged area);
 *   - table: a table (ListObject) or its header (name: the table's);
 *   - protected: the sheet is protected (address "");
 *   - spill: the results of a dynamic-array formula (address: its anchor cell, the formula's; "" when
 *     the host found the results but not the formula): a value written there makes the formula #SPILL!;
 *   - filter: the sheet's AutoFilter filters rows the area overlaps (address: the filter's range);
 *   - joinsTable (issue 33): a table ends just above the area (in its columns) or just left of it (in its
 *     rows): Excel's auto-expansion takes cells written there into that table (address: the table's range;
 *     name: the table's). Hosts that do not expand tables (a closed file) do not report it.
 */
export interface Obstacle {
  kind: "merged" | "table" | "protected" | "spill" | "filter" | "joinsTable";
  /** A1 address on the sheet (no sheet prefix) when the host knows it; "" otherwise. */
  address: string;
  /** The table's name. */
  name?: string;
}

export interface SheetPort {
  readonly host: HostKind;

  /**
   * One read step: identity, sheets, tracked areas, every data key, and the values asked for, in as
   * few round trips as the host allows (Excel: two for anything under its limits).
   */
  snapshot(req?: SnapshotRequest): Promise<Snapshot>;
  /**
   * One write step: the commands applied in order, packed into as few syncs as the request limits
   * allow. Not atomic: a failure leaves a prefix of the commands applied and none after it, so a
   * journal entry ("data") placed before the cells it covers is a write-ahead log.
   */
  commit(commands: readonly Command[], options?: CommitOptions): Promise<CommitStats>;
  /**
   * One read step after a wait (issue 36): the sheets and every tracking name's area as they are now, and
   * the values (and number formats) of a few areas — in one round trip where the host allows (Excel: one
   * sync for anything under its response limit). What an operation planned before a network wait is
   * checked against this before it writes.
   */
  recheck(req?: RecheckRequest): Promise<Recheck>;

  // Workbook and sheets
  identity(): Promise<WorkbookIdentity>;
  /** Give this file a new workbook id (fork a copy), recording the current URL. */
  forkIdentity(): Promise<WorkbookIdentity>;
  /**
   * Give this file the id of an earlier copy made from the same template (the command line's `refresh --out`
   * over a copy it made before, issue 32), recording the current URL. Hosts where a person opens files (Excel)
   * omit it: there a copy is forked or kept by the person's choice.
   */
  takeIdentity?(workbookId: string): Promise<WorkbookIdentity>;
  /**
   * The person says this file is the same workbook, renamed or moved (not a copy): keep its id and
   * record the current URL, so `copied` turns false (issue 22, item 7). Hosts without URLs may omit it.
   */
  keepIdentity?(): Promise<WorkbookIdentity>;
  sheets(): Promise<SheetRef[]>;
  /** The active sheet and the selected range (top-left cell when a single cell). */
  selection(): Promise<{ sheet: SheetRef; area: Area }>;
  /** Select a range and activate its sheet (Locate). */
  select(area: Area): Promise<void>;

  // Values
  /**
   * Write a grid with its top-left at (area.sheetId, area.row, area.col). Strings are written as text:
   * never converted to formulas, numbers, dates or links.
   */
  write(
    at: Pick<Area, "sheetId" | "row" | "col">,
    grid: ReadonlyArray<ReadonlyArray<SheetValue>>,
    options?: WriteOptions,
  ): Promise<WriteStats>;
  /** Read an area in row blocks, top to bottom. Each block is an array of rows. */
  read(area: Area, options?: ReadOptions): AsyncIterable<SheetValue[][]>;
  /** Clear values and formats of an area. */
  clear(area: Area): Promise<void>;

  // Formatting (never a value: formats are not part of a placement's fingerprint)
  /** Apply number formats per column, bold and fill to an area. */
  style(area: Area, style: AreaStyle): Promise<void>;
  /** Read an area's number formats, bold and fill. */
  readStyle(area: Area): Promise<AreaStyleRead>;
  /** Freeze the top `rows` rows of a sheet (0 unfreezes them). */
  freezeRows(sheetId: string, rows: number): Promise<void>;
  /** How many top rows of a sheet are frozen (0 when none). */
  frozenRows(sheetId: string): Promise<number>;

  /**
   * What in an area would refuse or break a write: merged cells, a table (ListObject), a protected
   * sheet. Hosts without these (the memory port) may omit it. Checked before place/refresh write.
   */
  obstacles?(area: Area): Promise<Obstacle[]>;
  /**
   * The smallest area holding every non-empty cell (a value or a formula) of `area`, null when all are
   * empty — without reading the values (Excel: Range.getUsedRangeOrNullObject(true)).
   */
  usedArea(area: Area): Promise<Area | null>;
  /** The workbook's date system (Excel's "Use 1904 date system"); hosts without one may omit it (1900). */
  dateSystem?(): Promise<1900 | 1904>;

  /**
   * A workbook-scoped defined name's range (the person's own names, not Cellbound's tracking names),
   * found case-insensitively as Excel does; null when there is none, or it is not a single range (a
   * constant, a formula, several areas, #REF!). Issue 32: an input bound to a name. Excel: one sync.
   */
  namedArea?(name: string): Promise<{ sheet: SheetRef; area: Area } | null>;

  /**
   * Notes on cells (issue 35 §3), for hosts that can tell that cells have not changed without reading them
   * (the .xlsx file port; Excel cannot, and omits both). `noteCells` leaves a note saying what an area's
   * cells hold; `cellsNote` gives it back while none of the area's cells has changed since (also across a
   * save and a later open of the file), else null. A refresh that finds the note of the fingerprint it
   * recorded reads no cells (src/sync/cells-note.ts).
   */
  cellsNote?(area: Area): string | null;
  noteCells?(area: Area, note: string): void;

  // Tracking (hidden workbook-scoped names)
  track(name: string, area: Area): Promise<void>;
  untrack(name: string): Promise<void>;
  tracked(): Promise<TrackedArea[]>;

  // Per-workbook data (travels with the file; never secrets)
  getData(key: string): Promise<unknown>;
  /**
   * Store per-workbook data. With `ifUnchanged` (the value read before), store only if the stored data
   * is still that value; otherwise throw DataChangedError (a co-author or another pane changed it):
   * the caller re-reads and re-applies its change (issue 22, item 5).
   */
  setData(key: string, value: unknown, options?: SetDataOptions): Promise<void>;

  // Pictures (Excel shapes, ExcelApi 1.9)
  /**
   * Put a PNG or JPEG (base64, no data: prefix) on the sheet with its top-left at the cell, named
   * `name`. A picture of that name on the sheet is replaced in one step (the dashboard picture's
   * refresh), keeping its place when `at` is omitted.
   */
  putPicture(name: string, base64: string, at?: Pick<Area, "sheetId" | "row" | "col">): Promise<{ sheetId: string; name: string }>;
  /** Pictures on a sheet by name (what a refresh finds again). */
  pictures(sheetId: string): Promise<Array<{ name: string; width: number; height: number }>>;

  // Events
  onChange(listener: (change: SheetChange) => void): Promise<() => Promise<void>>;
}
