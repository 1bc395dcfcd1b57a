// A SQL answer by the grid's chunks (issue 35 §3): a refresh of a large placement decodes and lays out only the
// chunks whose answer rows changed since it was last written.
//
// A flat table's grid row is laid out from one answer row alone, given everything else the grid depends on
// (the frame: the report, its settings, the layout and cell versions — run-report.ts sourceKey — and the
// answer's members other than its rows, with the time zone). So chunk k of the grid (CHUNK_ROWS rows from row
// k × CHUNK_ROWS; row 0 is the column titles) is a function of the frame and of the bytes of the answer rows it
// holds. When it was last written, the print of those bytes (xxh64) is kept beside the fingerprint of what was
// written (rows.ts, `answer`); an answer whose rows in chunk k have the same print, under the same frame, lays
// out chunk k as it was, whose hash is the one recorded. Only the other chunks are decoded.
//
// Number formats settled from the values (formats.ts: a column with a fraction somewhere) need every row: which
// columns hold a fraction is kept per chunk too.
// Pure: no port, no network; the hash kernel must be ready (checksum/hash.ts ready()).
import type { AnswerRows } from "../api/index.ts";
import { CHECKSUM_VERSION, CHUNK_ROWS, GridHasher, payloadOf } from "../checksum/fingerprint.ts";
import { h64Hex } from "../checksum/hash.ts";
import type { ResultChecksum, TypedResult } from "../checksum/types.ts";
import type { SheetValue } from "../host/port.ts";
import { fractionIn, settleFormatsWith } from "./formats.ts";
import type { Grid } from "./fingerprint.ts";
import type { Layout } from "./layout.ts";

/**
 * Most rows a placement keeps row prints for (rows.ts, issue 30); a larger one laid out from a SQL answer keeps
 * what its chunks were laid out from instead (below).
 */
export const MAX_ROW_PRINTS = 10_000;

/** What a grid's chunks were laid out from. */
export interface AnswerPrints {
  /** xxh64 of everything but the rows the grid depends on. */
  frame: string;
  /** Per chunk: xxh64 (16 hex) of the bytes of the answer rows it holds. */
  chunks: string[];
  /** Per chunk: per column, "1" when a data row of the chunk holds a number with a fraction, else "0". */
  fractions: string[];
}

/** The grid of only the chunks whose answer rows changed, and the fingerprint of the whole grid. */
export interface ChunkLayout {
  /** The fingerprint of the grid the whole answer lays out (unchanged chunks: the hashes recorded). */
  incoming: ResultChecksum;
  /** The grid's rows in the chunks laid out (`laid`); every other row is a hole. */
  cells: Grid;
  /** The chunks laid out, ascending. */
  laid: number[];
  /** The column formats, settled as over the whole grid. */
  columnFormats: Layout["columnFormats"];
  /** The prints of this answer's chunks (kept when it is written). */
  prints: AnswerPrints;
}

/** Lay out a slice of the answer's rows as a flat table (its title row first). */
export type LayRows = (rows: TypedResult) => Layout;

/** The answer rows [from, to) chunk k of a grid holds (`titles`: the rows above the first answer row). */
function answerRange(k: number, titles: number, count: number): [number, number] {
  const from = Math.max(0, k * CHUNK_ROWS - titles);
  return [Math.min(from, count), Math.min(count, (k + 1) * CHUNK_ROWS - titles)];
}

function chunksOf(gridRows: number): number {
  return Math.max(1, Math.ceil(gridRows / CHUNK_ROWS));
}

function printOf(rows: AnswerRows, k: number, titles: number): string {
  const [from, to] = answerRange(k, titles, rows.count);
  return h64Hex(rows.bytes(from, to));
}

function fractionsOf(cells: Grid, k: number, titles: number, cols: number): string {
  const from = Math.max(titles, k * CHUNK_ROWS);
  const to = Math.min(cells.length, (k + 1) * CHUNK_ROWS);
  let out = "";
  for (let c = 0; c < cols; c++) out += fractionIn(cells, from, to, c) ? "1" : "0";
  return out;
}

/** The prints of the grid `laid` laid out from `rows` (all of them; `titles` rows above them). */
export function answerPrints(rows: AnswerRows, frame: string, laid: Pick<Layout, "cells" | "columnFormats" | "headerRows">): AnswerPrints {
  const titles = laid.headerRows;
  if (laid.cells.length !== rows.count + titles) throw new Error("answerPrints: the grid is not laid out from these rows");
  const n = chunksOf(laid.cells.length);
  const chunks: string[] = [];
  const fractions: string[] = [];
  for (let k = 0; k < n; k++) {
    chunks.push(printOf(rows, k, titles));
    fractions.push(fractionsOf(laid.cells, k, titles, laid.columnFormats.length));
  }
  return { frame, chunks, fractions };
}

/**
 * Lay out only the chunks of `rows` whose prints differ from `was` (the prints of the grid fingerprinted
 * `committed`, `shape` rows × cols). Null when it cannot tell: another frame, another shape, another
 * fingerprint version, prints that do not match the fingerprint's chunks.
 */
export function layOutChanged(
  rows: AnswerRows,
  frame: string,
  was: AnswerPrints,
  committed: ResultChecksum,
  shape: { rows: number; cols: number },
  lay: LayRows,
): ChunkLayout | null {
  const head = lay(rows.decode(0, 0)); // the titles and the unsettled formats, from no row
  const titles = head.headerRows;
  const gridRows = rows.count + titles;
  const n = chunksOf(gridRows);
  const cols = head.columnFormats.length;
  if (was.frame !== frame || gridRows !== shape.rows || cols !== shape.cols || committed.v !== CHECKSUM_VERSION) return null;
  if (was.chunks.length !== n || was.fractions.length !== n || committed.chunks.length !== n) return null;
  if (was.fractions.some((f) => f.length !== cols)) return null;
  if (committed.chunks.some((c, k) => c.from !== k * CHUNK_ROWS) || committed.chunks[n - 1]!.to !== gridRows) return null;
  const cells: SheetValue[][] = new Array(gridRows);
  const prints = { frame, chunks: [] as string[], fractions: [] as string[] };
  const laid: number[] = [];
  const chunks: ResultChecksum["chunks"] = [];
  for (let k = 0; k < n; k++) {
    const print = printOf(rows, k, titles);
    const at = k * CHUNK_ROWS;
    const to = Math.min(gridRows, at + CHUNK_ROWS);
    prints.chunks.push(print);
    if (print === was.chunks[k]) {
      prints.fractions.push(was.fractions[k]!);
      chunks.push({ from: at, to, hash: committed.chunks[k]!.hash });
      continue;
    }
    const [from, end] = answerRange(k, titles, rows.count);
    const part = lay(rows.decode(from, end)).cells; // its title rows, then the rows decoded
    const first = Math.max(at, titles); // the grid row of the first row decoded
    for (let r = at; r < first; r++) cells[r] = head.cells[r]!;
    for (let i = 0; i < end - from; i++) cells[first + i] = part[titles + i]!;
    const hasher = new GridHasher();
    hasher.rows(cells.slice(at, to));
    chunks.push({ from: at, to, hash: hasher.finish().chunks[0]!.hash });
    prints.fractions.push(fractionsOf(cells, k, titles, cols));
    laid.push(k);
  }
  const anyFraction = (c: number) => prints.fractions.some((f) => f[c] === "1");
  return {
    incoming: { v: CHECKSUM_VERSION, chunks, payload: payloadOf(gridRows, cols, chunks) },
    cells,
    laid,
    columnFormats: settleFormatsWith(head.columnFormats, anyFraction),
    prints,
  };
}
