// Found by the workbook journeys (test/sync/journeys.ts, seed 7): Keep my edits on a refresh whose result has
// a new shape, then the platform's record fails. Every chunk held an edit, so nothing was written — yet the
// name was re-pointed to the new shape with no journal: check then read the whole new area as edited by hand
// against the old fingerprint, never finished the record, and the platform kept the old address for good.
// Now the re-point is journalled as a write ("kept"); check finishes the record as it stands and the
// placement stays marked edited, on both ports.
import { describe, expect, it } from "vitest";
import { NetworkError, type PlatformClient } from "../../src/api/index.ts";
import { check } from "../../src/sync/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { at, byStatus, devExcelWorkbook, memoryWorkbook, useEnv, type WorkbookKind } from "./support.ts";

function failingRecord(inner: PlatformClient): PlatformClient {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === "refreshReport") return async () => Promise.reject(new Error("The platform answered 503 (Service Unavailable)."));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** A platform client that records the first refresh and loses its answer (the connection reset). */
function losingAnswer(inner: PlatformClient): PlatformClient {
  let lost = false;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== "refreshReport" || typeof v !== "function") return v;
      return async (...args: unknown[]) => {
        const out = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (lost) return out;
        lost = true;
        throw new NetworkError("The connection was reset before the platform's answer arrived.", 0);
      };
    },
  });
}

const CUSTOMERS = JSON.stringify({
  measures: ["orders.count"],
  dimensions: ["customers.id", "customers.name"],
  order: [["customers.id", "asc"]],
  limit: 5,
});

function scenario(label: string, kind: WorkbookKind): void {
  describe(`Keep my edits whose record failed (${label})`, () => {
    const env = useEnv();
    let n = 0;
    it("a new shape kept with the person's edit is finished by check: recorded where it is, still edited, the edit kept", async () => {
      const wb = kind(`https://files.example/keep-record-${++n}.xlsx`);
      const s = wb.user.firstSheetId();
      const report = await env().createReport(byStatus(3));
      const placed = await env()
        .engine(wb)
        .place(report, { at: at(wb, 0, 0) });
      if (placed.kind !== "placed") throw new Error(`not placed: ${placed.kind}`);
      wb.user.edit(s, 0, 0, "mine");
      await env().client().updateReport(env().deploymentId, report.id, { jsonQuery: CUSTOMERS }); // 6 × 3 now
      const failing = env().engine(wb, "analyst", { platform: failingRecord(env().client()) });
      expect((await failing.refresh(placed.key, "ask")).kind).toBe("handEdited");
      await expect(failing.refresh(placed.key, "keep")).rejects.toThrow(/503/);
      expect(wb.user.cell(s, 0, 0)).toBe("mine");

      const c = await check(env().engine(wb));
      const one = c.placements.find((p) => p.key === placed.key)!;
      expect(one).toMatchObject({ edit: "edited", range: "A1:C6" });
      expect(one.editedRows.length).toBeGreaterThan(0);
      expect(one.problem).toBeUndefined();
      const [local] = await loadPlacements(wb.port);
      expect(local).toMatchObject({ pending: null, editsKept: true, shape: { rows: 6, cols: 3 } });
      const onPlatform = env()
        .platform.state.placements()
        .find((x) => x.id === local!.placementId);
      expect(onPlatform?.resultLocation).toBe("Sheet1!A1:C6");
      expect(onPlatform?.resultChecksum).toEqual(local!.committed);
      expect(wb.user.cell(s, 0, 0)).toBe("mine");
      // And again: nothing left to finish, still edited.
      const again = (await check(env().engine(wb))).placements.find((p) => p.key === placed.key)!;
      expect(again).toMatchObject({ edit: "edited", range: "A1:C6" });
    });

    it("issue 30 (journeys seed 30001): the same shape kept whole, its record made but the answer lost: check finishes it, the records agree", async () => {
      const wb = kind(`https://files.example/keep-record-${++n}.xlsx`);
      const s = wb.user.firstSheetId();
      const report = await env().createReport({ jsonQuery: CUSTOMERS });
      const placed = await env()
        .engine(wb)
        .place(report, { at: at(wb, 0, 0) });
      if (placed.kind !== "placed") throw new Error(`not placed: ${placed.kind}`);
      for (let c = 0; c < 3; c++) wb.user.edit(s, 0, c, ""); // the header row cleared: every chunk holds an edit
      await env()
        .client()
        .updateReport(env().deploymentId, report.id, { jsonQuery: CUSTOMERS.replace('"asc"', '"desc"') });
      const losing = env().engine(wb, "analyst", { platform: losingAnswer(env().client()) });
      await expect(losing.refresh(placed.key, "keep")).rejects.toThrow(/reset/);
      const one = (await check(env().engine(wb))).placements.find((p) => p.key === placed.key)!;
      expect(one).toMatchObject({ edit: "edited", range: "A1:C6" });
      const [local] = await loadPlacements(wb.port);
      expect(local).toMatchObject({ pending: null, editsKept: true });
      const onPlatform = env()
        .platform.state.placements()
        .find((x) => x.id === local!.placementId);
      expect(onPlatform?.resultChecksum).toEqual(local!.committed);
      expect(wb.user.cell(s, 0, 0)).toBe("");
    });
  });
}

scenario("memory port", memoryWorkbook);
scenario("Office.js adapter on dev/excel", devExcelWorkbook);
