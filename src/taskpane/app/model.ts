// The one interface the views call: Backend (sign in, open a deployment) and Workspace (one signed-in
// deployment of one workbook, with an accessor per pane: ws.chat, ws.comments, ws.dashboard). The live
// implementation is app/backend.ts and app/workspace.ts over each room's live service; tests give the
// views a scripted one. Views never import src/api or src/sync.
import type { CommentsService } from "../comments/service";
import type { ChatService } from "../chat/service";
import type { DashboardService } from "../dashboard/service";
import type { SelectionRead, SelectionState } from "../chat/ask-selection";
import type { HomeData, InputsDetail, RefreshAllProgress, RefreshChoice, RefreshOutcome } from "../home/types";
import type { PreviewGrid } from "../builder/types";
import type {
  BuilderQuery,
  Deployment,
  MetaView,
  OnProgress,
  Page,
  PivotItems,
  PlaceOutcome,
  ReportSummary,
  RowSpan,
  SaveReportInput,
} from "../types";

/** A filter member of a report's query and the cells its values come from (issue 32). */
export interface InputRequest {
  member: string;
  ref: string;
}

export interface SignedInUser {
  name: string;
  email: string;
}

/** One signed-in deployment of one workbook. */
export interface Workspace {
  readonly deployment: Deployment;
  /**
   * Why the signed-in user may not place, refresh or save reports in this deployment (a viewer), in
   * the words every view shows before the person acts (src/sync/access.ts viewerRule); null or absent
   * when the role allows it or is not known.
   */
  readonly roleLimit?: string | null;
  home(signal?: AbortSignal): Promise<HomeData>;
  reports(query: { search: string; after: string | null }, signal?: AbortSignal): Promise<Page<ReportSummary>>;
  /** `at`: the top-left cell (default: the cell selected now, read before anything is fetched). valuesOnly: no number formats, header style or freeze (the user formats the cells). */
  place(
    /** A report's id, or a report built in the pane and not saved yet: it is saved once its target is clear or the overwrite confirmed. */
    report: number | SaveReportInput,
    options: {
      confirmed: boolean;
      at?: { sheetId: string; row: number; col: number };
      valuesOnly?: boolean;
      /** Place it as an Excel table (issue 33): flat reports only, the engine refuses a pivot in words. */
      asTable?: boolean;
      /** Filters taking their values from cells (issue 32): `ref` is "Sheet1!B1", a range or a defined name. */
      inputs?: InputRequest[];
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
  /** A placement's inputs (issue 32): its bindings, the filters it may bind, whether their cells changed. */
  inputs?(placementId: string, signal?: AbortSignal): Promise<InputsDetail>;
  /** Bind a filter of the placement to the cells selected now; returns where ("Sheet1!B1"). Nothing is refreshed. */
  bindSelection?(placementId: string, member: string, signal?: AbortSignal): Promise<string>;
  /** The filter takes the report's own values again. */
  unbindInput?(placementId: string, member: string, signal?: AbortSignal): Promise<void>;
  /** "Refresh when inputs change" on or off. */
  setAutoRefresh?(placementId: string, on: boolean): Promise<void>;
  /** The cells selected now as a reference ("Sheet1!B1", "'My sheet'!B1:B5"), for the builder's "Use selected cell". */
  selectionRef?(): Promise<string>;
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
  /**
   * Load a pane's live service before the pane shows (the live workspace's come in the pane's own
   * chunk, with its view: app/pane-services.ts); absent where the services are there from the start.
   */
  openPane?(pane: ServicePane): Promise<void>;
}

/** The panes whose live service loads when the pane is first opened. */
export type ServicePane = "chat" | "comments" | "dashboard";

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
