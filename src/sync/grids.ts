// Pure helpers over grids of cell values (what a refresh compares and writes): no port, no network.
import type { Area, SheetValue } from "../host/port.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import type { Grid } from "./fingerprint.ts";

/** Cells in rows [from, to] whose incoming value differs from the current one. */
export function changedCells(incoming: Grid, current: Grid, from: number, to: number): number {
  let n = 0;
  for (let r = from; r <= to; r++) {
    const a = incoming[r]!,
      b = current[r];
    for (let c = 0; c < a.length; c++) if (!sameValue(a[c]!, b?.[c] ?? "")) n++;
  }
  return n;
}

export function sameValue(a: SheetValue, b: SheetValue): boolean {
  return Object.is(a, b) || (a === 0 && b === 0);
}

/** Runs of rows in [from, to] where the incoming row differs from the current one. */
export function changedRows(incoming: Grid, current: Grid, from: number, to: number): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (let r = from; r <= to; r++) {
    const a = incoming[r]!,
      b = current[r];
    let same = b !== undefined && a.length === b.length;
    for (let c = 0; same && c < a.length; c++) same = Object.is(a[c], b![c]) || (a[c] === 0 && b![c] === 0);
    if (same) continue;
    const last = out[out.length - 1];
    if (last && last.to === r - 1) last.to = r;
    else out.push({ from: r, to: r });
  }
  return out;
}

/** Does `fresh` (read at rows/cols offset from the anchor) hold what `earlier` (read from the anchor) held there? */
export function sameCells(fresh: Grid, earlier: Grid, rowOffset: number, colOffset: number): boolean {
  for (let r = 0; r < fresh.length; r++) {
    const a = fresh[r]!;
    const b = earlier[rowOffset + r];
    for (let c = 0; c < a.length; c++) if (a[c] !== (b?.[colOffset + c] ?? "")) return false;
  }
  return true;
}

/** rows × cols of a grid from (row, col), "" where it is smaller. */
export function cutGrid(grid: Grid, row: number, col: number, rows: number, cols: number): Grid {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => grid[row + r]?.[col + c] ?? ""));
}

export function mergeKept(incoming: Grid, previous: Grid, kept: readonly { from: number; to: number }[]): Grid {
  return incoming.map((row, r) => (kept.some((k) => r >= k.from && r <= k.to) ? (previous[r] ?? row) : row));
}

/** The formats read in `box` for a write of rows × cols at (row, col), when the box holds them all. */
export function formatsAt(
  read: { box: Area; formats: string[][] } | null,
  row: number,
  col: number,
  rows: number,
  cols: number,
): { currentFormats?: string[][] } {
  if (!read) return {};
  const { box, formats } = read;
  const dr = row - box.row,
    dc = col - box.col;
  if (dr < 0 || dc < 0 || dr + rows > box.rows || dc + cols > box.cols) return {};
  return { currentFormats: formats.slice(dr, dr + rows).map((r) => r.slice(dc, dc + cols)) };
}

export function jsonBytes(grid: Grid, from: number, to: number): number {
  let n = 0;
  for (let r = from; r <= to; r++) n += JSON.stringify(grid[r]).length + 1;
  return n;
}

/** The checksum's chunk height (rows per chunk), from the fingerprint itself. */
export function chunkHeight(c: ResultChecksum): number {
  const first = c.chunks[0];
  return first && c.chunks.length > 1 ? c.chunks[1]!.from - first.from : Math.max(1, (first?.to ?? 1) - (first?.from ?? 0));
}

/** Merge contiguous spans into write calls of at most `maxRows` rows (never splitting a span). */
export function groupSpans(spans: readonly { from: number; to: number }[], maxRows: number): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.from === last.to + 1 && s.to - last.from + 1 <= maxRows) last.to = s.to;
    else out.push({ ...s });
  }
  return out;
}
