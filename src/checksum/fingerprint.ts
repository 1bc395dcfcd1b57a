// fingerprint(grid) → ResultChecksum (format v1): rows in fixed chunks relative to the anchor,
// one xxh64 per chunk, and a payload that hashes the whole grid with its shape.
// A whole grid and the same grid streamed in row blocks go through the same GridHasher,
// so they give the same result by construction. docs/CHECKSUM.md §3 and §5.
import type { ResultChecksum } from "./types.ts";
import { ChunkEncoder, type GridCell } from "./encode.ts";
import { h64Hex, ready } from "./hash.ts";

/** Format version written in ResultChecksum.v. */
export const CHECKSUM_VERSION = 1;
/** Rows per chunk (format v1). Why 1000: docs/CHECKSUM.md §3. */
export const CHUNK_ROWS = 1000;

/** A grid as `range.values` returns it. */
export type Grid = ReadonlyArray<ReadonlyArray<GridCell>>;
/** A grid, or its rows in blocks top to bottom as the sheet adapter reads them (SheetPort.read). */
export type GridInput = Grid | AsyncIterable<Grid>;

/** A chunk's rows relative to the anchor, half-open: rows from, from+1, …, to−1. */
export interface ChunkRange {
  from: number;
  to: number;
}

/** The chunk ranges of a grid of `rows` rows: [0,1000), [1000,2000), …, the last one possibly shorter. */
export function chunkRanges(rows: number): ChunkRange[] {
  if (!Number.isInteger(rows) || rows < 0) throw new RangeError(`chunkRanges: row count must be a whole number ≥ 0, got ${rows}`);
  const ranges: ChunkRange[] = [];
  for (let from = 0; from < rows; from += CHUNK_ROWS) ranges.push({ from, to: Math.min(from + CHUNK_ROWS, rows) });
  return ranges;
}

/** The chunk holding row `row` (relative to the anchor). */
export function chunkIndexOf(row: number): number {
  return Math.floor(row / CHUNK_ROWS);
}

/** Fingerprint a grid (whole, or streamed in row blocks). Rows must all have the same length. */
export async function fingerprint(grid: GridInput): Promise<ResultChecksum> {
  await ready();
  const hasher = new GridHasher();
  if (isGrid(grid)) hasher.rows(grid);
  else if (grid !== null && typeof grid === "object" && Symbol.asyncIterator in grid) for await (const block of grid) hasher.rows(block);
  else throw new TypeError("fingerprint: expected a grid (array of rows) or an async iterable of row blocks");
  return hasher.finish();
}

/**
 * Incremental fingerprint: feed rows top to bottom, then finish(). Needs `await ready()` first.
 * Exported for the sync engine, which can hash blocks as it reads them.
 */
export class GridHasher {
  private readonly encoder = new ChunkEncoder();
  private readonly chunks: ResultChecksum["chunks"] = [];
  private rowCount = 0;
  private cols = -1;
  private done = false;

  rows(block: Grid): void {
    if (this.done) throw new Error("checksum: rows added after finish()");
    if (!Array.isArray(block)) throw new TypeError("checksum: a row block must be an array of rows");
    for (let i = 0; i < block.length; i++) {
      const row = block[i];
      if (!Array.isArray(row)) throw new TypeError(`checksum: row ${this.rowCount} is not an array`);
      if (this.cols < 0) this.cols = row.length;
      else if (row.length !== this.cols) {
        throw new RangeError(`checksum: row ${this.rowCount} has ${row.length} cells, expected ${this.cols} (a grid is rectangular)`);
      }
      if (this.rowCount % CHUNK_ROWS === 0) this.encoder.begin(this.cols);
      this.encoder.row(row as ReadonlyArray<GridCell>, this.rowCount);
      this.rowCount++;
      if (this.rowCount % CHUNK_ROWS === 0) this.flush();
    }
  }

  /** The chunks complete so far (a chunk ends every CHUNK_ROWS rows), without finishing. */
  chunksSoFar(): ResultChecksum["chunks"] {
    return this.chunks.map((c) => ({ ...c }));
  }

  finish(): ResultChecksum {
    if (this.done) throw new Error("checksum: finish() called twice");
    this.done = true;
    if (this.rowCount % CHUNK_ROWS !== 0) this.flush();
    const cols = Math.max(this.cols, 0);
    return { v: CHECKSUM_VERSION, chunks: this.chunks, payload: payloadOf(this.rowCount, cols, this.chunks) };
  }

  private flush(): void {
    const from = Math.floor((this.rowCount - 1) / CHUNK_ROWS) * CHUNK_ROWS;
    this.chunks.push({ from, to: this.rowCount, hash: h64Hex(this.encoder.bytes()) });
  }
}

/**
 * payload = "<rows>x<cols>:" + xxh64 of (u32le rows, u32le cols, each chunk hash as its 8 bytes
 * big-endian, in order). It changes with any cell and with the shape.
 */
export function payloadOf(rows: number, cols: number, chunks: ReadonlyArray<{ hash: string }>): string {
  const bytes = new Uint8Array(8 + 8 * chunks.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, rows, true);
  view.setUint32(4, cols, true);
  chunks.forEach((c, i) => view.setBigUint64(8 + 8 * i, BigInt(`0x${c.hash}`), false));
  return `${rows}x${cols}:${h64Hex(bytes)}`;
}

function isGrid(grid: GridInput): grid is Grid {
  return Array.isArray(grid);
}
