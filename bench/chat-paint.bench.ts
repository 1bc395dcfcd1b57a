// Frame arrival → paint in the chat pane (issue 14): the production pane in the harness, in
// Chromium, against the stand-in streaming real answers (a delta every 10 ms). For every frame,
// the time from its arrival in the pane's model (parsed and validated, just before the reducer) to
// the first animation frame after the signal write that showed it (the DOM is updated
// synchronously by that write; the next rAF is the paint). p50 and p95 over 4 answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright";
import { chromiumPath, CHROMIUM_ARGS } from "../dev/chromium.ts";
import { buildHarness, serveDir } from "../dev/harness/serve.ts";
import { startPlatform } from "../dev/platform/server.ts";
import { percentile, round, writeResult } from "./lib.ts";

const out = mkdtempSync(path.join(tmpdir(), "cellbound-chat-bench-"));
const platform = await startPlatform({ log: () => {}, chatDeltaMs: 10 });
try {
  await buildHarness(out, "production");
  const served = await serveDir(out, {
    baseUrl: platform.info.baseUrl,
    dataUrl: platform.info.dataUrl,
    credential: platform.info.apiKeys.analyst,
    persona: "analyst",
  });
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${served.url}/harness.html`);
    await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 30_000 });
    const pane = page.frameLocator("#taskpane");
    const frame = await (await page.$("#taskpane"))!.contentFrame();
    await pane.getByRole("button", { name: "Sign in", exact: true }).click();
    await pane.getByRole("button", { name: "Chat", exact: true }).waitFor({ timeout: 30_000 });
    await frame!.evaluate(() => {
      const w = window as unknown as { cellboundChatPaint: (a: number[], p: number) => void; __chatPaints: number[]; __chatFrames: number };
      w.__chatPaints = [];
      w.__chatFrames = 0;
      w.cellboundChatPaint = (arrivals, paintedAt) => {
        w.__chatFrames += arrivals.length;
        for (const a of arrivals) w.__chatPaints.push(paintedAt - a);
      };
    });
    await pane.getByRole("button", { name: "Chat", exact: true }).click();
    const questions = ["revenue by month", "orders by country", "units by category", "revenue by quarter"];
    for (const q of questions) {
      await pane.getByLabel("Ask the agent").fill(q);
      await pane.getByRole("button", { name: "Send", exact: true }).click();
      await pane
        .getByText(/^Tokens: /)
        .nth(questions.indexOf(q))
        .waitFor({ timeout: 60_000 });
    }
    const { paints, frames } = await frame!.evaluate(() => {
      const w = window as unknown as { __chatPaints: number[]; __chatFrames: number };
      return { paints: w.__chatPaints, frames: w.__chatFrames };
    });
    if (paints.length === 0) throw new Error("no paint was measured");
    const p50 = percentile(paints, 50);
    writeResult({
      name: "chat-frame-to-paint",
      unit: "ms p50",
      value: round(p50),
      details: {
        p95: round(percentile(paints, 95)),
        max: round(Math.max(...paints)),
        frames,
        answers: questions.length,
        deltaMs: 10,
        definition: "frame applied in the pane's model → the animation frame after the signal write that rendered it",
      },
    });
  } finally {
    await browser.close();
    await served.close();
  }
} finally {
  await platform.close();
  rmSync(out, { recursive: true, force: true });
}
