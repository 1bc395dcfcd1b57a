// Issue 36 item 14: rows that tie on the report's order come in the same order every time. A data API
// that breaks ties in the database's order (here: a different one on every answer) gives the same grid
// and fingerprint, for flat and pivot queries, with or without a limit, because every answer is asked
// under the total order. Plus the same through the platform stand-in (the query it receives).
import { describe, expect, it } from "vitest";
import type { DataClient, FetchedLoad, LoadResult } from "../../src/api/index.ts";
import { fingerprintGrid } from "../../src/sync/fingerprint.ts";
import { runReport, type RunnableReport } from "../../src/sync/run-report.ts";
import type { SemanticQuery } from "../../src/sync/query.ts";
import { at, memoryWorkbook, placed, useEnv } from "./support.ts";

type Row = [string, string, number];
/** Six groups; counts tie in pairs, so an order by count alone leaves ties. */
const ROWS: Row[] = [
  ["EU", "shipped", 5],
  ["EU", "returned", 5],
  ["US", "shipped", 3],
  ["US", "returned", 3],
  ["APAC", "shipped", 2],
  ["APAC", "returned", 2],
];
const COLUMNS: LoadResult["columns"] = [
  { key: "orders.region", title: "Orders Region", shortTitle: "Region", type: "string", kind: "dimension" },
  { key: "orders.status", title: "Orders Status", shortTitle: "Status", type: "string", kind: "dimension" },
  { key: "orders.count", title: "Orders Count", shortTitle: "Count", type: "number", kind: "measure" },
];
const INDEX: Record<string, number> = { "orders.region": 0, "orders.status": 1, "orders.count": 2 };

function pairs(order: SemanticQuery["order"]): Array<[string, "asc" | "desc"]> {
  if (!order) return [];
  if (Array.isArray(order)) return order.map((o) => (Array.isArray(o) ? [o[0], o[1]] : [o.id, o.desc ? "desc" : "asc"]));
  return Object.entries(order);
}

/**
 * A data API like a database: it sorts by the query's order (stable), starting from the rows in an order
 * of its own that changes with every answer (ties therefore come in that order), then applies the limit.
 */
function database() {
  let answers = 0;
  const asked: SemanticQuery[] = [];
  const fetchLoad = async (q: SemanticQuery): Promise<FetchedLoad> => {
    asked.push(q);
    const start = answers++ % ROWS.length;
    const base = [...ROWS.slice(start), ...ROWS.slice(0, start)].reverse();
    const by = pairs(q.order);
    const sorted = [...base].sort((a, b) => {
      for (const [m, d] of by) {
        const x = a[INDEX[m]!]!,
          y = b[INDEX[m]!]!;
        if (x !== y) return (x < y ? -1 : 1) * (d === "desc" ? -1 : 1);
      }
      return 0;
    });
    const rows = sorted.slice(0, q.limit ?? 10_000);
    const result: LoadResult = {
      columns: COLUMNS,
      rows,
      total: null,
      timezone: "UTC",
      query: {
        measures: [],
        dimensions: [],
        timeDimensions: [],
        filters: [],
        order: [],
        limit: q.limit ?? 10_000,
        rowLimit: q.limit ?? 10_000,
        timezone: "UTC",
      },
      lastRefreshTime: null,
    };
    return { source: JSON.stringify(rows), rows: rows.length, query: result.query, result: () => result };
  };
  const data = {
    fetchLoad: (q: unknown) => fetchLoad(q as SemanticQuery),
    fetchSql: async () => {
      throw new Error("no SQL here");
    },
  } as unknown as Pick<DataClient, "fetchLoad" | "fetchSql">;
  return { data, asked };
}

const byCount = (limit?: number): SemanticQuery => ({
  measures: ["orders.count"],
  dimensions: ["orders.region", "orders.status"],
  order: [["orders.count", "desc"]],
  ...(limit !== undefined ? { limit } : {}),
});

/** Two runs of the same report against answers that break ties differently: their grids and fingerprints. */
async function twice(report: RunnableReport) {
  const db = database();
  const a = await runReport(db.data, report, {});
  const b = await runReport(db.data, report, {});
  return {
    a: a.layout.cells,
    b: b.layout.cells,
    fa: await fingerprintGrid(a.layout.cells),
    fb: await fingerprintGrid(b.layout.cells),
    asked: db.asked,
  };
}

describe("issue 36 item 14: ties come back in one order", () => {
  it("issue 36 item 14: a flat report with a limit: the same grid and fingerprint whatever order the database breaks ties in", async () => {
    const r = await twice({ jsonQuery: JSON.stringify(byCount(4)) });
    expect(r.a).toEqual(r.b);
    expect(r.fa).toEqual(r.fb);
    // The tie between EU shipped and EU returned is broken by region, then status.
    expect(r.a.slice(1).map((row) => row.slice(0, 2))).toEqual([
      ["EU", "returned"],
      ["EU", "shipped"],
      ["US", "returned"],
      ["US", "shipped"],
    ]);
    expect(r.asked[0]!.order).toEqual([
      ["orders.count", "desc"],
      ["orders.region", "asc"],
      ["orders.status", "asc"],
    ]);
  });

  it("issue 36 item 14: a flat report without a limit (one page): the same grid and fingerprint", async () => {
    const r = await twice({ jsonQuery: JSON.stringify(byCount()) });
    expect(r.a).toEqual(r.b);
    expect(r.fa).toEqual(r.fb);
    expect(r.a).toHaveLength(ROWS.length + 1);
  });

  it("issue 36 item 14: a pivot (regions down, statuses across), with and without a limit: the same grid and fingerprint", async () => {
    const pivotItems = { rows: ["orders.region"], columns: ["orders.status"], measures: ["orders.count"], filters: [] };
    for (const limit of [6, undefined]) {
      const r = await twice({ jsonQuery: JSON.stringify(byCount(limit)), pivotItems });
      expect(r.a).toEqual(r.b);
      expect(r.fa).toEqual(r.fb);
    }
  });

  describe("through the platform stand-in", () => {
    const env = useEnv();
    it("issue 36 item 14: the data API receives the total order for a report with a limit, and a refresh of the same data changes nothing", async () => {
      const wb = memoryWorkbook("https://files.example/order-36.xlsx");
      const real = env().dataClient();
      const asked: unknown[] = [];
      const data: Pick<DataClient, "fetchLoad" | "fetchSql"> = {
        fetchLoad: (q, ...rest) => (asked.push(q), real.fetchLoad(q, ...rest)),
        fetchSql: (...a) => real.fetchSql(...a),
      };
      const engine = env().engine(wb, "analyst", { data });
      const query = { measures: ["orders.count"], dimensions: ["orders.status"], order: [["orders.count", "desc"]], limit: 3 };
      const p = await placed(engine, await env().createReport({ jsonQuery: JSON.stringify(query) }), at(wb, 0, 0));
      expect(asked[0]).toMatchObject({
        limit: 3,
        order: [
          ["orders.count", "desc"],
          ["orders.status", "asc"],
        ],
      });
      expect(await engine.refresh(p.key, "ask")).toMatchObject({ kind: "refreshed", stats: { cellsChanged: 0, chunksWritten: 0 } });
    });
  });
});
