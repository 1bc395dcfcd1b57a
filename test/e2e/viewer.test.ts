// Issue 25 §1 end to end: the real pane in the harness (the Office.js adapter on dev/excel) against
// the stand-in. The analyst places two shared demo reports; the viewer signs in to the same workbook:
// both cards are View only, name their owner, offer neither Refresh nor Disconnect, Refresh all is not
// offered, and no cell changes. Issue 31 item 3: the viewer is told the rule before acting — Reports'
// Place buttons and the builder's Save are disabled with the rule beside them, Refresh all with it too.
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import path from "node:path";
import { cellText, clickCell, openHarness, SCREENSHOTS, startRig, type Rig } from "./setup.ts";

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

async function signIn(): Promise<void> {
  await button("Sign in").click();
  const use = pane.getByRole("button", { name: /^Use Sales Analytics/ });
  await pwExpect(button("Refresh all").or(use)).toBeVisible({ timeout: 30_000 });
  if (await use.isVisible()) await use.click();
  await pwExpect(pane.getByRole("heading", { name: "Q3 numbers.xlsx" })).toBeVisible({ timeout: 20_000 });
}

describe("a viewer's workbook (issue 25 §1)", { timeout: 120_000 }, () => {
  it("issue 31 item 5: Connect says whom to ask for an API key, in the command line's words", async () => {
    await pwExpect(
      pane.getByText(
        "Paste an API key or an OAuth access token (ask an admin of your platform for an API key: only admins can create them).",
      ),
    ).toBeVisible({ timeout: 20_000 });
    await pwExpect(pane.getByText(/Settings → API keys|profile page/)).toHaveCount(0);
  });

  it("the viewer's placements are View only: never refreshed, never disconnected, cells untouched", async () => {
    await signIn();
    for (const [cell, name] of [
      ["B2", "Revenue by month"],
      ["J2", "Top customers"],
    ] as const) {
      await clickCell(page, cell);
      await button("Reports").click();
      await pane.getByRole("button", { name: new RegExp(`Place report ${name}`) }).click({ timeout: 20_000 });
      await pwExpect(card(name)).toContainText("Up to date", { timeout: 30_000 });
    }
    const cells = ["B2", "B3", "C3", "J3", "K3"];
    const before = await Promise.all(cells.map((a) => cellText(page, a)));

    await button("Sign out").click();
    await pane.getByLabel("API key or access token").fill(rig.platform.info.apiKeys.viewer);
    await signIn();
    for (const name of ["Revenue by month", "Top customers"]) {
      await pwExpect(card(name)).toHaveAttribute("data-status", "viewOnly", { timeout: 20_000 });
      await pwExpect(card(name)).toContainText("View only");
      await pwExpect(card(name)).toContainText(/You can view this report but not refresh it — ask Ana Analyst \(.+\) or an admin\./);
      await pwExpect(button("Refresh", card(name))).toHaveCount(0);
      await pwExpect(button("Disconnect", card(name))).toHaveCount(0);
    }
    await pwExpect(button("Refresh all")).toBeDisabled();
    await pwExpect(pane.getByText(/Interrupted|403|PUT \/api/)).toHaveCount(0);
    expect(await Promise.all(cells.map((a) => cellText(page, a)))).toEqual(before);
  });

  it("issue 31 item 3: the viewer is told the rule before acting: Place, Save and Refresh all disabled with the reason beside them", async () => {
    // Signed in as the viewer by the test above.
    const rule =
      "You are a viewer in Sales Analytics: you can open its reports but not place, refresh or save them — ask an admin for the editor role.";
    await pwExpect(button("Refresh all")).toBeDisabled();
    await pwExpect(button("Refresh all")).toHaveAccessibleDescription(rule);
    await page.screenshot({ path: path.join(SCREENSHOTS, "viewer-workbook.png") });

    await button("Reports").click();
    const place = pane.getByRole("button", { name: /^Place report / });
    await pwExpect(place.first()).toBeVisible({ timeout: 20_000 });
    await pwExpect(pane.getByRole("note")).toHaveText(rule);
    for (const b of await place.all()) {
      await pwExpect(b).toBeDisabled();
      await pwExpect(b).toHaveAccessibleDescription(rule);
    }
    await page.screenshot({ path: path.join(SCREENSHOTS, "viewer-reports.png") });

    await button("New report").click();
    const save = button("Save report");
    await pwExpect(save).toBeVisible({ timeout: 20_000 });
    await pwExpect(pane.getByRole("note")).toHaveText(rule);
    await pwExpect(save).toBeDisabled();
    await pwExpect(save).toHaveAccessibleDescription(rule);
    await pwExpect(pane.getByText(/You do not have access/)).toHaveCount(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, "viewer-builder.png") });
  });
});
