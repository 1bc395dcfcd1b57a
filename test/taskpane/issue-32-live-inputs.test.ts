// Issue 32 in the pane's live workbook operations (src/taskpane/home/live.ts, live-inputs.ts) over the engine,
// on both ports (the memory port and the Office.js adapter over dev/excel) and the platform stand-in: a report
// placed with an input, the Inputs panel's detail, the card's facts when the input cell changes, Bind to
// selection (the other bindings kept), Remove, the switch, and a SQL report that cannot take inputs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWorkbookOps, type WorkbookOps } from "../../src/taskpane/home/live.ts";
import { bindableOf, selectionRef } from "../../src/taskpane/home/live-inputs.ts";
import { devExcelWorkbook, memoryWorkbook, startEnv, type Env, type TestWorkbook, type WorkbookKind } from "../sync/support.ts";

describe("issue 32: the pane's inputs, pure parts", () => {
  it("issue 32 pane: the filters a report may bind are its filters' members, its dimensions and time dimensions, once each", () => {
    const q = {
      measures: ["orders.count"],
      dimensions: ["customers.country", "orders.status"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
      filters: [
        { member: "orders.status", operator: "equals", values: ["paid"] },
        { or: [{ member: "customers.segment", operator: "equals", values: ["Retail"] }] },
      ],
    };
    expect(bindableOf(JSON.stringify(q))).toEqual([
      { member: "orders.status", title: "orders.status", time: false },
      { member: "customers.segment", title: "customers.segment", time: false },
      { member: "customers.country", title: "customers.country", time: false },
      { member: "orders.created_at", title: "orders.created_at", time: true },
    ]);
  });

  it("issue 32 pane: the selection as a reference quotes a sheet name as Excel does", async () => {
    const sel = (name: string, rows: number) => ({
      selection: async () => ({ sheet: { id: "s", name }, area: { sheetId: "s", row: 0, col: 1, rows, cols: 1 } }),
    });
    expect(await selectionRef(sel("Sheet1", 1))).toBe("Sheet1!B1");
    expect(await selectionRef(sel("My inputs", 2))).toBe("'My inputs'!B1:B2");
  });
});

const KINDS: [string, WorkbookKind][] = [
  ["memory port", memoryWorkbook],
  ["dev/excel", devExcelWorkbook],
];

describe.each(KINDS)("issue 32: the pane's inputs on the %s", (_kind, kind) => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  async function open(wb: TestWorkbook): Promise<WorkbookOps> {
    return openWorkbookOps({ client: env.client(), data: env.dataClient(), deploymentId: env.deploymentId, port: wb.port });
  }
  const select = (wb: TestWorkbook, row: number, col: number, rows = 1) =>
    wb.port.select({ sheetId: wb.user.firstSheetId(), row, col, rows, cols: 1 });

  it("issue 32 pane: placed with an input, the card says when its cell changed; Bind to selection keeps the others; Remove; the switch", async () => {
    const wb = kind(`https://files.example/inputs-${Math.random().toString(36).slice(2)}.xlsx`);
    const sheet = wb.user.firstSheetId();
    wb.user.edit(sheet, 0, 1, "Germany");
    wb.user.edit(sheet, 1, 1, "Consumer");
    const ops = await open(wb);
    const report = await env.createReport({
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["customers.country", "customers.segment"] }),
    });
    const out = await ops.place(report.id, {
      confirmed: false,
      at: { sheetId: sheet, row: 4, col: 0 },
      inputs: [{ member: "customers.country", ref: "Sheet1!B1" }],
    });
    if (out.kind !== "placed") throw new Error(JSON.stringify(out));
    const key = out.placementId;
    const d = await ops.inputs(key);
    expect(d.inputs).toEqual([
      expect.objectContaining({ member: "customers.country", where: "Sheet1!B1", values: ["Germany"], problem: null }),
    ]);
    expect(d.bindable.map((b) => b.member)).toEqual(["customers.country", "customers.segment"]);
    expect(d).toMatchObject({ notBindable: null, changed: false, autoRefresh: false });
    expect((await ops.home()).placements.find((p) => p.id === key)?.inputs).toEqual({
      count: 1,
      changed: false,
      autoRefresh: false,
      problem: null,
    });

    wb.user.edit(sheet, 0, 1, "Japan");
    expect((await ops.home()).placements.find((p) => p.id === key)?.inputs).toMatchObject({ changed: true, problem: null });

    await select(wb, 1, 1);
    expect(await ops.bindSelection(key, "customers.segment")).toBe("Sheet1!B2");
    expect((await ops.inputs(key)).inputs.map((i) => [i.member, i.where])).toEqual([
      ["customers.country", "Sheet1!B1"],
      ["customers.segment", "Sheet1!B2"],
    ]);
    await ops.unbindInput(key, "customers.country");
    expect((await ops.inputs(key)).inputs.map((i) => i.member)).toEqual(["customers.segment"]);
    await ops.setAutoRefresh(key, true);
    expect((await ops.inputs(key)).autoRefresh).toBe(true);

    wb.user.edit(sheet, 1, 1, "");
    const card = (await ops.home()).placements.find((p) => p.id === key)!;
    expect(card.inputs?.problem).toMatch(/Sheet1!B2/);
    const refreshed = ops.refresh(key, "ask", {});
    await expect(refreshed).rejects.toMatchObject({ name: "InvalidInput", message: expect.stringMatching(/Sheet1!B2/) });
  });

  it("issue 32 pane: a SQL report's panel says it cannot take inputs, and offers no filter", async () => {
    const wb = kind(`https://files.example/inputs-sql-${Math.random().toString(36).slice(2)}.xlsx`);
    const ops = await open(wb);
    const report = await env.createReport({ sqlQuery: "SELECT id, status FROM orders WHERE id <= 3 ORDER BY id" });
    const out = await ops.place(report.id, { confirmed: false, at: { sheetId: wb.user.firstSheetId(), row: 2, col: 0 } });
    if (out.kind !== "placed") throw new Error(JSON.stringify(out));
    const d = await ops.inputs(out.placementId);
    expect(d).toMatchObject({
      inputs: [],
      bindable: [],
      notBindable: "SQL reports cannot take inputs: their filters are in the SQL text.",
    });
    await select(wb, 0, 1);
    await expect(ops.bindSelection(out.placementId, "orders.status")).rejects.toMatchObject({ name: "CannotBind" });
  });
});
