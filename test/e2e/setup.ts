// E2E rig: starts the platform stand-in, builds the pane + harness (production, minified) into a temp
// dir, serves it on 127.0.0.1:0, and launches Debian's Chromium through Playwright. stop() undoes all.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type FrameLocator, type Page } from "playwright";
import { expect as pwExpect } from "playwright/test";
import { chromiumPath, CHROMIUM_ARGS } from "../../dev/chromium.ts";
import { buildHarness, serveDir, type Served } from "../../dev/harness/serve.ts";
import { demoCommentsUsers, type HarnessConfig } from "../../dev/harness/config.ts";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server.ts";

export const SCREENSHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "screenshots");

export interface Rig {
  platform: RunningPlatform;
  served: Served & { config: HarnessConfig; proxied: boolean };
  browser: Browser;
  stop(): Promise<void>;
}

/** `embed`: start the stand-in with dev hooks and point the comments pane at its dev session broker. */
export async function startRig(o: { embed?: boolean } = {}): Promise<Rig> {
  const out = mkdtempSync(path.join(tmpdir(), "cellbound-e2e-"));
  const stops: (() => Promise<unknown>)[] = [async () => rmSync(out, { recursive: true, force: true })];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const [platform] = await Promise.all([
      startPlatform({ log: () => undefined, devHooks: o.embed === true, fixtures: false }),
      buildHarness(out, "production"),
    ]);
    stops.push(() => platform.close());
    const served = await serveDir(out, {
      baseUrl: platform.info.baseUrl,
      dataUrl: platform.info.dataUrl,
      credential: platform.info.apiKeys.analyst,
      persona: "analyst",
      chatAgentId: platform.info.chat.agentId,
      ...(o.embed
        ? {
            sessionUrl: `${platform.info.baseUrl}/__dev/embed-session`,
            ...(await demoCommentsUsers(platform.info.baseUrl, platform.info.embed.tenants[0]!)),
          }
        : {}),
    });
    stops.push(() => served.close());
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    stops.push(() => browser.close());
    mkdirSync(SCREENSHOTS, { recursive: true });
    return { platform, served, browser, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** The harness page and the pane inside it. */
export interface Opened {
  page: Page;
  pane: FrameLocator;
  /** Uncaught errors of the page or the pane, CSP violations, and 404s of the harness's own files (favicon, Office.js…). */
  problems: string[];
  /** Content-Security-Policy violations reported in any frame (Chromium logs each as a console error). */
  csp: string[];
}

export async function openHarness(rig: Rig, options: { colorScheme?: "light" | "dark"; query?: string } = {}): Promise<Opened> {
  const context = await rig.browser.newContext({
    viewport: { width: 1400, height: 900 },
    ...(options.colorScheme ? { colorScheme: options.colorScheme } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`error: ${e.message}`));
  const csp: string[] = [];
  page.on("console", (m) => {
    if (process.env.E2E_DEBUG) process.stderr.write(`console ${m.type()}: ${m.text()}\n`);
    // The pane's CSP (webpack.config.js): a refused script, eval, image, connection or frame is a problem.
    if (/Content Security Policy/i.test(m.text())) {
      const where = m.location().url ? ` (${m.location().url})` : "";
      csp.push(m.text() + where);
      problems.push(`csp: ${m.text()}${where}`);
    }
  });
  page.on("requestfailed", (r) => {
    // The pane aborts a request it no longer needs (a home load superseded by the next one, Cancel):
    // that is by design. Anything else that fails to load is a problem.
    const why = r.failure()?.errorText ?? "";
    if (why !== "net::ERR_ABORTED") problems.push(`failed: ${r.url()} (${why})`);
  });
  page.on("response", (r) => {
    // The platform answers 4xx on purpose at times (409s of an upsert); the harness's own files never should.
    if (r.status() === 404 && r.url().startsWith(rig.served.url) && !r.url().includes("/_platform/")) problems.push(`404: ${r.url()}`);
  });
  // The harness charges Excel on the web's round trip by default; tests run it instant unless they ask.
  const query = options.query ?? "";
  const withLatency = /[?&]latency=/.test(query) ? query : `${query}${query.includes("?") ? "&" : "?"}latency=none`;
  await page.goto(`${rig.served.url}/harness.html${withLatency}`);
  await page
    .waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 })
    .catch((e: unknown) => {
      throw new Error(`the harness did not get ready (${problems.join("; ") || "no errors seen"}): ${(e as Error).message}`);
    });
  return { page, pane: page.frameLocator("#taskpane"), problems, csp };
}

/** Click a grid cell by its A1 address (going there first with the Name box: the grid is virtualized). */
export async function clickCell(page: Page, address: string): Promise<void> {
  const cell = page.locator(`[data-cell="${address}"]`);
  if ((await cell.count()) === 0) {
    await page.getByLabel("Name box").fill(address);
    await page.getByLabel("Name box").press("Enter");
  }
  await cell.click();
}

/** Type into a cell as the user: select it, type, Enter. */
export async function typeIntoCell(page: Page, address: string, text: string): Promise<void> {
  await clickCell(page, address);
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

/** What a cell of the active sheet holds, read from the simulated workbook (rendered or not). */
export function cellText(page: Page, address: string): Promise<string> {
  return page.evaluate((a) => {
    const wb = (
      window as unknown as {
        cellboundHarness: { workbook(): { activeSheetId: string; inspect(s: string, a: string): { values: unknown[][] } } };
      }
    ).cellboundHarness.workbook();
    return String(wb.inspect(wb.activeSheetId, a).values[0]![0]);
  }, address);
}

/** Sign in with the pre-filled credential, choose the deployment when asked, and wait for `ready` (default: the Chat tab). */
export async function signIn(pane: FrameLocator, ready = pane.getByRole("button", { name: "Chat", exact: true })): Promise<void> {
  await pane.getByRole("button", { name: "Sign in", exact: true }).click();
  const use = pane.getByRole("button", { name: /^Use / }).first();
  await pwExpect(pane.getByRole("button", { name: "Refresh all", exact: true }).or(use)).toBeVisible({ timeout: 20_000 });
  if (await use.isVisible()) await use.click();
  await pwExpect(ready).toBeVisible({ timeout: 20_000 });
}
