// Issue 36, "Words that are not what happened" and "Limits" (items 7, 8 and 10) on the engine, written
// once and run per workbook kind (memory port; Office.js adapter over dev/excel).
import { describe, expect, it } from "vitest";
import { createPlatformClient, type PlatformClient } from "../../src/api/index.ts";
import { check } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { noAccessPrefix, placementStatus } from "../../src/sync/status.ts";
import type { SheetPort } from "../../src/host/port.ts";
import { EXCEL_MAX_TEXT, TRUNCATION_MARK } from "../../src/checksum/index.ts";
import { statusOfView } from "../../src/taskpane/home/live-status.ts";
import type { PlacementView } from "../../src/taskpane/home/types.ts";
import { at, byCustomer, byStatus, flakyPort, placed, useEnv, type WorkbookKind } from "./support.ts";

/** A fetch that answers a workbook's report listing (GET …/reports) with `fail`, and everything else for real. */
function failingListing(fail: () => Promise<Response>): typeof fetch {
  return ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    if ((init?.method ?? "GET") === "GET" && url.pathname.endsWith("/reports")) return fail();
    return fetch(input, init);
  }) as typeof fetch;
}

/** A port that presses Stop (aborts `stop`) as the first commit holding a cell write is sent. */
function stopOnFirstWrite(port: SheetPort, stop: AbortController): SheetPort {
  const p = Object.create(port) as SheetPort;
  p.commit = async (commands, options) => {
    if (commands.some((c) => c.kind === "write")) stop.abort();
    return port.commit(commands, options);
  };
  return p;
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
      // What the card shows for it: the pane's mapping of Refresh all's reasons (src/taskpane/home/live-status.ts).
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

    it("issue 36 item 8: Stop while a write fails halfway: the item says the write's error and the card reads Interrupted — finish refresh", async () => {
      const wb = newBook();
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byCustomer(1200)), at(wb, 0, 0));
      const desc = byCustomer(1200).jsonQuery!.replace('"asc"', '"desc"');
      await env().client().updateReport(env().deploymentId, p.reportId, { jsonQuery: desc });
      const stop = new AbortController();
      const port = flakyPort(stopOnFirstWrite(wb.port, stop), { failWrite: 1, halfWrite: true });
      const stopping = env().engine({ ...wb, port }, "analyst", { writeChunksPerCall: 1, queryConcurrency: 1 });
      const item = (await stopping.refreshAll({ signal: stop.signal })).items[p.key];
      expect(stop.signal.aborted).toBe(true);
      expect(item).toEqual({ state: "not-refreshed", reason: "pane closed" });
      // Half its rows landed: the card is Interrupted and says the refresh failed, never "Not refreshed: Stopped…".
      const c = (await check(engine)).placements.find((x) => x.key === p.key)!;
      expect(c.edit).toBe("interrupted");
      const facts: PlacementView["facts"] = {
        access: "GRANTED",
        missing: false,
        edit: c.edit,
        editedRows: [],
        editedRowsExact: false,
        syncStatus: c.syncStatus,
        noAccess: null,
      };
      const st = statusOfView({ facts } as PlacementView, { state: "failed", reason: item!.state === "not-refreshed" ? item!.reason : "" });
      expect(st).toMatchObject({ kind: "interrupted", label: "Interrupted — finish refresh", canRefresh: true });
      expect(st.lines).toContain("Refresh failed: pane closed");
      expect(st.lines.join(" ")).not.toMatch(/Stopped/);
    });

    it("issue 36 item 8: Stop while the platform record fails (every cell written): the item says the record failed, not 'Stopped before it was written'", async () => {
      const wb = newBook();
      const engine = env().engine(wb);
      const p = await placed(engine, await env().createReport(byStatus(2)), at(wb, 0, 0));
      await env().client().updateReport(env().deploymentId, p.reportId, byStatus(4));
      const stop = new AbortController();
      const record = (url: URL, init?: RequestInit) => init?.method === "PUT" && url.pathname.endsWith("/refresh");
      const platform = clientWith(((input: RequestInfo | URL, init?: RequestInit) => {
        const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
        return record(url, init) ? answer(503)() : fetch(input, init);
      }) as typeof fetch);
      const stopping = env().engine({ ...wb, port: stopOnFirstWrite(wb.port, stop) }, "analyst", { platform });
      const item = (await stopping.refreshAll({ signal: stop.signal })).items[p.key];
      expect(stop.signal.aborted).toBe(true);
      expect(item).toMatchObject({ state: "not-refreshed", reason: expect.stringMatching(/\/refresh: .*503/) });
      expect(item).not.toMatchObject({ reason: expect.stringMatching(/^Stopped/) });
      // Every cell landed; only the record is missing (the journal says "written").
      expect((await loadPlacements(wb.port)).find((x) => x.key === p.key)!.pending).toMatchObject({ phase: "written" });
    });

    it("issue 36 item 10: a report filtered on 5,000 values is placed and refreshed: its summary line is cut at 32,767 characters like a data value", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      const engine = env().engine(wb);
      const values = ["shipped", "completed", ...Array.from({ length: 4998 }, (_, i) => `status-${String(i).padStart(4, "0")}`)];
      const query = (limit: number) =>
        JSON.stringify({
          measures: ["orders.count"],
          dimensions: ["orders.status"],
          filters: [{ member: "orders.status", operator: "equals", values }],
          order: [["orders.status", "asc"]],
          limit,
        });
      const pivotItems = { rows: [], columns: [], measures: [], filters: [], showAppliedFilters: true };
      const report = await env().createReport({ jsonQuery: query(1), pivotItems });
      const p = await placed(engine, report, at(wb, 0, 0));
      const line = wb.user.cell(s, 0, 0);
      expect(typeof line).toBe("string");
      expect(String(line)).toHaveLength(EXCEL_MAX_TEXT);
      expect(String(line)).toMatch(/^Applied filter: Orders Status is shipped, completed, status-0000, /);
      expect(String(line).endsWith(TRUNCATION_MARK)).toBe(true);
      expect([wb.user.cell(s, 1, 0), wb.user.cell(s, 2, 0)]).toEqual(["", "Status"]);
      await env()
        .client()
        .updateReport(env().deploymentId, p.reportId, { jsonQuery: query(2), pivotItems });
      const out = await engine.refresh(p.key, "ask");
      expect(out).toMatchObject({ kind: "refreshed", stats: { rowsAdded: 1 } });
      expect(wb.user.cell(s, 0, 0)).toBe(line);
      expect((await check(engine)).placements.find((c) => c.key === p.key)).toMatchObject({ edit: "clean" });
    });
  });
}
