// issue 33: dev/excel models charts over cells (docs/EXCEL-FIDELITY.md "Charts"): charts.add lays out
// series by columns or rows, a series reads its values and says where they come from, and a series over a
// table's column follows the table's rows as Excel's charts over a table do.
import { createDevExcel, type DevExcelOptions } from "../../dev/excel/index.ts";

function excel(options: DevExcelOptions = {}) {
  const dx = createDevExcel(options);
  return { dx, X: dx.Excel as unknown as typeof Excel, wb: dx.workbook };
}
const DATA = [
  ["Region", "Amount", "Units"],
  ["North", 10, 1],
  ["South", 20, 2],
  ["East", 30, 3],
];

/** Table1 over Sheet1!A1:C4 and a chart over the whole table. */
async function withChart(options: DevExcelOptions = {}) {
  const e = excel(options);
  await e.X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem("Sheet1");
    ws.getRange("A1:C4").values = DATA;
    const t = ws.tables.add("A1:C4", true);
    ws.charts.add("ColumnClustered" as Excel.ChartType, t.getRange(), "Auto" as Excel.ChartSeriesBy);
    await ctx.sync();
  });
  return e;
}
async function sources(X: typeof Excel) {
  return X.run(async (ctx) => {
    const series = ctx.workbook.worksheets.getItem("Sheet1").charts.getItemAt(0).series.load("items/name");
    await ctx.sync();
    const out = series.items.map((s) => ({
      name: s.name,
      values: s.getDimensionDataSourceString("Values"),
      categories: s.getDimensionDataSourceString("Categories"),
      shown: s.getDimensionValues("Values"),
    }));
    await ctx.sync();
    return out.map((s) => ({ name: s.name, values: s.values.value, categories: s.categories.value, shown: s.shown.value }));
  });
}

describe("issue 33: dev/excel charts", () => {
  it("issue 33: charts.add lays out one series per column (names from the header, categories from a text first column); the series say where their values come from", async () => {
    const { X } = await withChart();
    expect(await sources(X)).toEqual([
      { name: "Amount", values: "=Sheet1!$B$2:$B$4", categories: "=Sheet1!$A$2:$A$4", shown: ["10", "20", "30"] },
      { name: "Units", values: "=Sheet1!$C$2:$C$4", categories: "=Sheet1!$A$2:$A$4", shown: ["1", "2", "3"] },
    ]);
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      const c = ws.charts.add("Line" as Excel.ChartType, ws.getRange("B1:C4"), "Rows" as Excel.ChartSeriesBy);
      c.name = "ByRow";
      const charts = ws.charts.load("items/name,items/chartType");
      const rows = c.series.load("items/name");
      await ctx.sync();
      expect(charts.items.map((x) => [x.name, x.chartType])).toEqual([
        ["Chart 1", "ColumnClustered"],
        ["ByRow", "Line"],
      ]);
      expect(rows.items.map((s) => s.name)).toEqual(["Series1", "Series2", "Series3"]); // no text at the left: no names
    });
  });

  it("issue 33: a series over a table's column follows the table: resize, rows added, auto-expansion, rows deleted, rows inserted above", async () => {
    const { X, wb } = await withChart({ platform: "OfficeOnline" });
    const values = async () => (await sources(X)).map((s) => s.values);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").resize("A1:C6");
      await ctx.sync();
    });
    expect(await values()).toEqual(["=Sheet1!$B$2:$B$6", "=Sheet1!$C$2:$C$6"]);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").rows.add(undefined, [["West", 40, 4]]);
      await ctx.sync();
    });
    expect(await values()).toEqual(["=Sheet1!$B$2:$B$7", "=Sheet1!$C$2:$C$7"]);
    wb.typeInto("Sheet1", "A8", "Far"); // typing just below joins the table
    expect(await values()).toEqual(["=Sheet1!$B$2:$B$8", "=Sheet1!$C$2:$C$8"]);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").rows.deleteRows([5, 6]);
      await ctx.sync();
    });
    expect(await values()).toEqual(["=Sheet1!$B$2:$B$6", "=Sheet1!$C$2:$C$6"]);
    wb.insertRows("Sheet1", 0, 2);
    expect((await sources(X)).map((s) => [s.values, s.categories])).toEqual([
      ["=Sheet1!$B$4:$B$8", "=Sheet1!$A$4:$A$8"],
      ["=Sheet1!$C$4:$C$8", "=Sheet1!$A$4:$A$8"],
    ]);
  });

  it("issue 33: a table column inserted or deleted moves the series right of it with their cells; those left of it stay", async () => {
    const { X } = await withChart();
    const values = async () => (await sources(X)).map((s) => [s.name, s.values, s.categories]);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").columns.add(1, undefined, "Count");
      await ctx.sync();
    });
    expect(await values()).toEqual([
      ["Amount", "=Sheet1!$C$2:$C$4", "=Sheet1!$A$2:$A$4"],
      ["Units", "=Sheet1!$D$2:$D$4", "=Sheet1!$A$2:$A$4"],
    ]);
    expect((await sources(X)).map((s) => s.shown)).toEqual([
      ["10", "20", "30"],
      ["1", "2", "3"],
    ]);
    await X.run(async (ctx) => {
      ctx.workbook.tables.getItem("Table1").columns.getItemAt(1).delete();
      await ctx.sync();
    });
    expect(await values()).toEqual([
      ["Amount", "=Sheet1!$B$2:$B$4", "=Sheet1!$A$2:$A$4"],
      ["Units", "=Sheet1!$C$2:$C$4", "=Sheet1!$A$2:$A$4"],
    ]);
  });

  it("issue 33: a series over part of a table column stays where it is; setData re-lays the series; getDimensionDataSourceString needs ExcelApi 1.15", async () => {
    const { X } = await withChart();
    await X.run(async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem("Sheet1");
      ws.charts.getItemAt(0).setData(ws.getRange("A1:B3"), "Columns" as Excel.ChartSeriesBy);
      ctx.workbook.tables.getItem("Table1").resize("A1:C6");
      await ctx.sync();
    });
    expect(await sources(X)).toEqual([
      { name: "Amount", values: "=Sheet1!$B$2:$B$3", categories: "=Sheet1!$A$2:$A$3", shown: ["10", "20"] },
    ]);
    const old = await withChart({ apiVersion: "1.14" });
    await expect(
      old.X.run(async (ctx) => {
        ctx.workbook.worksheets.getItem("Sheet1").charts.getItemAt(0).series.getItemAt(0).getDimensionDataSourceString("Values");
        await ctx.sync();
      }),
    ).rejects.toThrow(/ExcelApi 1.15/);
  });
});
