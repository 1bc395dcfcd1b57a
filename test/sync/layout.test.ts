// Golden tests of the layout: flat table, pivot (both measure axes, both positions, totals,
// display scale) and the filter summary. Expected grids are written out by hand.
import { describe, expect, it } from "vitest";
import type { ResultColumn, TypedResult } from "../../src/checksum/types.ts";
import { layout, timeLabel } from "../../src/sync/layout.ts";
import { showAppliedFilters } from "../../src/sync/filters.ts";

const status: ResultColumn = { key: "orders.status", title: "Orders Status", shortTitle: "Status", type: "string", kind: "dimension" };
const region: ResultColumn = {
  key: "customers.region",
  title: "Customers Region",
  shortTitle: "Region",
  type: "string",
  kind: "dimension",
};
const month: ResultColumn = {
  key: "orders.created_at.month",
  title: "Orders Created at",
  shortTitle: "Created at",
  type: "time",
  kind: "timeDimension",
  granularity: "month",
};
const count: ResultColumn = { key: "orders.count", title: "Orders Count", shortTitle: "Count", type: "number", kind: "measure" };
const avg: ResultColumn = { key: "orders.avg_amount", title: "Orders Avg Amount", shortTitle: "Avg", type: "number", kind: "measure" };

const result = (columns: ResultColumn[], rows: TypedResult["rows"]): TypedResult => ({ columns, rows, total: null, timezone: "UTC" });

// A 2 × 2 pivot source: status × region with count and avg.
const main = result(
  [status, region, count, avg],
  [
    ["shipped", "EU", 10, 5],
    ["shipped", "US", 20, 7],
    ["cancelled", "EU", 1, 2],
    ["cancelled", "US", 3, 4],
  ],
);
// Totals from separate queries: averages are NOT the average of averages.
const byRows = result(
  [status, count, avg],
  [
    ["shipped", 30, 6.5],
    ["cancelled", 4, 3.1],
  ],
);
const byColumns = result(
  [region, count, avg],
  [
    ["EU", 11, 4.9],
    ["US", 23, 6.6],
  ],
);
const grand = result([count, avg], [[34, 6.2]]);
const totals = { byRows, byColumns, grand };

describe("flat table", () => {
  it("writes a header row of annotation titles and typed cells with column formats", () => {
    const l = layout({
      result: result(
        [month, status, count],
        [
          ["2024-01-01T00:00:00.000", "shipped", 12],
          ["2024-02-01T00:00:00.000", null, null],
        ],
      ),
    });
    expect(l.cells).toEqual([
      ["Orders Created at", "Orders Status", "Orders Count"],
      [45292, "shipped", 12],
      [45323, "", ""],
    ]);
    expect(l.columnFormats).toEqual(["mmm yyyy", null, "#,##0"]);
    expect(l.headerRows).toBe(1);
  });

  it("keeps ids beyond 15 digits as text and never turns text into a formula-shaped value", () => {
    const id: ResultColumn = { key: "orders.id", title: "Id", shortTitle: "Id", type: "number", kind: "dimension" };
    const l = layout({ result: result([id, status], [["1234567890123456789", "=1+1"]]) });
    expect(l.cells[1]).toEqual(["1234567890123456789", "=1+1"]);
  });

  it("applies displayScale to measures only, and says so in the title", () => {
    const l = layout({
      result: result([status, count], [["shipped", 2_500_000]]),
      pivot: { rows: ["orders.status"], measures: ["orders.count"], columns: [], displayScale: "millions" },
    });
    expect(l.cells).toEqual([
      ["Orders Status", "Orders Count (in millions)"],
      ["shipped", 2.5],
    ]);
  });
});

describe("pivot, measures on columns", () => {
  it("measures after the column tuples, with row and column totals from the totals queries", () => {
    const l = layout({
      result: main,
      totals,
      pivot: {
        rows: ["orders.status"],
        columns: ["customers.region"],
        measures: ["orders.count", "orders.avg_amount"],
        measuresAxis: "columns",
        measuresPosition: "after",
        showRowTotals: true,
        showColumnTotals: true,
      },
    });
    expect(l.cells).toEqual([
      ["", "EU", "EU", "US", "US", "Total", "Total"],
      ["Orders Status", "Orders Count", "Orders Avg Amount", "Orders Count", "Orders Avg Amount", "Orders Count", "Orders Avg Amount"],
      ["shipped", 10, 5, 20, 7, 30, 6.5],
      ["cancelled", 1, 2, 3, 4, 4, 3.1],
      ["Total", 11, 4.9, 23, 6.6, 34, 6.2],
    ]);
    expect(l.headerRows).toBe(2);
  });

  it("measures before: the measure is the outer header level", () => {
    const l = layout({
      result: main,
      totals,
      pivot: {
        rows: ["orders.status"],
        columns: ["customers.region"],
        measures: ["orders.count", "orders.avg_amount"],
        measuresPosition: "before",
      },
    });
    expect(l.cells).toEqual([
      ["", "Orders Count", "Orders Count", "Orders Avg Amount", "Orders Avg Amount"],
      ["Orders Status", "EU", "US", "EU", "US"],
      ["shipped", 10, 20, 5, 7],
      ["cancelled", 1, 3, 2, 4],
    ]);
  });

  it("showRowTotals is ignored without a Columns zone", () => {
    const flatish = result(
      [status, count],
      [
        ["shipped", 30],
        ["cancelled", 4],
      ],
    );
    const l = layout({
      result: flatish,
      totals: { byColumns: result([count], [[34]]) },
      pivot: { rows: ["orders.status"], columns: [], measures: ["orders.count"], showRowTotals: true, showColumnTotals: true },
    });
    expect(l.cells).toEqual([
      ["Orders Status", "Orders Count"],
      ["shipped", 30],
      ["cancelled", 4],
      ["Total", 34],
    ]);
  });

  it("a missing combination is an empty cell, not zero", () => {
    const sparse = result(
      [status, region, count],
      [
        ["shipped", "EU", 1],
        ["cancelled", "US", 2],
      ],
    );
    const l = layout({ result: sparse, pivot: { rows: ["orders.status"], columns: ["customers.region"], measures: ["orders.count"] } });
    expect(l.cells.slice(2)).toEqual([
      ["shipped", 1, ""],
      ["cancelled", "", 2],
    ]);
  });
});

describe("pivot, measures on rows", () => {
  it("after: one row per (row tuple, measure); column totals per measure", () => {
    const l = layout({
      result: main,
      totals,
      pivot: {
        rows: ["orders.status"],
        columns: ["customers.region"],
        measures: ["orders.count", "orders.avg_amount"],
        measuresAxis: "rows",
        measuresPosition: "after",
        showRowTotals: true,
        showColumnTotals: true,
      },
    });
    expect(l.cells).toEqual([
      ["Orders Status", "Measure", "EU", "US", "Total"],
      ["shipped", "Orders Count", 10, 20, 30],
      ["shipped", "Orders Avg Amount", 5, 7, 6.5],
      ["cancelled", "Orders Count", 1, 3, 4],
      ["cancelled", "Orders Avg Amount", 2, 4, 3.1],
      ["Total", "Orders Count", 11, 23, 34],
      ["Total", "Orders Avg Amount", 4.9, 6.6, 6.2],
    ]);
  });

  it("before: measures group the rows", () => {
    const l = layout({
      result: main,
      pivot: {
        rows: ["orders.status"],
        columns: ["customers.region"],
        measures: ["orders.count", "orders.avg_amount"],
        measuresAxis: "rows",
        measuresPosition: "before",
      },
    });
    expect(l.cells).toEqual([
      ["Measure", "Orders Status", "EU", "US"],
      ["Orders Count", "shipped", 10, 20],
      ["Orders Count", "cancelled", 1, 3],
      ["Orders Avg Amount", "shipped", 5, 7],
      ["Orders Avg Amount", "cancelled", 2, 4],
    ]);
  });

  it("time dimensions across the columns are labelled by granularity; display scale divides values", () => {
    const r = result(
      [status, month, count],
      [
        ["shipped", "2024-01-01T00:00:00.000", 1500],
        ["shipped", "2024-02-01T00:00:00.000", 2500],
      ],
    );
    const l = layout({
      result: r,
      pivot: {
        rows: ["orders.status"],
        columns: ["orders.created_at"],
        measures: ["orders.count"],
        measuresAxis: "rows",
        displayScale: "thousands",
      },
    });
    expect(l.cells).toEqual([
      ["Orders Status", "Measure", "2024-01", "2024-02"],
      ["shipped", "Orders Count (in thousands)", 1.5, 2.5],
    ]);
  });
});

describe("filter summary", () => {
  it("sits above the table with a blank separator row, padded to the table width", () => {
    const l = layout({
      result: result([status, count], [["shipped", 1]]),
      filterSummary: {
        query: {
          filters: [
            { member: "orders.status", operator: "equals", values: ["shipped", "returned"] },
            {
              or: [
                { member: "orders.count", operator: "gt", values: ["5"] },
                { member: "orders.status", operator: "set" },
              ],
            },
          ],
          timeDimensions: [{ dimension: "orders.created_at", dateRange: ["2024-01-01", "2024-12-31"] }],
        },
        titles: new Map([["orders.status", "Status"]]),
      },
    });
    expect(l.cells).toEqual([
      ["Applied filter: Status is shipped, returned", ""],
      ["Applied filter: (orders.count > 5 or Status is set)", ""],
      ["Applied filter: orders.created_at is in 2024-01-01 – 2024-12-31", ""],
      ["", ""],
      ["Orders Status", "Orders Count"],
      ["shipped", 1],
    ]);
    expect(l.headerRows).toBe(5);
  });

  it("the per-report value wins, then the user, then the account setting", () => {
    expect(showAppliedFilters({ report: false, user: true, account: true })).toBe(false);
    expect(showAppliedFilters({ report: null, user: true, account: false })).toBe(true);
    expect(showAppliedFilters({ user: undefined, account: true })).toBe(true);
    expect(showAppliedFilters({})).toBe(false);
  });
});

describe("errors", () => {
  it("names a pivot member that is not in the result", () => {
    expect(() =>
      layout({ result: main, pivot: { rows: ["orders.nope"], columns: ["customers.region"], measures: ["orders.count"] } }),
    ).toThrow(/orders\.nope/);
  });
  it("time labels", () => {
    expect(timeLabel("2024-05-01T00:00:00.000", "quarter")).toBe("2024-Q2");
    expect(timeLabel("2024-05-03T13:00:00.000", "hour")).toBe("2024-05-03 13");
  });
});
