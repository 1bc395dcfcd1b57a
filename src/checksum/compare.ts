// Reading fingerprints against each other: is the sheet what we wrote (compare), and which
// chunks must a refresh write (planRewrite). Stored checksums come back from the platform, so
// they are validated (parseChecksum) before use. docs/CHECKSUM.md §6.
import type { ResultChecksum } from "./types.ts";
import { CHECKSUM_VERSION, CHUNK_ROWS, fingerprint, type ChunkRange, type GridInput } from "./fingerprint.ts";

/** A stored fingerprint that is not a valid format-v1 checksum. */
export class ChecksumFormatError extends Error {
  override name = "ChecksumFormatError";
}

export interface Comparison {
  /** The grid is exactly what the checksum fingerprints (shape and every chunk). */
  same: boolean;
  /** Chunks whose cells differ, or that exist on one side only (half-open row ranges from the anchor). */
  editedChunks: ChunkRange[];
  /** Row count differs, or column count differs (known when the stored checksum has a payload). */
  shapeChanged: boolean;
}

/** An area relative to the anchor, half-open on both axes. */
export interface AreaRange {
  fromRow: number;
  toRow: number;
  fromCol: number;
  toCol: number;
}

export interface RewritePlan {
  /** Chunks of the incoming grid the sheet does not already hold: write these rows. */
  write: ChunkRange[];
  /** Chunks of the incoming grid the sheet already holds: no need to write them. */
  skip: ChunkRange[];
  /** Chunks edited by hand since the stored write (current ≠ stored) that the plan overwrites or clears. */
  overwritesEdits: ChunkRange[];
  /** Cells the current grid holds outside the incoming shape: clear them. */
  clear: AreaRange[];
  /** The incoming shape differs from the current one. */
  shapeChanged: boolean;
}

/** Shape of a fingerprinted grid: rows from its chunks, columns from its payload (null without a payload). */
export function shapeOf(checksum: ResultChecksum): { rows: number; cols: number | null } {
  const last = checksum.chunks[checksum.chunks.length - 1];
  const rows = last === undefined ? 0 : last.to;
  if (checksum.payload === undefined) return { rows, cols: null };
  const m = PAYLOAD.exec(checksum.payload);
  return { rows, cols: m === null ? null : Number(m[2]) };
}

const HASH = /^[0-9a-f]{16}$/;
const PAYLOAD = /^(\d+)x(\d+):[0-9a-f]{16}$/;

/**
 * Validate a fingerprint that crossed a boundary (platform, workbook storage) as format v1:
 * chunks of CHUNK_ROWS rows from row 0, contiguous, 16-hex hashes, payload "<rows>x<cols>:<hex16>".
 * Throws ChecksumFormatError saying what is wrong.
 */
export function parseChecksum(value: unknown): ResultChecksum {
  if (typeof value !== "object" || value === null) throw new ChecksumFormatError("resultChecksum: not an object");
  const { v, chunks, payload } = value as Record<string, unknown>;
  if (v !== CHECKSUM_VERSION)
    throw new ChecksumFormatError(
      `resultChecksum: format v=${JSON.stringify(v)} is not supported (this client reads v=${CHECKSUM_VERSION})`,
    );
  if (!Array.isArray(chunks)) throw new ChecksumFormatError("resultChecksum: chunks is not an array");
  const out: ResultChecksum["chunks"] = [];
  chunks.forEach((c: unknown, i) => {
    const { from, to, hash } = (typeof c === "object" && c !== null ? c : {}) as Record<string, unknown>;
    const expectedFrom = i * CHUNK_ROWS;
    if (from !== expectedFrom)
      throw new ChecksumFormatError(`resultChecksum: chunk ${i} starts at ${JSON.stringify(from)}, expected ${expectedFrom}`);
    const last = i === chunks.length - 1;
    const fullTo = expectedFrom + CHUNK_ROWS;
    if (typeof to !== "number" || !Number.isInteger(to) || (last ? to <= expectedFrom || to > fullTo : to !== fullTo)) {
      throw new ChecksumFormatError(`resultChecksum: chunk ${i} ends at ${JSON.stringify(to)}, which v1 chunking does not allow`);
    }
    if (typeof hash !== "string" || !HASH.test(hash))
      throw new ChecksumFormatError(`resultChecksum: chunk ${i} hash is not 16 lowercase hex characters`);
    out.push({ from: expectedFrom, to, hash });
  });
  const result: ResultChecksum = { v: CHECKSUM_VERSION, chunks: out };
  if (payload !== undefined) {
    const m = typeof payload === "string" ? PAYLOAD.exec(payload) : null;
    if (m === null) throw new ChecksumFormatError('resultChecksum: payload is not "<rows>x<cols>:<16 hex>"');
    const rows = out.length === 0 ? 0 : out[out.length - 1]!.to;
    if (Number(m[1]) !== rows) throw new ChecksumFormatError(`resultChecksum: payload says ${m[1]} rows, chunks cover ${rows}`);
    result.payload = payload as string;
  }
  return result;
}

/** Compare a grid (e.g. read back from the placement's area) with a stored checksum. */
export async function compare(grid: GridInput, checksum: ResultChecksum): Promise<Comparison> {
  const stored = parseChecksum(checksum);
  return compareChecksums(stored, await fingerprint(grid));
}

/** compare() for two fingerprints already at hand (`stored` is validated). */
export function compareChecksums(stored: ResultChecksum, current: ResultChecksum): Comparison {
  const a = parseChecksum(stored);
  const b = parseChecksum(current);
  const sa = shapeOf(a);
  const sb = shapeOf(b);
  const shapeChanged = sa.rows !== sb.rows || (sa.cols !== null && sb.cols !== null && sa.cols !== sb.cols);
  const editedChunks = differingChunks(a, b);
  const payloadsDiffer = a.payload !== undefined && b.payload !== undefined && a.payload !== b.payload;
  return { same: !shapeChanged && editedChunks.length === 0 && !payloadsDiffer, editedChunks, shapeChanged };
}

/**
 * Which chunks a refresh must write.
 *   stored:   the checksum recorded when Cellbound last wrote the placement (null: never written);
 *   incoming: fingerprint of the new cells (toCell of the new result);
 *   current:  fingerprint of what the sheet holds now over the placement's area.
 * A chunk is written when the sheet does not already hold the incoming one; hand edits
 * (current ≠ stored) that the plan would overwrite or clear are listed so the UI can warn first.
 */
export function planRewrite(stored: ResultChecksum | null, incoming: ResultChecksum, current: ResultChecksum): RewritePlan {
  const inc = parseChecksum(incoming);
  const cur = parseChecksum(current);
  const si = shapeOf(inc);
  const sc = shapeOf(cur);

  const write: ChunkRange[] = [];
  const skip: ChunkRange[] = [];
  inc.chunks.forEach((chunk, i) => {
    const there = cur.chunks[i];
    const range = { from: chunk.from, to: chunk.to };
    if (there !== undefined && there.to === chunk.to && there.hash === chunk.hash) skip.push(range);
    else write.push(range);
  });

  const clear: AreaRange[] = [];
  const incomingCols = si.cols ?? 0;
  const currentCols = sc.cols ?? incomingCols;
  if (sc.rows > si.rows && currentCols > 0)
    clear.push({ fromRow: si.rows, toRow: sc.rows, fromCol: 0, toCol: Math.max(currentCols, incomingCols) });
  if (currentCols > incomingCols && si.rows > 0)
    clear.push({ fromRow: 0, toRow: Math.min(si.rows, sc.rows), fromCol: incomingCols, toCol: currentCols });

  const overwritesEdits: ChunkRange[] = [];
  if (stored !== null) {
    const touched = (r: ChunkRange) =>
      write.some((w) => w.from === r.from) || clear.some((c) => c.fromRow < r.to && r.from < c.toRow && c.toRow > c.fromRow);
    for (const edited of compareChecksums(stored, cur).editedChunks) if (touched(edited)) overwritesEdits.push(edited);
  }

  const shapeChanged = si.rows !== sc.rows || (si.cols !== null && sc.cols !== null && si.cols !== sc.cols);
  return { write, skip, overwritesEdits, clear: clear.filter((c) => c.toRow > c.fromRow && c.toCol > c.fromCol), shapeChanged };
}

/** Merge adjacent ranges (e.g. the chunks to write) into as few ranges as possible. */
export function mergeRanges(ranges: ReadonlyArray<ChunkRange>): ChunkRange[] {
  const sorted = [...ranges].sort((x, y) => x.from - y.from);
  const out: ChunkRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && r.from <= last.to) last.to = Math.max(last.to, r.to);
    else out.push({ from: r.from, to: r.to });
  }
  return out;
}

function differingChunks(a: ResultChecksum, b: ResultChecksum): ChunkRange[] {
  const n = Math.max(a.chunks.length, b.chunks.length);
  const out: ChunkRange[] = [];
  for (let i = 0; i < n; i++) {
    const x = a.chunks[i];
    const y = b.chunks[i];
    if (x !== undefined && y !== undefined && x.to === y.to && x.hash === y.hash) continue;
    out.push({ from: i * CHUNK_ROWS, to: Math.max(x?.to ?? 0, y?.to ?? 0) });
  }
  return out;
}
