// Excel probes for tables (ListObjects, issue 33): each checks in real Excel one behaviour dev/excel models
// (dev/excel/tables-model.ts; docs/EXCEL-FIDELITY.md "Tables"). Each works on its scratch sheet and removes
// the tables it made (table names are workbook-wide). In vitest they run on dev/excel and must pass.

import type { SheetRef } from "../port.ts";
import type { ProbeUserSide } from "./probe-user.ts";

type Probe = (X: typeof Excel, sheet: SheetRef, user: ProbeUserSide) => Promise<void>;

function same(what: string, modelled: unknown, seen: unknown): void {
  if (JSON.stringify(seen) !== JSON.stringify(modelled))
    throw new Error(`${what}: dev/excel models ${JSON.stringify(modelled)}; this Excel gave ${JSON.stringify(seen)}`);
}
async function codeOf(ctx: Excel.RequestContext): Promise<unknown> {
  try {
    await ctx.sync();
    return "no error";
  } catch (e) {
    return (e as { code?: unknown }).code;
  }
}
const cells = (address: string) => address.split("!").pop();
const DATA = [
  ["Region", "Amount"],
  ["North", 10],
  ["South", 20],
];
/** A table over A1:B3 of the scratch sheet holding DATA. */
function dataTable(ctx: Excel.RequestContext, sheet: SheetRef): { ws: Excel.Worksheet; t: Excel.Table } {
  const ws = ctx.workbook.worksheets.getItem(sheet.id);
  ws.getRange("A1:B3").values = DATA;
  return { ws, t: ws.tables.add(ws.getRange("A1:B3"), true) };
}

async function addWithHeaders(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.getRange("A1:C2").values = [
      ["Amount", "", "Amount"],
      [1, 2, 3],
    ];
    const t = ws.tables.add(ws.getRange("A1:C2"), true).load("style,showHeaders,showFilterButton");
    const cols = t.columns.load("items/name");
    const header = t.getHeaderRowRange().load("address");
    const body = t.getDataBodyRange().load("address");
    await ctx.sync();
    const out = {
      style: t.style,
      showHeaders: t.showHeaders,
      showFilterButton: t.showFilterButton,
      columns: cols.items.map((c) => c.name),
      header: cells(header.address),
      body: cells(body.address),
    };
    t.delete();
    await ctx.sync();
    return out;
  });
  same(
    "a table added over A1:C2 with headers",
    {
      style: "TableStyleMedium2",
      showHeaders: true,
      showFilterButton: true,
      columns: ["Amount", "Column2", "Amount2"],
      header: "A1:C1",
      body: "A2:C2",
    },
    seen,
  );
}

async function addWithoutHeaders(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const ws = ctx.workbook.worksheets.getItem(sheet.id);
    ws.getRange("A1:B2").values = [
      [1, 2],
      [3, 4],
    ];
    const t = ws.tables.add(ws.getRange("A1:B2"), false);
    const r = t.getRange().load("address,values");
    await ctx.sync();
    const out = { range: cells(r.address), values: r.values };
    t.delete();
    await ctx.sync();
    return out;
  });
  same(
    "tables.add(A1:B2, hasHeaders=false)",
    {
      range: "A1:B3",
      values: [
        ["Column1", "Column2"],
        [1, 2],
        [3, 4],
      ],
    },
    seen,
  );
}

async function nameAndStyleRules(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    ws.getRange("D1:D2").values = [["X"], [1]];
    const other = ws.tables.add(ws.getRange("D1:D2"), true);
    t.load("name");
    await ctx.sync();
    other.name = t.name.toUpperCase();
    const duplicate = await codeOf(ctx);
    other.name = "A1";
    const cellLike = await codeOf(ctx);
    other.style = "TableStyleMedium29";
    const style = await codeOf(ctx);
    other.style = "TableStyleLight21";
    other.load("style");
    await ctx.sync();
    const out = { duplicate, cellLike, style, set: other.style };
    t.delete();
    other.delete();
    await ctx.sync();
    return out;
  });
  same(
    "table names and styles",
    { duplicate: "ItemAlreadyExists", cellLike: "InvalidArgument", style: "InvalidArgument", set: "TableStyleLight21" },
    seen,
  );
}

async function conflicts(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    await ctx.sync();
    ws.tables.add(ws.getRange("B2:C4"), true);
    const overlap = await codeOf(ctx);
    ws.getRange("E1:F1").merge(false);
    await ctx.sync();
    ws.tables.add(ws.getRange("E1:F3"), true);
    const merged = await codeOf(ctx);
    ws.getRange("H1").formulas = [["=SEQUENCE(3)"]];
    await ctx.sync();
    ws.tables.add(ws.getRange("H1:H3"), true);
    const spill = await codeOf(ctx);
    ws.getRange("B2").formulas = [["=SEQUENCE(2)"]];
    const inTable = ws.getRange("B2").load("values");
    await ctx.sync();
    const out = { overlap, merged, spill, spillInTable: inTable.values[0]![0] };
    t.delete();
    await ctx.sync();
    return out;
  });
  same(
    "tables.add conflicts",
    { overlap: "InvalidOperation", merged: "MergedRangeConflict", spill: "InvalidOperation", spillInTable: "#SPILL!" },
    seen,
  );
}

async function columnsAndRenames(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    t.load("name");
    await ctx.sync();
    t.columns.add(1, [["Code"], ["n"], ["s"]]);
    ws.getRange("D1:D3").formulas = [["Plus"], ["=[@Amount]*2"], ["=[@Amount]*2"]];
    ws.getRange("G1").formulas = [[`=SUM(${t.name}[Amount])`]];
    await ctx.sync();
    t.columns.getItem("Amount").name = "Sales";
    const grid = ws.getRange("A1:D3").load("values");
    const plus = ws.getRange("D2").load("formulas");
    const sum = ws.getRange("G1").load("formulas");
    await ctx.sync();
    const out = { grid: grid.values, plus: plus.formulas[0]![0], sum: (sum.formulas[0]![0] as string).replace(t.name, "T") };
    t.delete();
    await ctx.sync();
    return out;
  });
  const grid = [
    ["Region", "Code", "Sales", "Plus"],
    ["North", "n", 10, 20],
    ["South", "s", 20, 40],
  ];
  same("columns.add at 1, a calculated column, then a column renamed", { grid, plus: "=[@Sales]*2", sum: "=SUM(T[Sales])" }, seen);
}

async function calculatedAndExpansion(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    await ctx.sync();
    ws.getRange("C1").values = [["Plus"]];
    await ctx.sync();
    t.columns.getItem("Plus").getDataBodyRange().formulas = [["=[@Amount]+1"], ["=[@Amount]+1"]];
    await ctx.sync();
    ws.getRange("A4:B4").values = [["East", 5]];
    await ctx.sync();
    t.rows.add(undefined, [["West", 6, ""]]);
    const r = t.getRange().load("address");
    const plus = ws.getRange("C4:C5").load("values,formulas");
    await ctx.sync();
    const out = { range: cells(r.address), values: plus.values, formulas: plus.formulas };
    t.delete();
    await ctx.sync();
    return out;
  });
  same(
    "auto-expansion right and below, rows.add, and a calculated column filling",
    { range: "A1:C5", values: [[6], [7]], formulas: [["=[@Amount]+1"], ["=[@Amount]+1"]] },
    seen,
  );
}

async function resizeRules(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    ws.getRange("A5:B5").values = [["East", 5]];
    await ctx.sync();
    t.resize(ws.getRange("A2:B5"));
    const headerMoved = await codeOf(ctx);
    t.resize(ws.getRange("D10:E12"));
    const apart = await codeOf(ctx);
    t.resize(ws.getRange("A1:B5"));
    const r = t.getRange().load("address");
    const moved = ws.getRange("A4:B5").load("values");
    await ctx.sync();
    const out = { headerMoved, apart, range: cells(r.address), moved: moved.values };
    t.delete();
    await ctx.sync();
    return out;
  });
  same(
    "Table.resize",
    {
      headerMoved: "InvalidArgument",
      apart: "InvalidArgument",
      range: "A1:B5",
      moved: [
        ["", ""],
        ["East", 5],
      ],
    },
    seen,
  );
}

async function sortState(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    t.sort.apply([{ key: 1, ascending: false }]);
    const first = ws.getRange("A2:A3").load("values");
    await ctx.sync();
    const sorted = first.values.map((r) => r[0]);
    ws.getRange("A2:B3").values = [
      ["a", 1],
      ["b", 2],
    ];
    t.sort.reapply();
    const again = ws.getRange("A2:A3").load("values");
    const fields = t.sort.load("fields");
    await ctx.sync();
    const out = { sorted, reapplied: again.values.map((r) => r[0]), fields: fields.fields.map((f) => [f.key, f.ascending]) };
    t.delete();
    await ctx.sync();
    return out;
  });
  same("TableSort apply and reapply", { sorted: ["South", "North"], reapplied: ["b", "a"], fields: [[1, false]] }, seen);
}

async function filterAndDeleteRows(X: typeof Excel, sheet: SheetRef, user: ProbeUserSide): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    t.autoFilter.apply(t.getRange(), 0, { filterOn: "Values", values: ["North"] });
    const hidden = ws.getRange("A3").load("rowHidden");
    const f = t.autoFilter.load("isDataFiltered");
    await ctx.sync();
    const out: Record<string, unknown> = { hidden: hidden.rowHidden, filtered: f.isDataFiltered };
    if (user.platform === "OfficeOnline") {
      t.rows.deleteRows([0]);
      out.deleteWhileFiltered = await codeOf(ctx);
    }
    t.autoFilter.clearCriteria();
    const shown = ws.getRange("A3").load("rowHidden");
    await ctx.sync();
    out.shown = shown.rowHidden;
    t.delete();
    await ctx.sync();
    return out;
  });
  const web = user.platform === "OfficeOnline" ? { deleteWhileFiltered: "InsertDeleteConflict" } : {};
  same("a table's AutoFilter", { hidden: true, filtered: true, ...web, shown: false }, seen);
}

async function deleteAndConvert(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    t.convertToRange();
    const kept = ws.getRange("A1:B3").load("values");
    await ctx.sync();
    const again = ws.tables.add(ws.getRange("A1:B3"), true);
    again.delete();
    const gone = ws.getRange("A1:B3").load("values");
    const count = ws.tables.load("count");
    await ctx.sync();
    return { kept: kept.values, gone: gone.values, count: count.count };
  });
  same(
    "convertToRange, then delete",
    {
      kept: DATA,
      gone: [
        ["", ""],
        ["", ""],
        ["", ""],
      ],
      count: 0,
    },
    seen,
  );
}

async function wholeRowsAndColumns(X: typeof Excel, sheet: SheetRef): Promise<void> {
  const seen = await X.run(async (ctx) => {
    const { ws, t } = dataTable(ctx, sheet);
    ws.getRange("C1:C3").formulas = [["Plus"], ["=[@Amount]*2"], ["=[@Amount]*2"]];
    await ctx.sync();
    ws.getRange("1:2").insert("Down");
    ws.getRange("5:5").insert("Down");
    ws.getRange("A:A").delete("Left");
    const r = t.getRange().load("address");
    const cols = t.columns.load("items/name");
    const filled = ws.getRange("B5").load("formulas");
    await ctx.sync();
    const out = { range: cells(r.address), columns: cols.items.map((c) => c.name), filled: filled.formulas[0]![0] };
    t.delete();
    await ctx.sync();
    return out;
  });
  same(
    "whole rows inserted above and inside a table, a column deleted",
    { range: "A3:B6", columns: ["Amount", "Plus"], filled: "=[@Amount]*2" },
    seen,
  );
}

/** In the order the Diagnostics view runs them (after the probes of probes.ts). */
export const TABLE_PROBES: Array<[name: string, run: Probe]> = [
  ["tables.add with headers: default style, filter buttons, Column<n> for an empty header, Amount2 for a repeated one", addWithHeaders],
  ["tables.add with hasHeaders=false inserts a header row and pushes the data down", addWithoutHeaders],
  ["a table name must be unique and not look like a cell; a style must be built in", nameAndStyleRules],
  ["tables.add over another table, merged cells or a spill fails; a spill into a table is #SPILL!", conflicts],
  ["columns.add shifts columns inside the table; renaming a column rewrites structured references", columnsAndRenames],
  ["a calculated column fills rows the table gains by auto-expansion and rows.add, and computes [@Amount]+1", calculatedAndExpansion],
  ["Table.resize keeps the header row, overlaps the old range and moves no data", resizeRules],
  ["TableSort apply orders the rows; reapply sorts new values; fields read back", sortState],
  ["a table's AutoFilter hides rows; deleteRows fails while filtered (web); clearCriteria shows them", filterAndDeleteRows],
  ["convertToRange keeps the cells; Table.delete removes them", deleteAndConvert],
  [
    "whole rows inserted above a table move it, inside it grow it (calculated columns fill); a deleted column leaves it",
    wholeRowsAndColumns,
  ],
];
