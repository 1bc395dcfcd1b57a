// Issue 25 §2 (engine side): a platform that stops answering. A refresh ends at the API layer's
// deadline with a timeout — its cells untouched and never left Interrupted — and a check made while
// the platform cannot be reached calls no placement Up to date (UNKNOWN, with the problem said).
// Run on the in-memory port and on the Office.js adapter over dev/excel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDataClient, createDeploymentTokenManager, createPlatformClient } from "../../src/api/index.ts";
import { check } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { readArea } from "../../src/sync/context.ts";
import { at, byStatus, devExcelWorkbook, memoryWorkbook, placed, startEnv, type Env, type WorkbookKind } from "./support.ts";

const kinds: [string, WorkbookKind][] = [
  ["memory port", memoryWorkbook],
  ["Office.js adapter on dev/excel", devExcelWorkbook],
];

/** A fetch that answers nothing once `frozen` (a stopped platform process), until the caller gives up. */
function freezable() {
  const state = { frozen: false };
  const f = ((input: RequestInfo | URL, init?: RequestInit) => {
    if (!state.frozen) return fetch(input, init);
    return new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason), { once: true }));
  }) as typeof fetch;
  return { fetch: f, state };
}

for (const [label, kind] of kinds) {
  describe(`a frozen platform (${label})`, () => {
    let env: Env;
    beforeAll(async () => {
      env = await startEnv();
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });

    it("a refresh ends at the deadline, writes nothing, is not Interrupted; check calls nothing Up to date", async () => {
      const wb = kind(`https://files.example/frozen-${label.length}.xlsx`);
      const analyst = env.engine(wb);
      const a = await placed(analyst, await env.createReport(byStatus(3)), at(wb, 0, 0));
      await placed(analyst, await env.createReport(byStatus(4)), at(wb, 0, 5));
      const ok = await check(analyst);
      expect(ok.placements.map((p) => p.syncStatus)).toEqual(["UP_TO_DATE", "UP_TO_DATE"]);
      await env.client().updateReport(env.deploymentId, a.reportId, byStatus(5)); // a refresh would write

      const net = freezable();
      const fast = { retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10, maxElapsedMs: 600 } };
      const platform = createPlatformClient({
        baseUrl: env.platform.info.baseUrl,
        credential: env.platform.info.apiKeys.analyst,
        fetch: net.fetch,
        ...fast,
        deadlines: { managementAttemptMs: 200 },
      });
      const data = createDataClient({
        dataUrl: env.platform.info.dataUrl,
        token: createDeploymentTokenManager({ client: platform, deploymentId: env.deploymentId }),
        fetch: net.fetch,
        ...fast,
        deadlines: { dataAttemptMs: 200 },
      });
      const engine = env.engine(wb, "analyst", { platform, data });
      const before = await readArea(wb.port, { sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 10, cols: 8 });
      const local = await loadPlacements(wb.port);
      net.state.frozen = true;
      const t0 = Date.now();
      await expect(engine.refresh(a.key, "ask")).rejects.toMatchObject({ kind: expect.stringMatching(/^(timeout|retry-exhausted)$/) });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await readArea(wb.port, { sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows: 10, cols: 8 })).toEqual(before);
      expect(await loadPlacements(wb.port)).toEqual(local); // no journal left: never "Interrupted"

      const c = await check(engine);
      expect(c.platformProblem).toBeTruthy();
      expect(c.placements.map((p) => p.syncStatus)).toEqual(["UNKNOWN", "UNKNOWN"]);
      expect(c.placements.map((p) => p.edit)).toEqual(["clean", "clean"]);
    }, 60_000);
  });
}
