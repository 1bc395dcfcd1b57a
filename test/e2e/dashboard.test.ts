// The dashboard pane end to end: the real pane bundle in the harness, the stand-in's embed page in
// the pane's iframe, sessions from the stand-in's dev broker. Load → ready; filter from a cell → the
// chart changes; drilldown → placed in the sheet; Insert dashboard picture → an image in the sheet;
// session-expiring → renewal without reload, filter kept; session-expired → renewal; a rejected
// session id → the error is shown and the embed keeps working.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Page } from "playwright";
import { EMBED_LIMITS } from "../../src/api/embed/schemas";
import { cellText, clickCell, openHarness, SCREENSHOTS, startRig, typeIntoCell, type Rig } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;
let embed: FrameLocator;
let csp: string[];
const minted: string[] = [];

beforeAll(async () => {
  rig = await startRig({ embed: true });
}, 240_000);

afterAll(async () => {
  await rig?.stop();
});

const button = (within: FrameLocator, name: string | RegExp) => within.getByRole("button", { name, exact: typeof name === "string" });
const statusRows = async () =>
  JSON.parse((await embed.locator('section[data-widget-id="w-status"]').getAttribute("data-rows")) ?? "[]") as Array<{
    x: string;
    y: number;
  }>;
const advance = (ms: number) =>
  fetch(`${rig.platform.info.baseUrl}/__dev/clock`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ advanceMs: ms }),
  });

describe("dashboard pane", { timeout: 200_000 }, () => {
  it("loads the dashboard linked to the selected placement: ready, charts drawn", async () => {
    ({ page, pane, csp } = await openHarness(rig, { query: `?embedUser=ana&embedTenant=${rig.platform.info.embed.tenants[0]!}` }));
    page.on("response", (r) => {
      if (r.url().endsWith("/__dev/embed-session") && r.status() === 200)
        void r.json().then(
          (j: { sessionId: string }) => minted.push(j.sessionId),
          () => undefined,
        );
    });
    await button(pane, "Sign in").click();
    const use = pane.getByRole("button", { name: /^Use / }).first();
    await pwExpect(button(pane, "Refresh all").or(use)).toBeVisible({ timeout: 30_000 });
    if (await use.isVisible()) await use.click();
    await clickCell(page, "B2");
    await button(pane, "Reports").click();
    await pane.getByRole("button", { name: /Place report Company revenue/ }).click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    await clickCell(page, "B4");
    await button(pane, "Dashboard").click();
    await pwExpect(pane.getByText(/Selection: Company revenue/)).toBeVisible({ timeout: 20_000 });
    await pwExpect(pane.getByTestId("dash-status")).toHaveText(/Dashboard loaded \(2 charts\)/, { timeout: 30_000 });
    embed = pane.frameLocator("iframe.cb-dashboard-frame");
    await pwExpect(embed.locator('section[data-widget-id="w-status"] svg .mark-rect path').first()).toBeVisible();
    expect((await statusRows()).length).toBe(4);
    // The pane sent the user's time zone and Office's scheme.
    await pwExpect(embed.locator("#timezone")).toHaveText(/Time zone: /);
    // …and its brand colour (set-theme), taken from the pane's theme.
    await pwExpect(embed.locator("body")).toHaveAttribute("data-primary-color", "#0f6cbd");
    // Office's theme turns dark (the pane keeps <html data-theme> current): the embed follows.
    await pane.locator("html").evaluate((h) => (h.dataset.theme = "dark"));
    await pwExpect(embed.locator("html")).toHaveAttribute("data-scheme", "dark");
    await pane.locator("html").evaluate((h) => (h.dataset.theme = "light"));
    await pwExpect(embed.locator("html")).toHaveAttribute("data-scheme", "light");
  });

  it("Filter dashboard by this cell: the chart shows only that status", async () => {
    const status = await cellText(page, "B4");
    await clickCell(page, "B4");
    await button(pane, "Filter dashboard by this cell").click();
    const header = await cellText(page, "B2"); // the column's title as the sheet shows it, not the member key
    await pwExpect(pane.getByText(`Filtered the dashboard by ${header} is ${status}`, { exact: false })).toBeVisible();
    await pwExpect.poll(async () => (await statusRows()).map((r) => r.x), { timeout: 15_000 }).toEqual([status]);
    // A measure column is refused with a reason.
    await clickCell(page, "C4");
    await button(pane, "Filter dashboard by this cell").click();
    await pwExpect(pane.getByRole("alert")).toContainText("measure column");
  });

  it("a drilldown in the embed is placed in the sheet through the sync engine; Cancel at the overwrite question saves nothing", async () => {
    await embed.getByRole("button", { name: "Drill down" }).first().click();
    await pwExpect(pane.getByLabel("Drilldown")).toContainText("Count where Status is"); // titles, not keys
    // Onto a cell that holds the person's note: asked first, and Cancel leaves no report behind (issue 31).
    const reportsBefore = rig.platform.state.reports().length;
    await typeIntoCell(page, "H3", "my note");
    await clickCell(page, "H2");
    await button(pane, "Place this drilldown").click();
    const question = pane.getByRole("group", { name: "Overwrite cells?" });
    await pwExpect(question).toContainText("would overwrite 1 cell that holds data", { timeout: 30_000 });
    await question.getByRole("button", { name: "Cancel" }).click();
    await pwExpect(question).toBeHidden();
    expect(rig.platform.state.reports().length).toBe(reportsBefore);
    expect(await cellText(page, "H3")).toBe("my note");
    // Confirmed: placed, and saved as a report then.
    await button(pane, "Place this drilldown").click();
    await question.getByRole("button", { name: "Overwrite" }).click();
    await pwExpect(pane.getByText(/Placed the drilldown Count where Status is/)).toBeVisible({ timeout: 30_000 });
    expect(rig.platform.state.reports().length).toBe(reportsBefore + 1);
    expect(await cellText(page, "H2")).not.toBe("");
    expect(await cellText(page, "H3")).not.toBe("");
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-pane.png") });
  });

  it("Insert dashboard picture: a PNG export appears in the harness sheet at the selection, and refreshes in place", async () => {
    await clickCell(page, "B12");
    await button(pane, "Insert dashboard picture").click();
    // Named by its title; the filter applied above is not in the picture, and it says so (issue 25 §4).
    await pwExpect(
      pane.getByText(/Inserted the picture of “Sales overview” at the selection\. It shows the dashboard unfiltered/),
    ).toBeVisible({
      timeout: 60_000,
    });
    const img = page.locator("img.hx-picture");
    await pwExpect(img).toHaveCount(1);
    const natural = await img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth);
    expect(natural).toBeGreaterThan(400);
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-picture.png") });
    await button(pane, "Refresh picture").click();
    await pwExpect(pane.getByText(/Refreshed the picture of “Sales overview”/)).toBeVisible({ timeout: 60_000 });
    await pwExpect(img).toHaveCount(1);
  });

  it("session-expiring → one renewal without reload, the filter still in place; session-expired → renewal", async () => {
    const pageId = await embed.locator("body").getAttribute("data-page-id");
    const before = minted.length;
    await advance(EMBED_LIMITS.tokenUsableMs - 20 * 60_000);
    await pwExpect(pane.getByTestId("dash-status")).toHaveText(/Session renewed/, { timeout: 20_000 });
    expect(minted.length).toBe(before + 1);
    await pwExpect(embed.locator("body")).toHaveAttribute("data-sessions", "2");
    expect(await embed.locator("body").getAttribute("data-page-id")).toBe(pageId);
    expect((await statusRows()).length).toBe(1);
    // Straight past the new session's end: session-expired alone → renewal again.
    await advance(EMBED_LIMITS.tokenUsableMs + 60_000);
    await pwExpect(embed.locator("body")).toHaveAttribute("data-sessions", "3", { timeout: 20_000 });
    expect(minted.length).toBe(before + 2);
    expect(await embed.locator("body").getAttribute("data-page-id")).toBe(pageId);
    await pwExpect.poll(async () => (await statusRows()).length, { timeout: 15_000 }).toBe(1);
  });

  it("a rejected session id: the error is shown, the embed keeps working", async () => {
    await page.route("**/__dev/embed-session", (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ sessionId: "not-a-real-session" }) }),
    );
    await advance(EMBED_LIMITS.tokenUsableMs - 20 * 60_000);
    await pwExpect(pane.getByRole("alert")).toContainText("could not be renewed", { timeout: 20_000 });
    await page.unroute("**/__dev/embed-session");
    await pwExpect(embed.locator("body")).toHaveAttribute("data-sessions", "3");
    // Still alive: a refresh re-runs its queries on the working session.
    await embed.locator("body").evaluate((b) => (b.dataset.loading = "stale"));
    await button(pane, "Refresh dashboard").click();
    await pwExpect(embed.locator("body")).toHaveAttribute("data-loading", "false", { timeout: 15_000 });
    expect((await statusRows()).length).toBe(1);
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-renewal-error.png") });
    // The embedded dashboard, its picture export and every renewal ran under the pane's CSP without a violation.
    expect(csp).toEqual([]);
  });
});
