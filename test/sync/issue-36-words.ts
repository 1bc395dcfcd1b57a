// Issue 36, "Words that are not what happened" and "Limits" (items 7, 8 and 10) on the engine, written
// once and run per workbook kind (memory port; Office.js adapter over dev/excel).
import { describe, expect, it } from "vitest";
import { createPlatformClient, type PlatformClient } from "../../src/api/index.ts";
import { noAccessPrefix, placementStatus } from "../../src/sync/status.ts";
import { at, byStatus, placed, useEnv, type WorkbookKind } from "./support.ts";

/** A fetch that answers a workbook's report listing (GET …/reports) with `fail`, and everything else for real. */
function failingListing(fail: () => Promise<Response>): typeof fetch {
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    if ((init?.method ?? "GET") === "GET" && url.pathname.endsWith("/reports")) return fail();
    return fetch(input, init);
  }) as typeof fetch;
}

const answer = (status: number) => async () =>
  new Response(JSON.stringify({ error: `answered ${status}` }), { status, headers: { "content-type": "application/json" } });

export function wordScenarios(label: string, kind: WorkbookKind): void {
  describe(`issue 36: words that say what happened (${label})`, () => {
    const env = useEnv();
    let n = 0;
    const newBook = () => kind(`https://files.example/words-${++n}.xlsx`);
    const clientWith = (f: typeof fetch): PlatformClient =>
      createPlatformClient({
        baseUrl: env().platform.info.baseUrl,
        credential: env().platform.info.apiKeys.analyst,
        retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 2 },
        fetch: f,
      });
    /** Refresh all of one placed report while its listing fails with `fail`: the item and the card's status. */
    const refreshAllWhileListing = async (fail: () => Promise<Response>) => {
      const wb = newBook();
      const p = await placed(env().engine(wb), await env().createReport(byStatus(2)), at(wb, 0, 0));
      const engine = env().engine(wb, "analyst", { platform: clientWith(failingListing(fail)) });
      const item = (await engine.refreshAll()).items[p.key]!;
      const reason = item.state === "not-refreshed" ? item.reason : "";
      // What the card shows for it: the pane's mapping of Refresh all's reasons (src/taskpane/live/status.ts).
      const status = placementStatus({
        access: "GRANTED",
        missing: false,
        edit: "clean",
        editedRows: [],
        editedRowsExact: true,
        syncStatus: "UP_TO_DATE",
        noAccess: reason.startsWith(noAccessPrefix) ? reason.slice(noAccessPrefix.length) : null,
        activity: reason.startsWith(noAccessPrefix) ? null : { state: "failed", reason },
      });
      return { item, reason, status };
    };

    it("issue 36 item 7: a network error listing the reports is a failure to reach the platform, never No access; Refresh stays", async () => {
      const { item, reason, status } = await refreshAllWhileListing(() => Promise.reject(new TypeError("fetch failed")));
      expect(item.state).toBe("not-refreshed");
      expect(reason).not.toMatch(/^No access/);
      expect(reason).toMatch(/^Could not reach the platform to look up the report Report \d+: there was no answer .*try again\.$/);
      expect(status).toMatchObject({ kind: "failed", label: "Refresh failed", canRefresh: true });
    });

    it("issue 36 item 7: a server error (5xx) listing the reports is a failure to reach the platform, never No access", async () => {
      const { reason, status } = await refreshAllWhileListing(answer(503));
      expect(reason).toMatch(/^Could not reach the platform .*a server error\. Nothing was changed; try again\.$/);
      expect(status).toMatchObject({ kind: "failed", canRefresh: true });
    });

    it("issue 36 item 7: a 403 or 404 listing the reports stays No access, in words", async () => {
      for (const status of [403, 404]) {
        const out = await refreshAllWhileListing(answer(status));
        expect(out.reason).toMatch(/^No access: you cannot read the report Report \d+ in /);
        expect(out.reason).not.toMatch(/\/api\//);
        expect(out.status).toMatchObject({ kind: "noAccess", label: "No access", canRefresh: false });
      }
    });
  });
}
