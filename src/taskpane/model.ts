// The task pane's view of the world: the shapes the views render and the one interface (Backend /
// Workspace) they call. The live implementation (live/) wires it to src/api, src/sync and src/host;
// tests give the views a scripted one. Views never import src/api or src/sync directly.
import type { SheetValue } from "../host/port";
import type { StatusFacts } from "../sync/status";
import type { CommentsService } from "./comments/service";
import type { ChatService } from "./chat/service";
import type { DashboardService } from "./dashboard/service";
import type { SelectionRead, SelectionState } from "./chat/ask-selection";

export interface Deployment {
  id: number;
  name: string;
  /** The signed-in user's role there (a viewer's placements are view only); absent when unknown. */
  role?: "admin" | "editor" | "viewer";
}

export interface SignedInUser {
  name: string;
  email: string;
}

/**
 * What is known about a placement (from check and the platform list), without what this pane is
 * doing with it. The badge, the card's lines and the banner all come from one function of these
 * facts plus the pane's activity (live/status.ts → src/sync/status.ts). Rows are sheet rows.
 */
export type PlacementFacts = Omit<StatusFacts, "activity">;

/** Sheet rows as Excel numbers them (1 = row 1), inclusive. */
export interface RowSpan {
  from: number;
  to: number;
}

export interface PlacementView {
  id: string;
  /** Current sheet name (after renames); null when the sheet is gone. */
  sheetName: string | null;
  /** A1 range on that sheet, e.g. "B2:E120"; null when the range is gone. */
  range: string | null;
  reportId: number | null;
  /** null for DENIED placements (the platform withholds it). */
  reportName: string | null;
  refreshedAt: string | null;
  facts: PlacementFacts;
  /** DENIED placements carry their owner and are never touched. */
  owner: { name: string | null; email: string | null } | null;
  deploymentId: number | null;
  /** The deployment's name, when known (cards name it rather than its id). */
  deploymentName: string | null;
}

export interface HomeData {
  workbookName: string;
  /** Same stored workbook id but another document URL. */
  copied: boolean;
  placements: PlacementView[];
  /**
   * The platform refused the workbook's list (over its limits): what happened and what to do. The cards
   * are then the workbook's own placements, their platform state unknown.
   */
  platformProblem?: string;
}

export interface CellDiff {
  /** A1 address, e.g. "C14". */
  cell: string;
  /** undefined when the value last written can no longer be known. */
  lastWritten: SheetValue | undefined;
  now: SheetValue;
  incoming: SheetValue;
  /** The cell's number format on the sheet: the diff shows values as the sheet shows them. */
  format?: string;
}

export interface Progress {
  done: number;
  total: number;
  label?: string;
  /** The total is what is known so far (rows still arriving): there are at least that many. */
  atLeast?: boolean;
}
export type OnProgress = (p: Progress) => void;

export type RefreshChoice = "ask" | "overwrite" | "keep";

export type RefreshOutcome =
  /** `summary`: what changed ("2 rows added, 14 cells changed" or "No change"). */
  | { kind: "refreshed"; cellsWritten: number; summary: string; notices?: string[] }
  | { kind: "kept"; editedRows: RowSpan[] }
  | { kind: "handEdited"; reportName: string; editedRows: RowSpan[]; diff: CellDiff[]; editedCells: number }
  /** Nothing was written, for a reason the user can act on (no room to grow, cells deleted). */
  | { kind: "notRefreshed"; reason: string };

export type RowRefreshState =
  | { state: "queued" }
  | { state: "refreshing" }
  | { state: "done"; summary?: string }
  | { state: "skipped"; reason: string }
  | { state: "failed"; reason: string };

export interface RefreshAllProgress {
  done: number;
  total: number;
  rows: Record<string, RowRefreshState>;
}

export interface ReportSummary {
  id: number;
  publicId: string;
  name: string;
  title: string;
  updatedAt: string | null;
  ownerName: string | null;
  /** The report's folder path, e.g. "Sales" or "Sales › Monthly" (null at the top level). */
  folder?: string | null;
}

export interface Page<T> {
  items: T[];
  /** Cursor for the next page; null at the end. */
  next: string | null;
}

export type PlaceOutcome =
  /** `notices`: what the user must know about the result (e.g. rows cut at the placement's maximum). */
  | { kind: "placed"; placementId: string; range: string; sheetName: string; notices?: string[] }
  /** `at`: where it was going (the cell chosen when Place was pressed); the confirmation places it there. */
  | { kind: "wouldOverwrite"; count: number; addresses: string[]; target: string; at?: { sheetId: string; row: number; col: number } }
  /** The target overlaps another placement: never written. */
  | { kind: "collides"; target: string; placements: string[] };

/** /v1/meta, reduced to what the builder offers. */
export interface MetaMember {
  name: string;
  title: string;
  type: string;
}
export interface MetaView {
  name: string;
  title: string;
  measures: MetaMember[];
  dimensions: MetaMember[];
}

export interface BuilderFilter {
  member: string;
  operator: "equals" | "notEquals" | "contains" | "gt" | "lt" | "set" | "notSet";
  values: string[];
}

export interface PivotItems {
  rows: string[];
  columns: string[];
  measures: string[];
  filters: string[];
  displayScale?: "model" | "absolute" | "thousands" | "millions" | "billions";
  measuresAxis?: "columns" | "rows";
  measuresPosition?: "before" | "after";
  showAppliedFilters?: boolean;
  showColumnTotals?: boolean;
  showRowTotals?: boolean;
}

/** A semantic-layer JSON query as the builder produces it. */
export interface BuilderQuery {
  measures: string[];
  dimensions: string[];
  timeDimensions: { dimension: string; granularity?: string; dateRange?: string | [string, string] }[];
  filters: BuilderFilter[];
  order: [string, "asc" | "desc"][];
  limit?: number;
}

export interface SaveReportInput {
  name: string;
  query: BuilderQuery;
  pivotItems: PivotItems | null;
}

export interface PreviewGrid {
  cells: SheetValue[][];
  headerRows: number;
  /** Number format per column, as the sheet will get it (null = General). */
  columnFormats?: (string | null)[];
}

/** One signed-in deployment of one workbook. */
export interface Workspace {
  readonly deployment: Deployment;
  home(signal?: AbortSignal): Promise<HomeData>;
  reports(query: { search: string; after: string | null }, signal?: AbortSignal): Promise<Page<ReportSummary>>;
  /** `at`: the top-left cell (default: the cell selected now, read before anything is fetched). valuesOnly: no number formats, header style or freeze (the user formats the cells). */
  place(
    reportId: number,
    options: {
      confirmed: boolean;
      at?: { sheetId: string; row: number; col: number };
      valuesOnly?: boolean;
      onProgress?: OnProgress;
      signal?: AbortSignal;
    },
  ): Promise<PlaceOutcome>;
  refresh(placementId: string, choice: RefreshChoice, options?: { onProgress?: OnProgress; signal?: AbortSignal }): Promise<RefreshOutcome>;
  refreshAll(options: { onProgress: (p: RefreshAllProgress) => void; signal: AbortSignal }): Promise<RefreshAllProgress>;
  /** Ask about the selection: is the selection inside a placement the chat can ask about (else why not). */
  selectionState?(): Promise<SelectionState>;
  /** The selected cells' context (the placement's query, row and column members, values; only readable cells). */
  selectionContext?(signal?: AbortSignal): Promise<SelectionRead>;
  /**
   * Place beside: the first free top-left cell to the right of `beside` (a placement's area), else
   * below it, for `size`; `free: false` when neither is free (placing there then asks before overwriting).
   */
  besideArea?(
    beside: { sheetId: string; row: number; col: number; rows: number; cols: number },
    size: { rows: number; cols: number },
    signal?: AbortSignal,
  ): Promise<{ sheetId: string; row: number; col: number; free: boolean }>;
  /** Select the placement's range (or only some of its rows) in Excel. */
  locate(placementId: string, rows?: RowSpan): Promise<void>;
  disconnect(placementId: string, signal?: AbortSignal): Promise<void>;
  meta(signal?: AbortSignal): Promise<MetaView[]>;
  /** The first rows as they would be written (flat table or pivot layout, header rows first). */
  preview(query: BuilderQuery, pivot: PivotItems | null, signal?: AbortSignal): Promise<PreviewGrid>;
  saveReport(input: SaveReportInput, signal?: AbortSignal): Promise<ReportSummary>;
  /** A copied workbook: give it its own id and connect its placements anew (the original's stay). */
  fork(signal?: AbortSignal): Promise<{ reconnected: number; failed: string[] }>;
  /** Not a copy: the same file renamed or moved; keep its id and record its new address. */
  keepIdentity(signal?: AbortSignal): Promise<void>;
  /** Hear about changes in the workbook (edits, inserted rows, renamed sheets); returns unsubscribe. */
  watch(listener: () => void): () => void;
  /** Stop background work (token renewal, event listeners). */
  close(): Promise<void>;
  /** Dashboard comments (embed sessions from the organisation's session URL); absent where not wired. */
  readonly comments?: CommentsService;
  /** The agent chat of this deployment (absent where the backend offers none). */
  readonly chat?: ChatService;
  /** The embedded dashboard beside the sheet (same session URL as comments); absent where not wired. */
  readonly dashboard?: DashboardService;
}

export interface ConnectInput {
  baseUrl: string;
  dataUrl: string | null;
  credential: string;
}

export interface Backend {
  /** Check the credential and list the deployments it can use. */
  signIn(input: ConnectInput, signal?: AbortSignal): Promise<{ user: SignedInUser; deployments: Deployment[] }>;
  /** `deployments`: every deployment the user can use (names for cards; data tokens for their placements). */
  open(input: ConnectInput, deployment: Deployment, deployments?: readonly Deployment[]): Promise<Workspace>;
}
