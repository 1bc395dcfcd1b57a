// The Workbook tab's shapes: the home's cards, a refresh's outcome and Refresh all's progress (the
// store keeps them; home/live.ts makes them from the sync engine's outcomes).
import type { SheetValue } from "../../host/port";
import type { PlacementFacts, RowSpan } from "../types";

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
  /** Filters taking their values from cells (issue 32); absent when it has none. */
  inputs?: InputsFacts;
  /** Placed as an Excel table (issue 33): the table's name in the workbook; absent for a range. */
  tableName?: string;
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
  /** A cell of a row inserted by hand inside the placement (issue 30). */
  inserted?: boolean;
}

export type RefreshChoice = "ask" | "overwrite" | "keep";

export type RefreshOutcome =
  /** `summary`: what changed ("2 rows added, 14 cells changed" or "No change"). */
  | { kind: "refreshed"; cellsWritten: number; summary: string; notices?: string[] }
  /** `line`: rows or columns inserted or deleted inside (issue 30), named in one sentence ("1 row inserted by hand at row 8"). */
  | { kind: "kept"; editedRows: RowSpan[]; line?: string }
  | {
      kind: "handEdited";
      reportName: string;
      editedRows: RowSpan[];
      diff: CellDiff[];
      editedCells: number;
      /** Rows or columns inserted or deleted inside (issue 30): the one sentence, and each of them for the diff. */
      line?: string;
      moved?: string[];
    }
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

/** A card's inputs at a glance (issue 32): bindings exist; whether their cells changed since the last refresh. */
export interface InputsFacts {
  /** How many filters take their values from cells. */
  count: number;
  /** The input values now differ from those the placement was last refreshed with. */
  changed: boolean;
  /** "Refresh when inputs change" is on. */
  autoRefresh: boolean;
  /** The first invalid input's words (they name the cell), else null. */
  problem: string | null;
}

/** One filter taking its values from cells, as the Inputs panel lists it. */
export interface InputBinding {
  member: string;
  /** The member's title when known, else the member. */
  title: string;
  /** Where its cells are now, e.g. "Inputs!B1:B2". */
  where: string;
  /** The values the filter would use now. */
  values: string[];
  /** Why it cannot be used now (names the cell), else null. */
  problem: string | null;
}

/** A filter of the report's query a person may bind to cells. */
export interface BindableMember {
  member: string;
  title: string;
  /** A time dimension takes a date range: two cells (from, to). */
  time: boolean;
}

/** What the Inputs panel of a placement shows. */
export interface InputsDetail {
  inputs: InputBinding[];
  /** The filters that can be bound; empty for a SQL report (see `notBindable`). */
  bindable: BindableMember[];
  /** Why the report cannot take inputs (a SQL report), else null. */
  notBindable: string | null;
  changed: boolean;
  autoRefresh: boolean;
}
