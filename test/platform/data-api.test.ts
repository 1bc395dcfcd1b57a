// The data client against the stand-in's data API: token minted through the management
// API, /v1/load compiled to SQL over the 1.2M-row dataset (numbers as strings on the wire),
// Continue wait with the slow-query knob, /v1/svcsql, /v1/meta, auth errors; and the spec.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { withoutTrailingSemicolon } from "../../dev/platform/data-routes";
import {
  createDataClient,
  createDeploymentTokenManager,
  createPlatformClient,
  DataQueryError,
  TokenRefusedError,
  type DataClient,
} from "../../src/api";

let platform: RunningPlatform;
let data: DataClient;
let jwt: string;

beforeAll(async () => {
  platform = await startPlatform({ log: () => {}, continueWaitMs: 100 });
  const mgmt = createPlatformClient({ baseUrl: platform.info.baseUrl, credential: platform.info.apiKeys.analyst });
  const tokens = createDeploymentTokenManager({ client: mgmt, deploymentId: 1, expiresIn: 3600 });
  jwt = await tokens.getToken();
  data = createDataClient({ dataUrl: platform.info.dataUrl, token: tokens, retry: { baseDelayMs: 20, maxDelayMs: 50 } });
});
afterAll(async () => platform?.close());

async function raw(path: string, body: unknown, auth?: string) {
  const res = await fetch(platform.info.dataUrl + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(auth ? { Authorization: auth } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("data API on the stand-in", () => {
  it("has at least 1,000,000 fact rows", async () => {
    const r = await data.load({ measures: ["orders.count"] });
    expect(r.rows[0]![0]).toBeGreaterThanOrEqual(1_000_000);
  });
  it("sends numbers as strings and timestamps without a zone; the time member appears twice", async () => {
    const q = {
      measures: ["orders.count", "orders.total_amount"],
      timeDimensions: [
        { dimension: "orders.created_at", granularity: "month" as const, dateRange: ["2024-01-01", "2024-03-31"] as [string, string] },
      ],
    };
    const res = await raw("/v1/load", { query: q }, jwt);
    expect(res.status).toBe(200);
    const row = (res.json.data as Array<Record<string, unknown>>)[0]!;
    expect(typeof row["orders.count"]).toBe("string");
    expect(row["orders.total_amount"]).toMatch(/^\d+\.\d{2}$/);
    expect(row["orders.created_at.month"]).toBe("2024-01-01T00:00:00.000");
    expect(row["orders.created_at"]).toBe("2024-01-01T00:00:00.000");
    const typed = await data.load(q);
    expect(typed.columns.map((c) => c.key)).toEqual(["orders.created_at.month", "orders.count", "orders.total_amount"]);
    expect(typed.rows).toHaveLength(3);
    expect(typeof typed.rows[0]![1]).toBe("number");
    expect(typed.query.timeDimensions[0]!.dateRange).toEqual(["2024-01-01T00:00:00.000", "2024-03-31T23:59:59.999"]);
  });
  it("compiles dimensions of joined views, filters, order, limit, offset, total", async () => {
    const base = {
      measures: ["orders.count", "orders.avg_amount", "orders.customers_count"],
      dimensions: ["customers.country", "customers.is_vip"],
      filters: [
        { member: "customers.country", operator: "equals" as const, values: ["Japan", "Kenya"] },
        { member: "orders.count", operator: "gt" as const, values: ["10"] },
      ],
      order: { "customers.country": "asc" as const, "customers.is_vip": "desc" as const },
      total: true,
    };
    const all = await data.load(base);
    expect(all.total).toBe(4);
    expect(all.rows.map((r) => [r[0], r[1]])).toEqual([
      ["Japan", true],
      ["Japan", false],
      ["Kenya", true],
      ["Kenya", false],
    ]);
    expect(all.columns.map((c) => c.type)).toEqual(["string", "boolean", "number", "number", "number"]);
    const paged = await data.load({ ...base, limit: 2, offset: 1 });
    expect(paged.rows).toEqual(all.rows.slice(1, 3));
    expect(paged.total).toBe(4);
  });
  it("keeps 19-digit ids exact", async () => {
    const r = await data.load({
      dimensions: ["orders.external_ref"],
      filters: [{ member: "orders.id", operator: "equals", values: ["1"] }],
    });
    expect(r.rows).toEqual([["1000000000000007919"]]);
  });
  it("converts time to the query timezone", async () => {
    const q = {
      dimensions: ["orders.id"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "second" as const }],
      filters: [{ member: "orders.id", operator: "equals" as const, values: ["1"] }],
    };
    const utc = await data.load(q);
    const tokyo = await data.load({ ...q, timezone: "Asia/Tokyo" });
    expect(tokyo.timezone).toBe("Asia/Tokyo");
    const diff = Date.parse(tokyo.rows[0]![1] + "Z") - Date.parse(utc.rows[0]![1] + "Z");
    expect(diff).toBe(9 * 3600 * 1000);
  });
  it("accepts every current IANA name as the query timezone (Asia/Kathmandu, Asia/Kolkata, Europe/Kyiv), not only ICU's older ones", async () => {
    const q = {
      dimensions: ["orders.id"],
      timeDimensions: [{ dimension: "orders.created_at", granularity: "second" as const }],
      filters: [{ member: "orders.id", operator: "equals" as const, values: ["1"] }],
    };
    const utc = await data.load(q);
    for (const [timezone, minutes] of [
      ["Asia/Kathmandu", 345],
      ["Asia/Kolkata", 330],
    ] as const) {
      const r = await data.load({ ...q, timezone });
      expect(r.timezone).toBe(timezone);
      expect(Date.parse(r.rows[0]![1] + "Z") - Date.parse(utc.rows[0]![1] + "Z")).toBe(minutes * 60_000);
    }
    expect((await data.load({ ...q, timezone: "Europe/Kyiv" })).timezone).toBe("Europe/Kyiv");
    await expect(data.load({ ...q, timezone: "Mars/Olympus" })).rejects.toThrow(/Unknown timezone/);
  });
  it("answers Continue wait for slow queries; the client waits it out", async () => {
    platform.setSlowQueryMs(400);
    try {
      const q = { measures: ["products.count"] };
      const first = await raw("/v1/load", { query: q }, jwt);
      expect(first).toEqual({ status: 200, json: { error: "Continue wait" } });
      const r = await data.load({ measures: ["orders.count"], dimensions: ["orders.status"] });
      expect(r.rows).toHaveLength(4);
    } finally {
      platform.setSlowQueryMs(0);
    }
  });
  it("rejects bad queries with 400 UserError and bad auth with 403", async () => {
    await expect(data.load({ measures: ["orders.nope"] })).rejects.toBeInstanceOf(DataQueryError);
    expect((await raw("/v1/load", { query: { measures: "orders.count" } }, jwt)).status).toBe(400);
    expect(await raw("/v1/load", { query: { measures: ["orders.count"] } })).toEqual({
      status: 403,
      json: { error: "Authorization header isn't set" },
    });
    expect(await raw("/v1/load", { query: { measures: ["orders.count"] } }, "garbage")).toEqual({
      status: 403,
      json: { error: "Invalid token" },
    });
    const bad = createDataClient({ dataUrl: platform.info.dataUrl, token: jwt.slice(0, -2) + "xx", retry: { maxAttempts: 1 } });
    await expect(bad.meta()).rejects.toBeInstanceOf(TokenRefusedError); // a token problem, not a permission (issue 17 #4)
  });
  it("a refused token is dropped and a fresh one fetched once", async () => {
    const tokens = ["not-a-jwt", jwt];
    let invalidated = 0;
    const c = createDataClient({
      dataUrl: platform.info.dataUrl,
      retry: { maxAttempts: 1 },
      token: {
        getToken: async () => tokens[invalidated]!,
        invalidate: () => {
          invalidated++;
        },
      },
    });
    expect((await c.load({ measures: ["products.count"] })).rows).toEqual([[500]]);
    expect(invalidated).toBe(1);
  });
  it("svcsql runs SQL over the views only, typed by the result schema", async () => {
    const r = await data.svcsql(
      "SELECT status, count(*) AS n, min(created_at) AS first_at, bool_or(is_returned) AS any_returned FROM orders GROUP BY 1 ORDER BY 1",
    );
    expect(r.columns.map((c) => [c.key, c.type])).toEqual([
      ["status", "string"],
      ["n", "number"],
      ["first_at", "time"],
      ["any_returned", "boolean"],
    ]);
    expect(r.rows).toHaveLength(4);
    expect(r.rows[0]![2]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    await expect(data.svcsql("SELECT * FROM state_reports")).rejects.toBeInstanceOf(DataQueryError);
    await expect(data.svcsql("DELETE FROM orders")).rejects.toBeInstanceOf(DataQueryError);
  });
  it("svcsql renders awkward SQL and values faithfully: duplicate names, a trailing comment, quotes, NULLs", async () => {
    const res = await raw(
      "/v1/svcsql",
      {
        query: `SELECT 'say "hi"\\n' || chr(10) || 'é' AS s, NULL::INTEGER AS n, 1.50::DECIMAL(10,2) AS n, TIMESTAMP '2024-02-29 13:45:06.789' AS t, false AS b FROM orders LIMIT 1; -- done`,
      },
      jwt,
    );
    expect(res.status).toBe(200);
    expect(res.json.schema).toEqual([
      { name: "s", type: "string" },
      { name: "n", type: "number" },
      { name: "n", type: "number" },
      { name: "t", type: "time" },
      { name: "b", type: "boolean" },
    ]);
    // Rows are arrays in schema order: both columns named n keep their values.
    expect(res.json.data).toEqual([['say "hi"\\n\né', null, "1.50", "2024-02-29T13:45:06.789", false]]);
    const nulls = await raw(
      "/v1/svcsql",
      { query: "SELECT NULL::VARCHAR AS s, NULL::BOOLEAN AS b, NULL::TIMESTAMP AS t, NULL::DOUBLE AS d" },
      jwt,
    );
    expect(nulls.json.data).toEqual([[null, null, null, null]]);
    const typed = await data.svcsql("SELECT 1 AS a, 2 AS a, 'x' AS a");
    expect(typed.columns.map((c) => c.key)).toEqual(["a", "a", "a"]);
    expect(typed.rows).toEqual([[1, 2, "x"]]);
  });
  it("meta describes views with count, sum, avg, count distinct and string/number/boolean/time dimensions", async () => {
    const m = await data.meta();
    const orders = m.cubes.find((c) => c.name === "orders")!;
    expect(new Set(orders.measures.map((x) => x.aggType))).toEqual(new Set(["count", "sum", "avg", "countDistinct", "number"]));
    // Display formats as the semantic model sets them (issue 13): currency, percent; none where unset.
    const format = (name: string) => orders.measures.find((x) => x.name === name)?.format;
    expect([format("orders.total_amount"), format("orders.return_rate"), format("orders.count")]).toEqual([
      "currency",
      "percent",
      undefined,
    ]);
    const types = new Set(m.cubes.flatMap((c) => c.dimensions.map((d) => d.type)));
    expect(types).toEqual(new Set(["string", "number", "boolean", "time"]));
  });
});

describe("GET /api/v1/spec", () => {
  it("serves a valid OpenAPI 3.1 document without auth", async () => {
    const res = await fetch(`${platform.info.baseUrl}/api/v1/spec`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    const v = await new Validator().validate(doc as never);
    expect(v.valid).toBe(true);
    expect(Object.keys(doc.paths as object)).toContain("/api/v1/deployments/{deploymentId}/reports/by-public-id/{publicId}");
  });
});

describe("withoutTrailingSemicolon", () => {
  it("drops only a final statement terminator, never one inside a string or a comment", () => {
    expect(withoutTrailingSemicolon("SELECT 1;")).toBe("SELECT 1");
    expect(withoutTrailingSemicolon("SELECT 1 ; -- done\n")).toBe("SELECT 1 ");
    expect(withoutTrailingSemicolon("SELECT 1; /* a;b */")).toBe("SELECT 1");
    expect(withoutTrailingSemicolon("SELECT ';'")).toBe("SELECT ';'");
    expect(withoutTrailingSemicolon("SELECT 'it''s;' AS x -- c;")).toBe("SELECT 'it''s;' AS x -- c;");
    expect(withoutTrailingSemicolon("SELECT 1; SELECT 2")).toBe("SELECT 1; SELECT 2");
  });
});
