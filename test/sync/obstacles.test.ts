// Targets nobody tested (issue 22, item 8): merged cells, a table, a protected sheet. Place and refresh
// refuse with a message naming the obstacle before writing anything (no journal, no name, no cell),
// through the Office.js adapter on dev/excel, which models how Excel refuses those writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevExcel } from "../../dev/excel/index.ts";
import { loadPlacements } from "../../src/sync/state.ts";
import { TargetObstacle } from "../../src/sync/obstacles.ts";
import { at, byStatus, placed, startEnv, wrapDevExcel, type Env } from "./support.ts";

describe("place and refresh refuse targets Excel would refuse or break", () => {
  let env: Env;
  let n = 0;
  const newBook = () => wrapDevExcel(createDevExcel().workbook.saveAsCopy(`https://files.example/obstacle-${++n}.xlsx`));
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  const obstacles: Array<[string, (wb: ReturnType<typeof newBook>, sheet: string) => void, RegExp]> = [
    ["empty merged cells", (wb, s) => wb.workbook.mergeCells(s, "C3:D3"), /merged cells \(C3:D3\)/],
    ["a table", (wb, s) => wb.workbook.addTable(s, "C4:E9", "Orders"), /the table Orders/],
    ["a protected sheet", (wb, s) => wb.workbook.protectSheet(s), /is protected/],
    // issue 22, item 8: a formula left of the target whose results spill into it; one whose anchor is inside it
    [
      "a spilled array formula's results",
      (wb, s) => wb.workbook.enterArrayFormula(s, "A4", "=SEQUENCE(1,3)", [[1, 2, 3]]),
      /results of the array formula in Sheet1!A4, which would show #SPILL!/,
    ],
    [
      "a spilling formula inside it whose results are empty (the overwrite check sees nothing)",
      (wb, s) => wb.workbook.enterArrayFormula(s, "C5", '=IF(A5:A6>0,"x","")', [[""], [""]]),
      /array formula in Sheet1!C5/,
    ],
    [
      "rows hidden by the sheet's filter",
      (wb, s) => wb.workbook.filter(s, "B3:C9", 0, ["paid"]),
      /rows of it are hidden by the sheet's filter on Sheet1!B3:C9.*clear the filter/,
    ],
  ];
  for (const [what, make, named] of obstacles) {
    it(`place onto ${what}: refused, naming it, before anything is written`, async () => {
      const wb = newBook();
      const engine = env.engine(wb);
      const s = wb.user.firstSheetId();
      make(wb, s);
      const report = await env.createReport(byStatus());
      const out = engine.place(report, { at: at(wb, 1, 1) });
      await expect(out).rejects.toBeInstanceOf(TargetObstacle);
      await expect(out).rejects.toThrow(named);
      expect(await loadPlacements(wb.port)).toEqual([]);
      expect(await wb.port.tracked()).toEqual([]);
      expect(wb.user.cell(s, 1, 1)).toBe("");
      const { describeError } = await import("../../src/taskpane/errors.ts");
      expect(describeError(await out.catch((e: unknown) => e))).toMatchObject({
        title: "Cellbound cannot write there",
        detail: expect.stringMatching(named),
      });
    });
  }

  it("place onto a spill's results, confirmed: still refused, and the user's formula keeps its results", async () => {
    const wb = newBook();
    const engine = env.engine(wb);
    const s = wb.user.firstSheetId();
    wb.workbook.enterArrayFormula(s, "A4", "=SEQUENCE(1,3)", [[1, 2, 3]]);
    const report = await env.createReport(byStatus());
    await expect(engine.place(report, { at: at(wb, 1, 1), confirmed: true })).rejects.toThrow(/array formula in Sheet1!A4/);
    expect(wb.workbook.inspect(s, "A4:C4").values).toEqual([[1, 2, 3]]);
    expect(await loadPlacements(wb.port)).toEqual([]);
  });

  it("hidden rows without a filter are no obstacle: the report is placed, its hidden rows written too", async () => {
    const wb = newBook();
    const engine = env.engine(wb);
    const s = wb.user.firstSheetId();
    wb.workbook.hideRows(s, 2, 2);
    wb.workbook.filter(s, "F1:G9"); // an AutoFilter that filters nothing, elsewhere
    const p = await placed(engine, await env.createReport(byStatus(4)), at(wb, 1, 1));
    expect(p.range).toBe("B2:C6");
    expect(wb.user.cell(s, 3, 1)).not.toBe("");
  });

  it("a refresh that would grow over an array formula whose results look empty is refused, naming it; the formula keeps working", async () => {
    const wb = newBook();
    const engine = env.engine(wb);
    const s = wb.user.firstSheetId();
    const p = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
    const before = await loadPlacements(wb.port);
    wb.workbook.enterArrayFormula(s, "A5", '=IF(C5:D5>0,"x","")', [["", ""]]); // A5:B5, where the result grows
    await env.client().updateReport(env.deploymentId, p.reportId, byStatus(4));
    await expect(engine.refresh(p.key, "ask")).rejects.toThrow(/array formula in Sheet1!A5/);
    expect(await loadPlacements(wb.port)).toEqual(before);
    expect(wb.workbook.inspect(s, "A5").formulas).toEqual([['=IF(C5:D5>0,"x","")']]);
  });

  it("a refresh of a placement the user filtered is refused before writing; after Data › Clear it refreshes", async () => {
    const wb = newBook();
    const engine = env.engine(wb);
    const s = wb.user.firstSheetId();
    const p = await placed(engine, await env.createReport(byStatus(3)), at(wb, 0, 0));
    const before = await loadPlacements(wb.port);
    const shown = String(wb.user.cell(s, 1, 0));
    wb.workbook.filter(s, "A1:B4", 0, [shown]);
    await env.client().updateReport(env.deploymentId, p.reportId, byStatus(2));
    await expect(engine.refresh(p.key, "ask")).rejects.toThrow(/hidden by the sheet's filter on Sheet1!A1:B4/);
    expect(await loadPlacements(wb.port)).toEqual(before);
    expect(wb.user.cell(s, 3, 0)).not.toBe(""); // the row the smaller result would clear is still there
    wb.workbook.clearFilter(s);
    expect((await engine.refresh(p.key, "ask")).kind).toBe("refreshed");
  });

  it("a refresh that would grow into merged cells is refused before writing; the placement stays as it was", async () => {
    const wb = newBook();
    const engine = env.engine(wb);
    const s = wb.user.firstSheetId();
    const p = await placed(engine, await env.createReport(byStatus(2)), at(wb, 0, 0));
    const before = await loadPlacements(wb.port);
    wb.workbook.mergeCells(s, "A5:B5");
    await env.client().updateReport(env.deploymentId, p.reportId, byStatus(10));
    await expect(engine.refresh(p.key, "ask")).rejects.toThrow(/merged cells \(A5:B5\)/);
    expect(await loadPlacements(wb.port)).toEqual(before);
    expect(wb.user.cell(s, 3, 0)).toBe("");
  });
});

describe("the 1904 date system", () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });
  const monthly = {
    jsonQuery: JSON.stringify({
      measures: ["orders.count"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
      order: [["orders.created_at", "asc"]],
      limit: 3,
    }),
  };

  it("a report with dates is refused in a 1904 workbook (its dates would shift 1,462 days); one without dates is placed", async () => {
    const wb = wrapDevExcel(createDevExcel().workbook.saveAsCopy("https://files.example/mac-1904.xlsx"));
    wb.workbook.date1904 = true;
    const engine = env.engine(wb);
    const s = wb.user.firstSheetId();
    const out = engine.place(await env.createReport(monthly), { at: at(wb, 0, 0) });
    await expect(out).rejects.toThrow(/1904 date system/);
    expect(await loadPlacements(wb.port)).toEqual([]);
    expect(wb.user.cell(s, 0, 0)).toBe("");
    await placed(engine, await env.createReport(byStatus()), at(wb, 0, 0));
  });

  it("a refresh that brings dates into a workbook switched to 1904 is refused before writing", async () => {
    const wb = wrapDevExcel(createDevExcel().workbook.saveAsCopy("https://files.example/later-1904.xlsx"));
    const engine = env.engine(wb);
    const p = await placed(engine, await env.createReport(monthly), at(wb, 0, 0));
    const before = await loadPlacements(wb.port);
    wb.workbook.date1904 = true;
    await expect(engine.refresh(p.key, "overwrite")).rejects.toThrow(/1904 date system/);
    expect(await loadPlacements(wb.port)).toEqual(before);
  });
});
