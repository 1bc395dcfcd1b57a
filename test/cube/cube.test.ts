// The data client, layout and sync engine against a real semantic layer: open-source Cube
// 0.33.65 on SQLite (dev/cube/server; issue 17). Cube is installed when missing, started on a
// free 127.0.0.1 port with a generated dataset, and stopped at the end; any failure to do so
// fails the suite with the reason. One test per finding of issue 17 (each fails on the code
// before the fixes), plus what already held, measured here rather than assumed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  createDataClient,
  ForbiddenError,
  InvalidResponseError,
  isApiError,
  NotFoundError,
  SqlNotSupportedError,
  TokenRefusedError,
  type DataClient,
  type FetchLike,
  type LoadQuery,
} from "../../src/api/index.ts";
import { runReport } from "../../src/sync/index.ts";
import { FILTER_PREFIX } from "../../src/sync/filters.ts";
import { describeError } from "../../src/taskpane/errors.ts";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server.ts";
import { ROW_LIMITS } from "../../dev/platform/semantic.ts";
import { createPlatformClient, createDeploymentTokenManager, type PlatformClient } from "../../src/api/index.ts";
import { SyncEngine } from "../../src/sync/index.ts";
import { memoryWorkbook } from "../sync/support.ts";
import { installCube, startCube, type RunningCube } from "../../dev/cube/peer.ts";

let cube: RunningCube;

beforeAll(async () => {
  installCube(); // no-op when installed; up to a few minutes on a fresh clone
  cube = await startCube();
}, 15 * 60_000);

afterAll(async () => {
  await cube?.stop();
});

/** A data client on Cube with a static token; `fetch` may be wrapped to count or abort. */
function client(o: { token?: string; fetch?: FetchLike; dataUrl?: string } = {}): DataClient {
  return createDataClient({ dataUrl: o.dataUrl ?? cube.dataUrl, token: o.token ?? cube.token(), ...(o.fetch ? { fetch: o.fetch } : {}) });
}

/** Counts requests; aborts the caller's signal past `abortAfter` calls so a runaway retry loop fails fast. */
function counting(abortAfter: number) {
  const ac = new AbortController();
  const seen: string[] = [];
  const f: FetchLike = async (url, init) => {
    seen.push(url);
    if (seen.length > abortAfter) ac.abort(new Error(`more than ${abortAfter} requests`));
    return fetch(url, init);
  };
  return { fetch: f, seen, signal: ac.signal };
}

async function rawLoad(
  query: unknown,
  token = cube.token(),
): Promise<{ status: number; body: { error?: string; type?: string } & Record<string, unknown> }> {
  const r = await fetch(`${cube.dataUrl}/v1/load`, {
    method: "POST",
    headers: { Authorization: token, "Content-Type": "application/json" },
    body: JSON.stringify({ query }),
  });
  return { status: r.status, body: (await r.json()) as { error?: string } };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e,
  );

describe("what held against Cube (kept as tests)", () => {
  it("meta, string-typed numbers, nulls and the annotation's column order", async () => {
    const c = client();
    const meta = await c.meta();
    expect(meta.cubes.map((x) => x.name).sort()).toEqual(["orders", "slow"]);
    const r = await c.load({
      measures: ["orders.count", "orders.total_amount_text"],
      dimensions: ["orders.coupon"],
      order: { "orders.coupon": "asc" },
    });
    // SQLite sorts NULL first: the row of orders without a coupon.
    expect(r.rows[0]![0]).toBeNull();
    expect(r.columns.map((x) => [x.key, x.type])).toEqual([
      ["orders.coupon", "string"],
      ["orders.count", "number"],
      ["orders.total_amount_text", "number"],
    ]);
    // "12370975.70" arrives as a string (as Postgres numerics do) and is placed as a number.
    expect(typeof r.rows[0]![2]).toBe("number");
    expect(r.rows.reduce((n, row) => n + (row[1] as number), 0)).toBe(cube.orders);
  });

  it("a query still running after continueWaitTimeout answers Continue wait, and the client polls until it is done", async () => {
    const w = counting(60);
    const r = await client({ fetch: w.fetch }).load({ measures: ["slow.steps", "slow.count"] }, w.signal);
    expect(r.rows).toEqual([[12_000_000, 1]]);
    expect(w.seen.length).toBeGreaterThanOrEqual(2); // at least one "Continue wait" before the answer
  });
});

describe("issue 17 findings against Cube", () => {
  it("1. a deterministic 500 (quarter granularity on SQLite) is tried at most 5 times, then reported with Cube's message", async () => {
    const w = counting(8);
    const t0 = Date.now();
    const e = await failure(
      client({ fetch: w.fetch }).load(
        { measures: ["orders.count"], timeDimensions: [{ dimension: "orders.created_at", granularity: "quarter" }] },
        w.signal,
      ),
    );
    expect(w.seen.length).toBeLessThanOrEqual(5);
    expect(isApiError(e)).toBe(true);
    expect((e as ApiError).message).toContain("GRANULARITY_TO_INTERVAL[granularity] is not a function");
    expect(Date.now() - t0).toBeLessThan(20_000);
  });

  it("2. Cube cuts a query without a limit to 10,000 rows and refuses a limit over 50,000 (500)", async () => {
    const r = await client().load({ measures: ["orders.count"], dimensions: ["orders.id"] });
    expect(r.rows.length).toBe(10_000);
    expect(r.query.rowLimit).toBe(10_000);
    const over = await rawLoad({ measures: ["orders.count"], dimensions: ["orders.id"], limit: 50_001 });
    expect(over.status).toBe(500);
    expect(over.body.error).toBe("Error: The query limit has been exceeded.");
  });

  it("2. a report without a limit places every row (100,000), in pages Cube accepts", async () => {
    const sent: LoadQuery[] = [];
    const c = client({ fetch: (u, i) => (sent.push((JSON.parse(String(i.body)) as { query: LoadQuery }).query), fetch(u, i)) });
    const out = await runReport(c, { jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.id"] }) });
    expect(out.result.rows.length).toBe(cube.orders);
    expect(out.layout.cells.length).toBe(cube.orders + 1);
    expect(out.cut).toBeNull();
    // Every id once, in order: pages neither overlap nor skip.
    const ids = out.result.rows.map((r) => r[0]);
    expect(new Set(ids).size).toBe(cube.orders);
    expect(sent.every((q) => (q.limit ?? 0) <= 50_000)).toBe(true);
  });

  it("2. past the cap the placement is cut and says so, and where to change it", async () => {
    const out = await runReport(
      client(),
      { jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.id"], order: { "orders.id": "asc" } }) },
      { maxRows: 25_000 },
    );
    expect(out.result.rows.length).toBe(25_000);
    expect(out.result.rows[24_999]![0]).toBe(25_000);
    expect(out.cut).toMatchObject({ rows: 25_000, maxRows: 25_000 });
    expect(out.cut!.message).toMatch(/first 25,000 rows/);
    expect(out.cut!.message).toMatch(/limit/);
    // Exactly maxRows rows is not a cut.
    const exact = await runReport(
      client(),
      { jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.id"] }) },
      { maxRows: cube.orders },
    );
    expect(exact.cut).toBeNull();
    expect(exact.result.rows.length).toBe(cube.orders);
  });

  it("2. a pivot's totals queries (which drop the limit) get every row too", async () => {
    const out = await runReport(client(), {
      jsonQuery: JSON.stringify({
        measures: ["orders.count"],
        dimensions: ["orders.id", "orders.status"],
        filters: [{ member: "orders.id", operator: "lte", values: ["30000"] }],
      }),
      pivotItems: { rows: ["orders.id"], columns: ["orders.status"], measures: ["orders.count"], filters: [], showRowTotals: true },
    });
    const body = out.layout.cells.slice(out.layout.headerRows);
    expect(body.length).toBe(30_000);
    // The row-total column (last) is filled on every row, also past Cube's default of 10,000.
    expect(body.filter((r) => r[r.length - 1] === 1).length).toBe(30_000);
  });

  it("3. a boolean dimension from SQLite (1/0) loads and is placed as TRUE/FALSE", async () => {
    const out = await runReport(client(), {
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.is_returned"], order: { "orders.is_returned": "asc" } }),
    });
    expect(out.result.rows.map((r) => r[0])).toEqual([false, true]);
    expect(out.layout.cells.slice(1).map((r) => r[0])).toEqual([false, true]);
  });

  it("4. a token Cube refuses (wrong secret, expired) is a sign-in problem, not 'ask the owner for access'", async () => {
    for (const token of [cube.token({ secret: "not-the-secret" }), cube.token({ expiresInSec: -60 })]) {
      const e = await failure(client({ token }).load({ measures: ["orders.count"] }));
      expect((e as ApiError).kind).toBe("token-refused");
      expect(e).toBeInstanceOf(TokenRefusedError);
      expect(e).not.toBeInstanceOf(ForbiddenError);
      const shown = describeError(e);
      expect(`${shown.title} ${shown.detail}`).toMatch(/sign-in|token/i);
      expect(`${shown.title} ${shown.detail}`).not.toMatch(/owner/i);
    }
  });

  it("5. a wrong data URL (Cube's HTML 404 page) keeps its status instead of 'invalid response'", async () => {
    const e = await failure(client({ dataUrl: `${cube.url}/not-the-api` }).load({ measures: ["orders.count"] }));
    expect(e).toBeInstanceOf(NotFoundError);
    expect(e).not.toBeInstanceOf(InvalidResponseError);
    expect((e as ApiError).status).toBe(404);
  });

  it("6. order in the {id, desc} form the schema accepts is sent in a form Cube takes", async () => {
    // Cube itself refuses that form:
    const raw = await rawLoad({ measures: ["orders.count"], dimensions: ["orders.status"], order: [{ id: "orders.status", desc: true }] });
    expect(raw.status).toBe(400);
    expect(raw.body.error).toContain('"order[0]" must be an array');
    const r = await client().load({
      measures: ["orders.count"],
      dimensions: ["orders.status"],
      order: [{ id: "orders.status", desc: true }],
    });
    expect(r.rows.map((x) => x[0])).toEqual(["shipped", "processing", "completed", "cancelled"]);
  });

  it("7. a SQL report on a data API without /v1/svcsql says so plainly", async () => {
    const e = await failure(client().svcsql("SELECT 1"));
    expect((e as ApiError).kind).toBe("sql-not-supported");
    expect(e).toBeInstanceOf(SqlNotSupportedError);
    expect((e as Error).message).toMatch(/does not run SQL reports/);
  });

  it("8. a pivot with a Columns zone and 0 rows keeps its headers above an empty body", async () => {
    const out = await runReport(client(), {
      jsonQuery: JSON.stringify({
        measures: ["orders.count"],
        dimensions: ["orders.status"],
        timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
        filters: [{ member: "orders.status", operator: "equals", values: ["no-such-status"] }],
      }),
      pivotItems: { rows: ["orders.created_at"], columns: ["orders.status"], measures: ["orders.count"], filters: [] },
    });
    expect(out.result.rows).toEqual([]);
    expect(out.layout.headerRows).toBe(out.layout.cells.length); // headers only
    expect(out.layout.cells).toEqual([
      ["", ""],
      ["Created At", "Count"],
    ]);
  });

  it("9. the filter summary titles a date-range-only time dimension from /v1/meta (Cube's annotation omits it)", async () => {
    const r = await client().load({
      measures: ["orders.count"],
      timeDimensions: [{ dimension: "orders.created_at", dateRange: ["2024-01-01", "2024-03-31"] }],
    });
    expect(r.columns.map((c) => c.key)).toEqual(["orders.count"]); // no column, no annotation entry
    const out = await runReport(client(), {
      jsonQuery: JSON.stringify({
        measures: ["orders.count"],
        dimensions: ["orders.status"],
        timeDimensions: [{ dimension: "orders.created_at", dateRange: ["2024-01-01", "2024-03-31"] }],
        filters: [{ member: "orders.is_returned", operator: "equals", values: ["1"] }],
      }),
      pivotItems: { rows: [], columns: [], measures: [], filters: [], showAppliedFilters: true },
    });
    const summary = out.layout.cells.map((row) => row[0]).filter((v): v is string => typeof v === "string" && v.startsWith(FILTER_PREFIX));
    expect(summary).toEqual([`${FILTER_PREFIX}Orders Is Returned is 1`, `${FILTER_PREFIX}Orders Created At is in 2024-01-01 – 2024-03-31`]);
  });
});

describe("the sync engine over the memory port, reports on the stand-in, data from Cube", () => {
  let platform: RunningPlatform;
  let mgmt: PlatformClient;
  let deploymentId: number;
  beforeAll(async () => {
    platform = await startPlatform({ log: () => {} });
    deploymentId = platform.info.deployments[0]!.id;
    mgmt = createPlatformClient({ baseUrl: platform.info.baseUrl, credential: platform.info.apiKeys.analyst });
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
  });

  it("2. a placement cut at the cap says so on place and on refresh; an unchanged refresh writes 0 cells", async () => {
    const wb = memoryWorkbook("https://example.test/cube/Orders.xlsx");
    const sheetId = wb.user.firstSheetId();
    const engine = new SyncEngine({ port: wb.port, platform: mgmt, data: client(), deploymentId, filterDefaults: { maxRows: 60_000 } });
    const report = await mgmt.createReport(deploymentId, {
      name: "All orders",
      title: "All orders",
      jsonQuery: JSON.stringify({ measures: ["orders.count"], dimensions: ["orders.id"] }),
    });
    const placed = await engine.place(report, { at: { sheetId, row: 0, col: 0 } });
    if (placed.kind !== "placed") throw new Error(`not placed: ${placed.kind}`);
    expect(placed.range).toBe("A1:B60001");
    expect(placed.notices.join(" ")).toMatch(/Only the first 60,000 rows were placed/);
    expect(wb.user.cell(sheetId, 60_000, 0)).toBe(60_000);
    expect(wb.user.cell(sheetId, 60_001, 0)).toBe("");
    const again = await engine.refresh(placed.key, "ask");
    expect(again).toMatchObject({ kind: "refreshed", stats: { cellsWritten: 0 } });
    expect(again.kind === "refreshed" && again.notices.join(" ")).toMatch(/Only the first 60,000 rows/);
  });

  it("7. a SQL report on Cube fails with the plain reason, writes nothing and leaves the report intact", async () => {
    const wb = memoryWorkbook("https://example.test/cube/Sql.xlsx");
    const sheetId = wb.user.firstSheetId();
    const engine = new SyncEngine({ port: wb.port, platform: mgmt, data: client(), deploymentId });
    const report = await mgmt.createReport(deploymentId, {
      name: "SQL orders",
      title: "SQL orders",
      sqlQuery: "SELECT status, count(*) FROM orders GROUP BY 1",
    });
    const e = await failure(engine.place(report, { at: { sheetId, row: 0, col: 0 } }));
    expect((e as ApiError).kind).toBe("sql-not-supported");
    expect(wb.user.cell(sheetId, 0, 0)).toBe("");
    expect(await engine.placements()).toEqual([]);
    const stored = (await mgmt.listReports(deploymentId, {})).items.find((r) => r.id === report.id);
    expect(stored?.sqlQuery).toBe(report.sqlQuery);
  });

  it("the stand-in's row limits and order form are Cube's (default 10,000 silently; {id, desc} refused; over 50,000 refused)", async () => {
    expect(ROW_LIMITS).toEqual({ default: 10_000, max: 50_000 });
    const token = (await mgmt.createDeploymentToken(deploymentId, {})).token;
    const standIn = createDataClient({
      dataUrl: platform.info.dataUrl,
      token: createDeploymentTokenManager({ client: mgmt, deploymentId }),
    });
    const q = { measures: ["orders.count"], dimensions: ["customers.id"] };
    const cut = await standIn.load(q);
    expect([cut.rows.length, cut.query.rowLimit]).toEqual([ROW_LIMITS.default, ROW_LIMITS.default]);
    const all = await runReport(standIn, { jsonQuery: JSON.stringify(q) });
    expect(all.result.rows.length).toBe(20_000); // every customer: more than the default, placed in full
    expect(new Set(all.result.rows.map((r) => r[0])).size).toBe(20_000);
    const post = async (query: unknown) => {
      const r = await fetch(`${platform.info.dataUrl}/v1/load`, {
        method: "POST",
        headers: { Authorization: token, "Content-Type": "application/json" },
        body: JSON.stringify({ query }),
      });
      return { status: r.status, body: (await r.json()) as { error?: string } };
    };
    const order = await post({ ...q, order: [{ id: "customers.id", desc: true }] });
    expect(order).toEqual({ status: 400, body: { type: "UserError", error: 'Invalid query format: "order[0]" must be an array' } });
    // Cube answers 500 "Error: The query limit has been exceeded."; the stand-in's request schema
    // refuses it first, with a 400 naming the field (docs/API.md "What we learnt from real Cube").
    const over = await post({ ...q, limit: ROW_LIMITS.max + 1 });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/limit/);
  });
});
