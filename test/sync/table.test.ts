// Issue 33: the pure part of table placements (src/sync/table.ts) — names, column edits, the table found again,
// a sorted table read back in the order written.
import { describe, expect, it } from "vitest";
import type { TableRead } from "../../src/host/port.ts";
import { rowPrints } from "../../src/sync/rows.ts";
import { columnEdits, planTable, tableNameFor, unsorted } from "../../src/sync/table.ts";
import { isExcelName } from "../../src/host/names.ts";

describe("issue 33: table names after the report", () => {
  it.each([
    ["Revenue by region", [], "Revenue_by_region"],
    ["Revenue by region", ["revenue_by_region"], "Revenue_by_region_2"],
    ["Revenue by region", ["Revenue_by_region", "Revenue_by_region_2"], "Revenue_by_region_3"],
    ["2024 sales (EUR)", [], "Report_2024_sales_EUR"],
    ["A1", [], "A1_"],
    ["R2C3", [], "R2C3_"],
    ["  —  ", [], "Report_"],
    ["Umsätze München", [], "Umsätze_München"],
  ])("%j (taken %j) → %s, a name Excel accepts", (report, taken, name) => {
    const got = tableNameFor(report, taken);
    expect(got).toBe(name);
    expect(isExcelName(got)).toBe(true);
  });
  it("a long report name is cut to 60 characters; null reads Report", () => {
    expect(tableNameFor("x".repeat(300), []).length).toBe(60);
    expect(tableNameFor(null, [])).toBe("Report");
  });
});

describe("issue 33: column edits keep the person's columns beside the report's", () => {
  it("a column dropped is deleted, one added is inserted at its place, a changed title is a rename", () => {
    expect(columnEdits(["a", "b", "c"], ["a", "c"], ["A", "C"], ["A", "B", "C", "Tax"])).toEqual([{ op: "delete", index: 1 }]);
    expect(columnEdits(["a", "c"], ["a", "b", "c"], ["A", "B", "C"], ["A", "C", "Tax"])).toEqual([{ op: "insert", index: 1, name: "B" }]);
    expect(columnEdits(["a", "b"], ["a", "b"], ["A", "Revenue"], ["A", "Amount", "Tax"])).toEqual([
      { op: "rename", index: 1, name: "Revenue" },
    ]);
    expect(columnEdits(["a", "b"], ["a", "b"], ["A", "B"], ["A", "B", "Tax"])).toEqual([]);
    // Dropped and added at once: deletes right to left first, then inserts at their new index.
    expect(columnEdits(["a", "b", "c", "d"], ["a", "x", "d", "y"], ["A", "X", "D", "Y"], ["A", "B", "C", "D", "Tax"])).toEqual([
      { op: "delete", index: 2 },
      { op: "delete", index: 1 },
      { op: "insert", index: 1, name: "X" },
      { op: "insert", index: 3, name: "Y" },
    ]);
  });
});

describe("issue 33: the placement's table in a snapshot", () => {
  const table = (over: Partial<TableRead> = {}): TableRead => ({
    name: "Sales",
    area: { sheetId: "s", row: 4, col: 1, rows: 5, cols: 3 },
    columns: ["Region", "Amount", "Tax"],
    style: "TableStyleMedium2",
    totals: false,
    sort: [],
    filtered: false,
    ...over,
  });
  const layout = { cells: [["Region", "Amount"]], columnKeys: ["r", "a"] };
  const anchor = { sheetId: "s", row: 4, col: 1 };
  it("found by name, else by its header row (renamed by the person: the record takes the new name); gone; moved", () => {
    expect(planTable({ name: "Sales", columns: ["r", "a"] }, [table()], anchor, layout)).toMatchObject({
      name: "Sales",
      extra: 1,
      edits: [],
      reapply: false,
    });
    expect(planTable({ name: "Sales", columns: ["r", "a"] }, [table({ name: "MySales" })], anchor, layout)).toMatchObject({
      name: "MySales",
      record: { name: "MySales", columns: ["r", "a"] },
    });
    expect(planTable({ name: "Sales", columns: ["r", "a"] }, [], anchor, layout)).toBe("gone");
    expect(
      planTable({ name: "Sales", columns: ["r", "a"] }, [table()], anchor, { ...layout, summaryRows: 2, cells: [[], [], ...layout.cells] }),
    ).toBe("moved");
    expect(planTable(undefined, [table()], anchor, layout)).toBeNull();
    expect(
      planTable({ name: "Sales", columns: ["r", "a"] }, [table({ sort: [{ column: 1, ascending: false }] })], anchor, layout),
    ).toMatchObject({
      reapply: true,
    });
  });
  it("an earlier refresh that edited the columns and stopped before its record is not edited again", () => {
    const now = { cells: [["Region", "Units", "Amount"]], columnKeys: ["r", "u", "a"] };
    const was = { name: "Sales", columns: ["r", "a"] };
    expect(planTable(was, [table()], anchor, now)).toMatchObject({ edits: [{ op: "insert", index: 1, name: "Units" }], extra: 1 });
    const done = table({ area: { sheetId: "s", row: 4, col: 1, rows: 5, cols: 4 }, columns: ["Region", "Units", "Amount", "Tax"] });
    expect(planTable(was, [done], anchor, now)).toMatchObject({ edits: [], extra: 1 });
  });
});

describe("issue 33: a sorted table read back in the order written", () => {
  const grid = [
    ["Name", "Amount"],
    ["a", 1],
    ["b", 2],
    ["c", 3],
  ];
  it("the same rows in another order come back in the order written; edits, other rows and no prints are not a reordering", async () => {
    const prints = await rowPrints(grid);
    const sorted = [grid[0]!, grid[3]!, grid[1]!, grid[2]!];
    expect(await unsorted(sorted, prints, { rows: 4, cols: 2 }, 1)).toEqual(grid);
    expect(await unsorted(grid, prints, { rows: 4, cols: 2 }, 1)).toBeNull(); // nothing moved
    expect(await unsorted([grid[0]!, grid[3]!, ["a", 9], grid[2]!], prints, { rows: 4, cols: 2 }, 1)).toBeNull(); // edited
    expect(await unsorted([["Nom", "Amount"], grid[3]!, grid[1]!, grid[2]!], prints, { rows: 4, cols: 2 }, 1)).toBeNull(); // header
    expect(await unsorted(sorted, null, { rows: 4, cols: 2 }, 1)).toBeNull();
  });
});
