// Issue 33's story as a person meets it in the harness (the real pane on dev/excel, the platform stand-in):
// a flat report placed with the Reports tab's "Place as an Excel table"; the person types a header "With tax"
// and a formula with a structured reference in the column just right of the table (it joins the table and the
// formula fills), selects the table and inserts a chart; the report then gets more rows, fewer rows and a new
// column on the platform, each followed by the card's Refresh. After each: the formula column holds its values
// on exactly the table's rows and nothing below, the chart's series read the table's rows, nothing counts as
// edited by hand. Screenshots: test/e2e/screenshots/issue-33-tables.png (kept in docs/img) and -dark.png.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import { createPlatformClient, type PlatformClient } from "../../src/api/index.ts";
import type { DevWorkbook } from "../../dev/excel/model.ts";
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

const NAME = "Revenue by country";
const button = (name: string | RegExp, within: FrameLocator | Locator = pane) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const card = () => pane.locator("li.cb-card[data-placement]").filter({ hasText: NAME });
const column = (col: string, from: number, to: number) =>
  Promise.all(Array.from({ length: to - from + 1 }, (_, i) => cellText(page, `${col}${from + i}`)));

/** The report's query: revenue (and, later, the order count) for these countries, A to Z. */
const query = (countries: string[], measures = ["orders.total_amount"]) =>
  JSON.stringify({
    measures,
    dimensions: ["customers.country"],
    filters: [{ member: "customers.country", operator: "equals", values: countries }],
    order: [["customers.country", "asc"]],
  });
const COUNTRIES = ["Australia", "Brazil", "France", "Germany", "India", "Japan", "Kenya", "United States"];

/** The active sheet's tables and charts as dev/excel holds them, addresses in A1 ("A1:C4", "=Sheet1!$B$2:$B$4"). */
function sheetObjects(p: Page) {
  return p.evaluate(() => {
    const wb = (window as unknown as { cellboundHarness: { workbook(): DevWorkbook } }).cellboundHarness.workbook();
    const sheet = wb.sheets.find((s) => s.id === wb.activeSheetId)!;
    const col = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : col(Math.floor(i / 26) - 1) + col(i % 26));
    type R = { row: number; col: number; rows: number; cols: number };
    const area = (r: R) => `${col(r.col)}${r.row + 1}:${col(r.col + r.cols - 1)}${r.row + r.rows}`;
    const source = (r: R | null) => (r ? `=${sheet.name}!${area(r).replace(/([A-Z]+)(\d+)/g, "$$$1$$$2")}` : "");
    return {
      tables: (sheet.tables ?? []).map((t) => ({ name: t.name, range: area(t.rect), columns: t.columns.map((c) => c.name) })),
      charts: (sheet.charts ?? []).map((c) => ({
        type: c.chartType,
        series: c.series.map((s) => ({ name: s.name, values: source(s.values), categories: source(s.categories) })),
      })),
    };
  });
}

/** The card's Refresh, then its range and "Up to date", never "Edited". */
async function refresh(range: string): Promise<void> {
  await button("Refresh", card()).click();
  await pwExpect(card()).toContainText(range, { timeout: 30_000 });
  await pwExpect(card()).toContainText("Up to date", { timeout: 15_000 });
  await pwExpect(card()).not.toContainText(/edited/i);
}

/**
 * The person's formula column: its values are the amount × 1.2 on each of the table's `rows` data rows (from
 * row 2), and nothing is below them; the chart draws the table's rows.
 */
async function formulaColumnFills(rows: number, amount: string, withTax: string): Promise<void> {
  const amounts = (await column(amount, 2, rows + 1)).map(Number);
  const taxed = await column(withTax, 2, rows + 1);
  expect(amounts.every((a) => a > 0)).toBe(true);
  taxed.forEach((v, i) => expect(Number(v)).toBeCloseTo(amounts[i]! * 1.2, 6));
  expect(await column(withTax, rows + 2, rows + 8)).toEqual(Array(7).fill(""));
  await pwExpect(page.locator(".hx-chart .hx-chart-bar")).toHaveCount(2 * rows);
}

describe("issue 33: a report placed as an Excel table", { timeout: 240_000 }, () => {
  it("issue 33: the person's formula column and chart follow the table through more rows, fewer rows and a new column; nothing counts as edited", async () => {
    const report = await analyst.createReport(1, {
      name: NAME,
      title: NAME,
      jsonQuery: query(COUNTRIES.slice(0, 3)),
      pivotItems: { rows: [], columns: [], measures: [], filters: [], showAppliedFilters: false },
    });
    // Place it at A1 with the Reports tab's "Place as an Excel table".
    await clickCell(page, "A1");
    await button("Reports").click();
    await pane.getByPlaceholder("Search reports").fill(NAME);
    await button("Search").click();
    await pane.getByRole("checkbox", { name: "Place as an Excel table" }).check();
    await button(`Place report ${NAME}`).click();
    await pwExpect(card()).toContainText("A1:B4", { timeout: 30_000 });
    await pwExpect(card()).toContainText("A1:B4 · Excel table Revenue_by_country");
    const [placed] = (await sheetObjects(page)).tables;
    expect(placed?.range).toBe("A1:B4");
    const amount = await cellText(page, "B1"); // the amount column's title as placed
    expect(amount).not.toBe("");
    // The harness draws it as Excel does: the style's header row with filter buttons, banded rows.
    await pwExpect(page.locator('[data-cell="B1"]')).toHaveClass(/hx-t-head/);
    await pwExpect(page.locator('[data-cell="B1"] .hx-filter')).toHaveCount(1);
    await pwExpect(page.locator('[data-cell="A2"]')).toHaveClass(/hx-t-band/);

    // The person's column just right of the table joins it; the formula fills the column.
    await typeIntoCell(page, "C1", "With tax");
    await typeIntoCell(page, "C2", `=[@[${amount}]]*1.2`);
    expect((await sheetObjects(page)).tables[0]).toMatchObject({ range: "A1:C4", columns: [expect.any(String), amount, "With tax"] });
    await pwExpect(page.locator('[data-cell="C4"]')).toHaveClass(/hx-t/);
    // A chart of the whole table (Insert chart): the amount and With tax by country.
    await page.getByLabel("Name box").fill("A1:C4");
    await page.getByLabel("Name box").press("Enter");
    await pwExpect(page.locator('[data-cell="C4"]')).toHaveAttribute("aria-selected", "true");
    await page.getByRole("button", { name: "Insert chart" }).click();
    await formulaColumnFills(3, "B", "C");
    await pwExpect(card()).not.toContainText(/edited/i);
    const series = (b: string, c: string, rows: number) => [
      { name: amount, values: `=Sheet1!$${b}$2:$${b}$${rows + 1}`, categories: `=Sheet1!$A$2:$A$${rows + 1}` },
      { name: "With tax", values: `=Sheet1!$${c}$2:$${c}$${rows + 1}`, categories: `=Sheet1!$A$2:$A$${rows + 1}` },
    ];
    expect((await sheetObjects(page)).charts).toEqual([{ type: "ColumnClustered", series: series("B", "C", 3) }]);

    // More rows on the platform → Refresh: the table, its formula column and the chart grow with them.
    await analyst.updateReport(1, report.id, { jsonQuery: query(COUNTRIES.slice(0, 6)) });
    await refresh("A1:B7");
    expect((await sheetObjects(page)).tables[0]?.range).toBe("A1:C7");
    await formulaColumnFills(6, "B", "C");
    expect((await sheetObjects(page)).charts[0]?.series).toEqual(series("B", "C", 6));

    // Fewer rows → the rows it loses go across the table, the person's column with them.
    await analyst.updateReport(1, report.id, { jsonQuery: query(COUNTRIES.slice(2, 6)) });
    await refresh("A1:B5");
    expect((await sheetObjects(page)).tables[0]?.range).toBe("A1:C5");
    await formulaColumnFills(4, "B", "C");
    expect((await sheetObjects(page)).charts[0]?.series).toEqual(series("B", "C", 4));

    // A new column (a measure added to the query) → the person's column stays at the table's right and computes.
    await analyst.updateReport(1, report.id, { jsonQuery: query(COUNTRIES.slice(2, 6), ["orders.total_amount", "orders.count"]) });
    await refresh("A1:C5");
    const last = (await sheetObjects(page)).tables[0];
    expect(last?.range).toBe("A1:D5");
    expect(last?.columns.at(-1)).toBe("With tax");
    expect(await cellText(page, "D1")).toBe("With tax");
    await formulaColumnFills(4, "B", "D");
    expect((await sheetObjects(page)).charts[0]?.series).toEqual(series("B", "D", 4));
    await pwExpect(card()).not.toContainText(/edited/i);
    await pwExpect(card()).toContainText("A1:C5 · Excel table Revenue_by_country");

    // The final state: the pane with the card, the sheet with the table and the chart.
    await clickCell(page, "F18");
    await page.screenshot({ path: path.join(SCREENSHOTS, "issue-33-tables.png") });
    await page.getByLabel("Office theme").selectOption("dark");
    await pwExpect(pane.locator("html")).toHaveAttribute("data-theme", "dark");
    await pwExpect(card()).toContainText("Up to date", { timeout: 15_000 });
    await page.screenshot({ path: path.join(SCREENSHOTS, "issue-33-tables-dark.png") });
    expect(problems).toEqual([]);
  });
});
