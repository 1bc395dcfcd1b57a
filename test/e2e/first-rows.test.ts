// Issue 20 §2 as a person sees it: a large SQL report placed in the harness under Excel on the web's
// round trip shows its first rows while the rest are decoded and written, and says so ("… of at least …").
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expect as pwExpect } from "playwright/test";
import { createPlatformClient } from "../../src/api/index.ts";
import { cellText, clickCell, openHarness, SCREENSHOTS, signIn, startRig, type Opened, type Rig } from "./setup.ts";

let rig: Rig;
let opened: Opened;

beforeAll(async () => {
  rig = await startRig();
  opened = await openHarness(rig, { query: "?latency=web" });
}, 240_000);

afterAll(async () => {
  await rig?.stop();
});

describe("a large placement's first rows", { timeout: 180_000 }, () => {
  it("are written while the rest arrive; the progress says 'of at least' until the height is known", async () => {
    const { page, pane, problems } = opened;
    const analyst = createPlatformClient({ baseUrl: rig.platform.info.baseUrl, credential: rig.platform.info.apiKeys.analyst });
    await analyst.createReport(1, {
      name: "All orders (SQL)",
      title: "All orders (SQL)",
      sqlQuery: "SELECT id, status, amount FROM orders WHERE id <= 100000 ORDER BY id",
    });
    await signIn(pane, pane.getByRole("button", { name: "Refresh all", exact: true }));
    await clickCell(page, "A1");
    await pane.getByRole("button", { name: "Reports", exact: true }).click();
    const place = pane.getByRole("button", { name: /Place report All orders \(SQL\)/ });
    await pwExpect(place).toBeVisible({ timeout: 20_000 });
    await place.click();
    const progress = pane.getByRole("status").filter({ hasText: /Placing report… [\d,]+ of at least [\d,]+/ });
    await pwExpect(progress).toBeVisible({ timeout: 60_000 });
    expect(await cellText(page, "A2")).toBe("1"); // the first rows are in the sheet already
    await page.screenshot({ path: path.join(SCREENSHOTS, "first-rows-web.png") });
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 120_000 });
    expect(await cellText(page, "A100001")).toBe("100000");
    expect(problems).toEqual([]);
  });
});
