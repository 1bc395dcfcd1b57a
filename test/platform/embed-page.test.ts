// The stand-in's embed page speaks the protocol of seeds 02 §6: driven in Chromium from a parent
// page served on another 127.0.0.1 port, which records every message the iframe posts and sends
// actions to it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright";
import { chromiumPath, CHROMIUM_ARGS } from "../../dev/chromium.ts";
import { EMBED_LIMITS } from "../../src/api/embed/schemas";
import { EmbedRig } from "./embed-support";

interface Msg {
  origin: string;
  data: { source: string; direction: string; type: string; payload: Record<string, unknown>; timestamp: number; surface?: string };
}

let rig: EmbedRig;
let browser: Browser;
let parent: Server;
let parentOrigin: string;

// The parent page: an iframe whose src is set by the test; messages recorded in window.__msgs.
const PARENT_HTML = `<!doctype html><html><body><iframe id="embed" style="width:800px;height:600px"></iframe><script>
window.__msgs = [];
addEventListener("message", (e) => window.__msgs.push({ origin: e.origin, data: e.data }));
window.__send = (msg, target) => document.getElementById("embed").contentWindow.postMessage(msg, target);
</script></body></html>`;

beforeAll(async () => {
  rig = await EmbedRig.start();
  parent = createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PARENT_HTML));
  await new Promise<void>((r) => parent.listen(0, "127.0.0.1", r));
  parentOrigin = `http://127.0.0.1:${(parent.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => parent?.close(r));
  await rig?.close();
});

async function mint(): Promise<string> {
  return rig.sessionId({ externalId: "pat", embedTenantName: "acme-retail" });
}

async function open(o: { session?: string; hostOrigin?: string; extra?: string; publicId?: string } = {}): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(parentOrigin + "/");
  const session = o.session ?? (await mint());
  const url = `${rig.base}/embed/dashboard/${o.publicId ?? "SalesDash001"}?session=${encodeURIComponent(session)}&hostOrigin=${encodeURIComponent(o.hostOrigin ?? parentOrigin)}${o.extra ?? ""}`;
  await page.evaluate((u) => ((document.getElementById("embed") as HTMLIFrameElement).src = u), url);
  return page;
}

const msgs = (page: Page) => page.evaluate(() => (window as unknown as { __msgs: Msg[] }).__msgs);
const types = async (page: Page) => (await msgs(page)).map((m) => m.data.type);
async function waitFor(page: Page, type: string, count = 1): Promise<Msg[]> {
  await page.waitForFunction(
    ([t, n]) => (window as unknown as { __msgs: Msg[] }).__msgs.filter((m) => m.data?.type === t).length >= (n as number),
    [type, count] as const,
    { timeout: 20_000 },
  );
  return (await msgs(page)).filter((m) => m.data.type === type);
}
const action = (type: string, payload: Record<string, unknown>) => ({
  source: "svc-embed",
  direction: "action",
  type,
  payload,
  timestamp: Date.now(),
});
const send = (page: Page, msg: unknown, target?: string) =>
  page.evaluate(([m, t]) => (window as unknown as { __send(m: unknown, t: string): void }).__send(m, t as string), [
    msg,
    target ?? rig.base,
  ] as const);
const frame = (page: Page) => page.frameLocator("#embed");
const pwExpectText = (page: Page, sel: string, text: string) =>
  expect.poll(() => frame(page).locator(sel).textContent(), { timeout: 15_000 }).toBe(text);
const rowsOf = async (page: Page, widget: string) =>
  JSON.parse((await frame(page).locator(`section[data-widget-id="${widget}"]`).getAttribute("data-rows")) ?? "[]") as Array<{
    x: string;
    y: number;
  }>;

describe("embed page", () => {
  it("exchanges its session, says ready once with the envelope of §6.1, views, draws real charts and says dashboard-loaded", async () => {
    const page = await open();
    const [loaded] = await waitFor(page, "svc:event:dashboard-loaded");
    const all = await msgs(page);
    expect(all.map((m) => m.data.type).slice(0, 3)).toEqual(["svc:event:ready", "svc:event:view", "svc:event:dashboard-loaded"]);
    for (const m of all) {
      expect(m.origin).toBe(rig.base);
      expect(m.data).toMatchObject({ source: "svc-embed", direction: "event", surface: "dashboard" });
      expect(typeof m.data.timestamp).toBe("number");
    }
    expect(all[0]!.data.payload).toEqual({
      embedTenant: "acme-retail",
      deploymentId: 1,
      mode: "signed",
      surface: "dashboard",
      publicId: "SalesDash001",
    });
    expect(loaded!.data.payload).toMatchObject({ publicId: "SalesDash001", widgetCount: 2 });
    // Real charts: Vega drew SVG marks for each widget.
    await expect.poll(() => frame(page).locator('section[data-widget-id="w-status"] svg .mark-rect path').count()).toBeGreaterThan(2);
    expect((await rowsOf(page, "w-status")).length).toBeGreaterThan(2);
    await page.close();
  });

  it("posts nothing and accepts no action for a host origin off the allow-list", async () => {
    const page = await open({ hostOrigin: "https://evil.example" });
    await frame(page).locator('section[data-widget-id="w-status"] svg').first().waitFor({ timeout: 20_000 });
    await send(page, action("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["cancelled"]' }));
    await page.waitForTimeout(500);
    expect(await msgs(page)).toEqual([]);
    expect(await frame(page).locator("#filters").textContent()).toBe("No filters");
    await page.close();
  });

  it("an unredeemable session id gives an error event and no ready", async () => {
    const sid = await mint();
    expect((await rig.exchange(sid)).status).toBe(200);
    const page = await open({ session: sid });
    const [err] = await waitFor(page, "svc:event:error");
    expect(err!.data.payload).toMatchObject({ name: "EmbedSessionExchangeError", fatal: true });
    await page.waitForTimeout(300);
    expect(await types(page)).not.toContain("svc:event:ready");
    await page.close();
  });

  it("set-filter really filters the charts' queries; malformed, surface-carrying or wrong-target actions are ignored", async () => {
    const page = await open();
    await waitFor(page, "svc:event:dashboard-loaded");
    const before = await rowsOf(page, "w-status");
    // Ignored: an action carrying surface, an event direction, a bad filter, a bare-offset time zone.
    await send(page, { ...action("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["cancelled"]' }), surface: "dashboard" });
    await send(page, { ...action("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["cancelled"]' }), direction: "event" });
    await send(page, action("svc:action:set-filter", { filterUrlParameter: "f_orders.status=cancelled" }));
    await send(page, action("svc:action:set-timezone", { timezone: "+02:00" }));
    await page.waitForTimeout(400);
    expect(await rowsOf(page, "w-status")).toEqual(before);
    expect(await frame(page).locator("#timezone").textContent()).toBe("Time zone: UTC");
    await send(page, action("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["cancelled"]' }));
    await waitFor(page, "svc:event:dashboard-loaded", 2);
    const after = await rowsOf(page, "w-status");
    expect(after.map((r) => r.x)).toEqual(["cancelled"]);
    expect(after[0]!.y).toBe(before.find((r) => r.x === "cancelled")!.y);
    // The month chart is filtered too: its total is smaller.
    await send(page, action("svc:action:set-timezone", { timezone: "Asia/Tokyo" }));
    await waitFor(page, "svc:event:dashboard-loaded", 3);
    expect(await frame(page).locator("#timezone").textContent()).toBe("Time zone: Asia/Tokyo");
    await page.close();
  });

  it("another allow-listed origin than the host is not enough to act", async () => {
    const page = await open({ hostOrigin: "http://localhost:1" });
    await frame(page).locator('section[data-widget-id="w-status"] svg').first().waitFor({ timeout: 20_000 });
    // The parent is 127.0.0.1:<port>, not localhost:1: its actions are dropped, and nothing reaches it.
    await send(page, action("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["cancelled"]' }));
    await page.waitForTimeout(500);
    expect(await frame(page).locator("#filters").textContent()).toBe("No filters");
    expect(await msgs(page)).toEqual([]);
    await page.close();
  });

  it("navigate, drilldown from the control and from a chart mark, downloads with rowCount and no rows", async () => {
    const page = await open({ extra: "&allowExport=true" });
    await waitFor(page, "svc:event:dashboard-loaded");
    await frame(page).getByRole("button", { name: "Drill down" }).first().click();
    const [drill] = await waitFor(page, "svc:event:drilldown");
    expect(drill!.data.payload).toMatchObject({
      member: "orders.count",
      widgetId: "w-status",
      value: { "orders.status": expect.any(String) },
    });
    await frame(page).locator('section[data-widget-id="w-status"] svg .mark-rect path').first().click();
    await waitFor(page, "svc:event:drilldown", 2);
    const dl = page.waitForEvent("download");
    await frame(page).getByRole("button", { name: "Export CSV" }).first().click();
    expect((await dl).suggestedFilename()).toMatch(/\.csv$/);
    const dl2 = page.waitForEvent("download");
    await frame(page).getByRole("button", { name: "Export XLSX" }).first().click();
    expect((await dl2).suggestedFilename()).toMatch(/\.xlsx$/);
    const downloads = await waitFor(page, "svc:event:download", 2);
    expect(downloads.map((d) => d.data.payload.format)).toEqual(["csv", "xlsx"]);
    for (const d of downloads) {
      expect(d.data.payload).toMatchObject({ target: "widget", widgetId: "w-status", rowCount: expect.any(Number) });
      expect(Object.keys(d.data.payload).sort()).toEqual(["format", "rowCount", "target", "title", "widgetId"]);
    }
    await send(page, action("svc:action:navigate", { path: "/widgets/w-month" }));
    const [nav] = await waitFor(page, "svc:event:navigate");
    expect(nav!.data.payload).toEqual({ path: "/widgets/w-month", previousPath: "/" });
    await waitFor(page, "svc:event:view", 2);
    await expect.poll(() => frame(page).locator("section[data-widget-id]").count()).toBe(1);
    await page.close();
  });

  it("honours the timezone URL parameter (IANA only) and set-timezone wins over it", async () => {
    const page = await open({ extra: "&timezone=America%2FNew_York" });
    await waitFor(page, "svc:event:dashboard-loaded");
    await pwExpectText(page, "#timezone", "Time zone: America/New_York");
    const monthsNY = (await rowsOf(page, "w-month")).map((r) => r.x);
    await page.close();
    const offset = await open({ extra: "&timezone=%2B02%3A00" });
    await waitFor(offset, "svc:event:dashboard-loaded");
    await pwExpectText(offset, "#timezone", "Time zone: UTC");
    const utcRows = await rowsOf(offset, "w-month");
    expect(monthsNY.length).toBe(utcRows.length);
    // set-timezone re-runs the month query in that zone: the buckets' sums change.
    await send(offset, action("svc:action:set-timezone", { timezone: "America/New_York" }));
    await waitFor(offset, "svc:event:dashboard-loaded", 2);
    await pwExpectText(offset, "#timezone", "Time zone: America/New_York");
    expect(await rowsOf(offset, "w-month")).not.toEqual(utcRows);
    await offset.close();
  });

  it("set-color-scheme, set-theme and set-locale restyle without re-querying", async () => {
    const page = await open();
    await waitFor(page, "svc:event:dashboard-loaded");
    await send(page, action("svc:action:set-color-scheme", { scheme: "dark" }));
    await expect.poll(() => frame(page).locator("html").getAttribute("data-scheme")).toBe("dark");
    await send(page, action("svc:action:set-theme", { embedTheme: { primaryColor: "#aa3300" } }));
    await expect.poll(() => frame(page).locator("body").getAttribute("data-primary-color")).toBe("#aa3300");
    await expect
      .poll(() => frame(page).locator('section[data-widget-id="w-status"] svg .mark-rect path').first().getAttribute("fill"))
      .toBe("#aa3300");
    await send(page, action("svc:action:set-locale", { locale: "de-DE" }));
    await expect.poll(() => frame(page).locator("html").getAttribute("lang")).toBe("de-DE");
    await expect
      .poll(() => frame(page).locator('section[data-widget-id="w-status"] .total').textContent())
      .toMatch(/\d\.\d{3}\.\d{3}|\d{3}\.\d{3}/);
    // A theme with an unknown field is refused (strict schema): nothing changes.
    await send(page, action("svc:action:set-theme", { embedTheme: { primaryColor: "#000000", logo: "x" } }));
    await page.waitForTimeout(300);
    expect(await frame(page).locator("body").getAttribute("data-primary-color")).toBe("#aa3300");
    expect((await types(page)).filter((t) => t === "svc:event:dashboard-loaded")).toHaveLength(1);
    await page.close();
  });

  it("issue 31 item 5: a widget's total says “Total” once: “Total Amount: …” for Total Amount, “Total Count: …” for Count", async () => {
    const page = await open();
    await waitFor(page, "svc:event:dashboard-loaded");
    const total = (id: string) => frame(page).locator(`section[data-widget-id="${id}"] .total`);
    await expect.poll(() => total("w-month").textContent(), { timeout: 15_000 }).toMatch(/^Total Amount: \d/);
    await expect.poll(() => total("w-status").textContent(), { timeout: 15_000 }).toMatch(/^Total Count: \d/);
    await page.close();
  });

  it("without allowExport there are no export controls", async () => {
    const page = await open();
    await waitFor(page, "svc:event:dashboard-loaded");
    expect(await frame(page).getByRole("button", { name: "Export CSV" }).count()).toBe(0);
    await page.close();
  });

  it("session-expiring and session-expired follow the stand-in's clock; set-session swaps without reload and keeps filters; a rejected id is an error and the embed keeps working", async () => {
    const page = await open();
    await waitFor(page, "svc:event:dashboard-loaded");
    const pageId = await frame(page).locator("body").getAttribute("data-page-id");
    await send(page, action("svc:action:set-filter", { filterUrlParameter: 'f_orders.status=["cancelled"]' }));
    await waitFor(page, "svc:event:dashboard-loaded", 2);
    // To 20 minutes before the token stops working: expiring, with expiresAt on the stand-in's clock.
    await rig.advance(EMBED_LIMITS.tokenUsableMs - 20 * 60_000);
    const [expiring] = await waitFor(page, "svc:event:session-expiring");
    const p = expiring!.data.payload as { expiresAt: number; expiresInMs: number };
    expect(p.expiresInMs).toBeGreaterThan(15 * 60_000);
    expect(p.expiresInMs).toBeLessThanOrEqual(20 * 60_000);
    // A rejected id: error with context session-renewal, no new ready, filters still there.
    await send(page, action("svc:action:set-session", { sessionId: "not-a-session" }));
    const [rejected] = await waitFor(page, "svc:event:error");
    expect(rejected!.data.payload).toMatchObject({ context: "session-renewal", name: "EmbedSessionExchangeError" });
    await send(page, action("svc:action:refresh", {}));
    await waitFor(page, "svc:event:dashboard-loaded", 3);
    // Past expiry: expired.
    await rig.advance(30 * 60_000);
    await waitFor(page, "svc:event:session-expired");
    // A fresh session swaps in: ready again (a new session), same page instance, filter kept.
    await send(page, action("svc:action:set-session", { sessionId: await mint() }));
    await waitFor(page, "svc:event:ready", 2);
    await waitFor(page, "svc:event:dashboard-loaded", 4);
    expect(await frame(page).locator("body").getAttribute("data-page-id")).toBe(pageId);
    expect((await rowsOf(page, "w-status")).map((r) => r.x)).toEqual(["cancelled"]);
    expect((await types(page)).filter((t) => t === "svc:event:ready")).toHaveLength(2);
    await page.close();
  }, 60_000);
});
