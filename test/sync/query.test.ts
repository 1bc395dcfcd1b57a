// The totals-query builder: group by a subset, measure filters dropped, dimension filters kept.
import { describe, expect, it } from "vitest";
import { totalsQuery, parseJsonQuery, type SemanticQuery } from "../../src/sync/query.ts";

const base: SemanticQuery = {
  measures: ["orders.count", "orders.avg_amount"],
  dimensions: ["orders.status", "customers.region"],
  timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: ["2024-01-01", "2024-12-31"] }],
  filters: [
    { member: "orders.status", operator: "notEquals", values: ["test"] },
    { member: "orders.count", operator: "gt", values: ["10"] },
    {
      or: [
        { member: "customers.region", operator: "equals", values: ["EU"] },
        { member: "orders.avg_amount", operator: "lt", values: ["3"] },
      ],
    },
    { and: [{ member: "customers.region", operator: "set" }] },
  ],
  order: [
    ["orders.status", "asc"],
    ["customers.region", "desc"],
    ["orders.count", "desc"],
  ],
  limit: 100,
  offset: 10,
  total: true,
};

describe("totalsQuery", () => {
  it("groups by the kept dimensions, keeps dimension filters, drops measure filters and paging", () => {
    const q = totalsQuery(base, ["orders.status"]);
    expect(q.dimensions).toEqual(["orders.status"]);
    expect(q.measures).toEqual(["orders.count", "orders.avg_amount"]);
    expect(q.timeDimensions).toEqual([{ dimension: "orders.created_at", dateRange: ["2024-01-01", "2024-12-31"] }]);
    expect(q.filters).toEqual([
      { member: "orders.status", operator: "notEquals", values: ["test"] },
      { and: [{ member: "customers.region", operator: "set" }] },
    ]);
    expect(q.order).toEqual([
      ["orders.status", "asc"],
      ["orders.count", "desc"],
    ]);
    expect(q.limit).toBeUndefined();
    expect(q.offset).toBeUndefined();
    expect(q.total).toBeUndefined();
  });

  it("keeps a grouped time dimension with its granularity; the grand total has no dimensions", () => {
    expect(totalsQuery(base, ["orders.created_at.month"]).timeDimensions).toEqual([base.timeDimensions![0]]);
    const g = totalsQuery(base, []);
    expect(g.dimensions).toEqual([]);
    expect(g.order).toEqual([["orders.count", "desc"]]);
  });

  it("keeps the normalized {id, desc} order form too", () => {
    const q = totalsQuery(
      {
        ...base,
        order: [
          { id: "customers.region", desc: true },
          { id: "orders.count", desc: false },
        ],
      },
      [],
    );
    expect(q.order).toEqual([{ id: "orders.count", desc: false }]);
  });

  it("treats members known as measures from metadata as measures", () => {
    const q = totalsQuery(
      { ...base, filters: [{ member: "orders.max_amount", operator: "gt", values: ["1"] }] },
      [],
      new Set(["orders.max_amount"]),
    );
    expect(q.filters).toEqual([]);
  });
});

describe("parseJsonQuery", () => {
  it("rejects malformed queries with a clear message", () => {
    expect(() => parseJsonQuery("{")).toThrow(/not valid JSON/);
    expect(() => parseJsonQuery("[]")).toThrow(/JSON object/);
    expect(() => parseJsonQuery('{"measures": "x"}')).toThrow(/measures must be an array/);
    expect(parseJsonQuery('{"measures": ["a"]}').measures).toEqual(["a"]);
  });
});
