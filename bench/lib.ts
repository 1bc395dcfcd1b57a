// Shared helpers for benchmarks. Each benchmark writes its figures to
// bench/results/<name>.json as {name, unit, value, baseline?, ratio?, details}.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface BenchResult {
  name: string;
  unit: string;
  value: number;
  baseline?: number;
  ratio?: number;
  details: Record<string, unknown>;
}

const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "results");

export function writeResult(result: BenchResult): void {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${result.name}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + "\n");
  const ratio = result.ratio === undefined ? "" : `  ratio ${result.ratio.toFixed(2)}`;
  const baseline = result.baseline === undefined ? "" : `  baseline ${round(result.baseline)} ${result.unit}`;
  console.log(`bench ${result.name}: ${round(result.value)} ${result.unit}${baseline}${ratio}`);
}

export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Percentile (0..100) of a list of samples, nearest-rank. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median of n timed runs of fn (after warm-up runs), in milliseconds. */
export async function timeMedian(fn: () => unknown | Promise<unknown>, runs = 7, warmup = 2): Promise<{ median: number; samples: number[] }> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return { median: percentile(samples, 50), samples };
}
