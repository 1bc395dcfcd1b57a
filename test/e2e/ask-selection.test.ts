// Ask about the selection end to end (issue 23): the real pane in the harness against the stand-in.
// Place "Revenue by month" at B2, select two of its cells, ask; the prompt carries the placement's
// context (printed); the answer streams; Place beside puts it in the first free area (right, else
// below) and asks before overwriting anything. Outside a placement the button says why it is disabled.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Page } from "playwright";
import { cellText, clickCell, openHarness, SCREENSHOTS, startRig, typeIntoCell, type Rig } from "./setup.ts";

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

const button = (name: string | RegExp) => pane.getByRole("button", { name, exact: typeof name === "string" });

async function select(address: string): Promise<void> {
  await page.getByLabel("Name box").fill(address);
  await page.getByLabel("Name box").press("Enter");
}

describe("ask about the selection", { timeout: 180_000 }, () => {
  it("select two cells of a placed report, ask, place beside (first free area: right, else below)", async () => {
    await button("Sign in").click();
    const use = pane.getByRole("button", { name: /^Use / }).first();
    await pwExpect(button("Refresh all").or(use)).toBeVisible({ timeout: 20_000 });
    if (await use.isVisible()) await use.click();
    await clickCell(page, "B2");
    await button("Reports").click();
    await pane.getByRole("button", { name: "Place report Revenue by month" }).click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    // B2:E38: month, total amount, count, return rate; 36 months.
    expect(await cellText(page, "B39")).toBe("");

    // Outside the placement: disabled, and it says why.
    await clickCell(page, "J20");
    await button("Chat").click();
    const ask = button("Ask about the selection");
    await pane.getByLabel("Ask the agent").fill("why did this drop in March?");
    await pwExpect(ask).toBeDisabled({ timeout: 10_000 });
    await pwExpect(pane.locator("#cb-ask-selection-why")).toHaveText(/Select cells inside a placed report/);

    // Something in the way to the right (H10): the first free area is below.
    await typeIntoCell(page, "H10", "keep me");
    await select("C4:C5");
    await pwExpect(ask).toBeEnabled({ timeout: 10_000 });
    await pwExpect(pane.locator("#cb-ask-selection-why")).toContainText("Revenue by month");
    const months = [await cellText(page, "B4"), await cellText(page, "B5")];
    const values = [await cellText(page, "C4"), await cellText(page, "C5")];
    await ask.click();

    // The question shows, its context is one click away; the answer streams as usual.
    await pwExpect(pane.locator(".cb-chat-user").last()).toContainText("why did this drop in March?", { timeout: 15_000 });
    const context = pane.locator(".cb-chat-context pre").last();
    const sent = await context.textContent();
    process.stdout.write(`ask-selection e2e: the prompt's context block:\n${sent}\n`);
    expect(sent).toContain("Deployment: Sales Analytics (id 1)");
    expect(sent).toContain("Report: “Revenue by month”");
    expect(sent).toContain("Measures: orders.total_amount, orders.count, orders.return_rate");
    expect(sent).toContain("Time: orders.created_at by month");
    expect(sent).toContain("Selected cells (Sheet1!C4:C5)");
    expect(sent).toMatch(/C4: .*\[orders\.total_amount\]/);
    expect(sent).toMatch(/C5: .*\[orders\.total_amount\]/);
    expect(sent).toContain("orders.created_at.month");
    // Only the two selected cells and their row labels: no other value of the sheet.
    expect(sent!.match(/^ {2}- /gm)).toHaveLength(2);
    expect(sent).not.toContain("keep me");
    expect(months.every((m) => m !== "") && values.every((v) => v !== "")).toBe(true);
    await pwExpect(button("Place beside")).toBeVisible({ timeout: 30_000 });
    await pane.locator(".cb-chat-turn").last().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, "ask-selection.png") });

    await button("Place beside").click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    // Right of the placement (G2…) holds "keep me" at H10: placed below, one empty row between (B40).
    expect(await cellText(page, "B40")).toBe("month");
    expect(await cellText(page, "C40")).toBe("revenue");
    expect(await cellText(page, "B76")).not.toBe("");
    expect(await cellText(page, "G2")).toBe("");
    expect(await cellText(page, "H10")).toBe("keep me");

    // Again: right has content, below is now a placement → the pane asks before overwriting; Cancel leaves all.
    await button("Chat").click();
    await pwExpect(button("Place beside")).toBeVisible({ timeout: 30_000 });
    await button("Place beside").click();
    const prompt = pane.getByRole("alertdialog");
    await pwExpect(prompt).toContainText("would be overwritten", { timeout: 30_000 });
    await pwExpect(prompt).toContainText("H10");
    await prompt.getByRole("button", { name: "Cancel" }).click();
    expect(await cellText(page, "H10")).toBe("keep me");
    expect(await cellText(page, "G2")).toBe("");
  });
});
