// Shared by the checksum benchmark in Node (bench/checksum.bench.ts) and in Chromium
// (bench/checksum-page.ts): the 100,000 × 20 mixed grid, and one measuring run that times
// fingerprint() against the JSON.stringify + h64 per chunk baseline in the same runtime.
import xxhash from "xxhash-wasm";
import { CHUNK_ROWS, chunkRanges, fingerprint, ready } from "../src/checksum/index.ts";
import type { GridCell } from "../src/checksum/index.ts";
import { timeMedian } from "./stats.ts";

export const ROWS = 100_000;
export const COLS = 20;

const WORDS = ["north", "south", "east", "west", "completed", "cancelled", "processing", "Acme Corp", "id-4821", "2024-Q1", "=A1", "00123"];
const NON_ASCII = ["Zürich", "São Paulo", "Kraków", "東京", "Ελλάδα", "naïve café"];

/** Deterministic mixed grid: per column a kind (text, integer, decimal, boolean), about 10% empty cells. */
export function makeGrid(rows = ROWS, cols = COLS, seed = 42): GridCell[][] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const grid: GridCell[][] = [];
  for (let r = 0; r < rows; r++) {
    const row: GridCell[] = new Array(cols);
    for (let c = 0; c < cols; c++) {
      const x = rand();
      if (x < 0.1) {
        row[c] = "";
        continue;
      }
      switch (c % 5) {
        case 0:
        case 1:
          row[c] =
            rand() < 0.05
              ? NON_ASCII[Math.floor(rand() * NON_ASCII.length)]!
              : `${WORDS[Math.floor(rand() * WORDS.length)]!} ${Math.floor(rand() * 1000)}`;
          break;
        case 2:
          row[c] = Math.floor(rand() * 1_000_000);
          break;
        case 3:
          row[c] = Math.round(rand() * 1e6) / 100;
          break;
        default:
          row[c] = rand() < 0.5;
      }
    }
    grid.push(row);
  }
  // range.values reaches the add-in as parsed JSON (packed arrays, flat strings): give the grid that form.
  return JSON.parse(JSON.stringify(grid)) as GridCell[][];
}

export interface Measurement {
  runtime: string;
  /** Medians of the timed runs. */
  fingerprintMs: number;
  baselineMs: number;
  /** Fastest runs: the least disturbed by other processes on a shared machine. */
  fingerprintMinMs: number;
  baselineMinMs: number;
  /** baselineMs / fingerprintMs: how many times faster than JSON.stringify + h64. */
  speedup: number;
  payload: string;
  chunks: number;
  samples: { fingerprint: number[]; baseline: number[] };
}

/** Time fingerprint() and the baseline on the same grid, one after the other, in this runtime. */
export async function measure(runtime: string, runs = 15, warmup = 3): Promise<Measurement> {
  await ready();
  const { h64 } = await xxhash();
  const grid = makeGrid();
  const baseline = () => {
    const hashes: string[] = [];
    for (const { from, to } of chunkRanges(grid.length))
      hashes.push(
        h64(JSON.stringify(grid.slice(from, to)))
          .toString(16)
          .padStart(16, "0"),
      );
    return hashes;
  };
  const base = await timeMedian(baseline, runs, warmup);
  const fp = await timeMedian(() => fingerprint(grid), runs, warmup);
  const result = await fingerprint(grid);
  return {
    runtime,
    fingerprintMs: fp.median,
    baselineMs: base.median,
    fingerprintMinMs: fp.min,
    baselineMinMs: base.min,
    speedup: base.median / fp.median,
    payload: result.payload ?? "",
    chunks: result.chunks.length,
    samples: { fingerprint: fp.samples, baseline: base.samples },
  };
}

export { CHUNK_ROWS };
