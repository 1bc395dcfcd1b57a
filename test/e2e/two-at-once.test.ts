// Issue 36 items 18–20, end to end: two things at once in the real pane (the harness, on dev/excel,
// against the platform stand-in), in Chromium. The windows are widened as the finder did: the
// pane's requests are held (Playwright routes), the stand-in's queries slowed, and Excel held by a
// cell being edited (dev/excel's cell-edit mode: every batch of the add-in waits for it).
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { Frame, FrameLocator, Locator, Page, Route } from "playwright";
import { createPlatformClient, type PlatformClient } from "../../src/api/index.ts";
import { clickCell, openHarness, SCREENSHOTS, startRig, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;
let analyst: PlatformClient;
/** The analyst's SQL report placed at B2 (its query is changed later, so a refresh writes). */
let ordersId = 0;
/** Every request of the page to the platform: when it left (Node's clock), what, and its credential. */
const requests: { t: number; method: string; url: string; auth: string | null }[] = [];

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane } = await openHarness(rig));
  analyst = createPlatformClient({ baseUrl: rig.platform.info.baseUrl, credential: rig.platform.info.apiKeys.analyst });
  const origin = new URL(rig.platform.info.baseUrl).origin;
  page.on("request", (r) => {
    if (r.url().startsWith(origin))
      requests.push({ t: Date.now(), method: r.method(), url: r.url(), auth: r.headers()["authorization"] ?? null });
  });
}, 240_000);

afterAll(async () => {
  rig?.platform.setSlowQueryMs(0);
  await rig?.stop();
});

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
const button = (name: string | RegExp, within: FrameLocator | Locator = pane) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const card = (text: string | RegExp) => pane.locator("li.cb-card[data-placement]").filter({ hasText: text });
const footer = () => pane.locator("footer.cb-footer");
const workbook = <T>(f: string): Promise<T> =>
  page.evaluate((body) => {
    const wb = (window as unknown as { cellboundHarness: { workbook(): Record<string, () => unknown> } }).cellboundHarness.workbook();
    return wb[body]!.call(wb) as T;
  }, f);

async function taskpaneFrame(): Promise<Frame> {
  const frame = await (await page.locator("#taskpane").elementHandle())!.contentFrame();
  if (!frame) throw new Error("the pane's frame is not there");
  return frame;
}

/** From now on, the time (Date.now) each text first shows in the pane. */
async function watchTexts(texts: string[]): Promise<() => Promise<Record<string, number>>> {
  const frame = await taskpaneFrame();
  await frame.evaluate((wanted) => {
    const w = window as unknown as { __seen: Record<string, number> };
    w.__seen = {};
    const look = () => {
      const now = document.body.textContent ?? "";
      for (const t of wanted) if (!(t in w.__seen) && now.includes(t)) w.__seen[t] = Date.now();
    };
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true });
    look();
  }, texts);
  return () => frame.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
}

async function signInAs(credential: string): Promise<void> {
  await pane.getByLabel("API key or access token").fill(credential);
  await button("Sign in").click();
  const use = pane.getByRole("button", { name: /^Use Sales Analytics/ });
  await pwExpect(button("Refresh all").or(use)).toBeVisible({ timeout: 30_000 });
  if (await use.isVisible()) await use.click();
  await pwExpect(pane.getByRole("heading", { name: "Q3 numbers.xlsx" })).toBeVisible({ timeout: 20_000 });
}

/**
 * Each test starts from the same place whatever the one before left: Excel free and instant, no request
 * held, queries at their pace, and a fresh sign-in as `credential`.
 */
async function fresh(credential: string): Promise<void> {
  await workbook("leaveCellEdit");
  await page.unrouteAll({ behavior: "ignoreErrors" });
  rig.platform.setSlowQueryMs(0);
  await page.getByLabel("Excel round trip").selectOption("none");
  const signOut = button("Sign out");
  if (await signOut.isVisible()) {
    await pwExpect(signOut).toBeEnabled({ timeout: 30_000 });
    await signOut.click();
  }
  await pwExpect(pane.getByLabel("API key or access token")).toBeVisible({ timeout: 30_000 });
  await signInAs(credential);
}

async function place(cell: string, report: string): Promise<void> {
  await clickCell(page, cell);
  await button("Reports").click();
  await pane.getByRole("button", { name: new RegExp(`Place report ${report}`) }).click({ timeout: 20_000 });
  await pwExpect(card(report)).toContainText("Up to date", { timeout: 30_000 });
}

/** Hold the pane's requests matching `pattern` (and `method`) until `release()`; `held()` counts those waiting. */
async function hold(pattern: string | RegExp, method?: string): Promise<{ held: () => number; release: () => Promise<void> }> {
  const waiting: Route[] = [];
  let open = false;
  const handler = async (route: Route) => {
    if (open || (method && route.request().method() !== method)) return route.continue().catch(() => undefined);
    waiting.push(route);
  };
  await page.route(pattern, handler);
  return {
    held: () => waiting.length,
    release: async () => {
      open = true;
      await page.unroute(pattern, handler);
      for (const r of waiting.splice(0)) await r.continue().catch(() => undefined);
    },
  };
}

describe("two things at once in the pane (issue 36)", { timeout: 180_000 }, () => {
  beforeAll(async () => {
    ordersId = (
      await analyst.createReport(1, {
        name: "Orders so far",
        title: "Orders so far",
        sqlQuery: "SELECT id, status, amount FROM orders WHERE id <= 40 ORDER BY id",
      })
    ).id;
    await signInAs(rig.platform.info.apiKeys.analyst);
    await place("B2", "Orders so far");
    await place("H2", "Revenue by month");
  }, 120_000);

  it("issue 36 item 18: Sign out during a refresh stops it first and says Signed out, not Refresh cancelled", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);

    rig.platform.setSlowQueryMs(60_000);
    try {
      await button("Refresh", card("Revenue by month")).click();
      await pwExpect(card("Revenue by month")).toContainText("Refreshing…", { timeout: 10_000 });
      const seen = await watchTexts(["Signing out — stopping the refresh…", "Signed out", "Refresh cancelled"]);
      await button("Sign out").click();
      await pwExpect(pane.getByText("Signed out", { exact: true })).toBeVisible({ timeout: 15_000 });
      await page.waitForTimeout(1_000);
      await pwExpect(pane.getByText("Signed out", { exact: true })).toBeVisible();
      const t = await seen();
      expect(t["Refresh cancelled"]).toBeUndefined();
      expect(t["Signing out — stopping the refresh…"]).toBeLessThanOrEqual(t["Signed out"]!);
    } finally {
      rig.platform.setSlowQueryMs(0);
    }
  });

  it("issue 36 item 18: Sign out during Refresh all waits for the write under way; no request leaves with the signed-out key; the next person sees nothing of it", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);
    await pwExpect(card("Orders so far")).toContainText("Up to date", { timeout: 20_000 });
    // The report changed on the platform: its refresh writes rows (Excel is asked, and can be held).
    await analyst.updateReport(1, ordersId, { sqlQuery: "SELECT id, status, amount FROM orders WHERE id <= 60 ORDER BY id" });
    const loads = await hold(/\/cubejs-api\/v1\/(load|svcsql)/);
    await button("Refresh all").click();
    await pwExpect.poll(() => loads.held(), { timeout: 20_000 }).toBe(2);
    // Both queries are under way: Excel is held by a cell being edited, so the write that follows waits.
    await workbook("enterCellEdit");
    await loads.release();
    await page.waitForTimeout(700);
    const analystAuth = new Set(requests.map((r) => r.auth).filter((a): a is string => a !== null));
    expect(analystAuth).toContain(`Bearer ${rig.platform.info.apiKeys.analyst}`);
    const seen = await watchTexts(["Signing out — stopping the refresh…", "Signed out"]);
    const clicked = Date.now();
    await button("Sign out").click();
    await page.waitForTimeout(700);
    await shot("sign-out-stopping");
    // Not signed out while the write under way is unfinished: it says what it is waiting for.
    await pwExpect(pane.getByText("Signed out", { exact: true })).toHaveCount(0);
    await pwExpect(pane.getByText("Signing out — stopping the refresh…")).toBeVisible();
    await workbook("leaveCellEdit");
    await pwExpect(pane.getByText("Signed out", { exact: true })).toBeVisible({ timeout: 20_000 });
    await shot("sign-out-done");
    await page.waitForTimeout(1_500);
    const signedOut = (await seen())["Signed out"]!;
    // The write that had begun was finished with its record, under the key it began with, before "Signed out".
    const record = requests.filter((r) => r.method === "PUT" && /\/refresh$/.test(new URL(r.url).pathname) && r.t > clicked);
    expect(record.length).toBeGreaterThan(0);
    expect(record.every((r) => r.t <= signedOut)).toBe(true);
    // Nothing of the signed-out session leaves afterwards.
    const late = requests.filter((r) => r.t > signedOut && r.auth !== null && analystAuth.has(r.auth));
    expect(late).toEqual([]);
    expect(requests.filter((r) => r.t > signedOut)).toEqual([]);

    // The viewer signs in to the same workbook: nothing of the analyst's Refresh all shows.
    await signInAs(rig.platform.info.apiKeys.viewer);
    await pwExpect(card("Revenue by month")).toHaveAttribute("data-status", "viewOnly", { timeout: 20_000 });
    await page.waitForTimeout(500);
    await pwExpect(footer()).toHaveCount(0);
    await pwExpect(pane.getByText(/Refreshed \d+ of \d+|Last refresh|view only, not refreshed|Signed out/)).toHaveCount(0);
    const viewerRequests = requests.filter((r) => r.t > signedOut);
    expect(viewerRequests.length).toBeGreaterThan(0);
    expect(viewerRequests.filter((r) => r.auth !== null && analystAuth.has(r.auth))).toEqual([]);
    await pwExpect(page.locator(".hx-errors")).toHaveCount(0); // no uncaught error in the pane or the page
  });

  it("issue 36 item 19: while a card's Disconnect question is open nothing else starts on it; Disconnected stays, and no message shows a tracking name", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);
    const revenue = card("Revenue by month");
    await pwExpect(revenue).toContainText(/Up to date|Out of date/, { timeout: 20_000 });

    await button("Disconnect", revenue).click();
    await pwExpect(revenue.getByRole("group", { name: /Disconnect/ })).toBeVisible();
    await pwExpect(button("Refresh", revenue)).toBeDisabled();
    await pwExpect(button("Refresh", revenue)).toHaveAttribute(
      "title",
      "Refresh can start once you answer the question about disconnecting “Revenue by month”.",
    );
    await pwExpect(button("Refresh all")).toBeDisabled();
    await pwExpect(pane.locator("#cb-refresh-all-why")).toHaveText(
      "Refresh all can start once you answer the question about disconnecting “Revenue by month”.",
    );
    await pwExpect(button("Refresh", card("Orders so far"))).toBeEnabled(); // another placement is not held
    await shot("disconnect-question");

    const deleting = await hold(/\/connect-workbook$/, "DELETE");
    await button("Confirm disconnect", revenue).click();
    await pwExpect.poll(() => deleting.held(), { timeout: 10_000 }).toBe(1);
    await pwExpect(button("Refresh", revenue)).toBeDisabled();
    await pwExpect(pane.locator("#cb-refresh-all-why")).toHaveText("Refresh all can start once “Revenue by month” is disconnected.");
    await shot("disconnecting");
    await deleting.release();
    await pwExpect(pane.getByText("Disconnected", { exact: true })).toBeVisible({ timeout: 20_000 });
    await pwExpect(revenue).toHaveCount(0, { timeout: 20_000 });
    await page.waitForTimeout(1_500);
    await pwExpect(pane.getByText("Disconnected", { exact: true })).toBeVisible();
    await shot("disconnected");
    await pwExpect(pane.getByText(/something went wrong|No placement|CB_|tracked in this workbook/i)).toHaveCount(0);
    await pwExpect(button("Refresh all")).toBeEnabled();
  });

  it("issue 36 item 20: switching tabs during a large placement says which rows stay and how to finish; the refresh that finishes it reads as sentences", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);
    await analyst.createReport(1, {
      name: "All orders (SQL)",
      title: "All orders (SQL)",
      sqlQuery: "SELECT id, status, amount FROM orders WHERE id <= 100000 ORDER BY id",
    });
    // Excel on the web's round trip (the harness's selector): a page of rows takes long enough to be seen.
    const excel = page.getByLabel("Excel round trip");
    await excel.selectOption("web");
    await clickCell(page, "M2");
    await button("Reports").click();
    await pane.getByRole("button", { name: /Place report All orders \(SQL\)/ }).click({ timeout: 20_000 });
    await pwExpect(pane.getByRole("status").filter({ hasText: /Placing report… [\d,]+ of at least [\d,]+/ })).toBeVisible({
      timeout: 60_000,
    });
    await workbook("enterCellEdit"); // Excel holds the next page's write: the tab switch lands mid-placement
    await button("Workbook").click();
    await page.waitForTimeout(300);
    await workbook("leaveCellEdit");
    const notice = pane.locator(".cb-notice");
    await pwExpect(notice).toContainText("Placing the report was cancelled part way", { timeout: 20_000 });
    await pwExpect(notice).toContainText(
      /[\d,]+ rows of “All orders \(SQL\)” were written to Sheet1!M2:O\d+ before it stopped: they stay there, as a placement not finished\./,
    );
    await pwExpect(notice).toContainText(
      "On the Workbook tab it shows as “Interrupted — finish refresh”: press its Refresh to finish placing it",
    );
    await pwExpect(pane.getByText("Placing the report cancelled")).toHaveCount(0);
    await excel.selectOption("none");
    const big = card("All orders (SQL)");
    await pwExpect(big).toContainText("Interrupted — finish refresh", { timeout: 20_000 });
    await shot("placement-cancelled-part-way");

    // Finishing it: its notice joins the summary and what happened before as sentences.
    await button("Refresh", big).click();
    await pwExpect(notice).toContainText("Refreshed, with a warning", { timeout: 120_000 });
    await pwExpect(notice).toContainText(
      /All orders \(SQL\): [^.]+\. An earlier refresh of this placement was interrupted after writing; it is now complete\./,
    );
    await pwExpect(big).toContainText("Up to date", { timeout: 30_000 });
  });

  it("issue 36 item 20: a notice of the Reports tab (its listing stopped by leaving it) does not show on the Workbook tab", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);
    const listing = await hold(/\/api\/v1\/deployments\/\d+\/reports\?(?!.*externalWorkbookId)/);
    await button("Reports").click();
    await pwExpect.poll(() => listing.held(), { timeout: 10_000 }).toBeGreaterThan(0);
    await button("Workbook").click();
    await page.waitForTimeout(1_000);
    await pwExpect(pane.getByText("Loading reports was cancelled")).toHaveCount(0);
    await listing.release();
  });

  it("issue 36 item 20: the placement's progress line and Cancel end when “Report placed” shows", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);
    let armed = false;
    page.on("response", (r) => {
      if (r.request().method() === "POST" && /\/connect-workbook$/.test(r.url())) armed = true;
    });
    // The home's check after the placement is held: the outcome shows while it runs.
    const checks: Route[] = [];
    await page.route(/\/external-documents\/[^/]+\/placements/, (route) => {
      if (!armed) return void route.continue().catch(() => undefined);
      checks.push(route);
    });
    await clickCell(page, "Q2");
    await button("Reports").click();
    await pane.getByRole("button", { name: /Place report Top customers/ }).click({ timeout: 20_000 });
    await pwExpect(pane.getByText("Report placed", { exact: true })).toBeVisible({ timeout: 30_000 });
    expect(checks.length).toBeGreaterThan(0); // the check is under way…
    await pwExpect(pane.getByText(/Placing report…/)).toHaveCount(0); // …and the progress line is gone
    await pwExpect(button("Cancel placing report")).toHaveCount(0);
    await page.unrouteAll({ behavior: "ignoreErrors" });
    for (const r of checks.splice(0)) await r.continue().catch(() => undefined);
    await pwExpect(card("Top customers")).toContainText("Up to date", { timeout: 20_000 });
  });

  it("issue 36 item 20: Refresh all does not start while a placement is refreshed on its own, and says why", async () => {
    await fresh(rig.platform.info.apiKeys.analyst);
    const query = await hold(/\/cubejs-api\/v1\/(load|svcsql)/); // the refresh waits for its query
    await button("Refresh", card("Orders so far")).click();
    await pwExpect.poll(() => query.held(), { timeout: 10_000 }).toBe(1);
    await pwExpect(card("Orders so far")).toContainText("Refreshing…");
    await pwExpect(button("Refresh all")).toBeDisabled();
    await pwExpect(pane.locator("#cb-refresh-all-why")).toHaveText("Refresh all can start once “Orders so far” is refreshed.");
    await shot("refresh-all-waits");
    await query.release();
    await pwExpect(card("Orders so far")).toContainText("Last refresh", { timeout: 30_000 });
    await pwExpect(button("Refresh all")).toBeEnabled();
  });

  it("issue 36 item 20: the Refresh all footer and the cards' refresh states go with a deployment switch", async () => {
    // Someone who works in two deployments (the admin) refreshes everything, then switches deployment.
    await fresh(rig.platform.info.apiKeys.admin);
    await pwExpect(card("Orders so far")).toBeVisible({ timeout: 20_000 });
    await button("Refresh all").click();
    await pwExpect(button("Close", footer())).toBeVisible({ timeout: 60_000 }); // Refresh all has ended
    await pwExpect(footer()).toContainText(/[Rr]efreshed \d+ of \d+/);
    await pane.getByLabel("Deployment").selectOption({ label: "Finance Sandbox" });
    await pwExpect(pane.getByLabel("Deployment")).toHaveValue(/\d+/);
    await pwExpect(card("Orders so far")).toBeVisible({ timeout: 20_000 });
    await page.waitForTimeout(500);
    await pwExpect(footer()).toHaveCount(0);
    await pwExpect(pane.getByText(/Last refresh/)).toHaveCount(0);
    await pwExpect(page.locator(".hx-errors")).toHaveCount(0);
  });
});
