// Timing statistics for benchmarks; no Node APIs, so the Chromium bundles can use them too.

/** Percentile (0..100) of a list of samples, nearest-rank. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Median of n timed runs of fn (after warm-up runs), in milliseconds. */
export async function timeMedian(
  fn: () => unknown | Promise<unknown>,
  runs = 7,
  warmup = 2,
): Promise<{ median: number; min: number; samples: number[] }> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return { median: percentile(samples, 50), min: Math.min(...samples), samples };
}
