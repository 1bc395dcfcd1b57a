// Benchmark: fingerprint() of a 100,000 × 20 mixed grid, in Node and in headless Chromium,
// against JSON.stringify + h64 per chunk measured in the same run. Targets (issue 4):
// ≤ 60 ms in each runtime, and ≥ 2× faster than the baseline. Writes bench/results/checksum.json.
import { build } from "esbuild";
import { chromium } from "playwright";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumPath, CHROMIUM_ARGS } from "../dev/chromium.ts";
import { round, writeResult } from "./lib.ts";
import { COLS, ROWS, measure, type Measurement } from "./checksum-grid.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const TARGET_MS = 60;
const TARGET_SPEEDUP = 2;

async function inChromium(): Promise<Measurement> {
  const bundle = await build({
    entryPoints: [path.join(here, "checksum-page.ts")],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
  });
  const code = bundle.outputFiles[0]!.text;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: code });
    return await page.evaluate(async () => {
      const run = (globalThis as unknown as { checksumBench: (runtime: string) => Promise<Measurement> }).checksumBench;
      return run(navigator.userAgent.match(/Chrom(?:e|ium)\/[\d.]+/)?.[0] ?? "Chromium");
    });
  } finally {
    await browser.close();
  }
}

const node = await measure(`Node ${process.version}`);
const browser = await inChromium();

const ms = (x: number) => `${round(x).toFixed(2).padStart(7)} ms`;
const load = os
  .loadavg()
  .map((x) => x.toFixed(2))
  .join(" ");
console.log(`load average ${load} on ${os.cpus().length} CPUs (other processes share this machine)`);
for (const m of [node, browser]) {
  console.log(
    `${m.runtime.padEnd(18)} fingerprint median ${ms(m.fingerprintMs)} (min ${ms(m.fingerprintMinMs)})   ` +
      `JSON.stringify+h64 median ${ms(m.baselineMs)} (min ${ms(m.baselineMinMs)})   speedup ${m.speedup.toFixed(2)}×`,
  );
}
if (node.payload !== browser.payload) throw new Error(`Node and Chromium disagree on the payload: ${node.payload} vs ${browser.payload}`);

const worst = node.fingerprintMs > browser.fingerprintMs ? node : browser;
const minSpeedup = Math.min(node.speedup, browser.speedup);
const met = Math.max(node.fingerprintMs, browser.fingerprintMs) <= TARGET_MS && minSpeedup >= TARGET_SPEEDUP;
const metOnMin = Math.max(node.fingerprintMinMs, browser.fingerprintMinMs) <= TARGET_MS && minSpeedup >= TARGET_SPEEDUP;
writeResult({
  name: "checksum",
  unit: "ms",
  value: worst.fingerprintMs,
  baseline: worst.baselineMs,
  ratio: worst.speedup,
  details: {
    grid: `${ROWS} x ${COLS} mixed (text, integers, decimals, booleans, ~10% empty)`,
    meaning: "value = slower runtime's median fingerprint time; ratio = its JSON.stringify+h64 time / fingerprint time",
    targets: { maxMs: TARGET_MS, minSpeedup: TARGET_SPEEDUP },
    met,
    metOnFastestRuns: metOnMin,
    loadAverage: os.loadavg(),
    payload: node.payload,
    node,
    chromium: browser,
  },
});
console.log(
  met
    ? "checksum: targets met in both runtimes (medians)"
    : `checksum: TARGET MISSED on medians (≤ ${TARGET_MS} ms and ≥ ${TARGET_SPEEDUP}× in both runtimes)` +
        (metOnMin ? "; met on the fastest runs, so the machine was busy" : ""),
);
process.exit(met ? 0 : 1);
