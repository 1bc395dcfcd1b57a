// The /v1/load compiler: the aggregate pushdown gives exactly the rows of the plain join,
// for dimensions, time dimensions, filters (including the query timezone) and avg.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import path from "node:path";
import { compileLoad, QueryError } from "../../dev/platform/semantic";
import { DATASET_VERSION, DEFAULT_CACHE_DIR, ensureDatasetFile } from "../../dev/platform/dataset";
import type { LoadQuery } from "../../src/api";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

let inst: DuckDBInstance;
let conn: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "cellbound-semantic-"));
  const { file } = await ensureDatasetFile(dir, DEFAULT_CACHE_DIR);
  expect(path.basename(file)).toBe(`dataset-v${DATASET_VERSION}.duckdb`);
  inst = await DuckDBInstance.create(":memory:");
  conn = await inst.connect();
  await conn.run(`ATTACH '${file}' AS sample (READ_ONLY)`);
});
afterAll(() => {
  conn?.closeSync();
  inst?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function rows(q: LoadQuery, pushdown: boolean) {
  const c = compileLoad(q, { pushdown });
  return (await conn.runAndReadAll(c.sql, c.params)).getRowsJson();
}

const queries: LoadQuery[] = [
  { measures: ["orders.count", "orders.total_amount", "orders.avg_amount"], dimensions: ["customers.country", "orders.status"] },
  {
    measures: ["orders.total_quantity"],
    dimensions: ["products.category"],
    timeDimensions: [{ dimension: "orders.created_at", granularity: "quarter", dateRange: ["2024-01-01", "2024-12-31"] }],
    timezone: "America/New_York",
  },
  {
    measures: ["orders.count"],
    dimensions: ["customers.segment", "customers.is_vip"],
    filters: [
      { member: "orders.status", operator: "equals", values: ["shipped"] },
      { member: "customers.country", operator: "notEquals", values: ["Japan"] },
      {
        or: [
          { member: "orders.amount", operator: "gt", values: ["900"] },
          { member: "orders.is_returned", operator: "equals", values: ["true"] },
        ],
      },
    ],
  },
  { measures: ["orders.count"], dimensions: ["customers.name"], order: { "orders.count": "desc" }, limit: 50, offset: 10 },
  {
    measures: ["orders.avg_amount", "orders.total_quantity"],
    dimensions: ["customers.is_vip"],
    timeDimensions: [{ dimension: "customers.signed_up_at", granularity: "year", dateRange: ["2020-06-01", "2022-06-30"] }],
    filters: [{ member: "customers.country", operator: "equals", values: ["Japan", "Kenya"] }],
  },
];

describe("aggregate pushdown", () => {
  it.each(queries.map((q, i) => [i, q] as const))("query %i: same rows with and without pushdown", async (_i, q) => {
    const plain = compileLoad(q, { pushdown: false }).sql;
    const pushed = compileLoad(q).sql;
    expect(pushed).not.toBe(plain); // the pushdown applies to these queries
    expect(await rows(q, true)).toEqual(await rows(q, false));
  });
  it("answers from a rollup, without a join, when only customers (or products) and orders.status are used", () => {
    expect(compileLoad(queries[0]!).sql).toContain("sample.rollup_customer_status o");
    expect(compileLoad(queries[3]!).sql).toContain("sample.rollup_customer o");
    expect(compileLoad(queries[4]!).sql).toContain("sample.rollup_customer o");
    expect(compileLoad({ measures: ["orders.count"], dimensions: ["products.name"] }).sql).toContain("sample.rollup_product o");
    expect(
      compileLoad({
        measures: ["orders.count"],
        dimensions: ["products.name"],
        filters: [{ member: "orders.status", operator: "equals", values: ["shipped"] }],
      }).sql,
    ).toContain("sample.rollup_product_status o");
    for (const q of [queries[0]!, queries[3]!, queries[4]!]) expect(compileLoad(q).sql).not.toContain(" JOIN ");
    expect(compileLoad(queries[1]!).sql).not.toContain("rollup_");
    expect(compileLoad(queries[2]!).sql).not.toContain("rollup_");
  });
  it.each(queries.map((q, i) => [i, q] as const))(
    "query %i: the JSON text DuckDB renders is the rows, time members repeated under their plain name",
    async (_i, q) => {
      const c = compileLoad(q);
      const objects = (await conn.runAndReadAll(c.sql, c.params)).getRowObjectsJson().map((row) => {
        const o: Record<string, unknown> = { ...row };
        for (const [granular, plain] of c.timeAliases) o[plain] = o[granular];
        return o;
      });
      expect(objects.length).toBeGreaterThan(0);
      const text = String((await conn.runAndReadAll(c.jsonSql, c.params)).getColumns()[0]![0]);
      expect(JSON.parse(`[${text}]`)).toEqual(objects);
    },
  );
  it("does not apply to count-distinct measures or measure filters", () => {
    const q: LoadQuery = { measures: ["orders.customers_count"], dimensions: ["products.category"] };
    expect(compileLoad(q).sql).toBe(compileLoad(q, { pushdown: false }).sql);
    const f: LoadQuery = {
      measures: ["orders.count"],
      dimensions: ["customers.country"],
      filters: [{ member: "orders.count", operator: "gt", values: ["5"] }],
    };
    expect(compileLoad(f).sql).toBe(compileLoad(f, { pushdown: false }).sql);
  });
  it("rejects unknown members, bad timezones and unordered order ids", () => {
    expect(() => compileLoad({ measures: ["orders.nope"] })).toThrow(QueryError);
    expect(() => compileLoad({ measures: ["orders.count"], timezone: "Mars/Base" })).toThrow(QueryError);
    expect(() => compileLoad({ measures: ["orders.count"], order: { "orders.status": "asc" } })).toThrow(QueryError);
  });
});
