// Obstacles in a target (issue 22, item 8): what makes Excel refuse a write, or makes a write break
// the user's workbook, although the cells look empty (the overwrite check reads values only):
//   - merged cells: a write must cover a merged area whole and only its top-left cell keeps a value
//     (Range.getMergedAreasOrNullObject, ExcelApi 1.13);
//   - a table (ListObject) or its header: Excel rewrites header cells as unique text and the table's
//     structure is the user's (Range.getTables, ExcelApi 1.9);
//   - a protected sheet: writes fail (WorksheetProtection.protected, ExcelApi 1.2; every cell is locked
//     unless the user unlocked it, which is not checked: the whole sheet counts).
// One sync reads them all; the adapter's `obstacles(area)` returns them for the engine's pre-write check.

import { parseAddress, areaA1 } from "../a1.ts";
import type { Obstacle } from "../port.ts";

/** Queue the reads; the returned function gives the obstacles after the next sync. */
export function queueObstacles(ws: Excel.Worksheet, range: Excel.Range, supports: (version: string) => boolean): () => Obstacle[] {
  const protection = ws.protection.load("protected");
  const merged = supports("1.13") ? range.getMergedAreasOrNullObject().load("address") : null;
  const tables = supports("1.9") ? range.getTables(false).load("items/name") : null;
  return () => {
    const out: Obstacle[] = [];
    if (protection.protected) out.push({ kind: "protected", address: "" });
    if (merged && !merged.isNullObject) {
      for (const part of merged.address.split(",")) out.push({ kind: "merged", address: areaA1(parseAddress(part.trim())) });
    }
    for (const t of tables?.items ?? []) out.push({ kind: "table", address: "", name: t.name });
    return out;
  };
}
