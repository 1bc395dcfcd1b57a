// Scheduled prompts end to end (issue 23): the real pane in the harness against the stand-in.
// Create a weekly task from the current question ("… every Monday at 8:00"), run it now, open the
// run's thread in the pane, place its answer. Prints the time from Run now to the thread opening.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Page } from "playwright";
import { cellText, clickCell, openHarness, SCREENSHOTS, startRig, type Rig, signIn } from "./setup.ts";
import { ScheduledTaskPage } from "../../src/api/schemas/scheduled-tasks";

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

describe("scheduled prompts", { timeout: 180_000 }, () => {
  it("create a weekly task from the question, run it now, open the run's thread, place its answer", async () => {
    await signIn(pane);
    await clickCell(page, "B2");
    await button("Chat").click();
    await pane.getByLabel("Ask the agent").fill("revenue by month every Monday at 8:00");
    await button("Schedule…").click();

    // The form: the schedule taken off the question, the cron built, the hourly rule explained.
    const form = pane.locator("form.cb-sched-form");
    await pwExpect(form.getByLabel("Question the agent answers on each run")).toHaveValue("revenue by month");
    const when = form.getByLabel("When");
    await pwExpect(when).toHaveValue("every Monday at 8:00");
    await pwExpect(form.getByRole("status").filter({ hasText: "Runs every Monday at 08:00" })).toContainText("cron 0 8 * * 1");
    await pwExpect(form).toContainText("at most once an hour");
    await when.fill("every 15 minutes");
    await pwExpect(form.getByRole("alert")).toContainText("more often than the platform allows");
    await pwExpect(form.getByRole("button", { name: "Save schedule" })).toBeDisabled();
    await when.fill("every Monday at 8:00");
    await form.getByRole("button", { name: "Save schedule" }).click();

    const card = pane.locator("li.cb-card[data-task]").filter({ hasText: "revenue by month" });
    await pwExpect(card).toContainText("every Monday at 08:00", { timeout: 15_000 });
    await pwExpect(card).toContainText(/Next run: Mon/);
    const tasks = await fetch(`${rig.platform.info.baseUrl}/api/v1/deployments/1/scheduled-tasks`, {
      headers: { authorization: `Bearer ${rig.platform.info.apiKeys.analyst}` },
    });
    const saved = ScheduledTaskPage.parse(await tasks.json()).items.find((t) => t.prompt === "revenue by month")!;
    expect(saved).toMatchObject({ cron: "0 8 * * 1", enabled: true, name: "revenue by month" });
    expect(saved.timezone).toBeTruthy();
    await page.screenshot({ path: path.join(SCREENSHOTS, "schedules.png") });

    // Run now, from the keyboard; then open the run's thread.
    const t0 = performance.now();
    await card.getByRole("button", { name: "Run now" }).focus();
    await page.keyboard.press("Enter");
    const open = card
      .locator(".cb-sched-runs li")
      .first()
      .getByRole("button", { name: /^Open the run of/ });
    await open.click({ timeout: 15_000 });
    await pwExpect(pane.locator(".cb-chat-user")).toHaveText(["revenue by month"], { timeout: 20_000 });
    const ms = performance.now() - t0;
    process.stdout.write(`schedules e2e: Run now → the run's thread open in the pane: ${ms.toFixed(0)} ms\n`);

    // The run's answer is a chat answer like any other: Place in sheet writes every row at B2.
    await pwExpect(button("Place in sheet")).toBeVisible({ timeout: 30_000 });
    await button("Place in sheet").click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    expect(await cellText(page, "B2")).toBe("month");
    expect(await cellText(page, "C2")).toBe("revenue");
    expect(await cellText(page, "B38")).not.toBe("");
    expect(await cellText(page, "B39")).toBe("");

    // The run's thread joined the conversations list; the run shows as done.
    await button("Chat").click();
    await pwExpect(pane.locator(".cb-chat-threads summary")).toContainText("Conversations (1)");
    await button("Schedules").click();
    const again = pane.locator("li.cb-card[data-task]").filter({ hasText: "revenue by month" });
    await again.getByRole("button", { name: "Runs" }).click();
    await pwExpect(again.locator(".cb-sched-runs li").first()).toContainText("done", { timeout: 15_000 });
  });

  it("pause and resume; delete asks first; scheduled tasks turned off: the view says why in words", async () => {
    const card = pane.locator("li.cb-card[data-task]").filter({ hasText: "revenue by month" });
    await card.getByRole("button", { name: "Pause" }).click();
    await pwExpect(card).toContainText("Paused");
    await card.getByRole("button", { name: "Resume" }).click();
    await pwExpect(card).toContainText(/Next run: Mon/);
    rig.platform.setScheduledTasks(false);
    try {
      await button("Conversation").click();
      await button("Schedules").click();
      await pwExpect(pane.getByText("Scheduled prompts are turned off for your account")).toBeVisible({ timeout: 15_000 });
    } finally {
      rig.platform.setScheduledTasks(true);
    }
    await button("Conversation").click();
    await button("Schedules").click();
    const card2 = pane.locator("li.cb-card[data-task]").filter({ hasText: "revenue by month" });
    // Dark mode: the view is drawn on the theme's colours (light text on a dark card).
    await page.getByLabel("Office theme").selectOption("dark");
    await pwExpect(pane.locator("html")).toHaveAttribute("data-theme", "dark", { timeout: 20_000 });
    if (!(await card2.isVisible())) {
      await button("Chat").click({ timeout: 20_000 });
      await button("Schedules").click();
    }
    await pwExpect(card2).toBeVisible({ timeout: 20_000 });
    const colours = await card2.evaluate((el) => {
      const lum = (c: string) => {
        const [r, g, b] = (c.match(/\d+(\.\d+)?/g) ?? ["0", "0", "0"]).map(Number) as [number, number, number];
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      let bg = "rgba(0, 0, 0, 0)";
      for (let e: Element | null = el; e && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); e = e.parentElement)
        bg = getComputedStyle(e).backgroundColor;
      return { text: lum(getComputedStyle(el).color), bg: lum(bg) };
    });
    expect(colours.text).toBeGreaterThan(150);
    expect(colours.bg).toBeLessThan(100);
    await page.screenshot({ path: path.join(SCREENSHOTS, "schedules-dark.png") });
    await page.getByLabel("Office theme").selectOption("light");
    await pwExpect(pane.locator("html")).toHaveAttribute("data-theme", "light", { timeout: 20_000 });
    if (!(await card2.isVisible())) {
      await button("Chat").click({ timeout: 20_000 });
      await button("Schedules").click();
    }
    await card2.getByRole("button", { name: "Delete…" }).click();
    await card2.getByRole("button", { name: /^Confirm delete/ }).click();
    await pwExpect(pane.locator("li.cb-card[data-task]")).toHaveCount(0);
  });
});
