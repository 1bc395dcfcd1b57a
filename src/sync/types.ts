// The sync engine's shared types (issue 34): what its operations take and give back, and the narrow
// view of the engine they work through. A leaf: it imports no operation (place.ts, refresh.ts, check.ts,
// disconnect.ts…), so every operation, the facade (engine.ts) and the status words (status.ts) can
// import it without a circle.
import type { SyncStatus } from "../api/index.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import type { AnswerPrints, ChunkLayout } from "./answer-chunks.ts";
import type { Area, SheetPort, SheetValue, SnapshotRequest, WriteStats } from "../host/port.ts";
import type { LastWrittenStore, SyncContext } from "./context.ts";
import type { BoundInputs, InputRequest } from "./inputs.ts";
import type { Layout } from "./layout.ts";
import type { OccupiedCell, Shape } from "./plan.ts";
import type { RowCut } from "./run-report.ts";
import type { Session } from "./session.ts";
import type { LocalPlacement } from "./state.ts";
import type { TableRecord } from "./table-record.ts";

/**
 * What an operation needs of the engine (engine.ts implements it): the context, the single-writer lock,
 * one read of the workbook per operation, and what this engine remembers between operations.
 */
export interface Engine {
  readonly ctx: SyncContext;
  /** What Cellbound last wrote per placement, this session only (for "last written" in diffs). */
  readonly lastWritten: LastWrittenStore;
  /**
   * What each "would overwrite" question showed, per target cell (place.ts `askedKey`): a confirmed
   * placement overwrites those cells only; anything typed there since is asked about again.
   */
  readonly asked: Map<string, ReadonlyMap<string, SheetValue>>;
  /** One read of the workbook for an operation (session.ts). */
  session(req?: SnapshotRequest): Promise<Session>;
  /** The session if nothing else of this engine wrote since it was read, else a new one (call under the lock). */
  current(s: Session | null, req: SnapshotRequest): Promise<Session>;
  /** Run under the single-writer lock (given up when `signal` aborts). */
  exclusive<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** The signed-in user may read but not change placements of this deployment (access.ts). */
  viewOnly(deploymentId: number): boolean;
  /** The platform refused a placement's record in this deployment (a 403): view only from now on. */
  refusedIn(deploymentId: number): void;
  /** A placement's record (from `view` when given, else the workbook now). */
  placement(key: string, view?: SheetPort): Promise<LocalPlacement>;
  placements(): Promise<LocalPlacement[]>;
}

export interface PlaceOptions {
  /** Top-left cell to place at; default: the selected cell. */
  at?: Pick<Area, "sheetId" | "row" | "col">;
  /** The user confirmed overwriting the non-empty cells reported by a previous attempt. */
  confirmed?: boolean;
  signal?: AbortSignal;
  /**
   * Rows written so far of the rows expected; `known` is false while pages are still arriving (the
   * total is then the rows in so far: the placement has at least that many).
   */
  onProgress?: (rowsWritten: number, totalRows: number, known: boolean) => void;
  /** Values only: no number formats, header style or freeze (styling.ts); kept for later refreshes. */
  valuesOnly?: boolean;
  /** Filters whose values come from cells (issue 32): bound with the placement, read before its query. */
  inputs?: readonly InputRequest[];
  /** Set by place itself: the inputs planned and read for this placement (never given by a caller). */
  bound?: BoundInputs;
  /**
   * Place it as an Excel table (issue 33, docs/SYNC.md "Tables"): its header row and data rows become a table
   * named after the report, kept whole by every refresh. Flat reports only: a pivot is refused in words.
   */
  asTable?: boolean;
  /** Set by place itself: the table planned for this placement (never given by a caller). */
  table?: TableRecord;
}

export type PlaceOutcome =
  | {
      kind: "placed";
      key: string;
      placementId: string;
      reportId: number;
      publicId: string;
      sheetName: string;
      range: string;
      notices: string[];
      stats: WriteStats;
    }
  /** Non-empty cells that belong to no placement: nothing was written. */
  /** `at`: the target's top-left cell — confirm with `place(report, { at, confirmed: true })` so it lands there. */
  | { kind: "wouldOverwrite"; count: number; addresses: string[]; target: string; at: Pick<Area, "sheetId" | "row" | "col"> }
  /** The target overlaps another placement: never allowed. */
  | { kind: "collides"; target: string; placements: string[] };

export type RefreshChoice = "ask" | "overwrite" | "keep";

export interface CellDiff {
  address: string;
  /** undefined when the value last written is no longer known (see docs/SYNC.md). */
  lastWritten: SheetValue | undefined;
  now: SheetValue;
  incoming: SheetValue;
  /** A cell of a row or column inserted by hand inside the placement (issue 30): Cellbound never wrote there. */
  inserted?: true;
}

export interface HandEdits {
  /** Zero-based row ranges relative to the placement's first row, inclusive. */
  rows: { from: number; to: number }[];
  /** The same as A1 ranges on the sheet, e.g. "B12:F15". */
  ranges: string[];
  cells: CellDiff[];
  /** Edited cells found; `cells` lists at most MAX_DIFF of them. */
  cellCount: number;
  /** Rows and columns inserted or deleted inside the placement by hand (issue 30), when it can tell. */
  structure?: Structure;
}

/**
 * Rows and columns a person inserted or deleted inside a placement (issue 30), named from its row and
 * column prints (rows.ts). Inserted rows and columns: where they are now, relative to the placement's first
 * cell; deleted ones: where they were (the rows or columns after them moved up or left).
 */
export interface Structure {
  insertedRows: { from: number; to: number }[];
  deletedRows: { at: number; count: number }[];
  insertedCols: { from: number; to: number }[];
  deletedCols: { at: number; count: number }[];
  /**
   * Blocks of rows a person moved (cut and inserted elsewhere, or sorted): a deleted run and an inserted
   * run holding the same rows. They stay listed in `deletedRows`/`insertedRows` (what Overwrite and Keep
   * go by); this names them as one move: `from` where the block's first row was (relative to the first
   * row, as last written), `to` where it is now, `at` the deleted run's `at`.
   */
  movedRows?: { from: number; to: number; count: number; at: number }[];
}

export interface RefreshStats {
  /** Rows the result gained / lost (a grown or shrunk placement). */
  rowsAdded: number;
  rowsRemoved: number;
  /** Cells whose value changed (written cells that differ from what the sheet held). */
  cellsChanged: number;
  cellsWritten: number;
  chunksWritten: number;
  chunksTotal: number;
  /** Rows sent to the sheet (only the differing rows of the differing chunks). */
  rowsWritten: number;
  cellsCleared: number;
  syncs: number;
  /** Largest request of one sync, as the port estimates it. */
  maxSyncBytes: number;
  /** JSON size of the values written (an estimate of the bytes sent to Excel). */
  bytes: number;
  /** Where the time went (ms): preparation (see PreparedRefresh.timings), then the sheet work. */
  timings: PreparedRefresh["timings"] & { readMs: number; compareMs: number; writeMs: number; recordMs: number };
}

export type RefreshOutcome =
  | { kind: "refreshed"; stats: RefreshStats; notices: string[] }
  /** "Keep my edits": edited chunks were skipped; the placement stays marked edited. */
  | { kind: "kept"; stats: RefreshStats; edits: HandEdits }
  /** Edited by hand and the caller asked: nothing was written. */
  | { kind: "handEdited"; edits: HandEdits }
  /** The result cannot grow: the reason names what is in the way. Nothing was written. */
  | { kind: "cannotGrow"; reason: string; occupied: OccupiedCell[]; placements: string[] }
  | { kind: "missing"; reason: string };

export const MAX_DIFF = 500;

export interface PreparedRefresh {
  placement: LocalPlacement;
  /** Fingerprint and shape of the grid the refresh brings. */
  incoming: ResultChecksum;
  shape: Shape;
  /** What the grid depends on (run-report.ts). */
  source: string;
  /** The report returns more rows than a placement holds; the placed rows were cut (run-report.ts). */
  cut?: RowCut | null;
  /**
   * The answer is the one last written (same source): `incoming` is the committed fingerprint and
   * nothing was decoded or laid out yet — layout() does it if the sheet turns out to need cells.
   */
  sameSource: boolean;
  /** The grid and its column formats, laid out on first use. */
  layout(): Layout;
  /** Where the preparation's time went (ms). */
  timings: { reportMs: number; queryAndLayoutMs: number; fingerprintMs: number };
  /** The hash of the input values its query used (issue 32, inputs.ts); null: it has no inputs. */
  inputsUsed?: string | null;
  /**
   * Issue 35 §3: only the chunks whose answer rows changed since the placement was last written were laid out
   * (answer-chunks.ts): `incoming` is the whole grid's fingerprint all the same; layout() lays out every row if
   * the cells turn out to need them.
   */
  chunks?: ChunkLayout | null;
  /** What the grid's chunks were laid out from, kept when it is written (a large grid from a SQL answer; else null). */
  prints?(): AnswerPrints | null;
}

// ---------------------------------------------------------------- check and home (check.ts)

export type EditState = "clean" | "edited" | "interrupted-finished" | "interrupted" | "unknown";

export interface PlacementCheck {
  key: string;
  placementId: string | null;
  reportId: number;
  reportName: string | null;
  syncStatus: SyncStatus;
  /** Where it is now (after moves and renames); null when missing. */
  sheetName: string | null;
  range: string | null;
  missing: boolean;
  /** What Cellbound did to follow it: "anchor moved to C5", "sheet renamed to Q3". */
  corrections: string[];
  edit: EditState;
  /** Edited rows (zero-based, relative to the placement) when edit = "edited". */
  editedRows: { from: number; to: number }[];
  /**
   * true: `editedRows` are the exact rows that differ from what this session last wrote.
   * false: the last-written cells are not known here (another session), so the rows are those of
   * the edited chunks — the edits are somewhere within them (a refresh names the exact rows).
   */
  editedRowsExact: boolean;
  /** Rows and columns inserted or deleted inside it by hand (issue 30), when it can tell. */
  structure?: Structure;
  deploymentId: number;
  /** Offers for the UI: disconnect a missing placement. */
  offers: "disconnect"[];
  /** A platform problem while checking this placement (it does not stop the others). */
  problem?: string;
  /**
   * Its filters from cells (issue 32), read in the check's own snapshot: how many, whether their values differ
   * from those it was last written with, the first invalid one's words, and the switch. Absent: it has none.
   */
  inputs?: { count: number; changed: boolean; problem: string | null; autoRefresh: boolean };
  /** Placed as an Excel table (issue 33): the table's name as recorded. Absent: a range. */
  table?: string;
}

export interface CheckReport {
  workbookName: string;
  copied: boolean;
  /** Present when copied: fork gives this copy a new workbook id. */
  offers: "fork"[];
  placements: PlacementCheck[];
  /** Set when the platform list could not be read (e.g. 422); syncStatus is then UNKNOWN. */
  platformProblem?: string;
}

export interface ForkOutcome {
  workbookId: string;
  /** Placements re-connected under the new id: local key → new placementId. */
  reconnected: Record<string, string>;
  /** Placements that could not be re-connected, with the reason. */
  failed: Record<string, string>;
}

export interface HomeEntry {
  /** The platform's placement id (null for a local placement never recorded). */
  placementId: string | null;
  /** Local key when this workbook tracks it (DENIED entries of other people may have none). */
  key: string | null;
  /**
   * LOCAL: the platform does not list it (not recorded yet). UNLISTED: the platform refused the whole
   * list (the workbook is over its limits): listed from the workbook's records, its platform state unknown.
   */
  access: "GRANTED" | "DENIED" | "LOCAL" | "UNLISTED";
  /** DENIED: never refreshed, cleared or moved by Cellbound. */
  readOnly: boolean;
  reportId: number | null;
  reportName: string | null;
  deploymentId: number;
  /** The deployment's name when known (local record or ctx.deploymentNames); null otherwise. */
  deploymentName: string | null;
  /** The report's owner (who to ask for access or a refresh). */
  owner: { name: string | null; email: string | null } | null;
  /** The signed-in user may read it but not change placements of its deployment (access.ts): no Refresh, no Disconnect. */
  viewOnly: boolean;
  syncStatus: SyncStatus;
  sheetName: string | null;
  range: string | null;
  refreshedAt: string | null;
  /** Local tracking says the cells are gone. */
  missing: boolean;
}

export interface HomeData {
  workbookName: string;
  workbookId: string;
  copied: boolean;
  entries: HomeEntry[];
  /** The platform refused the list (422, over its limits): what happened and what to do; the entries are the workbook's own. */
  platformProblem?: string;
}
