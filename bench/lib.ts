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

export { percentile, timeMedian } from "./stats.ts";
