// One status per placement, from one pure function over what is known about it (docs/SYNC.md
// "Placement status"). The card's badge, the card's lines and the banner are all derived from
// its result, so they cannot contradict each other. No Office, no DOM, no network.
//
// Precedence (first match wins), i.e. the transitions of the state machine:
//   no access   DENIED on the platform (the report cannot be read)
//   view only   the user may read the report but not change placements (access.ts): no Refresh,
//               no Disconnect, never written — whatever else is true of it
//   no access   the signed-in user cannot refresh it (reason given)
//   refreshing  a refresh of it is queued or running in this pane
//   missing     its sheet or range was deleted
//   interrupted the write journal has a write that did not finish (or every cell landed but
//               the record did not)
//   edited      cells differ from both fingerprints
//   failed      the last refresh in this pane failed (reason given)
//   out of date the platform says the report changed since the last refresh, or its input cells (issue 32)
//               hold other values than those it shows, or one of them cannot be used
//   unknown     not checked (platform unreachable) — never shown as "Up to date"
//   up to date  checked clean and the platform says UP_TO_DATE
import { columnLetters, parseAddress } from "../host/a1.ts";
import { viewOnlyReason } from "./access.ts";
import type { HomeEntry, PlacementCheck, RefreshStats, Structure } from "./types.ts";

/** The card's line when the platform refused the workbook's list (over its limits, issue 36 item 6). */
export const unlistedLine =
  "Its state on the platform is unknown: the platform lists none of this workbook's placements while it is over the limit.";

/** Not-refreshed reasons of placements the user cannot refresh start with this (Refresh all items). */
export const noAccessPrefix = "No access: ";

export type StatusKind =
  "upToDate" | "outOfDate" | "editedByHand" | "interrupted" | "failed" | "noAccess" | "viewOnly" | "refreshing" | "missing" | "unknown";

/** Inclusive row span, in whatever numbering the caller uses (the pane: sheet rows). */
export interface Rows {
  from: number;
  to: number;
}

export interface StatusFacts {
  /** LOCAL: not recorded with the platform yet; UNLISTED: the platform refused the workbook's list (over its limits). */
  access: "GRANTED" | "DENIED" | "LOCAL" | "UNLISTED";
  missing: boolean;
  /** From check(): clean | edited | interrupted | interrupted-finished | unknown (not checked). */
  edit: "clean" | "edited" | "interrupted" | "interrupted-finished" | "unknown";
  editedRows: readonly Rows[];
  /** false: the edits are somewhere within `editedRows` (chunk rows), see PlacementCheck. */
  editedRowsExact: boolean;
  syncStatus: "UP_TO_DATE" | "CHANGED" | "UNKNOWN";
  /** Why the signed-in user cannot refresh it (null: they can). */
  noAccess: string | null;
  /** The user may read it but not change it (access.ts): the sentence to show; null/absent: they may. */
  viewOnly?: string | null;
  /**
   * Rows or columns inserted or deleted inside it by hand (issue 30): the one sentence naming its hand edits
   * (handEditsLine), shown instead of the edited rows. Absent or null: none found.
   */
  handEdits?: string | null;
  /** A problem check met (could not record a move, the record of a finished write failed). */
  problem?: string | null;
  /**
   * Its filters from cells (issue 32): whether their values differ from those it was last refreshed with, the
   * first invalid input's words (they name the cell), and whether it refreshes itself when they change.
   */
  inputs?: { changed: boolean; problem: string | null; autoRefresh: boolean } | null;
  /** What this pane is doing or last did with it (Refresh / Refresh all), if anything. */
  activity?:
    | { state: "queued" | "refreshing" }
    | { state: "failed"; reason: string }
    /** Left alone on purpose (Stop, edited by hand in Refresh all): the status stays what the facts say. */
    | { state: "notRefreshed"; reason: string }
    | { state: "done"; summary: string }
    | null;
}

export interface PlacementStatus {
  kind: StatusKind;
  /** The badge: short, calm, sentence case. */
  label: string;
  /** Lines under the card's title, in order. */
  lines: string[];
  /** Whether Refresh is offered (and Refresh all would try it). */
  canRefresh: boolean;
  /** Whether Disconnect is offered (not for a placement the user may only view). */
  canDisconnect: boolean;
}

export const STATUS_LABELS: Record<StatusKind, string> = {
  upToDate: "Up to date",
  outOfDate: "Out of date",
  editedByHand: "Edited by hand",
  interrupted: "Interrupted — finish refresh",
  failed: "Refresh failed",
  noAccess: "No access",
  viewOnly: "View only",
  refreshing: "Refreshing…",
  missing: "Missing",
  unknown: "Not checked",
};

/** "Row 5", "Rows 3–7", "Rows 3–4 and 10". */
export function describeRows(rows: readonly Rows[]): string {
  if (rows.length === 0) return "Some rows";
  const parts = rows.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`));
  const single = rows.length === 1 && rows[0]!.from === rows[0]!.to;
  const joined = parts.length <= 2 ? parts.join(" and ") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
  return `${single ? "Row" : "Rows"} ${joined}`;
}

/** The sentence naming edited rows, the same on the card and in the banner. */
export function editedRowsLine(rows: readonly Rows[], exact: boolean): string {
  return exact
    ? `${describeRows(rows)} edited by hand`
    : `Edited by hand within ${describeRows(rows).replace(/^Rows?/, (w) => w.toLowerCase())}`;
}

/**
 * Rows and columns a person inserted or deleted inside a placement (issue 30), in words, on the sheet as
 * Excel numbers it: "1 row inserted by hand at row 8", "2 rows deleted by hand at row 8", "1 column
 * inserted by hand at column D". `top`/`left`: the placement's first row and column (zero-based).
 */
export function structureWords(s: Structure, top: number, left: number): string[] {
  const n = (k: number, one: string) => `${k.toLocaleString("en-US")} ${one}${k === 1 ? "" : "s"}`;
  const rows = (from: number, to: number) => (from === to ? `row ${top + from + 1}` : `rows ${top + from + 1}–${top + to + 1}`);
  const cols = (from: number, to: number) =>
    from === to ? `column ${columnLetters(left + from)}` : `columns ${columnLetters(left + from)}–${columnLetters(left + to)}`;
  const moved = s.movedRows ?? [];
  const movedIn = (r: { from: number; to: number }) => moved.some((m) => m.to === r.from && m.count === r.to - r.from + 1);
  const movedOut = (d: { at: number; count: number }) => moved.some((m) => m.at === d.at && m.count === d.count);
  return [
    ...moved.map(
      (m) => `${n(m.count, "row")} moved by hand from ${rows(m.from, m.from + m.count - 1)} to ${rows(m.to, m.to + m.count - 1)}`,
    ),
    ...s.insertedRows.filter((r) => !movedIn(r)).map((r) => `${n(r.to - r.from + 1, "row")} inserted by hand at ${rows(r.from, r.to)}`),
    ...s.deletedRows.filter((d) => !movedOut(d)).map((d) => `${n(d.count, "row")} deleted by hand at row ${top + d.at + 1}`),
    ...s.insertedCols.map((c) => `${n(c.to - c.from + 1, "column")} inserted by hand at ${cols(c.from, c.to)}`),
    ...s.deletedCols.map((d) => `${n(d.count, "column")} deleted by hand at column ${columnLetters(left + d.at)}`),
  ];
}

/**
 * The one sentence naming the hand edits of a placement whose rows or columns were inserted or deleted inside
 * (issue 30), the same on the card, in the banner, in Refresh all and on the command line: "1 row inserted
 * by hand at row 8", "1 row inserted by hand at row 8, row 16 edited by hand". `edited`: the rows edited
 * or inserted, relative to its first row (PlacementCheck.editedRows, HandEdits.rows).
 */
export function handEditsLine(s: Structure, edited: readonly Rows[], top: number, left: number): string {
  const inserted = (r: number) => s.insertedRows.some((i) => r >= i.from && r <= i.to);
  const others = edited.flatMap((e) => Array.from({ length: e.to - e.from + 1 }, (_, i) => e.from + i).filter((r) => !inserted(r)));
  const words = structureWords(s, top, left);
  if (others.length)
    words.push(`${describeRows(mergeRows(others.map((r) => top + r + 1))).replace(/^Rows?/, (w) => w.toLowerCase())} edited by hand`);
  const text = words.join(", ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Sorted row numbers → runs. */
function mergeRows(rows: readonly number[]): Rows[] {
  const out: Rows[] = [];
  for (const r of [...rows].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && r <= last.to + 1) last.to = Math.max(last.to, r);
    else out.push({ from: r, to: r });
  }
  return out;
}

export function placementStatus(f: StatusFacts): PlacementStatus {
  const lines: string[] = [];
  const last = f.activity?.state === "done" ? `Last refresh: ${f.activity.summary}` : null;
  const failedLine = f.activity?.state === "failed" ? `Refresh failed: ${f.activity.reason}` : null;
  const note = f.activity?.state === "notRefreshed" ? `Not refreshed: ${f.activity.reason}` : (last ?? null);
  const inputs = inputsLine(f.inputs, [note, failedLine]);
  const out = (kind: StatusKind, canRefresh: boolean, extra: (string | null | undefined)[] = []): PlacementStatus => ({
    kind,
    label: STATUS_LABELS[kind],
    canRefresh,
    canDisconnect: kind !== "viewOnly",
    lines: [...lines, ...extra.filter((x): x is string => !!x), ...(f.access === "UNLISTED" && kind !== "unknown" ? [unlistedLine] : [])],
  });
  if (f.access === "DENIED") return out("noAccess", false, ["Cellbound will not touch these cells."]);
  if (f.viewOnly) return out("viewOnly", false, [f.viewOnly]);
  if (f.activity?.state === "queued") return out("refreshing", false, ["Queued"]);
  if (f.activity?.state === "refreshing") return out("refreshing", false);
  if (f.missing) return out("missing", false, ["Its sheet or range was deleted. Disconnect it to stop tracking it."]);
  if (f.noAccess) return out("noAccess", false, [f.noAccess, failedLine]);
  if (f.edit === "interrupted")
    return out("interrupted", true, ["A refresh stopped before it finished. Refresh to finish it.", failedLine, note, inputs, f.problem]);
  if (f.edit === "edited") {
    const line = f.handEdits ?? editedRowsLine(f.editedRows, f.editedRowsExact);
    // Refresh all left it for this reason: one statement, not the same edits named twice.
    const said = note?.startsWith("Not refreshed: ") && note.includes(line);
    return out("editedByHand", true, [said ? null : line, failedLine, note, inputs, f.problem]);
  }
  if (failedLine) return out("failed", true, [failedLine, inputs, f.problem]);
  const finished = f.edit === "interrupted-finished" ? "An interrupted refresh was finished." : null;
  // Its input cells hold other values than those it shows (or one cannot be used): its cells are out of date.
  if (f.inputs?.changed || f.inputs?.problem) return out("outOfDate", true, [inputs, finished, note, f.problem]);
  if (f.syncStatus === "CHANGED")
    return out("outOfDate", true, ["The report changed since this was last refreshed.", finished, note, f.problem]);
  if (f.edit === "unknown" || f.syncStatus === "UNKNOWN") {
    return out("unknown", true, [
      f.access === "LOCAL"
        ? "Not recorded with the platform yet. Refresh to record it."
        : f.access === "UNLISTED"
          ? unlistedLine
          : "Its status could not be read.",
      finished,
      note,
      f.problem,
    ]);
  }
  return out("upToDate", true, [finished, note, f.problem]);
}

/** The card's line about its inputs (issue 32); null when they hold what it shows, or a line already says it. */
function inputsLine(inputs: StatusFacts["inputs"], said: readonly (string | null)[]): string | null {
  if (!inputs) return null;
  if (inputs.problem) return said.some((l) => l?.includes(inputs.problem!)) ? null : inputs.problem;
  if (!inputs.changed) return null;
  return inputs.autoRefresh ? "Inputs changed — refreshing when you stop typing." : "Inputs changed — refresh to show their values.";
}

/**
 * What a refresh changed, in one calm line a user reads: "2 rows added, 14 cells changed", "1,204 cells
 * cleared" or "No change" (thousands separated). How many fingerprint chunks were rewritten is the
 * engine's business (RefreshStats), not the user's.
 */
export function describeChange(
  s: Pick<RefreshStats, "rowsAdded" | "rowsRemoved" | "cellsChanged" | "cellsCleared" | "chunksWritten" | "chunksTotal">,
): string {
  const parts: string[] = [];
  const n = (k: number, one: string, many: string) => `${k.toLocaleString("en-US")} ${k === 1 ? one : many}`;
  if (s.rowsAdded) parts.push(`${n(s.rowsAdded, "row", "rows")} added`);
  if (s.rowsRemoved) parts.push(`${n(s.rowsRemoved, "row", "rows")} removed`);
  if (s.cellsChanged) parts.push(`${n(s.cellsChanged, "cell", "cells")} changed`);
  if (parts.length === 0) return s.cellsCleared ? `${n(s.cellsCleared, "cell", "cells")} cleared` : "No change";
  const text = parts.join(", ");
  return text[0]!.toUpperCase() + text.slice(1);
}

/**
 * What is known about one home entry, for placementStatus (the pane and the command line use the
 * same facts). `usable`: the deployments this sign-in can use, by id → name.
 */
export function factsOf(e: HomeEntry, c: PlacementCheck | undefined, usable?: ReadonlyMap<number, string>): Omit<StatusFacts, "activity"> {
  const range = c?.range ?? e.range;
  const otherDeployment = usable !== undefined && e.access !== "DENIED" && !usable.has(e.deploymentId);
  return {
    access: e.access,
    missing: e.missing || (c?.missing ?? false),
    edit: c?.edit ?? "unknown",
    editedRows: c?.edit === "edited" ? sheetRows(c.editedRows, range) : [],
    editedRowsExact: c?.editedRowsExact ?? false,
    syncStatus:
      c?.syncStatus === "CHANGED" || e.syncStatus === "CHANGED"
        ? "CHANGED"
        : e.access === "LOCAL" || e.access === "UNLISTED"
          ? "UNKNOWN"
          : e.syncStatus,
    viewOnly: e.viewOnly ? viewOnlyReason(e.owner) : null,
    noAccess: otherDeployment
      ? `It belongs to ${e.deploymentName ? `deployment ${e.deploymentName}` : "a deployment"} you cannot use with this sign-in.`
      : null,
    problem: c?.problem ?? null,
    handEdits: c?.edit === "edited" && c.structure && range ? handEditsAt(c.structure, c.editedRows, range) : null,
  };
}

/** handEditsLine for a placement at `range` ("B2:E22"). */
export function handEditsAt(s: Structure, edited: readonly Rows[], range: string): string {
  const at = parseAddress(range);
  return handEditsLine(s, edited, at.row, at.col);
}

/** Zero-based rows relative to a placement → sheet rows as Excel numbers them (1 = row 1). */
export function sheetRows(rows: { from: number; to: number }[], range: string | null): Rows[] {
  if (!range) return [];
  const top = parseAddress(range).row;
  return rows.map((r) => ({ from: top + r.from + 1, to: top + r.to + 1 }));
}
