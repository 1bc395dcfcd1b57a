// dev/excel models the sharp edges of real Excel listed in issue 22 (docs/EXCEL-FIDELITY.md, "Sharp edges"):
// driven through the Excel API as an add-in would, typed with @types/office-js.
import { createDevExcel, DevExcelFaults, type DevExcelOptions } from "../../dev/excel/index.ts";

function excel(options: DevExcelOptions = {}) {
  const dx = createDevExcel(options);
  return { dx, X: dx.Excel as unknown as typeof Excel, wb: dx.workbook };
}

describe("dev/excel: numbers written into text-formatted cells", () => {
  it('a number or boolean written into a cell formatted "@" is stored as its text', async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const r = ctx.workbook.worksheets.getItem("Sheet1").getRange("A1:C1");
      r.numberFormat = [["@", "@", "General"]];
      r.values = [[42.5, true, 7]];
      await ctx.sync();
    });
    const cells = wb.inspect("Sheet1", "A1:C1");
    expect(cells.values).toEqual([["42.5", "TRUE", 7]]);
    expect(cells.valueTypes).toEqual([["String", "String", "Double"]]);
  });
});

describe("dev/excel: cell-edit mode", () => {
  it("a batch fails with InvalidOperationInCellEditMode while the user edits a cell, and nothing is applied", async () => {
    const { X, wb } = excel();
    wb.enterCellEdit();
    const write = X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1").values = [[1]];
      await ctx.sync();
    });
    await expect(write).rejects.toMatchObject({ name: "RichApi.Error", code: "InvalidOperationInCellEditMode" });
    expect(wb.inspect("Sheet1", "A1").values).toEqual([[""]]);
    wb.leaveCellEdit();
  });

  it("with delayForCellEdit the batch waits until the user leaves the cell, then runs", async () => {
    const { X, wb } = excel();
    wb.enterCellEdit();
    let done = false;
    const write = X.run({ delayForCellEdit: true }, async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1").values = [[1]];
      await ctx.sync();
    }).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    expect(wb.inspect("Sheet1", "A1").values).toEqual([[""]]);
    wb.leaveCellEdit();
    await write;
    expect(wb.inspect("Sheet1", "A1").values).toEqual([[1]]);
  });
});

describe("dev/excel: a failing sync is not atomic", () => {
  it("failAtCommand fails the sync at that command: the commands before it stay applied, it and the rest do not", async () => {
    const faults = new DevExcelFaults();
    const { X, wb } = excel({ faults });
    faults.failAtCommand("addName");
    const run = X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("A1").values = [[1]];
      ctx.workbook.names.add("Name_One", ws.getRange("A1"));
      ws.getRange("A2").values = [[2]];
      await ctx.sync();
    });
    await expect(run).rejects.toMatchObject({ code: "GeneralException" });
    expect(wb.inspect("Sheet1", "A1:A2").values).toEqual([[1], [""]]);
    expect(wb.names).toEqual([]);
  });

  it("NamedItem.formula (ExcelApi 1.7) points a name at another range in one command", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ctx.workbook.names.add("Name_One", ws.getRange("A1"));
      await ctx.sync();
      ctx.workbook.names.getItem("Name_One").formula = "=Sheet1!$B$2:$C$4";
      await ctx.sync();
    });
    expect(wb.names[0]!.ref).toMatchObject({ row: 1, col: 1, rows: 3, cols: 2 });
  });
});
