// The live dashboard adapter's window side in Chromium: the iframe it mounts (sandboxed, no referrer,
// session and host origin in its URL), messages accepted only from that iframe's window and the tenant
// origin (a same-origin message from another window is ignored and debug-logged), the look sent once
// the embed says ready, and actions posted to the tenant origin, never "*".
import { createLiveDashboard } from "../../src/taskpane/dashboard/live";
import { makeEvent } from "../../src/api/embed/protocol";
import type { EmbedNews } from "../../src/taskpane/dashboard/service";
import { ForbiddenError } from "../../src/api/errors";

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const unused = () => Promise.reject(new Error("not used here"));

describe("live dashboard adapter", () => {
  it("mounts the embed and checks window, origin and envelope; posts actions to the tenant origin only", async () => {
    const base = location.origin;
    const debug: string[] = [];
    const sessionCalls: string[] = [];
    const fetchImpl = async (url: string) => {
      sessionCalls.push(url);
      return new Response(JSON.stringify({ sessionId: `sid-${sessionCalls.length}` }), {
        status: 200,
        headers: { "Content-Type": "application/json" },
      });
    };
    const service = createLiveDashboard({
      baseUrl: base,
      embed: { sessionUrl: `${base}/__broker` },
      client: {} as never,
      storage: null,
      fetch: fetchImpl,
      debug: (m) => debug.push(m),
      selectedPlacement: async () => null,
      selectedCell: unused,
      putPicture: unused,
      activeSheetPictures: async () => [],
      placeNew: unused,
    });
    const host = document.createElement("div");
    document.body.append(host);
    const news: EmbedNews[] = [];
    const handle = await service.open(host, "SalesDash001", (n) => news.push(n));
    const iframe = host.querySelector("iframe")!;
    const src = new URL(iframe.src);
    expect(src.pathname).toBe("/embed/dashboard/SalesDash001");
    expect(src.searchParams.get("session")).toBe("sid-1");
    expect(src.searchParams.get("hostOrigin")).toBe(location.origin);
    expect(iframe.getAttribute("sandbox")).toBe("allow-scripts allow-same-origin allow-downloads");
    expect(iframe.referrerPolicy).toBe("no-referrer");
    await new Promise<void>((r) => iframe.addEventListener("load", () => r(), { once: true }));

    const posted: Array<{ type: string; target: string }> = [];
    const child = iframe.contentWindow as Window & { eval(code: string): unknown };
    child.postMessage = ((m: { type: string }, target: string) => posted.push({ type: m.type, target })) as Window["postMessage"];

    const ready = makeEvent("svc:event:ready", { embedTenant: "acme", deploymentId: 1, mode: "signed", surface: "dashboard" });
    // From this window (same origin, but not the iframe): ignored.
    window.postMessage(ready, "*");
    await until(() => debug.some((d) => d.includes("another window")));
    expect(news).toEqual([]);
    handle.setFilter("orders.status", ["cancelled"]);
    expect(posted).toEqual([]); // queued until the embed says ready

    // From the iframe: a malformed one is ignored, the ready is accepted.
    child.eval(`parent.postMessage(${JSON.stringify({ ...ready, payload: { mode: "nope" } })}, "*")`);
    child.eval(`parent.postMessage(${JSON.stringify(ready)}, "*")`);
    await until(() => news.some((n) => n.kind === "ready"));
    expect(debug.some((d) => d.includes("malformed payload"))).toBe(true);
    await until(() => posted.length >= 4);
    expect(posted.map((p) => p.type)).toEqual(
      expect.arrayContaining(["svc:action:set-color-scheme", "svc:action:set-timezone", "svc:action:set-filter"]),
    );
    expect(posted.every((p) => p.target === location.origin)).toBe(true);

    // Expiry: one fresh session minted for the renewal, posted as set-session to the tenant origin.
    child.eval(`parent.postMessage(${JSON.stringify(makeEvent("svc:event:session-expiring", { expiresAt: 1, expiresInMs: 10 }))}, "*")`);
    child.eval(`parent.postMessage(${JSON.stringify(makeEvent("svc:event:session-expired", { expiredAt: 2 }))}, "*")`);
    await until(() => posted.some((p) => p.type === "svc:action:set-session"));
    await new Promise((r) => setTimeout(r, 50));
    expect(posted.filter((p) => p.type === "svc:action:set-session")).toEqual([
      { type: "svc:action:set-session", target: location.origin },
    ]);
    expect(sessionCalls).toHaveLength(2);
    expect(news.filter((n) => n.kind === "renewing")).toHaveLength(2);
    handle.close();
    expect(host.querySelector("iframe")).toBeNull();
    host.remove();
  });

  it("a viewer's picture export (403) is explained in terms of access, and nothing is inserted", async () => {
    let inserted = false;
    const service = createLiveDashboard({
      baseUrl: location.origin,
      embed: {},
      storage: null,
      client: {
        createDashboardExport: async () => {
          throw new ForbiddenError("POST /api/v1/dashboard-exports: 403", 403, undefined);
        },
      } as never,
      selectedPlacement: async () => null,
      selectedCell: unused,
      activeSheetPictures: async () => [],
      placeNew: unused,
      putPicture: async () => {
        inserted = true;
        return { sheetId: "s", name: "n", address: "A1" };
      },
    });
    await expect(service.insertPicture("SalesDash001", { onProgress: () => {}, signal: new AbortController().signal })).rejects.toThrow(
      /needs manage access to its deployment/,
    );
    expect(inserted).toBe(false);
  });
});
