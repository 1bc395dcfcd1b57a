// Issue 12 §1 end to end: the real pane bundle in the harness, on dev/excel, against the platform
// stand-in whose queries are made slow (a "Continue wait" loop that would last a minute). Refresh
// shows Cancel; Cancel ends it at once, the card does not claim a refresh, and Refresh works again.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import { clickCell, openHarness, SCREENSHOTS, startRig, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane } = await openHarness(rig));
}, 240_000);

afterAll(async () => {
  rig?.platform.setSlowQueryMs(0);
  await rig?.stop();
});

const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
const button = (name: string | RegExp, within: FrameLocator | Locator = pane) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const card = (text: string | RegExp) => pane.locator("li.cb-card[data-placement]").filter({ hasText: text });

describe("Cancel in the pane", { timeout: 120_000 }, () => {
  it("a refresh stuck on a slow query is cancelled at once; nothing claims it refreshed; Refresh works again", async () => {
    await button("Sign in").click();
    const use = pane.getByRole("button", { name: /^Use / }).first();
    await pwExpect(use.or(pane.getByRole("heading", { name: "Q3 numbers.xlsx" }))).toBeVisible({ timeout: 20_000 });
    if (await use.isVisible()) await use.click();
    await pwExpect(pane.getByRole("heading", { name: "Q3 numbers.xlsx" })).toBeVisible({ timeout: 20_000 });
    await clickCell(page, "B2");
    await button("Reports").click();
    await pane.getByRole("button", { name: /Place report Analyst pipeline/ }).click({ timeout: 20_000 });
    await pwExpect(card("Analyst pipeline")).toContainText("Up to date", { timeout: 30_000 });

    rig.platform.setSlowQueryMs(60_000);
    await button("Refresh", card("Analyst pipeline")).click();
    const cancel = button("Cancel refreshing analyst pipeline");
    await pwExpect(cancel).toBeVisible({ timeout: 10_000 });
    await pwExpect(card("Analyst pipeline")).toContainText("Refreshing…");
    await shot("cancel-refresh");
    const t0 = Date.now();
    await cancel.click();
    await pwExpect(pane.getByText("Refresh cancelled")).toBeVisible({ timeout: 5_000 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    await pwExpect(card("Analyst pipeline")).not.toContainText("Refreshing…");
    await pwExpect(card("Analyst pipeline")).not.toContainText("Last refresh");
    await pwExpect(button("Refresh", card("Analyst pipeline"))).toBeEnabled();

    rig.platform.setSlowQueryMs(0);
    await button("Refresh", card("Analyst pipeline")).click();
    await pwExpect(card("Analyst pipeline")).toContainText("Last refresh: No change", { timeout: 20_000 });
    await pwExpect(card("Analyst pipeline")).toContainText("Up to date");
    await shot("after-cancel");
  });
});
