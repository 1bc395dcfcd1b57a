// issue 33: dev/excel models Excel tables (ListObjects) as Microsoft documents them (docs/EXCEL-FIDELITY.md
// "Tables"). Driven through the Excel API as an add-in would (typed with @types/office-js).
import { createDevExcel, DevWorkbook, type DevExcelOptions } from "../../dev/excel/index.ts";

function excel(options: DevExcelOptions = {}) {
  const dx = createDevExcel(options);
  return { dx, X: dx.Excel as unknown as typeof Excel, wb: dx.workbook };
}
async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect((e as Error).name).toBe("RichApi.Error");
    return (e as { code: string }).code;
  }
  throw new Error("expected an Office error");
}
const DATA = [
  ["Region", "Amount"],
  ["North", 10],
  ["South", 20],
];
/** Sheet1!A1:B3 holds DATA; a table over it (Table1). */
async function withTable(options: DevExcelOptions = {}) {
  const e = excel(options);
  await e.X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem("Sheet1");
    ws.getRange("A1:B3").values = DATA;
    ws.tables.add("A1:B3", true);
    await ctx.sync();
  });
  return e;
}
async function tableState(X: typeof Excel, name = "Table1") {
  return X.run(async (ctx) => {
    const t = ctx.workbook.tables.getItem(name);
    const r = t.getRange().load("address,values,formulas");
    const cols = t.columns.load("items/name");
    await ctx.sync();
    return { address: r.address, values: r.values, formulas: r.formulas, columns: cols.items.map((c) => c.name) };
  });
}

describe("issue 33: dev/excel tables — add, names, styles, ranges", () => {
  it("issue 33: tables.add over a range with headers; getItem, getItemOrNullObject, count, items, ranges", async () => {
    const { X } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const t = ws.tables.getItem("Table1").load("name,style,showHeaders,showFilterButton,id");
      const missing = ctx.workbook.tables.getItemOrNullObject("Nope").load("name");
      const all = ctx.workbook.tables.load("count,items/name");
      const header = t.getHeaderRowRange().load("address");
      const body = t.getDataBodyRange().load("address,values");
      await ctx.sync();
      expect([t.name, t.style, t.showHeaders, t.showFilterButton]).toEqual(["Table1", "TableStyleMedium2", true, true]);
      expect(missing.isNullObject).toBe(true);
      expect(all.count).toBe(1);
      expect(all.items.map((x) => x.name)).toEqual(["Table1"]);
      expect(header.address).toBe("Sheet1!A1:B1");
      expect(body.address).toBe("Sheet1!A2:B3");
      ctx.workbook.tables.getItem("Nope").load("name");
      expect(await codeOf(ctx.sync())).toBe("ItemNotFound");
    });
  });

  it("issue 33: tables.add with hasHeaders=false inserts a header row (Column1…) and pushes the data down (office-js 196)", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("A1:B2").values = [
        [1, 2],
        [3, 4],
      ];
      ws.getRange("A5").values = [["below"]];
      ws.tables.add("Sheet1!A1:B2", false);
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "A1:B3").values).toEqual([
      ["Column1", "Column2"],
      [1, 2],
      [3, 4],
    ]);
    expect(wb.inspect("Sheet1", "A6").values).toEqual([["below"]]);
    expect((await tableState(X)).address).toBe("Sheet1!A1:B3");
  });

  it("issue 33: workbook.tables.add takes the sheet from the address, else the active sheet", async () => {
    const { X, wb } = excel();
    wb.addSheet("Data");
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Data").getRange("A1:A2").values = [["X"], [1]];
      ctx.workbook.tables.add("Data!A1:A2", true);
      ctx.workbook.tables.add("C1:C2", true);
      const a = ctx.workbook.worksheets.getItem("Data").tables.load("count");
      const b = ctx.workbook.worksheets.getItem("Sheet1").tables.load("count");
      await ctx.sync();
      expect([a.count, b.count]).toEqual([1, 1]);
      ctx.workbook.worksheets.getItem("Sheet1").tables.add("Data!E1:E2", true);
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
    });
  });

  it("issue 33: an empty header becomes Column<n>, a repeated one gets a number; writing a header renames its column", async () => {
    const { X, wb } = excel();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("A1:C2").values = [
        ["Amount", "", "Amount"],
        [1, 2, 3],
      ];
      ws.tables.add("A1:C2", true);
      await ctx.sync();
    });
    expect((await tableState(X)).columns).toEqual(["Amount", "Column2", "Amount2"]);
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").getRange("B1").values = [["Price"]];
      ctx.workbook.worksheets.getItem("Sheet1").getRange("C1").values = [[""]];
      await ctx.sync();
    });
    expect((await tableState(X)).columns).toEqual(["Amount", "Price", "Column3"]);
    expect(wb.inspect("Sheet1", "C1").values).toEqual([["Column3"]]);
  });

  it("issue 33: a table's name must be valid and unique among tables and names; style must be built in", async () => {
    const { X } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("D1:D2").values = [["X"], [1]];
      const t2 = ws.tables.add("D1:D2", true);
      ctx.workbook.names.add("Budget", ws.getRange("F1"));
      await ctx.sync();
      t2.name = "table1";
      expect(await codeOf(ctx.sync())).toBe("ItemAlreadyExists");
      t2.name = "Budget";
      expect(await codeOf(ctx.sync())).toBe("ItemAlreadyExists");
      t2.name = "A1";
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t2.name = "has space";
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t2.style = "TableStyleMedium29";
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t2.name = "Sales";
      t2.style = "TableStyleDark11";
      t2.showFilterButton = false;
      t2.load("name,style,showFilterButton");
      await ctx.sync();
      expect([t2.name, t2.style, t2.showFilterButton]).toEqual(["Sales", "TableStyleDark11", false]);
    });
  });

  it("issue 33: delete() removes the table and its cells; convertToRange() keeps the cells", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").convertToRange();
      await ctx.sync();
      expect(wb.inspect("Sheet1", "A1:B3").values).toEqual(DATA);
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.tables.add("A1:B3", true).delete();
      const n = ctx.workbook.tables.load("count");
      await ctx.sync();
      expect(n.count).toBe(0);
      expect(wb.inspect("Sheet1", "A1:B3").values).toEqual([
        ["", ""],
        ["", ""],
        ["", ""],
      ]);
    });
  });
});

describe("issue 33: dev/excel tables — conflicts", () => {
  it("issue 33: tables.add over another table, merged cells or a spilled array fails at sync; a spill into a table is #SPILL!", async () => {
    const { X, wb } = await withTable();
    wb.mergeCells("Sheet1", "E1:F1");
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.tables.add("B2:C4", true);
      expect(await codeOf(ctx.sync())).toBe("InvalidOperation");
      ws.tables.add("E1:F3", true);
      expect(await codeOf(ctx.sync())).toBe("MergedRangeConflict");
      ws.getRange("H1").formulas = [["=SEQUENCE(3)"]];
      await ctx.sync();
      ws.tables.add("H1:H3", true);
      expect(await codeOf(ctx.sync())).toBe("InvalidOperation");
      ws.getRange("D2").formulas = [["=SEQUENCE(1,2)"]]; // would spill into nothing of the table: fine
      ws.getRange("A5").formulas = [["=SEQUENCE(1,2)"]]; // below the table: fine
      ws.getRange("B2").formulas = [["=SEQUENCE(2)"]]; // inside the table
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "B2").values).toEqual([["#SPILL!"]]);
  });
});

describe("issue 33: dev/excel tables — columns", () => {
  it("issue 33: columns.add shifts the columns at and right of index inside the table; getItemAt, getItem, count", async () => {
    const { X, wb } = await withTable();
    wb.typeInto("Sheet1", "A5", "outside");
    await X.run(async (ctx) => {
      const t = ctx.workbook.tables.getItem("Table1");
      t.columns.add(1, [["Code"], ["n"], ["s"]]);
      t.columns.add(undefined, undefined, "Note");
      const c = t.columns.getItemAt(1).load("name,index");
      const byName = t.columns.getItem("Amount").load("index");
      const cols = t.columns.load("count");
      await ctx.sync();
      expect([c.name, c.index, byName.index, cols.count]).toEqual(["Code", 1, 2, 4]);
    });
    expect(wb.inspect("Sheet1", "A1:D3").values).toEqual([
      ["Region", "Code", "Amount", "Note"],
      ["North", "n", 10, ""],
      ["South", "s", 20, ""],
    ]);
    expect(wb.inspect("Sheet1", "A5:B5").values).toEqual([["outside", ""]]);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").columns.getItem("Code").delete();
      await ctx.sync();
    });
    expect((await tableState(X)).columns).toEqual(["Region", "Amount", "Note"]);
    // The deleted column's cells go and those right of it move left (not the column right of it).
    expect(wb.inspect("Sheet1", "A1:D3").values).toEqual([
      ["Region", "Amount", "Note", ""],
      ["North", 10, "", ""],
      ["South", 20, "", ""],
    ]);
  });

  it("issue 33: renaming a column rewrites [@Old] and Table1[Old] in the workbook's formulas; a duplicate name fails", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("C1:C3").formulas = [["Plus"], ["=[@Amount]*1.2"], ["=[@Amount]*1.2"]];
      ws.getRange("F1").formulas = [["=SUM(Table1[Amount])"]];
      await ctx.sync();
      const col = ctx.workbook.tables.getItem("Table1").columns.getItem("Amount");
      col.name = "Region";
      expect(await codeOf(ctx.sync())).toBe("ItemAlreadyExists");
      col.name = "Sales";
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "B1:C3").formulas).toEqual([
      ["Sales", "Plus"],
      [10, "=[@Sales]*1.2"],
      [20, "=[@Sales]*1.2"],
    ]);
    expect(wb.inspect("Sheet1", "F1").formulas).toEqual([["=SUM(Table1[Sales])"]]);
    wb.typeInto("Sheet1", "B1", "Total"); // a header typed renames too
    expect(wb.inspect("Sheet1", "C2").formulas).toEqual([["=[@Total]*1.2"]]);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").name = "Sales";
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "F1").formulas).toEqual([["=SUM(Sales[Total])"]]);
  });
});

describe("issue 33: dev/excel tables — calculated columns and auto-expansion", () => {
  it("issue 33: a formula written to a whole data column is a calculated column; same-row references compute", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("C1").values = [["Plus"]]; // auto-expands the table one column right
      await ctx.sync();
      ctx.workbook.tables.getItem("Table1").columns.getItem("Plus").getDataBodyRange().formulas = [["=[@Amount]*1.2"], ["=[@Amount]*1.2"]];
      await ctx.sync();
    });
    expect((await tableState(X)).address).toBe("Sheet1!A1:C3");
    expect(wb.inspect("Sheet1", "C2:C3").values).toEqual([[12], [24]]);
  });

  it("issue 33: a formula typed into an empty table column fills the column", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const t = ctx.workbook.tables.getItem("Table1");
      t.columns.add(undefined, undefined, "Twice");
      await ctx.sync();
      ctx.workbook.worksheets.getItem("Sheet1").getRange("C2").formulas = [["=[@Amount]+[@Amount]"]];
      await ctx.sync();
    });
    expect(wb.inspect("Sheet1", "C2:C3").values).toEqual([[20], [40]]);
    expect(wb.inspect("Sheet1", "C3").formulas).toEqual([["=[@Amount]+[@Amount]"]]);
  });

  it("issue 33: writing just below the table expands it and fills calculated columns; rows.add too", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("C1:C3").formulas = [["Plus"], ["=[@Amount]*2"], ["=[@Amount]*2"]];
      await ctx.sync();
      ws.getRange("A4:B5").values = [
        ["East", 30],
        ["West", 40],
      ];
      await ctx.sync();
      const t = ctx.workbook.tables.getItem("Table1");
      t.rows.add(0, [["First", 1, ""]]);
      const rows = t.rows.load("count");
      await ctx.sync();
      expect(rows.count).toBe(5);
    });
    expect((await tableState(X)).address).toBe("Sheet1!A1:C6");
    expect(wb.inspect("Sheet1", "C2:C6").values).toEqual([[2], [20], [40], [60], [80]]);
  });
});

describe("issue 33: dev/excel tables — resize", () => {
  it("issue 33: resize (ExcelApi 1.13) keeps the header row and overlaps the old range; new rows get calculated columns", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("C1:C3").formulas = [["Plus"], ["=[@Amount]+1"], ["=[@Amount]+1"]];
      await ctx.sync();
      const t = ctx.workbook.tables.getItem("Table1");
      t.resize("A2:C5");
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t.resize("A10:C12");
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      ws.getRange("A4:B5").values = [
        ["East", 5],
        ["West", 6],
      ]; // expands the table to row 5 already (auto-expansion)
      await ctx.sync();
      t.resize("A1:C2");
      await ctx.sync();
      expect(wb.inspect("Sheet1", "A3:C5").values).toEqual([
        ["South", 20, 21],
        ["East", 5, 6],
        ["West", 6, 7],
      ]); // resize moves no data
      t.resize(ws.getRange("A1:C4"));
      await ctx.sync();
    });
    expect((await tableState(X)).address).toBe("Sheet1!A1:C4");
  });

  it("issue 33: resize needs ExcelApi 1.13", async () => {
    const { X } = await withTable({ apiVersion: "1.12" });
    await X.run(async (ctx) => {
      expect(() => ctx.workbook.tables.getItem("Table1").resize("A1:B5")).toThrow(expect.objectContaining({ code: "InvalidArgument" }));
    });
  });
});

describe("issue 33: dev/excel tables — rows, sort and filter", () => {
  it("issue 33: sort.apply orders the rows, reapply sorts new data again, clear forgets the sort", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const t = ctx.workbook.tables.getItem("Table1");
      t.sort.apply([{ key: 1, ascending: false }]);
      await ctx.sync();
      expect(wb.inspect("Sheet1", "A2:A3").values).toEqual([["South"], ["North"]]);
      ctx.workbook.worksheets.getItem("Sheet1").getRange("A2:B3").values = [
        ["a", 1],
        ["b", 2],
      ];
      t.sort.reapply();
      const s = t.sort.load("fields");
      await ctx.sync();
      expect(s.fields).toEqual([{ key: 1, ascending: false }]);
      expect(wb.inspect("Sheet1", "A2:A3").values).toEqual([["b"], ["a"]]);
      t.sort.clear();
      t.sort.load("fields");
      await ctx.sync();
      expect(t.sort.fields).toEqual([]);
    });
  });

  it("issue 33: the table's autoFilter hides rows (rowHidden), reapply follows new values, clearCriteria shows them", async () => {
    const { X } = await withTable();
    await X.run(async (ctx) => {
      const t = ctx.workbook.tables.getItem("Table1");
      t.autoFilter.apply(t.getRange(), 0, { filterOn: "Values" as Excel.FilterOn, values: ["North"] });
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const row3 = ws.getRange("A3").load("rowHidden");
      const f = t.autoFilter.load("isDataFiltered,criteria");
      await ctx.sync();
      expect(row3.rowHidden).toBe(true);
      expect(f.isDataFiltered).toBe(true);
      expect(f.criteria[0]).toEqual({ filterOn: "Values", values: ["North"] });
      ws.getRange("A3").values = [["North"]];
      t.autoFilter.reapply();
      row3.load("rowHidden");
      await ctx.sync();
      expect(row3.rowHidden).toBe(false);
      ws.getRange("A2").values = [["East"]];
      t.autoFilter.reapply();
      t.autoFilter.clearCriteria();
      const row2 = ws.getRange("A2").load("rowHidden");
      await ctx.sync();
      expect(row2.rowHidden).toBe(false);
    });
  });

  it("issue 33: rows.deleteRows (ExcelApiOnline 1.1) removes rows, and fails with InsertDeleteConflict while filtered", async () => {
    const { X, wb } = await withTable();
    wb.typeInto("Sheet1", "A4", "East");
    await X.run(async (ctx) => {
      const t = ctx.workbook.tables.getItem("Table1");
      t.autoFilter.apply(t.getRange(), 0, { filterOn: "Values" as Excel.FilterOn, values: ["North"] });
      t.rows.deleteRows([0]);
      expect(await codeOf(ctx.sync())).toBe("InsertDeleteConflict");
      t.autoFilter.clearCriteria();
      t.rows.deleteRows([0, 2]);
      await ctx.sync();
    });
    expect((await tableState(X)).address).toBe("Sheet1!A1:B2");
    expect(wb.inspect("Sheet1", "A2:B2").values).toEqual([["South", 20]]);
    const desktop = await withTable({ platform: "PC" });
    await desktop.X.run(async (ctx) => {
      expect(() => ctx.workbook.tables.getItem("Table1").rows.deleteRows([0])).toThrow(expect.objectContaining({ code: "ApiNotFound" }));
    });
  });
});

describe("issue 33: dev/excel tables — requests and snapshots", () => {
  it("issue 33: table commands count as syncs and request bytes; a snapshot keeps tables whole", async () => {
    const { X, wb } = await withTable();
    const before = wb.stats.syncs;
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").rows.add(undefined, [["East", 30]]);
      await ctx.sync();
    });
    expect(wb.stats.syncs).toBe(before + 1);
    const copy = DevWorkbook.restore(JSON.parse(JSON.stringify(wb.snapshot())));
    const dx2 = createDevExcel({ workbook: copy });
    expect((await tableState(dx2.Excel as unknown as typeof Excel)).address).toBe("Sheet1!A1:B4");
  });
});

describe("issue 33: dev/excel tables — whole rows and columns inserted or deleted", () => {
  it("issue 33: a table moves with inserted rows, grows with rows inserted inside it (calculated columns fill), loses deleted columns", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("C1:C3").formulas = [["Plus"], ["=[@Amount]*2"], ["=[@Amount]*2"]];
      await ctx.sync();
      ws.getRange("1:2").insert("Down");
      await ctx.sync();
    });
    expect((await tableState(X)).address).toBe("Sheet1!A3:C5");
    wb.insertRows("Sheet1", 4, 1); // inside the data body
    expect((await tableState(X)).address).toBe("Sheet1!A3:C6");
    expect(wb.inspect("Sheet1", "C5").formulas).toEqual([["=[@Amount]*2"]]);
    wb.deleteColumns("Sheet1", 0, 1);
    const after = await tableState(X);
    expect([after.address, after.columns]).toEqual(["Sheet1!A3:B6", ["Amount", "Plus"]]);
    wb.deleteRows("Sheet1", 2, 1); // the header row: the table goes
    await X.run(async (ctx) => {
      const n = ctx.workbook.tables.load("count");
      await ctx.sync();
      expect(n.count).toBe(0);
    });
  });
});

describe("issue 33: dev/excel tables — the other errors", () => {
  it("issue 33: wrong sizes, missing rows, bad sort keys, other criteria, header-only resizes, resizes over a table, protected sheets", async () => {
    const { X, wb } = await withTable();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const t = ctx.workbook.tables.getItem("Table1");
      t.rows.add(undefined, [["only one"]]);
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t.rows.add(7);
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t.rows.deleteRows([5]);
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t.columns.add(0, [["H"], [1]]);
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      t.sort.apply([{ key: 9 }]);
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      expect(() => t.autoFilter.apply(t.getRange(), 0, { filterOn: "TopItems" as Excel.FilterOn })).toThrow(
        expect.objectContaining({ code: "InvalidArgument" }),
      );
      t.resize("A1:B1");
      expect(await codeOf(ctx.sync())).toBe("InvalidArgument");
      ws.getRange("D1:D2").values = [["X"], [1]];
      ws.tables.add("D1:D2", true);
      await ctx.sync();
      t.resize("A1:D3");
      expect(await codeOf(ctx.sync())).toBe("InvalidOperation");
      t.columns.getItem("Nope").load("name");
      expect(await codeOf(ctx.sync())).toBe("ItemNotFound");
    });
    wb.protectSheet("Sheet1");
    await X.run(async (ctx) => {
      ctx.workbook.worksheets.getItem("Sheet1").tables.add("F1:F2", true);
      expect(await codeOf(ctx.sync())).toBe("AccessDenied");
    });
    expect((await tableState(X)).address).toBe("Sheet1!A1:B3"); // nothing of the failed commands applied
  });

  it("issue 33: a one-row range with headers gets an empty data row (a table keeps one)", async () => {
    const { X } = excel();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.getRange("A1:B1").values = [["A", "B"]];
      const body = ws.tables.add("A1:B1", true).getDataBodyRange().load("address");
      await ctx.sync();
      expect(body.address).toBe("Sheet1!A2:B2");
    });
  });
});
