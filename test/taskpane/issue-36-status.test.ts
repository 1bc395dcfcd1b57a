// Issue 36 item 7 in the pane: what a card shows after Refresh all could not list the reports (the live
// workbook operations over the engine, the memory port and the platform stand-in).
import { describe, expect, it } from "vitest";
import { createDataClient, createDeploymentTokenManager, createPlatformClient } from "../../src/api/index.ts";
import { openWorkbookOps } from "../../src/taskpane/home/live.ts";
import { statusOfView } from "../../src/taskpane/home/live-status.ts";
import { byStatus, memoryWorkbook, useEnv } from "../sync/support.ts";

describe("issue 36 item 7: the card after Refresh all could not list the reports", () => {
  const env = useEnv();

  /** The card of a placed report after a Refresh all whose report listing (GET …/reports) answered `fail`. */
  async function cardAfter(fail: () => Promise<Response>, url: string) {
    const wb = memoryWorkbook(url);
    const deploymentId = env().deploymentId;
    const data = createDataClient({
      dataUrl: env().platform.info.dataUrl,
      token: createDeploymentTokenManager({ client: env().client(), deploymentId }),
    });
    const ops = await openWorkbookOps({ client: env().client(), data, deploymentId, port: wb.port });
    await wb.port.select({ sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 1, cols: 1 });
    const placed = await ops.place((await env().createReport(byStatus(2))).id, { confirmed: false });
    if (placed.kind !== "placed") throw new Error(JSON.stringify(placed));
    const card = (await ops.home()).placements.find((p) => p.id === placed.placementId)!;
    const failing = createPlatformClient({
      baseUrl: env().platform.info.baseUrl,
      credential: env().platform.info.apiKeys.analyst,
      retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 2 },
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
        const u = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
        return (init?.method ?? "GET") === "GET" && u.pathname.endsWith("/reports") ? fail() : fetch(input, init);
      }) as typeof fetch,
    });
    const offline = await openWorkbookOps({ client: failing, data, deploymentId, port: wb.port });
    const all = await offline.refreshAll({ signal: new AbortController().signal, onProgress: () => {} });
    return statusOfView(card, all.rows[card.id]);
  }

  it("issue 36 item 7: no answer → Refresh failed, could not reach the platform, Refresh offered; never the No access badge", async () => {
    const st = await cardAfter(() => Promise.reject(new TypeError("fetch failed")), "https://files.example/status-36-1.xlsx");
    expect(st).toMatchObject({ kind: "failed", label: "Refresh failed", canRefresh: true });
    expect(st.lines).toEqual([
      expect.stringMatching(/^Refresh failed: Could not reach the platform to look up the report .+ try again\.$/),
    ]);
  });

  it("issue 36 item 7: a 403 is still No access, without Refresh", async () => {
    const forbidden = async () =>
      new Response(JSON.stringify({ error: "forbidden" }), { status: 403, headers: { "content-type": "application/json" } });
    const st = await cardAfter(forbidden, "https://files.example/status-36-2.xlsx");
    expect(st).toMatchObject({ kind: "noAccess", label: "No access", canRefresh: false });
    expect(st.lines[0]).toMatch(/^You cannot read the report /);
  });
});
