// Issue 30 §1 as a person meets it in the harness: a row inserted inside a placement (Insert rows above at A8
// of a 20-row report at B2) is named as one inserted row on the card and in the banner, Show changes lists it,
// and Overwrite my edits puts the report back exactly, with nothing left below it.
// Screenshot: test/e2e/screenshots/issue-30-row-inserted.png (kept in docs/img).
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import { createPlatformClient } from "../../src/api/index.ts";
import { cellText, clickCell, openHarness, SCREENSHOTS, signIn, startRig, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane } = await openHarness(rig));
}, 240_000);

afterAll(async () => {
  await rig?.stop();
});

const button = (name: string | RegExp, within: FrameLocator | Locator = pane) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const card = (text: string | RegExp) => pane.locator("li.cb-card[data-placement]").filter({ hasText: text });
const column = (col: string, from: number, to: number) =>
  Promise.all(Array.from({ length: to - from + 1 }, (_, i) => cellText(page, `${col}${from + i}`)));

describe("issue 30 §1: a row inserted inside a placement", { timeout: 180_000 }, () => {
  it("is named as one inserted row, listed in Show changes, and Overwrite my edits restores the report exactly", async () => {
    const analyst = createPlatformClient({ baseUrl: rig.platform.info.baseUrl, credential: rig.platform.info.apiKeys.analyst });
    await analyst.createReport(1, {
      name: "Customers by id",
      title: "Customers by id",
      jsonQuery: JSON.stringify({
        measures: ["orders.count", "orders.total_amount"],
        dimensions: ["customers.id", "customers.name"],
        order: [["customers.id", "asc"]],
        limit: 19,
      }),
    });
    await signIn(pane, button("Refresh all"));
    await clickCell(page, "B2");
    await button("Reports").click();
    await pane.getByPlaceholder("Search reports").fill("Customers by id");
    await button("Search").click();
    await pane.getByRole("button", { name: "Place report Customers by id", exact: true }).click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    await pwExpect(card("Customers by id")).toContainText("B2:E21");
    const placed = await column("E", 2, 21);
    const shown = await page.locator('[data-cell="E9"]').innerText();

    // Insert rows above at A8: the placement is B2:E22 now.
    await clickCell(page, "A8");
    await page.getByRole("button", { name: "Insert rows above" }).click();
    await pwExpect.poll(() => cellText(page, "E22")).toBe(placed[19]);
    const c = card("Customers by id");
    await pwExpect(c).toContainText("Edited by hand", { timeout: 15_000 });
    await pwExpect(c).toContainText("1 row inserted by hand at row 8");
    await pwExpect(c).not.toContainText(/Rows? [\d–]+ edited by hand/);

    await button("Refresh", c).click();
    const banner = pane.locator("section.cb-message-warning");
    await pwExpect(banner).toContainText("1 row inserted by hand at row 8 in Customers by id", { timeout: 20_000 });
    await button("Show changes", banner).click();
    await pwExpect(banner.getByRole("list", { name: "Rows and columns moved" })).toContainText("1 row inserted by hand at row 8");
    await page.screenshot({ path: path.join(SCREENSHOTS, "issue-30-row-inserted.png") });

    await button("Overwrite my edits", banner).click();
    await pwExpect(pane.getByText("Refreshed", { exact: true }).first()).toBeVisible({ timeout: 20_000 });
    await pwExpect.poll(() => column("E", 2, 21)).toEqual(placed);
    expect(await column("B", 22, 22)).toEqual([""]); // nothing stale below
    expect(await column("E", 22, 22)).toEqual([""]);
    // The row that held the inserted position shows the amount as placed ("$…,….00"), not General.
    expect(await page.locator('[data-cell="E9"]').innerText()).toBe(shown);
    expect(await page.locator('[data-cell="E8"]').innerText()).toMatch(/^\$[\d,]+\.\d\d$/);
    await pwExpect(card("Customers by id")).toContainText("Up to date", { timeout: 15_000 });
    await pwExpect(card("Customers by id")).toContainText("B2:E21");
  });
});
