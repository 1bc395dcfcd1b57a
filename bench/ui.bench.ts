// UI budgets (issue 7), measured in one run:
//   - initial task-pane JS, gzipped: the scripts taskpane.html loads before anything is clicked
//     (production build; the report builder and diagnostics are separate on-demand chunks) ≤ 150 KB;
//   - harness ready: navigation → the simulated workbook drawn and the pane showing its first view ≤ 1.5 s;
//   - workbook home with 2,000 placements: mount + style + layout ≤ 300 ms (median of runs).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright";
import { chromiumPath, CHROMIUM_ARGS } from "../dev/chromium.ts";
import { buildHarness, serveDir } from "../dev/harness/serve.ts";
import { startPlatform } from "../dev/platform/server.ts";
import { percentile, round, writeResult } from "./lib.ts";

const KB = 1024;
const out = mkdtempSync(path.join(tmpdir(), "cellbound-ui-bench-"));
const platform = await startPlatform({});
try {
  const t0 = performance.now();
  const build = await buildHarness(out, "production");
  const buildMs = performance.now() - t0;

  // 1. Initial task-pane JS (gzipped), and the on-demand chunks for comparison.
  const initial = build.entrypoints.taskpane ?? [];
  if (initial.length === 0) throw new Error("no taskpane entrypoint in the build");
  const gz = (f: string) => gzipSync(readFileSync(path.join(out, f)), { level: 9 }).length;
  const initialBytes = initial.reduce((n, f) => n + gz(f), 0);
  const allJs = build.assets.filter((a) => a.endsWith(".js"));
  const onDemand = allJs.filter((a) => !Object.values(build.entrypoints).flat().includes(a));
  writeResult({
    name: "ui-initial-js",
    unit: "KB gzip",
    value: round(initialBytes / KB),
    baseline: 150,
    ratio: initialBytes / KB / 150,
    details: {
      budgetKB: 150,
      initial: Object.fromEntries(initial.map((f) => [f, round(gz(f) / KB)])),
      onDemand: Object.fromEntries(onDemand.map((f) => [f, round(gz(f) / KB)])),
      buildMs: round(buildMs),
    },
  });

  const served = await serveDir(out, {
    baseUrl: platform.info.baseUrl,
    dataUrl: platform.info.dataUrl,
    credential: platform.info.apiKeys.analyst,
    persona: "analyst",
  });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    // 2. Harness ready time (fresh context each time: nothing cached), median of 5 after 1 warm-up.
    const readyMs: number[] = [];
    for (let i = 0; i < 6; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const start = Date.now();
      await page.goto(`${served.url}/harness.html`);
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 15_000 });
      if (i > 0) readyMs.push(Date.now() - start);
      await context.close();
    }
    const p50 = percentile(readyMs, 50);
    writeResult({
      name: "ui-harness-ready",
      unit: "ms",
      value: p50,
      baseline: 1500,
      ratio: p50 / 1500,
      details: {
        budgetMs: 1500,
        samples: readyMs,
        p95: percentile(readyMs, 95),
        definition: "navigation start → grid drawn and the pane's first view rendered (body[data-ready])",
      },
    });

    // 3. Workbook home with 2,000 placements.
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${served.url}/home-bench.html`);
    await page.waitForFunction(() => document.body.dataset.ready === "true");
    const samples = await page.evaluate(async () => {
      const run = (window as unknown as { __homeBench: (n: number, runs: number) => Promise<number[]> }).__homeBench;
      return run(2000, 9);
    });
    const median = percentile(samples, 50);
    const allMs = await page.evaluate(async () => {
      const all = (window as unknown as { __homeBenchAll: (n: number) => Promise<number> }).__homeBenchAll;
      return all(2000);
    });
    writeResult({
      name: "ui-home-2000",
      unit: "ms",
      value: round(median),
      baseline: 300,
      ratio: median / 300,
      details: {
        budgetMs: 300,
        placements: 2000,
        definition:
          "mount + style + layout of the home with 2,000 placements: header, count, first cards; the rest render as the list scrolls",
        samples: samples.map((s) => round(s)),
        p95: round(percentile(samples, 95)),
        everyCardMs: round(allMs),
      },
    });
    await page.close();
  } finally {
    await browser.close();
    await served.close();
  }
} finally {
  await platform.close();
  rmSync(out, { recursive: true, force: true });
}
