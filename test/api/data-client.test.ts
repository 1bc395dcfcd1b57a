// The data client against recorded real-platform responses: numbers as strings (Postgres),
// "Continue wait", the annotation, time dimensions twice per row, errors.
import { describe, expect, it } from "vitest";
import {
  createDataClient,
  DataQueryError,
  InvalidResponseError,
  TimeoutError,
  TokenRefusedError,
  decodeNumber,
  decodeTime,
  type LoadQuery,
} from "../../src/api";
import { fixture, replay } from "./fixtures";

const fast = { baseDelayMs: 1, maxDelayMs: 2 };
const client = (f: ReturnType<typeof replay>, token = "jwt-token") =>
  createDataClient({ dataUrl: "http://data.test/cubejs-api", token, fetch: f.fetch, retry: fast });
const queryOf = (name: string) => (fixture(name).request.body as { query: LoadQuery }).query;

describe("data client on recorded responses", () => {
  it("Postgres numbers as strings become numbers; time dimension gives one granular column", async () => {
    const f = replay(fixture("postgres/load-time-month.json"));
    const r = await client(f).load(queryOf("postgres/load-time-month.json"));
    expect(f.seen[0]!.url).toBe("http://data.test/cubejs-api/v1/load");
    expect(f.seen[0]!.headers.Authorization).toBe("jwt-token"); // no prefix
    expect(f.seen[0]!.body).toEqual({ query: queryOf("postgres/load-time-month.json") });
    expect(r.columns).toEqual([
      { key: "orders.status", title: "Orders Status", shortTitle: "Status", type: "string", kind: "dimension" },
      {
        key: "orders.created_at.month",
        title: "Orders Created at",
        shortTitle: "Created at",
        type: "time",
        kind: "timeDimension",
        granularity: "month",
      },
      { key: "orders.count", title: "Orders Count", shortTitle: "Count", type: "number", kind: "measure" },
      { key: "orders.total_amount", title: "Orders Total Amount", shortTitle: "Total Amount", type: "number", kind: "measure" },
    ]);
    expect(r.rows[0]).toEqual(["shipped", "2024-01-01T00:00:00.000", 2232, 113829.6]);
    expect(r.rows[2]).toEqual(["cancelled", "2024-01-01T00:00:00.000", 2232, 113988]);
    expect(r.rows).toHaveLength(12);
    expect(r.timezone).toBe("UTC");
    expect(r.total).toBeNull();
    expect(r.query.order).toEqual([{ id: "orders.created_at", desc: false }]);
    expect(r.query.timeDimensions[0]!.dateRange).toEqual(["2024-01-01T00:00:00.000", "2024-03-31T23:59:59.999"]);
  });
  it("SQLite numbers (JSON numbers) decode the same as Postgres strings", async () => {
    const pg = await client(replay(fixture("postgres/load-flat.json"))).load(queryOf("postgres/load-flat.json"));
    const lite = await client(replay(fixture("load-flat.json"))).load(queryOf("load-flat.json"));
    expect(pg.rows).toEqual(lite.rows);
    expect(pg.rows[0]).toEqual(["cancelled", 25000, 1277500]);
  });
  it("total: true carries the full row count", async () => {
    const r = await client(replay(fixture("postgres/load-total.json"))).load(queryOf("postgres/load-total.json"));
    expect(r.total).toBe(4);
    expect(r.rows).toEqual([
      ["completed", 25000],
      ["cancelled", 25000],
    ]);
  });
  it("asks again on Continue wait, then returns the result", async () => {
    const f = replay(fixture("load-continue-wait.json"), fixture("load-continue-wait.json"), fixture("load-after-continue-wait.json"));
    const r = await client(f).load(queryOf("load-continue-wait.json"));
    expect(f.seen).toHaveLength(3);
    expect(f.seen.every((s) => JSON.stringify(s.body) === JSON.stringify(f.seen[0]!.body))).toBe(true);
    expect(r.rows).toEqual([[15000000]]);
  });
  it("Continue wait is progress: polled past maxAttempts, bounded by the request's whole budget", async () => {
    const f = replay(fixture("load-continue-wait.json"));
    const c = createDataClient({
      dataUrl: "http://data.test",
      token: "t",
      fetch: f.fetch,
      retry: { maxAttempts: 4, maxElapsedMs: 300, baseDelayMs: 1, maxDelayMs: 5 },
    });
    const started = Date.now();
    const e = await c.load({ measures: ["slow.n"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).message).toMatch(/^POST \/v1\/load: not done within 0.3 s \(last: .*Continue wait\)/);
    expect(f.seen.length).toBeGreaterThan(4); // polls do not use up the error retries
    expect(Date.now() - started).toBeLessThan(1500);
  });
  it("maps the recorded errors to typed errors", async () => {
    const unknown = await client(replay(fixture("postgres/load-unknown-member.json")))
      .load(queryOf("postgres/load-unknown-member.json"))
      .catch((x: unknown) => x);
    expect(unknown).toBeInstanceOf(DataQueryError);
    expect((unknown as Error).message).toContain("'nope' not found");
    // Cube's 403s about the token are sign-in problems, not permissions (issue 17 finding 4).
    await expect(client(replay(fixture("load-no-auth.json"))).load({ measures: ["orders.count"] })).rejects.toBeInstanceOf(
      TokenRefusedError,
    );
    await expect(client(replay(fixture("load-bad-token.json"))).load({ measures: ["orders.count"] })).rejects.toBeInstanceOf(
      TokenRefusedError,
    );
  });
  it("a malformed response is an InvalidResponseError, not a crash", async () => {
    const bad = fixture("postgres/load-flat.json");
    const body = structuredClone(bad.body) as { data: Array<Record<string, unknown>> };
    body.data[0]!["orders.count"] = "twelve";
    await expect(client(replay({ ...bad, body })).load(queryOf("postgres/load-flat.json"))).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(client(replay({ ...bad, body: { data: "nope" } })).load({ measures: ["orders.count"] })).rejects.toBeInstanceOf(
      InvalidResponseError,
    );
    const noAnnotation = structuredClone(bad.body) as { annotation: { dimensions: Record<string, unknown> } };
    noAnnotation.annotation.dimensions = {};
    await expect(client(replay({ ...bad, body: noAnnotation })).load(queryOf("postgres/load-flat.json"))).rejects.toBeInstanceOf(
      InvalidResponseError,
    );
  });
  it("svcsql rows are arrays in schema order; a row of the wrong length or a bad value is an InvalidResponseError", async () => {
    const answer = (data: unknown) => ({
      request: { method: "POST", path: "/v1/svcsql", body: {}, authorization: "" },
      status: 200,
      body: {
        schema: [
          { name: "n", type: "number" },
          { name: "n", type: "string" },
          { name: "at", type: "time" },
          { name: "ok", type: "boolean" },
        ],
        data,
      },
    });
    const r = await client(
      replay(
        answer([
          ["12.50", "x", "2024-01-02 03:04:05", true],
          [null, null, null, null],
        ]),
      ),
    ).svcsql("SELECT …");
    expect(r.columns.map((c) => [c.key, c.type])).toEqual([
      ["n", "number"],
      ["n", "string"],
      ["at", "time"],
      ["ok", "boolean"],
    ]);
    expect(r.rows).toEqual([
      [12.5, "x", "2024-01-02T03:04:05.000", true],
      [null, null, null, null],
    ]);
    for (const bad of [
      [["1", "x", "2024-01-02", true, "extra"]],
      [["1", "x"]],
      [{ n: "1" }],
      [["one", "x", "2024-01-02", true]],
      [["1", "x", "2024-01-02", "maybe"]],
    ]) {
      await expect(client(replay(answer(bad))).svcsql("SELECT …")).rejects.toBeInstanceOf(InvalidResponseError);
    }
  });
  it("fetch*: `source` fingerprints the answer (load without its lastRefreshTime); decoding waits for result()", async () => {
    const rec = fixture("postgres/load-flat.json");
    const q = queryOf("postgres/load-flat.json");
    const at = (t: string, data?: unknown) => ({
      ...rec,
      body: { ...(rec.body as object), lastRefreshTime: t, ...(data ? { data } : {}) },
    });
    const a = await client(replay(at("2026-11-22T10:00:00.000Z"))).fetchLoad(q);
    const b = await client(replay(at("2026-11-22T11:30:00.000Z"))).fetchLoad(q);
    expect(a.source).toMatch(/^[0-9a-f]{16}$/);
    expect(b.source).toBe(a.source); // only the refresh time differs
    const rows = structuredClone((rec.body as { data: Array<Record<string, unknown>> }).data);
    rows[0]!["orders.count"] = "25001";
    expect((await client(replay(at("2026-11-22T10:00:00.000Z", rows))).fetchLoad(q)).source).not.toBe(a.source);
    expect(a.result()).toBe(a.result()); // decoded once
    expect(a.result().rows).toEqual((await client(replay(rec)).load(q)).rows);

    const big = (first: unknown) => ({
      request: rec.request,
      status: 200,
      body: { schema: [{ name: "n", type: "number" }], data: [[first], ...Array.from({ length: 2000 }, (_, i) => [String(i)])] },
    });
    const ok1 = await client(replay(big("1"))).fetchSql("SELECT n");
    const ok2 = await client(replay(big("1"))).fetchSql("SELECT n");
    expect(ok2.source).toBe(ok1.source);
    expect(ok1.result().rows[0]).toEqual([1]);
    const bad = await client(replay(big("one"))).fetchSql("SELECT n"); // large: not parsed yet
    expect(bad.source).not.toBe(ok1.source);
    expect(() => bad.result()).toThrow(InvalidResponseError);
  });
  it("fetchSql slices: the rows a slice at a time, equal to result(); a bad value or a broken body is an InvalidResponseError", async () => {
    const rec = fixture("postgres/load-flat.json");
    const answer = (data: unknown[]) => ({
      request: rec.request,
      status: 200,
      body: {
        schema: [
          { name: "n", type: "number" },
          { name: "at", type: "time" },
        ],
        data,
      },
    });
    const rows = Array.from({ length: 2500 }, (_, i) => [String(i / 4), i % 7 ? "2024-01-02 03:04:05" : null]);
    const fetched = await client(replay(answer(rows))).fetchSql("SELECT n, at");
    const slices = [...fetched.slices!(1000)];
    expect(slices.map((s) => s.rows.length)).toEqual([1000, 1000, 500]);
    expect(slices.every((s) => s.columns.length === 2)).toBe(true);
    expect(slices.flatMap((s) => s.rows)).toEqual(fetched.result().rows);
    const empty = await client(replay(answer([]))).fetchSql("SELECT n, at");
    expect([...empty.slices!(1000)].map((s) => [s.columns.length, s.rows.length])).toEqual([[2, 0]]);
    // A bad value in the second slice: the first slice comes, then the error names the row in the whole answer.
    const bad = await client(replay(answer([...rows.slice(0, 1500), ["one", null]]))).fetchSql("SELECT n, at");
    const got: number[] = [];
    expect(() => {
      for (const s of bad.slices!(1000)) got.push(s.rows.length);
    }).toThrow(/row 1500/);
    expect(got).toEqual([1000]);
  });
  it("meta parses the recorded metadata", async () => {
    const m = await client(replay(fixture("postgres/meta.json"))).meta();
    expect(m.cubes.map((c) => c.name)).toContain("orders");
  });
});

describe("value normalisation", () => {
  it("keeps decimals over 15 significant digits as the exact string", () => {
    expect(decodeNumber("1000000009502768324")).toBe("1000000009502768324");
    expect(decodeNumber("123456789012345")).toBe(123456789012345);
    expect(decodeNumber("1234567890123456")).toBe("1234567890123456");
    expect(decodeNumber("113988.00")).toBe(113988);
    expect(decodeNumber("-0.000123")).toBe(-0.000123);
    expect(decodeNumber("100000000000000000000")).toBe(1e20);
    expect(decodeNumber(null)).toBeNull();
    expect(() => decodeNumber("12a")).toThrow();
    expect(() => decodeNumber("abc")).toThrow();
    expect(() => decodeNumber("")).toThrow();
    expect(() => decodeNumber("0x10")).toThrow();
    expect(decodeNumber(" 12.5 ")).toBe(12.5);
    expect(decodeNumber(" 1234567890123456 ")).toBe("1234567890123456");
  });
  it("times become naive wall-clock in the query timezone", () => {
    expect(decodeTime("2024-01-01T00:00:00.000", "UTC")).toBe("2024-01-01T00:00:00.000");
    expect(decodeTime("2024-01-01 10:20:30", "UTC")).toBe("2024-01-01T10:20:30.000");
    expect(decodeTime("2024-01-01", "UTC")).toBe("2024-01-01T00:00:00.000");
    expect(decodeTime("2024-07-01T12:00:00.000Z", "Europe/Berlin")).toBe("2024-07-01T14:00:00.000");
    expect(decodeTime("2024-01-01T00:30:00+01:00", "UTC")).toBe("2023-12-31T23:30:00.000");
    expect(() => decodeTime("yesterday", "UTC")).toThrow();
  });
});
