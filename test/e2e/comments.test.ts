// Comments end to end: the real pane bundle in the harness, three embed viewers in three browser
// contexts (ana and ben of one tenant, carol of another), sessions from the stand-in's dev broker.
// Two viewers hold a conversation (post, mention, reply, edit, resolve); the other tenant sees none of
// it; resolving hides the thread by default; a revoked session's token gets 401 and the pane recovers
// by minting a new session. Screenshots go to test/e2e/screenshots/ (git-ignored).
import path from "node:path";
import { expect as pwExpect } from "playwright/test";
import type { FrameLocator, Locator, Page } from "playwright";
import { clickCell, openHarness, SCREENSHOTS, startRig, type Rig } from "./setup.ts";

let rig: Rig;

interface Viewer {
  page: Page;
  pane: FrameLocator;
  /** Session ids the dev broker minted for this page, in order. */
  sessions: string[];
  /** The last Authorization header the pane sent to a comments endpoint. */
  lastAuth: string | null;
  /** CSP violations reported in this page's frames (setup.ts). */
  csp: string[];
}

beforeAll(async () => {
  rig = await startRig({ embed: true });
}, 240_000);

afterAll(async () => {
  await rig?.stop();
});

const button = (within: FrameLocator | Locator, name: string | RegExp) =>
  within.getByRole("button", { name, exact: typeof name === "string" });
const threads = (v: Viewer) => v.pane.getByRole("list", { name: "Threads" }).locator(":scope > li");

async function open(externalId: string, tenant: string): Promise<Viewer> {
  const { page, pane, csp } = await openHarness(rig, { query: `?embedUser=${externalId}&embedTenant=${tenant}` });
  const v: Viewer = { page, pane, sessions: [], lastAuth: null, csp };
  page.on("response", (r) => {
    if (r.url().endsWith("/__dev/embed-session") && r.status() === 200)
      void r.json().then((j: { sessionId: string }) => v.sessions.push(j.sessionId));
  });
  page.on("request", (r) => {
    if (r.url().includes("/comments")) v.lastAuth = r.headers()["authorization"] ?? null;
  });
  await button(pane, "Sign in").click();
  const use = pane.getByRole("button", { name: /^Use / }).first();
  await pwExpect(button(pane, "Refresh all").or(use)).toBeVisible({ timeout: 30_000 });
  if (await use.isVisible()) await use.click();
  await pwExpect(button(pane, "Comments")).toBeVisible({ timeout: 20_000 });
  return v;
}

async function openById(v: Viewer, publicId: string): Promise<void> {
  await button(v.pane, "Comments").click();
  await v.pane.getByLabel("Dashboard id").fill(publicId);
  await button(v.pane, "Open").click();
  await pwExpect(v.pane.getByRole("heading", { level: 2 })).toHaveText("Sales overview", { timeout: 20_000 });
}

async function refresh(v: Viewer): Promise<void> {
  await button(v.pane, "Refresh").click();
  await pwExpect(button(v.pane, "Refresh")).toBeEnabled();
}

describe("comments", { timeout: 180_000 }, () => {
  let ana: Viewer;
  let ben: Viewer;
  let carol: Viewer;

  it("ben (tenant 1) opens the shared dashboard by its id; he exists as a mentionable user from then on", async () => {
    ben = await open("ben", rig.platform.info.embed.tenants[0]!);
    await openById(ben, rig.platform.info.embed.dashboards.shared);
    await pwExpect(ben.pane.getByText("No open threads. Start one above.")).toBeVisible();
    expect(ben.sessions).toHaveLength(1);
  });

  it("ana finds the dashboard linked to the placement under her selection, and starts a thread mentioning ben", async () => {
    ana = await open("ana", rig.platform.info.embed.tenants[0]!);
    await clickCell(ana.page, "B2");
    await button(ana.pane, "Reports").click();
    await ana.pane.getByRole("button", { name: /Place report Company revenue/ }).click();
    await pwExpect(ana.pane.getByText("Report placed")).toBeVisible({ timeout: 30_000 });
    await clickCell(ana.page, "C3");
    await button(ana.pane, "Comments").click();
    await pwExpect(ana.pane.getByText(/Dashboards of Company revenue \(.*B2/)).toBeVisible({ timeout: 20_000 });
    await pwExpect(ana.pane.getByRole("heading", { level: 2 })).toHaveText("Sales overview");

    const box = ana.pane.getByRole("combobox", { name: "Start a thread" });
    await box.click();
    await box.pressSequentially("Why did returns jump in May? @be");
    await pwExpect(ana.pane.getByRole("option", { name: /@ben/ })).toBeVisible({ timeout: 5_000 });
    await box.press("Enter");
    await pwExpect(box).toHaveValue("Why did returns jump in May? @ben ");
    await box.pressSequentially("can you check?");
    await button(ana.pane, "Post").click();
    await pwExpect(threads(ana)).toHaveCount(1);
    await pwExpect(threads(ana).first().locator(".cb-mention")).toHaveText("@ben");
  });

  it("ben sees it, opens the thread and replies", async () => {
    await refresh(ben);
    await pwExpect(threads(ben)).toHaveCount(1);
    await pwExpect(threads(ben).first()).toContainText("Why did returns jump in May? @ben can you check?");
    // Not ben's thread: no Resolve, no Edit.
    await pwExpect(button(threads(ben).first(), "Resolve thread")).toHaveCount(0);
    await button(threads(ben).first(), /^Open thread/).click();
    await ben.pane.getByRole("combobox", { name: "Reply" }).fill("Refunds from the spring sale, mostly.");
    await button(ben.pane, "Reply").click();
    await pwExpect(ben.pane.getByRole("group", { name: "Replies" })).toContainText("Refunds from the spring sale, mostly.");
  });

  it("issue 31 item 5: ben sees ana by her name, “Ana”, and “@a” offers @ana, not @ben", async () => {
    await pwExpect(ben.pane.getByRole("article", { name: "Comment by Ana", exact: true })).toBeVisible();
    await pwExpect(ben.pane.getByRole("article", { name: "Comment by ana", exact: true })).toHaveCount(0);
    const box = ben.pane.getByRole("combobox", { name: "Reply" });
    await box.click();
    await box.pressSequentially("@a");
    await pwExpect(ben.pane.getByRole("option", { name: /@ana/ })).toBeVisible({ timeout: 5_000 });
    await pwExpect(ben.pane.getByRole("option")).toHaveCount(1);
    await ben.page.screenshot({ path: path.join(SCREENSHOTS, "comments-mention-a.png") });
    await box.press("Escape");
    await box.fill("");
  });

  it("ana sees the reply, edits her comment, and resolves the thread: it leaves the default list", async () => {
    await refresh(ana);
    await pwExpect(threads(ana).first()).toContainText("1 reply");
    await button(threads(ana).first(), /^Open thread/).click();
    const thread = ana.pane.getByRole("list", { name: "Thread" });
    await pwExpect(thread).toContainText("Refunds from the spring sale, mostly.");
    await button(thread.getByRole("article", { name: "Comment by You" }), /^Edit/).click();
    const edit = ana.pane.getByRole("combobox", { name: "Edit your comment" });
    await edit.fill("Why did returns jump in May 2025? @ben can you check?");
    await button(thread, "Save").click();
    await pwExpect(thread.getByRole("article", { name: "Comment by You" })).toContainText("(edited)");
    await pwExpect(thread).toContainText("May 2025?");
    await ana.page.locator("#taskpane").screenshot({ path: path.join(SCREENSHOTS, "comments-pane.png") });
    await button(thread, "Resolve thread").click();
    await pwExpect(ana.pane.getByText("Thread resolved")).toBeVisible();
    await pwExpect(threads(ana)).toHaveCount(0);
    await ana.pane.getByLabel("Include resolved").check();
    await pwExpect(threads(ana)).toHaveCount(1);
    await pwExpect(threads(ana).first()).toContainText("Resolved by You");
    await ana.pane.getByLabel("Open", { exact: true }).check();
    await pwExpect(threads(ana)).toHaveCount(0);
  });

  it("ben no longer sees the resolved thread by default, and may not reopen it", async () => {
    await button(ben.pane, "← All threads").click();
    await refresh(ben);
    await pwExpect(threads(ben)).toHaveCount(0);
    await ben.pane.getByLabel("Resolved only").check();
    await pwExpect(threads(ben)).toHaveCount(1);
    await pwExpect(button(threads(ben).first(), "Reopen thread")).toHaveCount(0);
  });

  it("carol of another tenant sees none of it, and cannot mention ana or ben", async () => {
    carol = await open("carol", rig.platform.info.embed.tenants[1]!);
    await openById(carol, rig.platform.info.embed.dashboards.shared);
    await pwExpect(carol.pane.getByText("No open threads. Start one above.")).toBeVisible();
    await carol.pane.getByLabel("Include resolved").check();
    await pwExpect(carol.pane.getByText("No threads yet.")).toBeVisible();
    await pwExpect(threads(carol)).toHaveCount(0);
    const box = carol.pane.getByRole("combobox", { name: "Start a thread" });
    await box.click();
    await box.pressSequentially("@");
    await pwExpect(carol.pane.getByRole("option", { name: /@carol/ })).toBeVisible({ timeout: 5_000 });
    await pwExpect(carol.pane.getByRole("option")).toHaveCount(1);
  });

  it("a revoked session's token gets 401, and the pane recovers by minting a new session", async () => {
    const { baseUrl, apiKeys } = rig.platform.info;
    expect(ana.lastAuth).toMatch(/^Embed-Token /);
    const oldAuth = ana.lastAuth!;
    const before = ana.sessions.length;
    expect(before).toBeGreaterThan(0);
    // What a host backend does: revoke every session id it minted for this viewer.
    for (const sessionId of ana.sessions) {
      const r = await fetch(`${baseUrl}/api/v1/embed/session/revoke`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${apiKeys.admin}` },
        body: JSON.stringify({ sessionId }),
      });
      expect(r.status).toBe(204);
    }
    const shared = rig.platform.info.embed.dashboards.shared;
    const probe = await fetch(`${baseUrl}/api/v1/embed/dashboard/${shared}/comments`, { headers: { authorization: oldAuth } });
    expect(probe.status).toBe(401);

    const box = ana.pane.getByRole("combobox", { name: "Start a thread" });
    await box.fill("Posted after my session was revoked");
    await button(ana.pane, "Post").click();
    await pwExpect(threads(ana).first()).toContainText("Posted after my session was revoked", { timeout: 15_000 });
    await pwExpect(ana.pane.getByRole("alert")).toHaveCount(0);
    await pwExpect.poll(() => ana.sessions.length).toBe(before + 1);
    expect(ana.lastAuth).not.toBe(oldAuth);
    await refresh(ben);
    await ben.pane.getByLabel("Open", { exact: true }).check();
    await pwExpect(threads(ben).first()).toContainText("Posted after my session was revoked");
    // Every viewer's pane, its embedded dashboard and renewals ran under the pane's CSP without a violation.
    for (const v of [ana, ben, carol]) expect(v.csp).toEqual([]);
  });
});
