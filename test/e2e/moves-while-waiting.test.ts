// Issue 36, items 15–17, as a person meets them in the harness: rows inserted above and the sheet renamed
// while a large placement or a refresh waits on the network. The data API is slowed (the stand-in's seeded
// latency, several seconds an answer) so that the person's action lands while Cellbound waits, as in the
// finder's runs with the pane's requests slowed.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import { createPlatformClient, type ExternalPlacement, type PlatformClient } from "../../src/api/index.ts";
import { cellText, clickCell, openHarness, SCREENSHOTS, signIn, startRig, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;
let problems: string[];
let analyst: PlatformClient;

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane, problems } = await openHarness(rig));
  analyst = createPlatformClient({ baseUrl: rig.platform.info.baseUrl, credential: rig.platform.info.apiKeys.analyst });
}, 240_000);

afterAll(async () => {
  await rig?.stop();
});

const button = (name: string | RegExp, within: FrameLocator | Locator = pane) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const card = (text: string | RegExp) => pane.locator("li.cb-card[data-placement]").filter({ hasText: text });

async function recorded(reportName: string): Promise<ExternalPlacement[]> {
  const out: ExternalPlacement[] = [];
  for await (const r of analyst.iterateReports(1)) {
    if (r.name !== reportName) continue;
    for (const p of r.externalWorkbookPlacements ?? []) {
      for await (const x of analyst.iterateExternalPlacements(p.workbookId)) if (x.placementId === p.id) out.push(x);
    }
  }
  return out;
}

/** Data answers come 4–5 s late from now on (seed 9 of the stand-in's latency); `off` restores them. */
const slowData = () => rig.platform.chaos.set({ seed: 9, rates: { latency: 1 }, maxLatencyMs: 6_000, paths: /^\/cubejs-api\// });
const fastData = () => rig.platform.chaos.off();

async function insertRowAboveA1(): Promise<void> {
  await clickCell(page, "A1");
  await page.getByRole("button", { name: "Insert rows above" }).click();
}

async function placeFromReports(name: string, at: string): Promise<void> {
  await clickCell(page, at);
  await button("Reports").click();
  await pane.getByPlaceholder("Search reports").fill(name);
  await button("Search").click();
  const place = pane.getByRole("button", { name: `Place report ${name}`, exact: true });
  await pwExpect(place).toBeVisible({ timeout: 20_000 });
  await place.click();
}

describe("moves while Cellbound waits (issue 36)", { timeout: 240_000 }, () => {
  it("item 15: a row inserted above during a large placement: every row lands once, where the placement is", async () => {
    const rows = 120_000;
    await analyst.createReport(1, {
      name: "Every order",
      title: "Every order",
      jsonQuery: JSON.stringify({
        measures: ["orders.total_quantity"],
        dimensions: ["orders.id", "orders.status"],
        filters: [{ member: "orders.id", operator: "lte", values: [String(rows)] }],
      }),
    });
    await signIn(pane, button("Refresh all"));
    slowData(); // each page arrives seconds after the one before
    try {
      await placeFromReports("Every order", "B3");
      // While the later pages are on their way (a page of 50,000 rows at a time): insert a row above.
      await pwExpect(pane.getByRole("status").filter({ hasText: /Placing report… [\d,]+ of at least [\d,]+/ })).toBeVisible({
        timeout: 60_000,
      });
      await insertRowAboveA1();
      await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 180_000 });
    } finally {
      fastData();
    }
    expect(await cellText(page, "B3")).toBe("");
    expect(await cellText(page, "B4")).toBe("Id");
    expect(await cellText(page, "B5")).not.toBe("");
    expect(await cellText(page, `B${rows + 4}`)).not.toBe("");
    expect(await cellText(page, `B${rows + 5}`)).toBe("");
    // Every id once: the rows of the first page moved with the header, the later ones were written below them.
    const ids = await page.evaluate((n) => {
      const wb = (
        window as unknown as {
          cellboundHarness: { workbook(): { activeSheetId: string; inspect(s: string, a: string): { values: unknown[][] } } };
        }
      ).cellboundHarness.workbook();
      const v = wb.inspect(wb.activeSheetId, `B5:B${n + 4}`).values.map((r) => Number(r[0]));
      return { count: v.length, distinct: new Set(v).size, min: Math.min(...v), max: Math.max(...v) };
    }, rows);
    expect(ids).toEqual({ count: rows, distinct: rows, min: 1, max: rows });
    button("Workbook")
      .click()
      .catch(() => undefined);
    await pwExpect(card("Every order")).toContainText(`B4:D${rows + 4}`, { timeout: 30_000 });
    await pwExpect(card("Every order")).toContainText("Up to date", { timeout: 30_000 });
    expect((await recorded("Every order")).map((p) => p.resultLocation)).toEqual([`Sheet1!B4:D${rows + 4}`]);
    await page.screenshot({ path: path.join(SCREENSHOTS, "issue-36-item-15.png") });
  });

  it("item 16: the sheet renamed during a refresh: refreshed, recorded under the new name, no error", async () => {
    const r = await analyst.createReport(1, {
      name: "Issue 36 item 16",
      title: "Issue 36 item 16",
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit: 2 }),
    });
    await placeFromReports("Issue 36 item 16", "H45");
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    await button("Workbook").click();
    await analyst.updateReport(1, r.id, {
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit: 4 }),
    });
    slowData();
    try {
      await button("Refresh", card("Issue 36 item 16")).click();
      await pwExpect(card("Issue 36 item 16")).toContainText(/Refreshing/, { timeout: 10_000 });
      await page.getByRole("button", { name: "Rename sheet" }).click();
      await page.getByLabel("New sheet name").fill("Sales");
      await page.keyboard.press("Enter");
      await pwExpect(card("Issue 36 item 16")).toContainText("Up to date", { timeout: 60_000 });
    } finally {
      fastData();
    }
    await pwExpect(card("Issue 36 item 16")).not.toContainText(/went wrong|Refresh failed|Interrupted/);
    expect(await cellText(page, "H49")).not.toBe(""); // the two rows it gained
    await pwExpect
      .poll(async () => (await recorded("Issue 36 item 16")).map((p) => `${p.sheetName}|${p.resultLocation}`), { timeout: 15_000 })
      .toEqual(["Sales|Sales!H45:I49"]);
  });

  it("item 17: a row inserted above during a refresh that grows: no false 'cannot grow', no false edit", async () => {
    const r = await analyst.createReport(1, {
      name: "Issue 36 item 17",
      title: "Issue 36 item 17",
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit: 2 }),
    });
    await placeFromReports("Issue 36 item 17", "L50");
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    await button("Workbook").click();
    await analyst.updateReport(1, r.id, {
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.status", "asc"]], limit: 4 }),
    });
    slowData();
    try {
      await button("Refresh", card("Issue 36 item 17")).click();
      await pwExpect(card("Issue 36 item 17")).toContainText(/Refreshing/, { timeout: 10_000 });
      await insertRowAboveA1();
      await pwExpect(card("Issue 36 item 17")).toContainText("Up to date", { timeout: 60_000 });
    } finally {
      fastData();
    }
    await pwExpect(card("Issue 36 item 17")).toContainText("L51:M55");
    await pwExpect(pane.getByText(/cannot grow|would grow into|edited by hand/i)).toHaveCount(0);
    expect(await cellText(page, "L51")).toBe("Status");
    expect(await cellText(page, "L56")).toBe("");
    expect(problems).toEqual([]);
  });
});
