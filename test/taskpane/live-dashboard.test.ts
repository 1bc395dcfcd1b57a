// The drilled query of "Place this drilldown": the widget's query narrowed to the drilled point.
import { describe, expect, it } from "vitest";
import { drilledQuery } from "../../src/taskpane/dashboard/live";

describe("drilledQuery", () => {
  it("a category point becomes an equals filter on its dimension, measured by the drilled measure", () => {
    const w = {
      id: "w",
      title: "Orders by status",
      chart: "bar",
      query: { measures: ["orders.count", "orders.total_amount"], dimensions: ["orders.status"] },
    };
    expect(drilledQuery(w, { member: "orders.count", value: { "orders.status": "cancelled" } })).toEqual({
      measures: ["orders.count"],
      dimensions: ["orders.status"],
      timeDimensions: [],
      order: [],
      filters: [{ member: "orders.status", operator: "equals", values: ["cancelled"] }],
    });
  });

  it("a month bucket becomes that month's date range by day; the widget's own query is not changed", () => {
    const q = {
      measures: ["orders.total_amount"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2025-01-01", "2025-12-31"] }],
    };
    const w = { id: "w", title: "Revenue by month", chart: "line", query: q };
    const d = drilledQuery(w, { member: "orders.total_amount", value: { "orders.created_at.month": "2025-02-01T00:00:00.000" } });
    expect(d.timeDimensions).toEqual([{ dimension: "orders.created_at", granularity: "day", dateRange: ["2025-02-01", "2025-02-28"] }]);
    expect(d.filters).toEqual([]);
    expect(q.timeDimensions[0]!.granularity).toBe("month");
  });

  it("no point (a drilldown without value) keeps the widget's query", () => {
    const w = { id: "w", title: "t", chart: "bar", query: { measures: ["orders.count"], dimensions: ["orders.status"] } };
    expect(drilledQuery(w, { member: "orders.count", value: null }).filters).toEqual([]);
  });
});
