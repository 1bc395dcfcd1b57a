// Issue 25 §1: a placement the signed-in user may read but not change (a viewer) is view only —
// never written, never recorded, never left Interrupted, never disconnected; Refresh all skips it
// and says so. A record the platform refuses after a write (the role was not known, or changed
// mid-refresh) puts the cells back as they were and says so in words. Run on the in-memory port
// and on the Office.js adapter over dev/excel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/api/index.ts";
import { check, home } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { readArea } from "../../src/sync/context.ts";
import {
  at,
  devExcelWorkbook,
  externalPlacements,
  memoryWorkbook,
  placed,
  startEnv,
  type Env,
  type TestWorkbook,
  type WorkbookKind,
} from "./support.ts";

const kinds: [string, WorkbookKind][] = [
  ["memory port", memoryWorkbook],
  ["Office.js adapter on dev/excel", devExcelWorkbook],
];

for (const [label, kind] of kinds) {
  describe(`view-only placements (${label})`, () => {
    let env: Env;
    let shared: Report;
    let n = 0;
    const newBook = () => kind(`https://files.example/view-only-${++n}.xlsx`);
    const viewerRole = { roleOf: () => "viewer" as const };
    const grid = async (wb: TestWorkbook, rows: number, cols: number) =>
      readArea(wb.port, { sheetId: wb.user.firstSheetId(), row: 0, col: 0, rows, cols });

    beforeAll(async () => {
      env = await startEnv();
      // A report the analyst owns and shares with the deployment: the viewer may read it.
      for await (const r of env.client("viewer").iterateReports(env.deploymentId)) if (r.jsonQuery && !shared) shared = r;
      expect(shared).toBeDefined();
    }, 120_000);
    afterAll(async () => {
      await env?.close();
    });

    it("a viewer's Refresh, Refresh all and Disconnect touch nothing and say view only", async () => {
      const wb = newBook();
      const analyst = env.engine(wb, "analyst");
      const p = await placed(analyst, shared, at(wb, 0, 0));
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 1, 0, "typed by hand");
      const before = await grid(wb, 40, 8);
      const localBefore = await loadPlacements(wb.port);

      const viewer = env.engine(wb, "viewer", viewerRole);
      await expect(viewer.refresh(p.key, "overwrite")).rejects.toMatchObject({
        name: "ViewOnly",
        message: expect.stringMatching(/^You can view this report but not refresh it — ask .* or an admin\.$/),
      });
      const all = await viewer.refreshAll();
      expect(all.total).toBe(0); // skipped, not counted as failed or refreshed
      expect(all.done).toBe(0);
      expect(all.items[p.key]).toEqual({ state: "not-refreshed", reason: expect.stringMatching(/^View only: You can view this report/) });
      await expect(viewer.disconnect(p.key)).rejects.toMatchObject({ name: "ViewOnly" });

      expect(await grid(wb, 40, 8)).toEqual(before); // the cells were never touched
      expect(await loadPlacements(wb.port)).toEqual(localBefore); // never journalled, never Interrupted
      const c = await check(viewer);
      expect(c.placements[0]!.edit).toBe("edited"); // the hand edit, not "interrupted"
      const h = await home(viewer);
      expect(h.entries[0]).toMatchObject({ access: "GRANTED", viewOnly: true, owner: { name: expect.any(String) } });
      const remote = await externalPlacements(env.client(), (await wb.port.identity()).workbookId);
      expect(remote.map((r) => r.placementId)).toEqual([p.placementId]); // still connected
    });

    it("a refused record after the write (role not known) puts the cells back and says so in words", async () => {
      const wb = newBook();
      const analyst = env.engine(wb, "analyst");
      const p = await placed(analyst, shared, at(wb, 0, 0));
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 1, 0, "typed by hand");
      const before = await grid(wb, 40, 8);
      const localBefore = await loadPlacements(wb.port);

      const viewer = env.engine(wb, "viewer"); // no role given: the 403 on the record is the proof
      const err = await viewer.refresh(p.key, "overwrite").then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.name).toBe("ViewOnly");
      expect(err?.message).toMatch(/did not let you record the refresh of “.+”.*Its cells were put back as they were/);
      expect(err?.message).not.toMatch(/PUT|\/api\/|403/);
      expect(await grid(wb, 40, 8)).toEqual(before);
      expect(await loadPlacements(wb.port)).toEqual(localBefore);
      const c = await check(viewer);
      expect(c.placements[0]).toMatchObject({ edit: "edited" });
      expect(c.placements[0]!.problem ?? null).toBeNull();
      // From now on the engine knows: Refresh all skips it without writing.
      const all = await viewer.refreshAll();
      expect(all).toMatchObject({ total: 0, done: 0 });
      expect(all.items[p.key]).toMatchObject({ state: "not-refreshed", reason: expect.stringMatching(/^View only: /) });
      expect(await grid(wb, 40, 8)).toEqual(before);
    });

    it("a viewer's place (role not known) is refused at the record: the sheet is as it was, nothing tracked", async () => {
      const wb = newBook();
      const s = wb.user.firstSheetId();
      wb.user.edit(s, 2, 1, "mine");
      const before = await grid(wb, 40, 8);
      const viewer = env.engine(wb, "viewer");
      await expect(viewer.place(shared, { at: at(wb, 0, 0), confirmed: true })).rejects.toMatchObject({ name: "ViewOnly" });
      expect(await grid(wb, 40, 8)).toEqual(before);
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
      // With the role known, nothing is even attempted.
      const known = env.engine(wb, "viewer", viewerRole);
      await expect(known.place(shared, { at: at(wb, 0, 0), confirmed: true })).rejects.toMatchObject({ name: "ViewOnly" });
      expect(await grid(wb, 40, 8)).toEqual(before);
    });

    it("issue 31 item 3: with the role known, a viewer's place says the role's rule, naming the deployment, and fetches nothing", async () => {
      const wb = newBook();
      let fetched = 0;
      const data = env.engine(wb, "viewer").ctx.data;
      const counting = { ...data, fetchLoad: (...a: Parameters<typeof data.fetchLoad>) => (fetched++, data.fetchLoad(...a)) };
      const viewer = env.engine(wb, "viewer", { ...viewerRole, deploymentName: "Sales Analytics", data: counting });
      await expect(viewer.place(shared, { at: at(wb, 0, 0), confirmed: true })).rejects.toMatchObject({
        name: "ViewOnly",
        message:
          "You are a viewer in Sales Analytics: you can open its reports but not place, refresh or save them — ask an admin for the editor role.",
      });
      expect(fetched).toBe(0);
    });
  });
}
