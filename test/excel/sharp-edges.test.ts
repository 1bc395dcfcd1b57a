// dev/excel models the sharp edges of real Excel listed in issue 22 (docs/EXCEL-FIDELITY.md, "Sharp edges"):
// driven through the Excel API as an add-in would, typed with @types/office-js.
import { createDevExcel, type DevExcelOptions } from "../../dev/excel/index.ts";

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
