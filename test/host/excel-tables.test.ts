// issue 33: the Office.js adapter's side of Excel tables, over dev/excel — what a snapshot reads of the
// workbook's tables, the tableColumns and table commands (create, Table.resize, the fallback without
// ExcelApi 1.13, reapply of the person's sort), anchored table commands, the joinsTable obstacle, and
// what each costs in syncs (docs/EXCEL-FIDELITY.md "The adapter's tables").
import type { DevExcelOptions } from "../../dev/excel/index.ts";
import type { Area, Command, SheetValue } from "../../src/host/port.ts";
import { adapterOnDevExcel } from "./dev-excel-driver.ts";

const DATA: SheetValue[][] = [
  ["Region", "Amount"],
  ["North", 10],
  ["South", 20],
];

function setup(options: DevExcelOptions = {}) {
  const { dx, port } = adapterOnDevExcel(options);
  const X = dx.Excel as unknown as typeof Excel;
  const wb = dx.workbook;
  const sheetId = wb.sheets[0]!.id;
  const at = (row: number, col: number, rows: number, cols: number): Area => ({ sheetId, row, col, rows, cols });
  /** Runs Excel API calls as the person would (sorting, filtering, typing a formula column). */
  const excel = (f: (ctx: Excel.RequestContext, ws: Excel.Worksheet) => void) =>
    X.run(async (ctx) => {
      f(ctx, ctx.workbook.worksheets.getItem(sheetId));
      await ctx.sync();
    });
  const table = (name: string) => wb.sheets[0]!.tables?.find((t) => t.name === name);
  return { dx, port, wb, sheetId, at, excel, table };
}

/** A report placed as table Sales over A1:B3 by a commit, then the person's formula column at its right (C: Tax). */
async function placed(options: DevExcelOptions = {}) {
  const s = setup(options);
  await s.port.commit([
    { kind: "write", at: s.at(0, 0, 1, 1), grid: DATA },
    { kind: "table", table: "Sales", area: s.at(0, 0, 3, 2), create: { style: "TableStyleLight9" } },
  ]);
  await s.excel((_ctx, ws) => {
    ws.getRange("C1").values = [["Tax"]]; // the column just right of the table joins it
    ws.getRange("C2").formulas = [["=[@Amount]*1.2"]]; // a formula in an empty column fills it
  });
  return s;
}

describe("issue 33: the Office.js adapter reads tables in its snapshot", () => {
  it("issue 33 item 1: snapshot({tables}) lists every table — range with header, columns, style, totals, sort, filter — in the syncs it takes anyway", async () => {
    const { port, wb, excel, sheetId } = await placed();
    await excel((ctx, ws) => {
      ws.getRange("F1:G4").values = [
        ["Id", "Name"],
        [3, "c"],
        [1, "a"],
        [2, "b"],
      ];
      const t = ws.tables.add("F1:G4", true);
      t.name = "People";
      t.style = "TableStyleDark3";
      t.sort.apply([{ key: 0, ascending: false }]);
      const sales = ctx.workbook.tables.getItem("Sales");
      sales.autoFilter.apply(sales.getRange(), 0, { filterOn: "Values" as Excel.FilterOn, values: ["North"] });
    });
    wb.resetStats();
    const without = await port.snapshot({ trackedValues: "all" });
    const plain = wb.stats.syncs;
    expect(without.tables).toBeUndefined();
    wb.resetStats();
    const snap = await port.snapshot({ trackedValues: "all", tables: true });
    expect(wb.stats.syncs).toBe(plain);
    expect(snap.tables).toEqual([
      {
        name: "Sales",
        area: { sheetId, row: 0, col: 0, rows: 3, cols: 3 },
        columns: ["Region", "Amount", "Tax"],
        style: "TableStyleLight9",
        totals: false,
        sort: [],
        filtered: true,
      },
      {
        name: "People",
        area: { sheetId, row: 0, col: 5, rows: 4, cols: 2 },
        columns: ["Id", "Name"],
        style: "TableStyleDark3",
        totals: false,
        sort: [{ column: 0, ascending: false }],
        filtered: false,
      },
    ]);
  });
});

describe("issue 33: the table command", () => {
  it("issue 33 item 2: create names and styles the table with filter buttons; resize larger and smaller keeps name, style and the person's formula column on exactly the table's rows", async () => {
    const { port, wb, at, table, sheetId } = await placed();
    expect(table("Sales")).toMatchObject({ style: "TableStyleLight9", showFilterButton: true, rect: { row: 0, col: 0, rows: 3, cols: 3 } });
    // More rows: the cells first (in one write from the first data row: no auto-expansion), then the resize.
    const grown = [
      ["North", 10],
      ["South", 20],
      ["East", 30],
      ["West", 40],
    ];
    await port.commit([
      { kind: "write", at: at(1, 0, 1, 1), grid: grown },
      { kind: "table", table: "Sales", area: at(0, 0, 5, 3) },
    ]);
    expect(table("Sales")).toMatchObject({ name: "Sales", style: "TableStyleLight9", rect: { row: 0, col: 0, rows: 5, cols: 3 } });
    let cells = wb.inspect(sheetId, "C1:C7");
    expect(cells.formulas.slice(1, 5)).toEqual(Array.from({ length: 4 }, () => ["=[@Amount]*1.2"]));
    expect(cells.values.slice(1, 5)).toEqual([[12], [24], [36], [48]]);
    expect(cells.formulas.slice(5)).toEqual([[""], [""]]);
    // Fewer rows: the rows the table loses are cleared first (the formula column with them), then the resize.
    await port.commit([
      { kind: "write", at: at(1, 0, 1, 1), grid: [["Mid", 5]] },
      { kind: "clear", area: at(2, 0, 3, 3) },
      { kind: "table", table: "Sales", area: at(0, 0, 2, 3) },
    ]);
    expect(table("Sales")).toMatchObject({ name: "Sales", style: "TableStyleLight9", rect: { row: 0, col: 0, rows: 2, cols: 3 } });
    cells = wb.inspect(sheetId, "A1:C5");
    expect(cells.formulas.map((r) => r[2])).toEqual(["Tax", "=[@Amount]*1.2", "", "", ""]);
    expect(cells.values[1]).toEqual(["Mid", 5, 6]);
  });

  it("issue 33 item 2: a table command on a table that does not exist (without create) fails, and the commands before it stay applied", async () => {
    const { port, wb, at, sheetId } = setup();
    await expect(
      port.commit([
        { kind: "write", at: at(0, 0, 1, 1), grid: DATA },
        { kind: "table", table: "Nope", area: at(0, 0, 3, 2) },
      ]),
    ).rejects.toThrow();
    expect(wb.inspect(sheetId, "A1:B3").values).toEqual(DATA);
  });

  it("issue 33 item 2: reapply sorts and filters the new values again as the person did, in the write's own sync", async () => {
    const { port, wb, at, excel, sheetId, table } = await placed();
    await excel((ctx) => {
      const t = ctx.workbook.tables.getItem("Sales");
      t.sort.apply([{ key: 1, ascending: false }]);
      t.autoFilter.apply(t.getRange(), 0, { filterOn: "Values" as Excel.FilterOn, values: ["B"] });
    });
    expect(table("Sales")!.filter!.hidden).toEqual([1, 2]); // North and South are not "B"
    const snap = await port.snapshot({ tables: true });
    const rows = [
      ["A", 1],
      ["B", 3],
    ];
    wb.resetStats();
    const alone = await port.commit([{ kind: "write", at: at(1, 0, 1, 1), grid: rows }], { basis: snap });
    wb.resetStats();
    const stats = await port.commit(
      [
        { kind: "write", at: at(1, 0, 1, 1), grid: rows },
        { kind: "table", table: "Sales", area: at(0, 0, 3, 3), reapply: true },
      ],
      { basis: snap },
    );
    expect(stats.syncs).toBe(alone.syncs);
    expect(wb.stats.syncs).toBe(1);
    expect(wb.inspect(sheetId, "A2:C3").values).toEqual([
      ["B", 3, 3.6],
      ["A", 1, 1.2],
    ]);
    expect(table("Sales")!.filter!.hidden).toEqual([2]); // the filter applied again: only "A" is hidden
  });

  it("issue 33 item 2: reapply without a snapshot that read the tables looks their sort and filter up first", async () => {
    const { port, wb, at, excel, sheetId } = await placed();
    await excel((ctx) => ctx.workbook.tables.getItem("Sales").sort.apply([{ key: 0, ascending: true }]));
    wb.resetStats();
    const stats = await port.commit([
      {
        kind: "write",
        at: at(1, 0, 1, 1),
        grid: [
          ["Z", 1],
          ["Y", 2],
        ],
      },
      { kind: "table", table: "Sales", area: at(0, 0, 3, 3), reapply: true },
    ]);
    expect(stats.syncs).toBe(3); // the tables' names; their sort and filter; the commit
    expect(wb.stats.syncs).toBe(3);
    expect(wb.inspect(sheetId, "A2:A3").values).toEqual([["Y"], ["Z"]]);
  });

  it("issue 33 item 2: an anchored table command lands where the placement is after rows were inserted above it", async () => {
    const { port, wb, at, table, sheetId } = await placed();
    await port.commit([{ kind: "track", name: "R1", area: at(0, 0, 3, 3) }]);
    const snap = await port.snapshot({ tables: true });
    wb.insertRows(sheetId, 0, 2); // the person inserts two rows above while the query runs
    const anchor = { name: "R1", area: at(0, 0, 3, 3) };
    await port.commit(
      [
        {
          kind: "write",
          at: at(1, 0, 1, 1),
          grid: [
            ["N", 1],
            ["S", 2],
            ["E", 3],
          ],
          anchor,
        },
        { kind: "table", table: "Sales", area: at(0, 0, 4, 3), anchor },
      ],
      { basis: snap },
    );
    expect(table("Sales")!.rect).toEqual({ row: 2, col: 0, rows: 4, cols: 3 });
    expect(wb.inspect(sheetId, "A3:C6").values).toEqual([
      ["Region", "Amount", "Tax"],
      ["N", 1, 1.2],
      ["S", 2, 2.4],
      ["E", 3, 3.6],
    ]);
  });

  it("issue 33 item 2: without ExcelApi 1.13 (no Table.resize) rows are added and deleted: name, style and the formula column kept", async () => {
    const { port, wb, at, table, sheetId } = await placed({ apiVersion: "1.12" });
    const snap = await port.snapshot({ tables: true });
    const grown = [
      ["North", 10],
      ["South", 20],
      ["East", 30],
      ["West", 40],
    ];
    wb.resetStats();
    const stats = await port.commit(
      [
        { kind: "write", at: at(1, 0, 1, 1), grid: grown },
        { kind: "table", table: "Sales", area: at(0, 0, 5, 3) },
      ],
      { basis: snap },
    );
    expect(stats.syncs).toBe(3); // the write; where the table is now; the rows added
    expect(table("Sales")).toMatchObject({ name: "Sales", style: "TableStyleLight9", rect: { row: 0, col: 0, rows: 5, cols: 3 } });
    let cells = wb.inspect(sheetId, "A1:C8");
    expect(cells.values.slice(1, 5)).toEqual([
      ["North", 10, 12],
      ["South", 20, 24],
      ["East", 30, 36],
      ["West", 40, 48],
    ]);
    expect(cells.formulas.slice(1, 5).map((r) => r[2])).toEqual(Array.from({ length: 4 }, () => "=[@Amount]*1.2"));
    expect(cells.formulas.slice(5)).toEqual(Array.from({ length: 3 }, () => ["", "", ""]));
    // Fewer rows, without a snapshot: the trailing table rows go.
    await port.commit([
      { kind: "write", at: at(1, 0, 1, 1), grid: [["Mid", 5]] },
      { kind: "clear", area: at(2, 0, 3, 3) },
      { kind: "table", table: "Sales", area: at(0, 0, 2, 3) },
    ]);
    expect(table("Sales")).toMatchObject({ name: "Sales", style: "TableStyleLight9", rect: { row: 0, col: 0, rows: 2, cols: 3 } });
    cells = wb.inspect(sheetId, "A1:C5");
    expect(cells.formulas.map((r) => r[2])).toEqual(["Tax", "=[@Amount]*1.2", "", "", ""]);
    expect(cells.values[1]).toEqual(["Mid", 5, 6]);
  });
});

describe("issue 33: the tableColumns command", () => {
  it("issue 33 item 2: insert, rename and delete table columns: the person's formula column moves with them and its reference follows the rename", async () => {
    const { port, wb, at, table, sheetId } = await placed();
    const edits: Command[] = [
      { kind: "tableColumns", table: "Sales", edits: [{ op: "insert", index: 1, name: "Units" }] },
      { kind: "write", at: at(1, 1, 1, 1), grid: [[7], [8]] },
    ];
    await port.commit(edits);
    expect(table("Sales")!.rect).toEqual({ row: 0, col: 0, rows: 3, cols: 4 });
    let cells = wb.inspect(sheetId, "A1:D3");
    expect(cells.values[0]).toEqual(["Region", "Units", "Amount", "Tax"]);
    expect(cells.formulas[1]![3]).toBe("=[@Amount]*1.2");
    expect(cells.values[2]).toEqual(["South", 8, 20, 24]);
    await port.commit([
      {
        kind: "tableColumns",
        table: "Sales",
        edits: [
          { op: "rename", index: 2, name: "Total" },
          { op: "delete", index: 1 },
        ],
      },
    ]);
    expect(table("Sales")!.rect).toEqual({ row: 0, col: 0, rows: 3, cols: 3 });
    cells = wb.inspect(sheetId, "A1:D3");
    expect(cells.values[0]).toEqual(["Region", "Total", "Tax", ""]);
    expect(cells.formulas.slice(1).map((r) => r[2])).toEqual(["=[@Total]*1.2", "=[@Total]*1.2"]);
    expect(cells.values[2]).toEqual(["South", 20, 24, ""]);
  });
});

describe("issue 33: the joinsTable obstacle", () => {
  it("issue 33 item 3: a table ending just above or just left of an area joins it (name and range); overlapping ones stay kind table", async () => {
    const { port, at } = await placed();
    expect(await port.obstacles(at(3, 0, 2, 2))).toEqual([{ kind: "joinsTable", address: "A1:C3", name: "Sales" }]);
    expect(await port.obstacles(at(1, 3, 2, 2))).toEqual([{ kind: "joinsTable", address: "A1:C3", name: "Sales" }]);
    expect(await port.obstacles(at(4, 0, 2, 2))).toEqual([]); // a row between
    expect(await port.obstacles(at(3, 4, 2, 2))).toEqual([]); // diagonal
    expect(await port.obstacles(at(2, 0, 3, 2))).toEqual([{ kind: "table", address: "", name: "Sales" }]);
  });

  it("issue 33 item 3: the snapshot's write checks report joinsTable in the syncs they take anyway", async () => {
    const { port, wb, at } = await placed();
    wb.resetStats();
    await port.snapshot({ areas: [at(10, 0, 2, 2)], writeChecks: true });
    const plain = wb.stats.syncs;
    wb.resetStats();
    const snap = await port.snapshot({ areas: [at(3, 0, 2, 2)], usedIn: [at(0, 3, 3, 1)], writeChecks: true });
    expect(wb.stats.syncs).toBe(plain);
    expect(snap.obstacles).toEqual([
      { area: at(3, 0, 2, 2), found: [{ kind: "joinsTable", address: "A1:C3", name: "Sales" }] },
      { area: at(0, 3, 3, 1), found: [{ kind: "joinsTable", address: "A1:C3", name: "Sales" }] },
    ]);
  });
});

describe("issue 33: a chart over the table follows the table command", () => {
  for (const apiVersion of ["1.20", "1.12"])
    it(`issue 33: a chart over the table's columns reads exactly the table's rows after a grow and a shrink (ExcelApi ${apiVersion})`, async () => {
      const { port, wb, at, excel } = await placed({ apiVersion });
      await excel((ctx, ws) => {
        ws.charts.add(
          "ColumnClustered" as Excel.ChartType,
          ctx.workbook.tables.getItem("Sales").getRange(),
          "Columns" as Excel.ChartSeriesBy,
        );
      });
      const series = () => wb.sheets[0]!.charts![0]!.series.map((s) => ({ name: s.name, values: s.values, categories: s.categories }));
      const rows = (n: number) => ({ row: 1, rows: n });
      const grown = [
        ["North", 10],
        ["South", 20],
        ["East", 30],
        ["West", 40],
      ];
      await port.commit([
        { kind: "write", at: at(1, 0, 1, 1), grid: grown },
        { kind: "table", table: "Sales", area: at(0, 0, 5, 3) },
      ]);
      expect(series()).toEqual([
        { name: "Amount", values: { ...rows(4), col: 1, cols: 1 }, categories: { ...rows(4), col: 0, cols: 1 } },
        { name: "Tax", values: { ...rows(4), col: 2, cols: 1 }, categories: { ...rows(4), col: 0, cols: 1 } },
      ]);
      await port.commit([
        { kind: "write", at: at(1, 0, 1, 1), grid: [["Mid", 5]] },
        { kind: "clear", area: at(2, 0, 3, 3) },
        { kind: "table", table: "Sales", area: at(0, 0, 2, 3) },
      ]);
      expect(series().map((s) => s.values)).toEqual([
        { ...rows(1), col: 1, cols: 1 },
        { ...rows(1), col: 2, cols: 1 },
      ]);
    });
});
