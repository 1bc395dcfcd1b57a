// The engine's door to src/checksum: fingerprint a grid of cells, and name the rows each chunk
// covers. Row ranges are derived from consecutive `from`s and the grid height, so the engine does
// not depend on whether the checksum's `to` is inclusive or half-open.
import type { ResultChecksum } from "../checksum/types.ts";
import type { SheetValue } from "../host/port.ts";
import { fingerprint } from "../checksum/index.ts";
import { h64Hex, ready } from "../checksum/hash.ts";

export type Grid = SheetValue[][];

export async function fingerprintGrid(grid: Grid): Promise<ResultChecksum> {
  return fingerprint(grid);
}

/** One hash of a grid's cells and shape (what a journal keeps of cells it will clear: issue 36, item 2). */
export async function contentHash(grid: Grid): Promise<string> {
  const fp = await fingerprint(grid);
  await ready();
  return h64Hex(new TextEncoder().encode(`${grid.length}x${grid[0]?.length ?? 0}|${fp.chunks.map((c) => c.hash).join(",")}`));
}

/** Inclusive zero-based row range (relative to the anchor) of chunk i. */
export function chunkRows(checksum: ResultChecksum, i: number, totalRows: number): { from: number; to: number } {
  const c = checksum.chunks[i];
  if (!c) throw new RangeError(`chunk ${i} does not exist`);
  const next = checksum.chunks[i + 1];
  return { from: c.from, to: (next ? next.from : totalRows) - 1 };
}

/** Indexes of the chunks of `a` whose hash differs from the chunk at the same index of `b`. */
export function differingChunks(a: ResultChecksum, b: ResultChecksum | null): number[] {
  const out: number[] = [];
  a.chunks.forEach((c, i) => {
    const o = b?.chunks[i];
    if (!o || o.hash !== c.hash || o.from !== c.from) out.push(i);
  });
  return out;
}

/** The top-left rows × cols of a grid, padding with "" where the grid is smaller. */
export function sliceGrid(grid: Grid, rows: number, cols: number): Grid {
  const out: Grid = new Array(rows);
  for (let r = 0; r < rows; r++) {
    const src = grid[r];
    if (src && src.length === cols) out[r] = src;
    else {
      const row: SheetValue[] = new Array(cols);
      for (let c = 0; c < cols; c++) row[c] = src?.[c] ?? "";
      out[r] = row;
    }
  }
  return out;
}

export function emptyGrid(rows: number, cols: number): Grid {
  return Array.from({ length: rows }, () => new Array<SheetValue>(cols).fill(""));
}
