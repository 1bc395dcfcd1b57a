// Badge text and tone for each placement status, and row-state text for Refresh all.
import type { PlacementStatus, RowRefreshState, RowSpan } from "../model";

export const STATUS_LABEL: Record<PlacementStatus, string> = {
  upToDate: "Up to date",
  reportChanged: "Report changed",
  editedByHand: "Edited by hand",
  missing: "Missing",
  noAccess: "No access",
};

export const STATUS_TONE: Record<PlacementStatus, string> = {
  upToDate: "cb-badge-ok",
  reportChanged: "cb-badge-info",
  editedByHand: "cb-badge-warn",
  missing: "cb-badge-danger",
  noAccess: "cb-badge-muted",
};

export function rowStateText(s: RowRefreshState): string {
  switch (s.state) {
    case "queued":
      return "Queued";
    case "refreshing":
      return "Refreshing…";
    case "done":
      return "Refreshed";
    case "skipped":
      return `Not refreshed: ${s.reason}`;
    case "failed":
      return `Not refreshed: ${s.reason}`;
  }
}

/** "Rows 1001–2000", "Row 7", "Rows 3–4 and 10–12". */
export function describeRows(rows: RowSpan[]): string {
  if (rows.length === 0) return "Some rows";
  const parts = rows.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`));
  const single = rows.length === 1 && rows[0]!.from === rows[0]!.to;
  const joined = parts.length <= 2 ? parts.join(" and ") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
  return `${single ? "Row" : "Rows"} ${joined}`;
}
