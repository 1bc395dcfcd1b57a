// Obstacles in a target (issue 22, item 8): what makes Excel refuse a write, or makes a write break
// the user's workbook, although the cells look empty (the overwrite check reads values only):
//   - merged cells: a write must cover a merged area whole and only its top-left cell keeps a value
//     (Range.getMergedAreasOrNullObject, ExcelApi 1.13);
//   - a table (ListObject) or its header: Excel rewrites header cells as unique text and the table's
//     structure is the user's (Range.getTables, ExcelApi 1.9);
//   - a protected sheet: writes fail (WorksheetProtection.protected, ExcelApi 1.2; every cell is locked
//     unless the user unlocked it, which is not checked: the whole sheet counts);
//   - a spilled array formula's results: a value written there lands, and the formula shows #SPILL!
//     (Range.hasSpill, ExcelApi 1.12); its anchor is named by getSpillParentOrNullObject, one cell at a
//     time, so the anchors are looked up in one more sync only when a spill was found (spillAnchors);
//   - rows filtered by the sheet's AutoFilter: Range.values writes hidden rows too, so the report lands
//     partly unseen and the filter no longer matches what it shows (Worksheet.autoFilter, ExcelApi 1.9).
// Hidden rows or columns without a filter are no obstacle (docs/EXCEL-FIDELITY.md, sharp edge 8).
// One sync reads them all; the adapter's `obstacles(area)` returns them for the engine's pre-write check.

import { parseAddress, areaA1 } from "../a1.ts";
import type { Area, Obstacle } from "../port.ts";

/** Cells whose spill anchor is looked up when a spill was found: the area's first row and column, or every cell of a small area. */
export const SPILL_LOOKUP_CELLS = 400;

/** Queue the reads; the returned function gives the obstacles after the next sync. */
export function queueObstacles(ws: Excel.Worksheet, area: Area, supports: (version: string) => boolean): () => Obstacle[] {
  const range = ws.getRangeByIndexes(area.row, area.col, area.rows, area.cols);
  const protection = ws.protection.load("protected");
  const merged = supports("1.13") ? range.getMergedAreasOrNullObject().load("address") : null;
  const tables = supports("1.9") ? range.getTables(false).load("items/name") : null;
  if (supports("1.12")) range.load("hasSpill");
  const filter = supports("1.9") ? ws.autoFilter.load("enabled,isDataFiltered") : null;
  const filtered = filter ? ws.autoFilter.getRangeOrNullObject().load("address") : null;
  return () => {
    const out: Obstacle[] = [];
    if (protection.protected) out.push({ kind: "protected", address: "" });
    if (merged && !merged.isNullObject) {
      for (const part of merged.address.split(",")) out.push({ kind: "merged", address: areaA1(parseAddress(part.trim())) });
    }
    for (const t of tables?.items ?? []) out.push({ kind: "table", address: "", name: t.name });
    // hasSpill: false when no cell is in a spill range, true or null (some) otherwise. The anchor comes later.
    if (supports("1.12") && range.hasSpill !== false) out.push({ kind: "spill", address: "" });
    if (filter?.enabled && filter.isDataFiltered && filtered && !filtered.isNullObject) {
      const f = parseAddress(filtered.address);
      if (f.row < area.row + area.rows && area.row < f.row + f.rows && f.col < area.col + area.cols && area.col < f.col + f.cols)
        out.push({ kind: "filter", address: areaA1(f) });
    }
    return out;
  };
}

/**
 * When a spill was found in an area, queue the look-up of the formulas it comes from: the spill parent
 * of the area's first row and first column (a spill from outside the area reaches one of them: its
 * anchor is above or left of the area), or of every cell when the area is small (an anchor inside).
 * Returns null when there is nothing to look up; else a function that, after the next sync, gives the
 * obstacles with the spill anchors named (one "spill" obstacle per formula).
 */
export function queueSpillAnchors(ws: Excel.Worksheet, area: Area, found: Obstacle[]): (() => Obstacle[]) | null {
  if (!found.some((o) => o.kind === "spill" && o.address === "")) return null;
  const cells: Array<[number, number]> = [];
  if (area.rows * area.cols <= SPILL_LOOKUP_CELLS) {
    for (let r = 0; r < area.rows; r++) for (let c = 0; c < area.cols; c++) cells.push([r, c]);
  } else {
    const half = SPILL_LOOKUP_CELLS / 2;
    for (let c = 0; c < Math.min(area.cols, half); c++) cells.push([0, c]);
    for (let r = 1; r < Math.min(area.rows, half); r++) cells.push([r, 0]);
  }
  const parents = cells.map(([r, c]) =>
    ws
      .getRangeByIndexes(area.row + r, area.col + c, 1, 1)
      .getSpillParentOrNullObject()
      .load("address"),
  );
  return () => {
    const anchors = [...new Set(parents.filter((p) => !p.isNullObject).map((p) => areaA1(parseAddress(p.address))))];
    const rest = found.filter((o) => o.kind !== "spill");
    const spills: Obstacle[] = anchors.length ? anchors.map((address) => ({ kind: "spill", address })) : [{ kind: "spill", address: "" }];
    return [...rest, ...spills];
  };
}
