// Row prints (issue 30 §1): a short hash of every row Cellbound last wrote in a placement, kept in
// Cellbound's own data part beside the placement's record, so that a row a person inserted or deleted
// inside a placement is named as one inserted or deleted row — the chunk fingerprints of the seeds'
// resultChecksum (1,000 rows each) cannot tell an inserted row from every row below it being edited.
//
//   rowPrints(grid)          the hashes (32 bits of xxh64 over each row's canonical bytes, CHECKSUM.md §4);
//   alignRows(last, now)     a shortest edit script between the rows last written and the rows there now
//                            (Myers): which rows are the same (moved or not), inserted, deleted or changed;
//   stored per placement under ROWS_KEY_PREFIX + key as { v, of, rows } (base64 of 4 bytes a row; `of`: the
//   fingerprint they describe), for placements of at most MAX_ROW_PRINTS rows (what a snapshot reads stays
//   small: 10,000 rows are 53 KB); larger ones are named by their chunks, as before, and keep { v, of, answer }
//   instead when laid out from a SQL answer: the prints of the answer rows each chunk holds (answer-chunks.ts).
// Pure: no port, no network.
import { z } from "zod";
import { ChunkEncoder, type GridCell } from "../checksum/encode.ts";
import { h64Hex, ready } from "../checksum/hash.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import { MAX_ROW_PRINTS, type AnswerPrints } from "./answer-chunks.ts";
import type { Structure } from "./types.ts";

export const ROWS_KEY_PREFIX = "cellbound.rows.v1.";
// Above it a placement keeps what its chunks were laid out from instead (answer-chunks.ts, where it is defined: the
// query's side reads it without the record's types).
export { MAX_ROW_PRINTS } from "./answer-chunks.ts";

/** What a placement's row prints are stored as (validated when read: the workbook is a boundary). */
export const StoredRows = z
  .object({
    v: z.literal(1),
    of: z.string().max(200),
    rows: z.string().optional(),
    cols: z.string().optional(),
    /** Issue 35 §3: a larger placement laid out from a SQL answer keeps what its chunks were laid out from (answer-chunks.ts). */
    answer: z.object({ frame: z.string().max(64), chunks: z.array(z.string().max(16)), fractions: z.array(z.string()) }).optional(),
  })
  .loose();
export type StoredRows = z.infer<typeof StoredRows>;

/** The 32-bit print of each row. */
export async function rowPrints(grid: ReadonlyArray<ReadonlyArray<GridCell>>): Promise<Uint32Array> {
  await ready();
  const enc = new ChunkEncoder();
  const out = new Uint32Array(grid.length);
  grid.forEach((row, r) => {
    enc.begin(row.length);
    enc.row(row, r);
    out[r] = Number.parseInt(h64Hex(enc.bytes()).slice(0, 8), 16) >>> 0;
  });
  return out;
}

/** The 32-bit print of each column (the grid read column by column). */
export async function columnPrints(grid: ReadonlyArray<ReadonlyArray<GridCell>>, cols: number): Promise<Uint32Array> {
  const columns = Array.from({ length: cols }, (_, c) => grid.map((row) => row[c] ?? ""));
  return rowPrints(columns);
}

/** Which fingerprint row prints belong to: its chunk hashes, joined (short enough to store, exact to compare). */
export function printsOf(fp: ResultChecksum): string {
  return (
    fp.payload ??
    fp.chunks
      .map((c) => c.hash)
      .join("")
      .slice(0, 200)
  );
}

export function encodeRows(prints: Uint32Array): string {
  const bytes = new Uint8Array(prints.length * 4);
  const view = new DataView(bytes.buffer);
  prints.forEach((p, i) => view.setUint32(i * 4, p, true));
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function decodeRows(text: string): Uint32Array | null {
  try {
    const bin = atob(text);
    if (bin.length % 4 !== 0) return null;
    const view = new DataView(new ArrayBuffer(bin.length));
    for (let i = 0; i < bin.length; i++) view.setUint8(i, bin.charCodeAt(i));
    return Uint32Array.from({ length: bin.length / 4 }, (_, i) => view.getUint32(i * 4, true));
  } catch {
    return null;
  }
}

/** One step of an alignment: rows of what was last written (`last`) and of what the sheet holds now (`now`). */
export type RowStep =
  | { kind: "same"; last: number; now: number }
  | { kind: "inserted"; now: number }
  | { kind: "deleted"; last: number }
  | { kind: "changed"; last: number; now: number };

/**
 * A shortest edit script from `last` to `now` (Myers' O((N+M)·D) algorithm), with a deleted row directly
 * followed by an inserted one read as one changed row. Bounded: past `maxEdits` differences, null (the
 * caller names the changes by chunk instead).
 */
export function alignRows(last: ArrayLike<number>, now: ArrayLike<number>, maxEdits = 2_000): RowStep[] | null {
  const n = last.length,
    m = now.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && last[x] === now[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return null;
  trace.push(v.slice());
  // Walk back through the trace.
  const steps: RowStep[] = [];
  let x = n,
    y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!);
    const pk = down ? k + 1 : k - 1;
    const px = prev[offset + pk]!;
    const py = px - pk;
    while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0)) steps.push({ kind: "same", last: --x, now: --y });
    if (down) steps.push({ kind: "inserted", now: --y });
    else steps.push({ kind: "deleted", last: --x });
  }
  while (x > 0 && y > 0) steps.push({ kind: "same", last: --x, now: --y });
  steps.reverse();
  return pairChanges(steps);
}

/**
 * Between two same rows, deleted and inserted rows pair up as changed rows (first with first); what is
 * left over stays deleted or inserted.
 */
function pairChanges(steps: RowStep[]): RowStep[] {
  const out: RowStep[] = [];
  let dels: number[] = [],
    ins: number[] = [];
  const flush = () => {
    const pairs = Math.min(dels.length, ins.length);
    for (let i = 0; i < pairs; i++) out.push({ kind: "changed", last: dels[i]!, now: ins[i]! });
    for (const last of dels.slice(pairs)) out.push({ kind: "deleted", last });
    for (const now of ins.slice(pairs)) out.push({ kind: "inserted", now });
    dels = [];
    ins = [];
  };
  for (const s of steps) {
    if (s.kind === "deleted") dels.push(s.last);
    else if (s.kind === "inserted") ins.push(s.now);
    else {
      flush();
      out.push(s);
    }
  }
  flush();
  return out;
}

/** The first row (relative to the placement) that rows or columns inserted or deleted inside it moved: 0 for columns. */
export function movedFrom(st: Structure, rows = Number.MAX_SAFE_INTEGER): number {
  const cols = st.insertedCols.length + st.deletedCols.length > 0;
  return Math.min(...st.insertedRows.map((r) => r.from), ...st.deletedRows.map((d) => d.at), cols ? 0 : rows);
}

/** What a port holds of a placement's row prints (setData/getData of the port or session). */
interface RowsStore {
  getData(key: string): Promise<unknown>;
  setData(key: string, value: unknown): Promise<void>;
}

/**
 * Store the row prints of the grid a placement now holds (`fp` its fingerprint); none for a large one, which
 * keeps what its chunks were laid out from instead, when that is known (`answer`, answer-chunks.ts).
 */
export async function storeRowPrints(
  port: RowsStore,
  key: string,
  grid: ReadonlyArray<ReadonlyArray<GridCell>>,
  fp: ResultChecksum,
  answer: AnswerPrints | null = null,
): Promise<void> {
  const cols = grid[0]?.length ?? 0;
  const value =
    grid.length > MAX_ROW_PRINTS
      ? answer && { v: 1, of: printsOf(fp), answer }
      : { v: 1, of: printsOf(fp), rows: encodeRows(await rowPrints(grid)), cols: encodeRows(await columnPrints(grid, cols)) };
  if (value === null && (await port.getData(ROWS_KEY_PREFIX + key)) == null) return;
  await port.setData(ROWS_KEY_PREFIX + key, value);
}

/** Forget a placement's row prints (disconnected). */
export async function forgetRowPrints(port: RowsStore, key: string): Promise<void> {
  if ((await port.getData(ROWS_KEY_PREFIX + key)) == null) return;
  await port.setData(ROWS_KEY_PREFIX + key, null);
}

/** The row (and column) prints stored for a placement, when they describe `fp` (what it was last written with). */
export async function storedRowPrints(
  port: Pick<RowsStore, "getData">,
  key: string,
  fp: ResultChecksum | null,
): Promise<{ rows: Uint32Array; cols: Uint32Array | null } | null> {
  if (!fp) return null;
  const parsed = StoredRows.safeParse(await port.getData(ROWS_KEY_PREFIX + key));
  if (!parsed.success || parsed.data.of !== printsOf(fp) || parsed.data.rows === undefined) return null;
  const rows = decodeRows(parsed.data.rows);
  return rows ? { rows, cols: parsed.data.cols ? decodeRows(parsed.data.cols) : null } : null;
}

/** What a large placement's chunks were laid out from (answer-chunks.ts), when it describes `fp` (what it was last written with). */
export async function storedAnswerPrints(
  port: Pick<RowsStore, "getData">,
  key: string,
  fp: ResultChecksum | null,
): Promise<AnswerPrints | null> {
  if (!fp) return null;
  const parsed = StoredRows.safeParse(await port.getData(ROWS_KEY_PREFIX + key));
  return parsed.success && parsed.data.of === printsOf(fp) ? (parsed.data.answer ?? null) : null;
}
