// dev/excel models the sharp edges of real Excel listed in issue 22 (docs/EXCEL-FIDELITY.md, "Sharp edges"):
// driven through the Excel API as an add-in would, typed with @types/office-js.
import { createDevExcel, DevExcelFaults, type DevExcelOptions } from "../../dev/excel/index.ts";
import { textWidthPoints } from "../../src/host/column-width.ts";

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

describe("dev/excel: merged cells, tables, protected sheets, multi-area selections", () => {
  it("merged areas: getMergedAreasOrNullObject; a write must cover them whole and only the top-left cell keeps a value", async () => {
    const { X, wb } = excel();
    wb.mergeCells("Sheet1", "B2:C2");
    const seen = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const none = ws.getRange("A1").getMergedAreasOrNullObject().load("address");
      const some = ws.getRange("A1:C3").getMergedAreasOrNullObject().load("address,areaCount");
      await ctx.sync();
      return { none: none.isNullObject, address: some.address, count: some.areaCount };
    });
    expect(seen).toEqual({ none: true, address: "Sheet1!B2:C2", count: 1 });
    const part = X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("C2").values = [[1]];
      await ctx.sync();
    });
    await expect(part).rejects.toMatchObject({ code: "InvalidOperation" });
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("B2:C2").values = [[1, 2]];
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "B2:C2").values).toEqual([[1, ""]]);
  });

  it("a protected sheet refuses writes and formats with AccessDenied; protection.protected reads it", async () => {
    const { X, wb } = excel();
    wb.protectSheet("Sheet1");
    const write = X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A1").values = [[1]];
      await ctx.sync();
    });
    await expect(write).rejects.toMatchObject({ code: "AccessDenied" });
    const isProtected = await X.run(async (ctx) => {
      const p = ctx.workbook.worksheets.getItem("Sheet1").protection.load("protected");
      await ctx.sync();
      return p.protected;
    });
    expect(isProtected).toBe(true);
  });

  it("Range.getTables() lists the tables overlapping a range", async () => {
    const { X, wb } = excel();
    wb.addTable("Sheet1", "B2:D5", "Orders");
    const names = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const over = ws.getRange("A1:B2").getTables().load("items/name");
      const apart = ws.getRange("F1").getTables().load("items/name");
      await ctx.sync();
      return [over.items.map((t) => t.name), apart.items.map((t) => t.name)];
    });
    expect(names).toEqual([["Orders"], []]);
  });

  it("getSelectedRange() fails when several areas are selected", async () => {
    const { X, wb } = excel();
    wb.selectAreas("Sheet1", ["A1:B2", "D4"]);
    const read = X.run(async (ctx) => {
      ctx.workbook.getSelectedRange().load("address");
      await ctx.sync();
    });
    await expect(read).rejects.toMatchObject({ code: "InvalidSelection" });
  });
});

describe("dev/excel: spilled array formulas", () => {
  it("hasSpill, getSpillParentOrNullObject and getSpillingToRangeOrNullObject see a formula's results", async () => {
    const { X, wb } = excel();
    wb.enterArrayFormula("Sheet1", "B2", "=SEQUENCE(3)", [[1], [2], [3]]);
    const seen = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const all = ws.getRange("B2:B4").load("hasSpill");
      const some = ws.getRange("A1:B3").load("hasSpill");
      const none = ws.getRange("D1:E5").load("hasSpill");
      const parent = ws.getRange("B4").getSpillParentOrNullObject().load("address");
      const ofAnchor = ws.getRange("B2").getSpillParentOrNullObject().load("address");
      const outside = ws.getRange("C4").getSpillParentOrNullObject().load("address");
      const spillsTo = ws.getRange("B2").getSpillingToRangeOrNullObject().load("address");
      await ctx.sync();
      return {
        spill: [all.hasSpill, some.hasSpill, none.hasSpill],
        parent: parent.address,
        ofAnchor: ofAnchor.address,
        outside: outside.isNullObject,
        spillsTo: spillsTo.address,
      };
    });
    expect(seen).toEqual({
      spill: [true, null, false],
      parent: "Sheet1!B2",
      ofAnchor: "Sheet1!B2",
      outside: true,
      spillsTo: "Sheet1!B2:B4",
    });
    expect(wb.inspect("Sheet1", "B2:B4")).toMatchObject({ values: [[1], [2], [3]], formulas: [["=SEQUENCE(3)"], [2], [3]] });
  });

  it("a value written into a formula's results lands, and the formula shows #SPILL! (its other results vanish)", async () => {
    const { X, wb } = excel();
    wb.enterArrayFormula("Sheet1", "B2", "=SEQUENCE(3)", [[1], [2], [3]]);
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("B3").values = [["ours"]];
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "B2:B4")).toMatchObject({
      values: [["#SPILL!"], ["ours"], [""]],
      formulas: [["=SEQUENCE(3)"], ["ours"], [""]],
      valueTypes: [["Error"], ["String"], ["Empty"]],
    });
  });

  it("a formula entered where its results would land on values shows #SPILL! at once; writing over the anchor replaces the formula", async () => {
    const { X, wb } = excel();
    wb.typeInto("Sheet1", "C3", "in the way");
    wb.enterArrayFormula("Sheet1", "C2", "=SEQUENCE(2)", [[1], [2]]);
    expect(wb.inspect("Sheet1", "C2:C3").values).toEqual([["#SPILL!"], ["in the way"]]);
    wb.enterArrayFormula("Sheet1", "E2", "=SEQUENCE(2)", [[1], [2]]);
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("E2").values = [[9]];
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "E2:E3").values).toEqual([[9], [""]]);
  });
});

describe("dev/excel: hidden rows and the AutoFilter", () => {
  it("rowHidden/columnHidden read true, false or null (some) and hide rows; Range.values writes hidden rows too", async () => {
    const { X, wb } = excel();
    wb.hideRows("Sheet1", 2, 2); // rows 3 and 4
    const seen = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("B:B").columnHidden = true;
      ws.getRange("A1:A6").values = [[1], [2], [3], [4], [5], [6]];
      const all = ws.getRange("A3:A4").load("rowHidden");
      const some = ws.getRange("A1:A6").load("rowHidden,columnHidden");
      const cols = ws.getRange("B1:B2").load("columnHidden");
      await ctx.sync();
      return [all.rowHidden, some.rowHidden, some.columnHidden, cols.columnHidden];
    });
    expect(seen).toEqual([true, null, false, true]);
    expect(wb.inspect("Sheet1", "A3:A4").values).toEqual([[3], [4]]);
  });

  it("worksheet.autoFilter: apply with Values criteria hides the other data rows; enabled, isDataFiltered and its range read it", async () => {
    const { X, wb } = excel();
    for (const [i, v] of ["status", "paid", "open", "paid"].entries()) wb.typeInto("Sheet1", `A${i + 1}`, v);
    const seen = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.autoFilter.apply(ws.getRange("A1:B4"), 0, { filterOn: "Values", values: ["paid"] });
      const f = ws.autoFilter.load("enabled,isDataFiltered");
      const r = ws.autoFilter.getRangeOrNullObject().load("address");
      const hidden = ws.getRange("A3").load("rowHidden");
      const shown = ws.getRange("A2").load("rowHidden");
      await ctx.sync();
      return { enabled: f.enabled, filtered: f.isDataFiltered, address: r.address, hidden: hidden.rowHidden, shown: shown.rowHidden };
    });
    expect(seen).toEqual({ enabled: true, filtered: true, address: "Sheet1!A1:B4", hidden: true, shown: false });
    const cleared = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.autoFilter.clearCriteria();
      const f = ws.autoFilter.load("enabled,isDataFiltered");
      const row = ws.getRange("A3").load("rowHidden");
      await ctx.sync();
      return [f.enabled, f.isDataFiltered, row.rowHidden];
    });
    expect(cleared).toEqual([true, false, false]);
  });
});

describe("dev/excel: autofitColumns fits whole columns", () => {
  it("the widest used cell of the column counts, also outside the range; columnWidth reads and sets widths", async () => {
    const { X, wb } = excel();
    wb.typeInto("Sheet1", "A1", "a long note the user typed above the report");
    wb.typeInto("Sheet1", "A3", "short");
    const widths = await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("A3:B4").format.autofitColumns();
      const a = ws.getRange("A3").format.load("columnWidth");
      const b = ws.getRange("B:B").format.load("columnWidth");
      await ctx.sync();
      ws.getRange("C1").format.columnWidth = 100;
      const c = ws.getRange("C5").format.load("columnWidth");
      const mixed = ws.getRange("A1:C1").format.load("columnWidth");
      await ctx.sync();
      return [a.columnWidth, b.columnWidth, c.columnWidth, mixed.columnWidth];
    });
    expect(widths).toEqual([textWidthPoints("a long note the user typed above the report".length), 48, 100, null]);
  });
});

describe("dev/excel: the 1904 date system", () => {
  it("DATE() answers in the workbook's date system and a date-formatted serial shows 1,462 days later", async () => {
    const { X, wb } = excel();
    const read = () =>
      X.run(async (ctx) => {
        const d = ctx.workbook.functions.date(1904, 1, 2).load("value");
        const r = ctx.workbook.worksheets.getItem("Sheet1").getRange("A1");
        r.numberFormat = [["yyyy-mm-dd"]];
        r.values = [[45292]];
        r.load("text,values");
        await ctx.sync();
        return { date: d.value, text: r.text[0]![0], value: r.values[0]![0] };
      });
    expect(await read()).toEqual({ date: 1463, text: "2024-01-01", value: 45292 });
    wb.date1904 = true;
    expect(await read()).toEqual({ date: 1, text: "2028-01-02", value: 45292 });
  });
});

describe("dev/excel: undo", () => {
  it("each changing sync is an undo record; with mergeUndoGroup one per Excel.run; reads make none", async () => {
    const { X, wb } = excel();
    const twoSyncs = async (ctx: Excel.RequestContext) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("A1").values = [[1]];
      await ctx.sync();
      ws.getRange("A2").values = [[2]];
      ws.getRange("A1:A2").load("values");
      await ctx.sync();
      ws.getRange("A3").load("values");
      await ctx.sync();
    };
    await X.run(twoSyncs);
    expect(wb.stats.undoRecords).toBe(2);
    await X.run({ mergeUndoGroup: true }, twoSyncs);
    expect(wb.stats.undoRecords).toBe(3);
  });

  it("setting a named item's comment clears the undo stack on Excel on the web, not on desktop", async () => {
    for (const [platform, cleared] of [
      ["OfficeOnline", 1],
      ["PC", 0],
    ] as const) {
      const { X, wb } = excel({ platform });
      await X.run(async (ctx) => {
        const ws = ctx.workbook.worksheets.getItem("Sheet1");
        ctx.workbook.names.add("Plain", ws.getRange("A1"));
        await ctx.sync();
        ctx.workbook.names.add("Commented", ws.getRange("A2"), "a note");
        await ctx.sync();
      });
      expect(wb.stats.undoStackCleared).toBe(cleared);
    }
  });
});
