// The Office.js adapter survives the sharp edges of real Excel listed in issue 22, observed on dev/excel
// (which models them: test/excel/sharp-edges.test.ts).
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

const sheet1 = (dx: ReturnType<typeof adapterOnDevExcel>["dx"]) => dx.workbook.sheets[0]!.id;

describe("adapter: numbers into text-formatted cells", () => {
  it("a refresh (keepFormats) writing a number where text was reads back a number, and keeps the user's other formats", async () => {
    const { dx, port } = adapterOnDevExcel();
    const at = { sheetId: sheet1(dx), row: 0, col: 0 };
    await port.write(at, [["#N/A", "x", 1]], { columnFormats: [null, null, "0.00"] });
    dx.workbook.setNumberFormat(sheet1(dx), "C1", "0.000"); // the user's choice
    await port.write(at, [[12.5, true, 3]], { columnFormats: [null, null, "0.00"], keepFormats: true });
    const cells = dx.workbook.inspect(sheet1(dx), "A1:C1");
    expect(cells.values).toEqual([[12.5, true, 3]]);
    expect(cells.valueTypes).toEqual([["Double", "Boolean", "Double"]]);
    expect(cells.numberFormats).toEqual([["General", "General", "0.000"]]);
  });

  it("a text-formatted cell the user chose for a number column falls back to the column's format", async () => {
    const { dx, port } = adapterOnDevExcel();
    const at = { sheetId: sheet1(dx), row: 0, col: 0 };
    dx.workbook.setNumberFormat(sheet1(dx), "A1:A2", "@");
    await port.write(at, [[1], [2]], { columnFormats: ["#,##0.00"], keepFormats: true });
    const cells = dx.workbook.inspect(sheet1(dx), "A1:A2");
    expect(cells.values).toEqual([[1], [2]]);
    expect(cells.numberFormats).toEqual([["#,##0.00"], ["#,##0.00"]]);
  });
});

describe("adapter: cell-edit mode", () => {
  it("a write and a read while the user types in a cell wait for them (delayForCellEdit) instead of failing", async () => {
    const { dx, port } = adapterOnDevExcel();
    const at = { sheetId: sheet1(dx), row: 0, col: 0 };
    dx.workbook.enterCellEdit();
    const settled: string[] = [];
    const write = port.write(at, [[1, "a"]]).then(
      () => settled.push("written"),
      (e: Error) => settled.push(`failed: ${e.message}`),
    );
    const sheets = port.sheets().then(
      () => settled.push("listed"),
      (e: Error) => settled.push(`failed: ${e.message}`),
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(settled).toEqual([]);
    dx.workbook.leaveCellEdit();
    await Promise.all([write, sheets]);
    expect(settled.sort()).toEqual(["listed", "written"]);
    expect(dx.workbook.inspect(sheet1(dx), "A1:B1").values).toEqual([[1, "a"]]);
  });

  it("if Excel still refuses (InvalidOperationInCellEditMode), the error says to finish editing the cell", async () => {
    const { describeError } = await import("../../src/taskpane/errors.ts");
    const { HostError } = await import("../../src/host/excel/index.ts");
    const e = new HostError("InvalidOperationInCellEditMode", "writing 1×1 cells at A1: … (InvalidOperationInCellEditMode)");
    const human = describeError(e);
    expect(human.title).toBe("Waiting for you to finish editing the cell");
    expect(human.next).toMatch(/Enter or Esc/);
  });
});
