// Issue 30 §2: a pivot with row and column totals gives the same grid, formats, fingerprint and source
// whatever order its concurrent queries (the main one and the totals) finish in, so an unchanged refresh
// changes nothing — not the cells, not the record.
import { describe, expect, it } from "vitest";
import type { DataClient, FetchedLoad, LoadResult } from "../../src/api/index.ts";
import { fingerprintGrid } from "../../src/sync/fingerprint.ts";
import { prepareReport, type RunnableReport } from "../../src/sync/run-report.ts";
import type { SemanticQuery } from "../../src/sync/query.ts";

const COLUMNS: LoadResult["columns"] = [
  { key: "orders.region", title: "Orders Region", shortTitle: "Region", type: "string", kind: "dimension" },
  { key: "orders.status", title: "Orders Status", shortTitle: "Status", type: "string", kind: "dimension" },
  { key: "orders.count", title: "Orders Count", shortTitle: "Count", type: "number", kind: "measure" },
];
const ROWS: Array<[string, string, number]> = [
  ["EU", "returned", 2],
  ["EU", "shipped", 5],
  ["US", "returned", 1],
  ["US", "shipped", 3],
];

/** Answers each query after a delay this run gives it: the totals finish in the order `finish` names (by grouping). */
function dataFinishingIn(finish: readonly string[]): Pick<DataClient, "fetchLoad" | "fetchSql"> {
  const fetchLoad = async (q: SemanticQuery): Promise<FetchedLoad> => {
    const dims = (q.dimensions ?? []).join("+") || "grand";
    await new Promise((r) => setTimeout(r, 5 + 15 * Math.max(0, finish.indexOf(dims))));
    const keep = COLUMNS.filter((c) => c.kind === "measure" || (q.dimensions ?? []).includes(c.key));
    const idx = keep.map((c) => COLUMNS.indexOf(c));
    const groups = new Map<string, unknown[]>();
    for (const row of ROWS) {
      const k = idx
        .filter((i) => i < 2)
        .map((i) => row[i])
        .join("|");
      const g = groups.get(k) ?? idx.map((i) => (i < 2 ? row[i] : 0));
      g[g.length - 1] = (g[g.length - 1] as number) + row[2];
      groups.set(k, g);
    }
    const rows = [...groups.values()].sort((a, b) => String(a).localeCompare(String(b), "en"));
    const query = {
      measures: [],
      dimensions: [],
      timeDimensions: [],
      filters: [],
      order: [],
      limit: 10_000,
      rowLimit: 10_000,
      timezone: "UTC",
    };
    const result = { columns: keep, rows, total: null, timezone: "UTC", query, lastRefreshTime: null } as unknown as LoadResult;
    return { source: JSON.stringify(rows), rows: rows.length, query: result.query, result: () => result };
  };
  return {
    fetchLoad: (q: unknown) => fetchLoad(q as SemanticQuery),
    fetchSql: async () => {
      throw new Error("no SQL here");
    },
  } as unknown as Pick<DataClient, "fetchLoad" | "fetchSql">;
}

const report: RunnableReport = {
  jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.region", "orders.status"] }),
  pivotItems: {
    rows: ["orders.region"],
    columns: ["orders.status"],
    measures: ["orders.count"],
    filters: [],
    showRowTotals: true,
    showColumnTotals: true,
  },
} as unknown as RunnableReport;

describe("issue 30 §2: a pivot's concurrent answers in any order", () => {
  it("give the same source, grid, formats and fingerprint", async () => {
    const orders = [
      ["orders.region", "orders.status", "grand", "orders.region+orders.status"],
      ["grand", "orders.status", "orders.region", "orders.region+orders.status"],
      ["orders.region+orders.status", "grand", "orders.region", "orders.status"],
    ];
    const runs = [];
    for (const finish of orders) {
      const prepared = await prepareReport(dataFinishingIn(finish), report);
      const { layout } = prepared.build();
      runs.push({ source: prepared.source, cells: layout.cells, formats: layout.columnFormats, fp: await fingerprintGrid(layout.cells) });
    }
    expect(runs[0]!.cells.length).toBeGreaterThan(3); // totals rows are there
    for (const r of runs.slice(1)) expect(r).toEqual(runs[0]);
  });
});
