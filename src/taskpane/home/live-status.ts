// The Workbook tab's door to the one placement status (src/sync/status.ts): views call these, never src/sync.
import {
  describeRows,
  editedRowsLine,
  noAccessPrefix,
  placementStatus,
  type PlacementStatus,
  type StatusFacts,
  type StatusKind,
} from "../../sync/status";
import { viewOnlyPrefix } from "../../sync/access";
import type { PlacementView, RowRefreshState } from "./types";

export type { PlacementStatus, StatusKind };
export { describeRows, editedRowsLine };

/** The status of a card: its facts plus what this pane is doing or last did with it. */
export function statusOfView(p: PlacementView, activity: RowRefreshState | undefined): PlacementStatus {
  let facts: StatusFacts | Omit<StatusFacts, "activity"> = p.inputs ? { ...p.facts, inputs: p.inputs } : p.facts;
  let a: StatusFacts["activity"] = null;
  if (activity?.state === "queued" || activity?.state === "refreshing") a = { state: activity.state };
  else if (activity?.state === "done") a = { state: "done", summary: activity.summary ?? "Refreshed" };
  else if (activity?.state === "skipped") a = { state: "notRefreshed", reason: activity.reason };
  else if (activity?.state === "failed") {
    const r = activity.reason;
    // Refresh all's reasons: "No access: …" (cannot refresh), "Stopped…" / "Edited by hand…" / "1 row inserted by
    // hand at row 8…" (left alone), else a failure.
    if (r.startsWith(viewOnlyPrefix)) facts = { ...facts, viewOnly: r.slice(viewOnlyPrefix.length) };
    else if (r.startsWith(noAccessPrefix)) facts = { ...facts, noAccess: capitalise(r.slice(noAccessPrefix.length)) };
    else if (/^(Stopped|Edited by hand)/.test(r) || / by hand at (rows?|columns?) /.test(r)) a = { state: "notRefreshed", reason: r };
    // An input that cannot be used (issue 32): nothing was written, the words name the cell.
    else if (p.inputs?.problem && r === p.inputs.problem) a = { state: "notRefreshed", reason: r };
    else a = { state: "failed", reason: r };
  }
  return placementStatus({ ...facts, activity: a });
}

/**
 * A card's row state after a refresh that failed with `e`: a view-only refusal shows the card as View only;
 * an invalid input (issue 32) in the engine's words, which name the cell to fix.
 */
export function failedRow(e: unknown, title: string): RowRefreshState {
  const viewOnly = e instanceof Error && e.name === "ViewOnly";
  if (e instanceof Error && e.name === "InvalidInput" && e.message) return { state: "skipped", reason: e.message };
  return { state: "failed", reason: viewOnly ? viewOnlyPrefix + e.message : title };
}

/**
 * The platform could not be reached since `since` (the last good check): what the card knew then is
 * not current, so it is never "Up to date" or "Out of date" — it is Not checked, and says since when.
 */
export function staleFacts(facts: PlacementView["facts"], since: string): PlacementView["facts"] {
  if (facts.access === "DENIED") return facts;
  const t = new Date(since);
  const when = t.getTime() > 0 ? t.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" }) : "the pane opened";
  return { ...facts, syncStatus: "UNKNOWN", problem: `Not checked since ${when}: the platform did not answer.` };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export const STATUS_TONE: Record<StatusKind, string> = {
  upToDate: "cb-badge-ok",
  outOfDate: "cb-badge-info",
  editedByHand: "cb-badge-warn",
  interrupted: "cb-badge-warn",
  failed: "cb-badge-danger",
  noAccess: "cb-badge-muted",
  viewOnly: "cb-badge-muted",
  refreshing: "cb-badge-info",
  missing: "cb-badge-danger",
  unknown: "cb-badge-muted",
};

/** Facts that produce a given status (scripted backends, the harness's benchmark page). */
export function factsFor(
  kind: "upToDate" | "outOfDate" | "editedByHand" | "interrupted" | "missing" | "noAccess",
  editedRows: { from: number; to: number }[] = [],
): PlacementView["facts"] {
  const base: PlacementView["facts"] = {
    access: "GRANTED",
    missing: false,
    edit: "clean",
    editedRows: [],
    editedRowsExact: true,
    syncStatus: "UP_TO_DATE",
    noAccess: null,
  };
  switch (kind) {
    case "upToDate":
      return base;
    case "outOfDate":
      return { ...base, syncStatus: "CHANGED" };
    case "editedByHand":
      return { ...base, edit: "edited", editedRows };
    case "interrupted":
      return { ...base, edit: "interrupted" };
    case "missing":
      return { ...base, missing: true, edit: "unknown" };
    case "noAccess":
      return { ...base, access: "DENIED", edit: "unknown", syncStatus: "UNKNOWN" };
  }
}
