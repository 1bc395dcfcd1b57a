// Every row of a report without a limit (issue 17, finding 2), against a scripted data API that
// behaves like Cube: a default of 10,000 rows, at most 50,000 per query, limit/offset, and an
// optional server that clamps silently (echoing a smaller rowLimit). Plus the 0-row pivot
// (finding 8). The same behaviour against real Cube: test/cube/cube.test.ts.
import { describe, expect, it } from "vitest";
import type { FetchedLoad, LoadResult } from "../../src/api/index.ts";
import { fetchMainRows, MAX_PLACED_ROWS, PAGE_ROWS, totalOrder } from "../../src/sync/run-report.ts";
import { layout } from "../../src/sync/layout.ts";
import type { SemanticQuery } from "../../src/sync/query.ts";
import type { TypedResult } from "../../src/checksum/types.ts";

/** A result of `total` rows (ids 1..total) served like Cube; `clampTo` imitates a server whose maximum is lower. */
function server(total: number, o: { clampTo?: number; withRowCounts?: boolean } = {}) {
  const asked: SemanticQuery[] = [];
  let decoded = 0;
  const load = async (q: SemanticQuery): Promise<FetchedLoad> => {
    asked.push(q);
    if ((q.limit ?? 0) > 50_000) throw new Error("Error: The query limit has been exceeded.");
    const limit = Math.min(q.limit ?? 10_000, o.clampTo ?? Infinity);
    const from = q.offset ?? 0;
    const ids = Array.from({ length: Math.max(0, Math.min(limit, total - from)) }, (_, i) => from + i + 1);
    const result: LoadResult = {
      columns: [{ key: "orders.id", title: "Orders Id", shortTitle: "Id", type: "number", kind: "dimension" }],
      rows: ids.map((id) => [id]),
      total: null,
      timezone: "UTC",
      query: {
        measures: [],
        dimensions: ["orders.id"],
        timeDimensions: [],
        filters: [],
        order: [],
        limit,
        rowLimit: limit,
        timezone: "UTC",
      },
      lastRefreshTime: null,
    };
    return {
      source: `${from}:${ids.length}`,
      result: () => (decoded++, result),
      ...(o.withRowCounts === false ? {} : { rows: ids.length, query: result.query }),
    };
  };
  return { load, asked, decoded: () => decoded };
}

const q: SemanticQuery = { dimensions: ["orders.id"] };
const ids = (pages: FetchedLoad[]) => pages.flatMap((p) => p.result().rows.map((r) => r[0]));

describe("fetchMainRows", () => {
  it("a small result: one request of PAGE_ROWS rows, not decoded to count it", async () => {
    const s = server(1234);
    const r = await fetchMainRows(s.load, q, MAX_PLACED_ROWS);
    expect(s.asked).toEqual([{ ...q, order: [["orders.id", "asc"]], limit: PAGE_ROWS }]); // under the total order (issue 36, item 14)
    expect(r.cut).toBe(false);
    expect(s.decoded()).toBe(0);
    expect(ids(r.pages)).toHaveLength(1234);
  });

  it("more rows than a page: pages under a total order, no overlap, no gap", async () => {
    const s = server(120_000);
    const r = await fetchMainRows(s.load, q, MAX_PLACED_ROWS);
    expect(r.cut).toBe(false);
    const got = ids(r.pages);
    expect(got).toHaveLength(120_000);
    expect(got[119_999]).toBe(120_000);
    expect(s.asked.slice(1).map((a) => [a.limit, a.offset, a.order])).toEqual([
      [50_000, undefined, [["orders.id", "asc"]]],
      [50_000, 50_000, [["orders.id", "asc"]]],
      [50_000, 100_000, [["orders.id", "asc"]]],
    ]);
  });

  it("a server that clamps below what was asked (rowLimit echoed) is paged, not taken as complete", async () => {
    const s = server(25_000, { clampTo: 10_000 });
    const r = await fetchMainRows(s.load, q, MAX_PLACED_ROWS);
    expect(ids(r.pages)).toHaveLength(25_000);
    expect(r.cut).toBe(false);
  });

  it("past maxRows: cut, with one extra row asked to tell 'exactly maxRows' from 'more'", async () => {
    const more = await fetchMainRows(server(70_000).load, q, 60_000);
    expect(more.cut).toBe(true);
    const exact = await fetchMainRows(server(60_000).load, q, 60_000);
    expect(exact.cut).toBe(false);
    expect(ids(exact.pages)).toHaveLength(60_000);
  });

  it("a report with a limit gets exactly its request, under the total order", async () => {
    const s = server(70_000);
    const r = await fetchMainRows(s.load, { ...q, limit: 500, offset: 10 }, MAX_PLACED_ROWS);
    expect(s.asked).toEqual([{ ...q, order: [["orders.id", "asc"]], limit: 500, offset: 10 }]);
    expect(r.cut).toBe(false);
  });

  it("a report's own offset is where paging starts", async () => {
    const s = server(60_000);
    const r = await fetchMainRows(s.load, { ...q, offset: 5_000 }, MAX_PLACED_ROWS);
    expect(ids(r.pages)).toHaveLength(55_000);
    expect(ids(r.pages)[0]).toBe(5_001);
  });

  it("test doubles without row counts still work (counted by decoding)", async () => {
    const s = server(60_000, { withRowCounts: false });
    expect(ids((await fetchMainRows(s.load, q, MAX_PLACED_ROWS)).pages)).toHaveLength(60_000);
  });
});

describe("totalOrder", () => {
  it("Cube's default order, then every grouping member", () => {
    expect(totalOrder({ measures: ["o.count"], dimensions: ["o.a", "o.b"] })).toEqual([
      ["o.count", "desc"],
      ["o.a", "asc"],
      ["o.b", "asc"],
    ]);
    expect(
      totalOrder({
        measures: ["o.count"],
        dimensions: ["o.a"],
        timeDimensions: [
          { dimension: "o.t", granularity: "day" },
          { dimension: "o.u", dateRange: "2024-01-01" },
        ],
      }),
    ).toEqual([
      ["o.t", "asc"],
      ["o.a", "asc"],
    ]);
  });
  it("the report's order in any accepted form comes first", () => {
    const dims = { dimensions: ["o.a", "o.b"] };
    expect(totalOrder({ ...dims, order: { "o.b": "desc" } })).toEqual([
      ["o.b", "desc"],
      ["o.a", "asc"],
    ]);
    expect(totalOrder({ ...dims, order: [["o.b", "desc"]] })).toEqual([
      ["o.b", "desc"],
      ["o.a", "asc"],
    ]);
    expect(totalOrder({ ...dims, order: [{ id: "o.b", desc: true }] })).toEqual([
      ["o.b", "desc"],
      ["o.a", "asc"],
    ]);
  });
});

describe("a pivot with a Columns zone and 0 rows (finding 8)", () => {
  const empty: TypedResult = {
    columns: [
      { key: "orders.region", title: "Region", shortTitle: "Region", type: "string", kind: "dimension" },
      { key: "orders.status", title: "Status", shortTitle: "Status", type: "string", kind: "dimension" },
      { key: "orders.count", title: "Count", shortTitle: "Count", type: "number", kind: "measure" },
      { key: "orders.amount", title: "Amount", shortTitle: "Amount", type: "number", kind: "measure" },
    ],
    rows: [],
    total: null,
    timezone: "UTC",
  };
  it("keeps the measure headers above an empty body", () => {
    const out = layout({
      result: empty,
      pivot: { rows: ["orders.region"], columns: ["orders.status"], measures: ["orders.count", "orders.amount"] },
    });
    expect(out.cells).toEqual([
      ["", "", ""],
      ["Region", "Count", "Amount"],
    ]);
    expect(out.headerRows).toBe(2);
    expect(out.columnFormats).toHaveLength(3);
  });
  it("measures on rows: the header row and no body", () => {
    const out = layout({
      result: empty,
      pivot: { rows: ["orders.region"], columns: ["orders.status"], measures: ["orders.count"], measuresAxis: "rows" },
    });
    expect(out.cells).toEqual([["Region", "Measure", ""]]);
  });
});
