// Refresh planning helpers (pure): where a resized result may grow, what it leaves behind,
// and which chunk runs to write.
//
//   - A larger result grows only into cells that are empty and belong to no other placement;
//     it never pushes or overwrites another placement or user content.
//   - A smaller result clears the cells it leaves behind (inside its own old area only).
//   - Chunks to write are merged into contiguous runs so each run is one port.write.
import type { Area } from "../host/port.ts";
import { areaA1 } from "../host/a1.ts";

export interface Shape {
  rows: number;
  cols: number;
}

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
