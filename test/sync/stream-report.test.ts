// First rows early (issue 20 §2): a flat report's grid page by page. What a placement writes from the
// stream must be exactly what runReport (and a later refresh, through prepareReport) lays out from the
// same answers — or every streamed placement would read as edited on its first refresh.
import { describe, expect, it } from "vitest";
import type { FetchedLoad, FetchedResult, LoadResult } from "../../src/api/index.ts";
import type { TypedResult } from "../../src/checksum/types.ts";
import { runReport, SQL_FIRST_ROWS, streamReport } from "../../src/sync/run-report.ts";
import type { SemanticQuery } from "../../src/sync/query.ts";

/** A data API serving `total` orders (id, amount) in pages like Cube; amounts are whole until `fractionFrom`. */
function server(total: number, fractionFrom = Infinity) {
  const asked: SemanticQuery[] = [];
  const fetchLoad = async (q: SemanticQuery): Promise<FetchedLoad> => {
    asked.push(q);
    const limit = Math.min(q.limit ?? 10_000, 50_000);
    const from = q.offset ?? 0;
    const ids = Array.from({ length: Math.max(0, Math.min(limit, total - from)) }, (_, i) => from + i + 1);
    const result: LoadResult = {
      columns: [
        { key: "orders.id", title: "Orders Id", shortTitle: "Id", type: "number", kind: "dimension" },
        { key: "orders.total_amount", title: "Orders Total Amount", shortTitle: "Total Amount", type: "number", kind: "measure" },
      ],
      rows: ids.map((id) => [id, id >= fractionFrom ? id + 0.5 : id * 10]),
      total: null,
      timezone: "UTC",
      query: { measures: [], dimensions: [], timeDimensions: [], filters: [], order: [], limit, rowLimit: limit, timezone: "UTC" },
      lastRefreshTime: null,
    };
    return {
      source: `${JSON.stringify(q.order ?? null)}:${from}:${ids.length}`,
      result: () => result,
      rows: ids.length,
      query: result.query,
    };
  };
  return { data: { fetchLoad: fetchLoad as never, fetchSql: (() => Promise.reject(new Error("no SQL"))) as never }, asked };
}

const report = {
  jsonQuery: JSON.stringify({
    measures: ["orders.total_amount"],
    dimensions: ["orders.id"],
    filters: [{ member: "orders.status", operator: "equals", values: ["shipped"] }],
  }),
};

async function streamed(total: number, o: { fractionFrom?: number; maxRows?: number } = {}) {
  const s = server(total, o.fractionFrom);
  const defaults = { pageRows: 10, user: true, ...(o.maxRows ? { maxRows: o.maxRows } : {}) };
  const stream = (await streamReport(s.data, report, defaults))!;
  const head = stream.head.cells.length;
  const pages: number[] = [];
  for await (const rows of stream.rest()) pages.push(rows.length);
  const out = await stream.finish();
  const whole = await runReport(server(total, o.fractionFrom).data, report, defaults);
  return { stream, head, pages, out, whole, asked: s.asked };
}

describe("streamReport", () => {
  it("hands out the first page's rows before the others, and ends with runReport's grid, formats and source", async () => {
    const r = await streamed(35, { fractionFrom: 25 });
    expect(r.stream.more).toBe(true);
    // filter summary (1 line) + blank + titles + the first ordered page of 10 rows
    expect(r.head).toBe(3 + 10);
    expect(r.pages).toEqual([10, 10, 5]);
    expect(r.out.layout).toEqual(r.whole.layout);
    expect(r.out.source).toBe(r.whole.source);
    expect(r.out.cut).toBeNull();
    // The first page alone had whole amounts; the last page's fractions settle the column as decimals.
    expect(r.stream.head.columnFormats[1]).not.toBe(r.out.layout.columnFormats[1]);
  });

  it("cuts at maxRows like runReport, and says so", async () => {
    const r = await streamed(35, { maxRows: 22 });
    expect(r.out.layout).toEqual(r.whole.layout);
    expect(r.out.layout.cells.length).toBe(3 + 22);
    expect(r.out.cut?.rows).toBe(22);
    expect(r.out.source).toBe(r.whole.source);
  });

  it("a result of one page: nothing more to come", async () => {
    const r = await streamed(7);
    expect(r.stream.more).toBe(false);
    expect(r.pages).toEqual([]);
    expect(r.out.layout).toEqual(r.whole.layout);
  });

  it("asks for the next page before the caller has taken this one", async () => {
    const s = server(35);
    const stream = (await streamReport(s.data, report, { pageRows: 10 }))!;
    // the first answer (the query's own order), the first ordered page, and the second asked ahead
    expect(s.asked.length).toBe(3);
    for await (const _ of stream.rest()) break;
    expect(s.asked.length).toBe(4);
  });

  it("is not used for a pivot or a semantic query with a limit", async () => {
    const s = server(35);
    const pivot = { ...report, pivotItems: { rows: [], columns: ["orders.id"], measures: ["orders.total_amount"], filters: [] } };
    expect(await streamReport(s.data, pivot)).toBeNull();
    expect(await streamReport(s.data, { jsonQuery: JSON.stringify({ dimensions: ["orders.id"], limit: 5 }) })).toBeNull();
    expect(s.asked).toEqual([]);
  });

  it("a SQL answer: its first SQL_FIRST_ROWS rows first, the rest decoded after; the same grid as runReport", async () => {
    const rows = 25_000;
    let decodedWhole = 0;
    const sqlData = {
      fetchLoad: (() => Promise.reject(new Error("no load"))) as never,
      fetchSql: async (): Promise<FetchedResult> => {
        const result: TypedResult = {
          columns: [
            { key: "id", title: "id", shortTitle: "id", type: "number", kind: "dimension" },
            { key: "amount", title: "amount", shortTitle: "amount", type: "number", kind: "dimension" },
          ],
          rows: Array.from({ length: rows }, (_, i) => [i, i > 20_000 ? i / 8 : i]),
          total: null,
          timezone: "UTC",
        };
        return {
          source: "sql-answer",
          result: () => (decodedWhole++, result),
          *slices(n: number) {
            for (let r = 0; r < rows; r += n) yield { ...result, rows: result.rows.slice(r, r + n) };
          },
        };
      },
    };
    const sql = { sqlQuery: "SELECT id, amount FROM orders" };
    const stream = (await streamReport(sqlData, sql))!;
    expect(stream.more).toBe(true);
    expect(stream.head.cells.length).toBe(1 + SQL_FIRST_ROWS);
    const later: number[] = [];
    for await (const r of stream.rest()) later.push(r.length);
    expect(later).toEqual([rows - SQL_FIRST_ROWS]);
    const out = await stream.finish();
    expect(decodedWhole).toBe(0); // never decoded whole
    const whole = await runReport(sqlData, sql);
    expect(out.layout).toEqual(whole.layout);
    expect(out.source).toBe(whole.source);
    expect(out.layout.columnFormats[1]).not.toBe(stream.head.columnFormats[1]); // fractions after the first rows

    // A small answer is decoded whole and written in one step: steps would only add round trips.
    const small = (await streamReport({ ...sqlData, fetchSql: async () => ({ ...(await sqlData.fetchSql()), bytes: 1000 }) }, sql))!;
    expect(small.more).toBe(false);
    expect(small.head.cells.length).toBe(1 + rows);
    expect(decodedWhole).toBe(2); // runReport above once, this small answer once
  });
});
