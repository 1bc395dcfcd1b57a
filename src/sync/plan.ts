// Refresh planning helpers (pure): where a resized result may grow, what it leaves behind,
// and which chunk runs to write.
//
//   - A larger result grows only into cells that are empty and belong to no other placement;
//     it never pushes or overwrites another placement or user content.
//   - A smaller result clears the cells it leaves behind (inside its own old area only).
//   - Chunks to write are merged into contiguous runs so each run is one port.write.
import { isInputName } from "./inputs.ts";
import type { Area, SheetRef, TrackedArea } from "../host/port.ts";
import { areaA1, columnLetters, MAX_COLS, MAX_ROWS } from "../host/a1.ts";
import type { LocalPlacement } from "./state.ts";

export interface Shape {
  rows: number;
  cols: number;
}

export const sameShape = (a: Shape, b: Shape): boolean => a.rows === b.rows && a.cols === b.cols;

export function overlaps(a: Area, b: Area): boolean {
  return a.sheetId === b.sheetId && a.row < b.row + b.rows && b.row < a.row + a.rows && a.col < b.col + b.cols && b.col < a.col + a.cols;
}

/** a minus b as at most 4 disjoint rectangles (b clipped to a). */
export function subtract(a: Area, b: Area): Area[] {
  if (!overlaps(a, b)) return [a];
  const out: Area[] = [];
  const top = b.row - a.row;
  if (top > 0) out.push({ ...a, rows: top });
  const bottom = a.row + a.rows - (b.row + b.rows);
  if (bottom > 0) out.push({ ...a, row: b.row + b.rows, rows: bottom });
  const midRow = Math.max(a.row, b.row);
  const midRows = Math.min(a.row + a.rows, b.row + b.rows) - midRow;
  const left = b.col - a.col;
  if (left > 0) out.push({ sheetId: a.sheetId, row: midRow, rows: midRows, col: a.col, cols: left });
  const right = a.col + a.cols - (b.col + b.cols);
  if (right > 0) out.push({ sheetId: a.sheetId, row: midRow, rows: midRows, col: b.col + b.cols, cols: right });
  return out;
}

export function areaAt(anchor: Pick<Area, "sheetId" | "row" | "col">, shape: Shape): Area {
  return { sheetId: anchor.sheetId, row: anchor.row, col: anchor.col, rows: shape.rows, cols: shape.cols };
}

/** Cells the new shape covers that the old one did not (where growth must find room). */
export function growthAreas(anchor: Pick<Area, "sheetId" | "row" | "col">, old: Shape | null, next: Shape): Area[] {
  const n = areaAt(anchor, next);
  return old ? subtract(n, areaAt(anchor, old)) : [n];
}

/** Cells the old shape covered that the new one does not (to clear after a shrink). */
export function leftoverAreas(anchor: Pick<Area, "sheetId" | "row" | "col">, old: Shape, next: Shape): Area[] {
  return subtract(areaAt(anchor, old), areaAt(anchor, next));
}

export interface Neighbour {
  label: string;
  area: Area;
}

/** Placements (other than the one being written) that the given areas would touch. */
export function collisions(areas: readonly Area[], neighbours: readonly Neighbour[]): Neighbour[] {
  return neighbours.filter((n) => areas.some((a) => overlaps(a, n.area)));
}

/** An occupied cell found where a write would go. */
export interface OccupiedCell {
  address: string;
  value: string | number | boolean;
}

/** Scan blocks read from `area` for non-empty cells not inside any of `owned`. */
export function occupiedCells(
  area: Area,
  rows: ReadonlyArray<ReadonlyArray<string | number | boolean>>,
  rowOffset: number,
  owned: readonly Area[],
): OccupiedCell[] {
  const out: OccupiedCell[] = [];
  rows.forEach((row, r) => {
    row.forEach((v, c) => {
      if (v === "") return;
      const cell: Area = { sheetId: area.sheetId, row: area.row + rowOffset + r, col: area.col + c, rows: 1, cols: 1 };
      if (owned.some((o) => overlaps(o, cell))) return;
      out.push({ address: areaA1(cell), value: v });
    });
  });
  return out;
}

/** Merge chunk row ranges (inclusive [from, to]) into contiguous runs, sorted. */
export function mergeRuns(chunks: ReadonlyArray<{ from: number; to: number }>): { from: number; to: number }[] {
  const sorted = [...chunks].sort((a, b) => a.from - b.from);
  const out: { from: number; to: number }[] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last && c.from <= last.to + 1) last.to = Math.max(last.to, c.to);
    else out.push({ from: c.from, to: c.to });
  }
  return out;
}

/** Contiguous runs of row indexes → "3–7, 12" style row ranges (1-based within the sheet). */
export function rowRanges(sheetRowOfFirst: number, runs: ReadonlyArray<{ from: number; to: number }>): string[] {
  return runs.map((r) =>
    r.from === r.to ? `${sheetRowOfFirst + r.from + 1}` : `${sheetRowOfFirst + r.from + 1}:${sheetRowOfFirst + r.to + 1}`,
  );
}

/** What stops a grid of `shape` at `at` from fitting on a sheet, in words (null when it fits). */
export function offSheet(at: Pick<Area, "row" | "col">, shape: Shape): string | null {
  if (at.row + shape.rows > MAX_ROWS)
    return `it has ${shape.rows.toLocaleString("en-US")} rows: from row ${(at.row + 1).toLocaleString("en-US")} it would pass the sheet's last row (${MAX_ROWS.toLocaleString("en-US")})`;
  if (at.col + shape.cols > MAX_COLS)
    return `it has ${shape.cols.toLocaleString("en-US")} columns: from column ${columnLetters(at.col)} it would pass the sheet's last column (${columnLetters(MAX_COLS - 1)})`;
  return null;
}

export function maxShape(a: Shape, b: Shape): Shape {
  return { rows: Math.max(a.rows, b.rows), cols: Math.max(a.cols, b.cols) };
}

/** The smallest area holding all of these (same sheet). */
export function boundingBox(areas: readonly Area[]): Area {
  const row = Math.min(...areas.map((a) => a.row)),
    col = Math.min(...areas.map((a) => a.col));
  const end = Math.max(...areas.map((a) => a.row + a.rows)),
    right = Math.max(...areas.map((a) => a.col + a.cols));
  return { sheetId: areas[0]!.sheetId, row, col, rows: end - row, cols: right - col };
}

/** Rows of a leftover area minus the kept (edited) rows, as areas. */
export function withoutRows(area: Area, anchorRow: number, kept: readonly { from: number; to: number }[]): Area[] {
  let pieces = [area];
  for (const k of kept) {
    const from = anchorRow + k.from,
      to = anchorRow + k.to;
    pieces = pieces.flatMap((a) => {
      if (to < a.row || from > a.row + a.rows - 1) return [a];
      const out: Area[] = [];
      if (from > a.row) out.push({ ...a, rows: from - a.row });
      if (to < a.row + a.rows - 1) out.push({ ...a, row: to + 1, rows: a.row + a.rows - 1 - to });
      return out;
    });
  }
  return pieces;
}

/** The placement is where it was read, on the sheet as it was named (nothing moved, resized or renamed it). */
export function samePlace(now: { area: Area; sheet: SheetRef } | null, then: { area: Area; sheet: SheetRef }): boolean {
  return now !== null && sameArea(now.area, then.area) && now.sheet.name === then.sheet.name;
}

export function sameArea(a: Area, b: Area): boolean {
  return a.sheetId === b.sheetId && a.row === b.row && a.col === b.col && a.rows === b.rows && a.cols === b.cols;
}

/** Other placements' areas, labelled as people know them: report title and range, never the tracking name. */
export function neighbours(tracked: readonly TrackedArea[], self: string | null, placements: readonly LocalPlacement[]): Neighbour[] {
  const titles = new Map(placements.map((p) => [p.name.toLowerCase(), p.reportName] as const));
  // An input's cells (issue 32) are never written over, even empty: named as the inputs of their placement.
  const inputsOf = new Map(
    placements.flatMap((p) => (p.inputs ?? []).flatMap((b) => b.names.map((n) => [n.toLowerCase(), p.reportName] as const))),
  );
  return tracked
    .filter((t) => t.area && t.name.toLowerCase() !== self?.toLowerCase())
    .map((t) => {
      const name = t.name.toLowerCase();
      const where = `${t.sheet?.name ?? "?"}!${areaA1(t.area!)}`;
      if (isInputName(name))
        return { label: `the input cells of “${inputsOf.get(name) ?? "another placement"}” at ${where}`, area: t.area! };
      const title = titles.get(name);
      return { label: title ? `“${title}” at ${where}` : `another placement at ${where}`, area: t.area! };
    });
}
