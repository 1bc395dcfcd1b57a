// The chat pane end to end (issue 14): the real pane bundle in the harness against the stand-in.
// Ask "revenue by month" → a streamed answer with a chart → Place in sheet → the cells hold every
// row; Stop mid-stream; reload mid-stream and resume with no duplicates; chat turned off by
// app-config → the pane explains why. Screenshot of the chat beside the sheet: test/e2e/screenshots.
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Page } from "playwright";
import { cellText, clickCell, openHarness, SCREENSHOTS, startRig, type Rig, signIn } from "./setup.ts";

let rig: Rig;
let page: Page;
let pane: FrameLocator;
let csp: string[];

beforeAll(async () => {
  rig = await startRig();
  ({ page, pane, csp } = await openHarness(rig));
}, 240_000);
afterAll(async () => {
  await rig?.stop();
});

const button = (name: string | RegExp) => pane.getByRole("button", { name, exact: typeof name === "string" });

async function askAgent(question: string): Promise<void> {
  await pane.getByLabel("Ask the agent").fill(question);
  await button("Send").click();
}

describe("chat flow", { timeout: 120_000 }, () => {
  it("1. revenue by month: a streamed answer with a chart, then Place in sheet writes every row", async () => {
    await signIn(pane);
    await clickCell(page, "B2");
    await button("Chat").click();
    await askAgent("What was our revenue by month?");
    // Streaming: Stop is offered while the answer arrives, then the chart is drawn.
    await pwExpect(button("Stop")).toBeVisible({ timeout: 10_000 });
    await pwExpect(pane.locator(".cb-chat-chart svg")).toBeVisible({ timeout: 30_000 });
    await pwExpect(pane.locator(".cb-chat-md strong").first()).toHaveText("Revenue by month");
    await pwExpect(pane.locator(".cb-table caption")).toHaveText("36 rows");
    await pwExpect(pane.getByText(/^Tokens: /)).toBeVisible();
    await button("Place in sheet").click();
    await pwExpect(pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    // Header in row 2, 36 months in rows 3..38, nothing below.
    expect(await cellText(page, "B2")).toBe("month");
    expect(await cellText(page, "C2")).toBe("revenue");
    expect(await cellText(page, "B38")).not.toBe("");
    expect(await cellText(page, "C38")).not.toBe("");
    expect(await cellText(page, "B39")).toBe("");
    await pwExpect(pane.locator("li.cb-card[data-placement]").filter({ hasText: "Revenue by month" })).toContainText("Up to date", {
      timeout: 15_000,
    });
    // Back to the chat: the open thread comes back (saved preference); screenshot beside the sheet.
    await button("Chat").click();
    await pwExpect(pane.locator(".cb-chat-chart svg")).toBeVisible({ timeout: 30_000 });
    await pane.locator(".cb-chat-chart").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, "chat.png") });
    // The chart (vega-embed, expression interpreter) drew under the pane's CSP without a violation.
    expect(csp).toEqual([]);
  });

  it("issue 31 item 5: the answer's table shows revenue with its 2 decimals on every row (17,105,391.90, not 17,105,391.9)", async () => {
    // The answer of the test above, shown again.
    const head = await pane.locator(".cb-table thead th").allTextContents();
    const col = head.indexOf("revenue") + 1;
    expect(col).toBeGreaterThan(0);
    const revenue = await pane.locator(`.cb-table tbody tr td:nth-child(${col})`).allTextContents();
    expect(revenue.length).toBeGreaterThan(0);
    for (const v of revenue) expect(v).toMatch(/^\d{1,3}(,\d{3})*\.\d{2}$/);
  });

  it("2. Stop mid-stream ends the answer; the thread stays usable", async () => {
    rig.platform.setChatDeltaMs(250); // slow enough that Stop lands mid-answer on a loaded machine
    try {
      await button("Chat").click();
      await button("New conversation").click();
      await askAgent("orders by country");
      await pwExpect(pane.locator(".cb-chat-md")).toBeVisible({ timeout: 15_000 });
      await button("Stop").click();
      await pwExpect(pane.getByText("Stopped.")).toBeVisible({ timeout: 10_000 });
      await pwExpect(button("Send")).toBeVisible();
      const partial = await pane.locator(".cb-chat-md").innerText();
      // Cut before the end: the agent's last sentence never arrives complete.
      expect(partial).not.toMatch(/the SQL is in the step above\./);
    } finally {
      rig.platform.setChatDeltaMs(30);
    }
  });

  it("3. reload mid-stream: the pane resumes the answer, with no duplicate messages", async () => {
    rig.platform.setChatDeltaMs(200);
    try {
      await button("New conversation").click();
      await askAgent("revenue by quarter");
      await pwExpect(pane.locator(".cb-chat-md")).toBeVisible({ timeout: 15_000 });
      await page.reload();
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 20_000 });
      if (
        await button("Sign in")
          .isVisible()
          .catch(() => false)
      )
        await signIn(pane);
      await pwExpect(button("Chat")).toBeVisible({ timeout: 20_000 });
      await button("Chat").click();
      await pwExpect(pane.locator(".cb-chat-user")).toHaveText(["revenue by quarter"], { timeout: 20_000 });
      // Still answering after the reload: the pane follows the running answer (Stop is offered).
      await pwExpect(button("Stop")).toBeVisible();
      await pwExpect(pane.getByText(/^Tokens: /)).toBeVisible({ timeout: 30_000 });
      await pwExpect(pane.locator(".cb-chat-user")).toHaveCount(1);
      await pwExpect(pane.locator(".cb-chat-md")).toHaveCount(1);
      const text = await pane.locator(".cb-chat-md").innerText();
      expect(text.match(/Revenue by quarter/g)).toHaveLength(1);
      expect(text).toMatch(/The chart and the table below/);
    } finally {
      rig.platform.setChatDeltaMs(30);
    }
  });

  it("4. chat turned off by app-config: the pane says why", async () => {
    rig.platform.setAppConfig({ sheetsAgentChatEnabled: false });
    try {
      await button("Workbook").click();
      await button("Chat").click();
      await pwExpect(pane.getByText("Chat is turned off for spreadsheets")).toBeVisible({ timeout: 15_000 });
      await pwExpect(pane.getByLabel("Ask the agent")).toHaveCount(0);
    } finally {
      rig.platform.setAppConfig({ sheetsAgentChatEnabled: true });
    }
  });

  it("5. on a deployment whose token sign-in for chat is off (deployment 2), the chat works with no agent id typed (issue 14)", async () => {
    expect(rig.platform.info.chat.tokenChatDeploymentIds).not.toContain(2);
    // The outsider is an editor in both deployments; the harness's config carries the stand-in's default agent.
    if (await button("Sign out").isVisible()) await button("Sign out").click();
    await pane.getByLabel("API key or access token").fill(rig.platform.info.apiKeys.outsider);
    await button("Sign in").click();
    await button("Use Finance Sandbox").click();
    await pwExpect(button("Chat")).toBeVisible({ timeout: 20_000 });
    await button("Chat").click();
    await pane.getByText("Chat settings").click();
    await pwExpect(pane.getByLabel(/^Agent id/)).toHaveValue(rig.platform.info.chat.agentId);
    await askAgent("revenue by month");
    await pwExpect(pane.getByText(/^Tokens: /)).toBeVisible({ timeout: 30_000 });
    await pwExpect(pane.locator(".cb-chat-md strong").first()).toHaveText("Revenue by month");
  });

  it("6. issue 34: the chat loads when it is opened; offline, the pane says it could not be loaded, and opening it again loads it", async () => {
    const opened = await openHarness(rig);
    const own = opened.pane;
    try {
      const loaded: string[] = [];
      opened.page.on("request", (r) => void loaded.push(r.url()));
      const chatChunks = () => loaded.filter((u) => /\/chat\.[0-9a-f]+\.js$/.test(new URL(u).pathname));
      // Nothing of the chat before it is opened: its chunk (view and live service) comes from the pane's own origin.
      await signIn(own);
      expect(chatChunks()).toEqual([]);
      await opened.page.route(/\/chat\.[0-9a-f]+\.js$/, (r) => r.abort("internetdisconnected"));
      await own.getByRole("button", { name: "Chat", exact: true }).click();
      await pwExpect(own.getByText("The Chat pane could not be loaded")).toBeVisible({ timeout: 20_000 });
      await pwExpect(own.getByText("Check the connection and open it again.")).toBeVisible();
      await opened.page.unroute(/\/chat\.[0-9a-f]+\.js$/);
      await own.getByRole("button", { name: "Chat", exact: true }).click();
      await pwExpect(own.getByLabel("Ask the agent")).toBeVisible({ timeout: 20_000 });
      await pwExpect(own.getByText("The Chat pane could not be loaded")).toHaveCount(0);
      expect(chatChunks().length).toBeGreaterThan(0);
      expect(chatChunks().every((u) => new URL(u).origin === new URL(rig.served.url).origin)).toBe(true);
      expect(opened.csp).toEqual([]);
    } finally {
      await opened.page.context().close();
    }
  });
});
