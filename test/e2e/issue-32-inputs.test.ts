// Issue 32's two stories as people meet them in the harness (the real pane on dev/excel, the platform stand-in):
// (1) the analyst: a country typed in Sheet1!B1 ("Region"), three placements bound to it from their cards'
// Inputs…; another country typed in B1 → the cards say Inputs changed, Refresh all → all three show that
// country's rows and their filter summaries name B1. (2) the finance team: a date range in two cells of an
// Inputs sheet bound to a time dimension with Refresh when inputs change on; a later end date → the placement
// refreshes itself; an end before the start → the card names the cell and nothing is written.
// Screenshot: test/e2e/screenshots/issue-32-inputs.png (kept in docs/img).
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import { createPlatformClient, type PlatformClient } from "../../src/api/index.ts";
import { cellText, clickCell, openHarness, SCREENSHOTS, signIn, startRig, typeIntoCell, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;
let problems: string[];
let analyst: PlatformClient;

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane, problems } = await openHarness(rig));
  analyst = createPlatformClient({ baseUrl: rig.platform.info.baseUrl, credential: rig.platform.info.apiKeys.analyst });
  await signIn(pane, button("Refresh all"));
}, 240_000);

afterAll(async () => {
  await rig?.stop();
});

const button = (name: string | RegExp, within: FrameLocator | Locator = pane) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const card = (text: string | RegExp) => pane.locator("li.cb-card[data-placement]").filter({ hasText: text });
const column = (col: string, from: number, to: number) =>
  Promise.all(Array.from({ length: to - from + 1 }, (_, i) => cellText(page, `${col}${from + i}`)));
const summary = { rows: [], columns: [], measures: [], filters: [], showAppliedFilters: true };

async function report(name: string, query: object): Promise<void> {
  await analyst.createReport(1, { name, title: name, jsonQuery: JSON.stringify(query), pivotItems: summary });
}

/** Place a report by name at the selected cell (the Reports tab), back on the Workbook tab with its card. */
async function place(name: string, at: string): Promise<void> {
  await clickCell(page, at);
  await button("Reports").click();
  await pane.getByPlaceholder("Search reports").fill(name);
  await button("Search").click();
  await pane.getByRole("button", { name: `Place report ${name}`, exact: true }).click();
  await pwExpect(card(name)).toBeVisible({ timeout: 30_000 });
}

/** Select `cells` in the sheet (Name box), then the card's Inputs… → Bind <filter> to selection. */
async function bind(name: string, filter: string, cells: string): Promise<void> {
  await page.getByLabel("Name box").fill(cells);
  await page.getByLabel("Name box").press("Enter");
  const c = card(name);
  const toggle = button("Inputs…", c);
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await button(`Bind ${filter} to selection`, c).click();
  await pwExpect(c.locator(".cb-inputs")).toContainText(new RegExp(`${filter} from \\S*${cells.replace(/[:$]/g, "\\$&")}`), {
    timeout: 15_000,
  });
}

/** The month rows of the finance placement: its Count column's numbers (the summary and header are text). */
const months = async () => (await column("E", 2, 30)).filter((v) => /^\d+$/.test(v)).length;

/** The non-empty cells of a column between two rows (the placement's rows). */
async function filled(col: string, from: number, to: number): Promise<string[]> {
  return (await column(col, from, to)).filter((v) => v !== "");
}

describe("issue 32: a report's filters from cells", { timeout: 240_000 }, () => {
  it("the analyst: three placements follow Region in Sheet1!B1; Refresh all shows the new region's rows, the summaries naming B1", async () => {
    await report("Orders by country", { measures: ["orders.count"], dimensions: ["customers.country"] });
    await report("Revenue by country and segment", {
      measures: ["orders.total_amount"],
      dimensions: ["customers.country", "customers.segment"],
      order: [["customers.segment", "asc"]],
    });
    await report("Categories in France", {
      measures: ["orders.count"],
      dimensions: ["products.category"],
      filters: [{ member: "customers.country", operator: "equals", values: ["France"] }],
    });
    await typeIntoCell(page, "A1", "Region");
    await typeIntoCell(page, "B1", "Germany");
    await place("Orders by country", "A4");
    await place("Revenue by country and segment", "E4");
    await place("Categories in France", "J4");
    for (const name of ["Orders by country", "Revenue by country and segment", "Categories in France"]) await bind(name, "Country", "B1");
    await button("Refresh all").click();
    await pwExpect(pane.getByText(/^Refreshed 3 of 3/)).toBeVisible({ timeout: 60_000 });
    await pwExpect.poll(() => filled("A", 4, 14)).toContain("Germany");
    await button("Close", pane.locator("footer.cb-footer")).click();

    await typeIntoCell(page, "B1", "Japan");
    for (const name of ["Orders by country", "Revenue by country and segment", "Categories in France"])
      await pwExpect(card(name)).toContainText("Inputs changed — refresh", { timeout: 15_000 });
    // The screenshot: the last card with its inputs open, showing the new value; the others' panels closed.
    for (const name of ["Orders by country", "Revenue by country and segment"]) await button(`Close inputs of ${name}`).click();
    const open = card("Categories in France");
    await pwExpect(open.locator(".cb-inputs")).toContainText("Country from Sheet1!B1: Japan", { timeout: 15_000 });
    await open.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, "issue-32-inputs.png") });

    await button("Refresh all").click();
    await pwExpect(pane.getByText(/^Refreshed 3 of 3/)).toBeVisible({ timeout: 60_000 });
    const countries = ["Germany", "France", "United States", "Japan", "Brazil", "India", "Kenya", "Australia"];
    const a = await filled("A", 4, 14);
    const e = await filled("E", 4, 14);
    expect(a.filter((v) => countries.includes(v))).toEqual(["Japan"]);
    expect(new Set(e.filter((v) => countries.includes(v)))).toEqual(new Set(["Japan"]));
    // Each filter summary names the value used and its cell.
    for (const col of ["A", "E", "J"]) {
      const head = (await filled(col, 4, 6)).join(" ");
      expect(head).toContain("Japan");
      expect(head).toMatch(/\bB1\b/);
      expect(head).not.toContain("France");
    }
    for (const name of ["Orders by country", "Revenue by country and segment", "Categories in France"])
      await pwExpect(card(name)).not.toContainText("Inputs changed");
    expect(problems).toEqual([]);
  });

  it("the finance team: a date range in Inputs!B1:B2 refreshes its placement when the end changes; an end before the start names the cell", async () => {
    await report("Orders by month", {
      measures: ["orders.count"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2025-01-01", "2025-12-31"] }],
      order: [["orders.created_at", "asc"]],
    });
    await page.getByRole("button", { name: "Add sheet" }).click();
    await page.getByRole("button", { name: "Rename sheet" }).click();
    await page.getByLabel("New sheet name").fill("Inputs");
    await page.keyboard.press("Enter");
    await typeIntoCell(page, "A1", "From");
    await typeIntoCell(page, "B1", "2025-01-01");
    await typeIntoCell(page, "A2", "To");
    await typeIntoCell(page, "B2", "2025-03-31");
    await place("Orders by month", "D2");
    await bind("Orders by month", "Created at", "B1:B2");
    const c = card("Orders by month");
    await c.getByRole("switch", { name: "Refresh when inputs change" }).check();
    // Turned on with inputs changed since the placement: it refreshes itself, Jan–Mar.
    await pwExpect.poll(months, { timeout: 30_000 }).toBe(3);
    await pwExpect(c).toContainText("Up to date", { timeout: 15_000 });

    await typeIntoCell(page, "B2", "2025-06-30");
    await pwExpect.poll(months, { timeout: 30_000 }).toBe(6);
    await pwExpect(c).not.toContainText("Inputs changed", { timeout: 15_000 });
    const before = await column("E", 2, 30);

    await typeIntoCell(page, "B2", "2024-12-31");
    await pwExpect(c).toContainText("Inputs!B2", { timeout: 15_000 });
    await page.waitForTimeout(2500); // past the auto-refresh's wait: nothing refreshes an invalid input
    expect(await column("E", 2, 30)).toEqual(before);
    await button("Refresh", c).click();
    await pwExpect(c).toContainText(/Not refreshed: .*Inputs!B2/, { timeout: 15_000 });
    expect(await column("E", 2, 30)).toEqual(before);
    // Dark mode: the Inputs panel and the card's words in Office's dark theme (screenshot beside the light one).
    await page.getByLabel("Office theme").selectOption("dark");
    await pwExpect(pane.locator("html")).toHaveAttribute("data-theme", "dark");
    const toggle = button("Inputs…", c);
    if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
    await pwExpect(c.locator(".cb-inputs")).toBeVisible();
    await page.screenshot({ path: path.join(SCREENSHOTS, "issue-32-inputs-dark.png") });
    expect(problems).toEqual([]);
  });
});
