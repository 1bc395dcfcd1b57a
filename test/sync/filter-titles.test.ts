// Filter-summary titles for members the result's annotation does not carry (issue 17, finding 9):
// taken from /v1/meta, asked only when the summary needs one, and never a reason to fail a
// placement. Against real Cube: test/cube/cube.test.ts.
import { describe, expect, it } from "vitest";
import type { FetchedLoad, LoadResult, MetaResponse } from "../../src/api/index.ts";
import { untitledSummaryMembers } from "../../src/sync/filters.ts";
import { prepareReport, runReport } from "../../src/sync/run-report.ts";
import type { SemanticQuery } from "../../src/sync/query.ts";

const answer: LoadResult = {
  columns: [
    { key: "orders.status", title: "Orders Status", shortTitle: "Status", type: "string", kind: "dimension" },
    { key: "orders.count", title: "Orders Count", shortTitle: "Count", type: "number", kind: "measure" },
  ],
  rows: [["shipped", 3]],
  total: null,
  timezone: "UTC",
  query: {
    measures: ["orders.count"],
    dimensions: ["orders.status"],
    timeDimensions: [],
    filters: [],
    order: [],
    limit: 50_000,
    rowLimit: 50_000,
    timezone: "UTC",
  },
  lastRefreshTime: null,
};
const meta: MetaResponse = {
  cubes: [
    {
      name: "orders",
      title: "Orders",
      segments: [],
      measures: [{ name: "orders.count", title: "Orders Count", shortTitle: "Count", type: "number" }],
      dimensions: [
        { name: "orders.created_at", title: "Orders Created At", shortTitle: "Created At", type: "time" },
        { name: "orders.region", title: "Orders Region", shortTitle: "Region", type: "string" },
      ],
    },
  ],
};

function data(o: { metaFails?: boolean } = {}) {
  let metaCalls = 0;
  return {
    metaCalls: () => metaCalls,
    fetchLoad: async (): Promise<FetchedLoad> => ({ source: "s", rows: 1, query: answer.query, result: () => answer }),
    fetchSql: async () => {
      throw new Error("no SQL here");
    },
    meta: async () => {
      metaCalls++;
      if (o.metaFails) throw new Error("meta is down");
      return meta;
    },
  };
}

const report = (query: object, show = true) => ({
  jsonQuery: JSON.stringify(query),
  pivotItems: { rows: [], columns: [], measures: [], filters: [], showAppliedFilters: show },
});
const dated: SemanticQuery = {
  measures: ["orders.count"],
  dimensions: ["orders.status"],
  timeDimensions: [{ dimension: "orders.created_at", dateRange: ["2024-01-01", "2024-03-31"] }],
  filters: [
    { member: "orders.region", operator: "equals", values: ["EU"] },
    { member: "orders.status", operator: "notEquals", values: ["cancelled"] },
  ],
};

describe("filter summary titles", () => {
  it("names the members the annotation lacks: unselected filter members and date-range-only time dimensions", () => {
    expect(untitledSummaryMembers(dated)).toEqual(["orders.region", "orders.created_at"]);
    expect(
      untitledSummaryMembers({
        ...dated,
        timeDimensions: [{ dimension: "orders.created_at", granularity: "month", dateRange: "2024-01-01" }],
        filters: [],
      }),
    ).toEqual([]);
  });

  it("takes those titles from /v1/meta", async () => {
    const d = data();
    const out = await runReport(d, report(dated));
    expect(out.layout.cells.slice(0, 3).map((r) => r[0])).toEqual([
      "Applied filter: Orders Region is EU",
      "Applied filter: Orders Status is not cancelled",
      "Applied filter: Orders Created At is in 2024-01-01 – 2024-03-31",
    ]);
    expect(d.metaCalls()).toBe(1);
  });

  it("does not ask /v1/meta when the annotation titles everything, or when the summary is off", async () => {
    const d = data();
    await runReport(
      d,
      report({ ...dated, timeDimensions: [], filters: [{ member: "orders.status", operator: "equals", values: ["shipped"] }] }),
    );
    await runReport(d, report(dated, false));
    expect(d.metaCalls()).toBe(0);
  });

  it("a /v1/meta failure falls back to the member name; the placement still runs", async () => {
    const out = await runReport(data({ metaFails: true }), report(dated));
    expect(out.layout.cells[2]![0]).toBe("Applied filter: orders.created_at is in 2024-01-01 – 2024-03-31");
  });

  it("the titles used are part of the grid's source", async () => {
    const a = await prepareReport(data(), report(dated));
    const b = await prepareReport(data({ metaFails: true }), report(dated));
    expect(a.source).not.toBe(b.source);
  });
});
