// The data API's sandbox (dev/platform/data-db.ts) and svcsql's limits: a data token reaches the
// sample data and nothing else (never the management state: API keys, the JWT secret, reports);
// svcsql has a row cap, a byte cap and a statement timeout, is interrupted when its client goes
// away, and a heavy query does not hold up /v1/load. Deeply nested JSON bodies are a 400.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { createDeploymentTokenManager, createPlatformClient } from "../../src/api";

let platform: RunningPlatform;
let jwt: string;
const MAX_ROWS = 50_000;

beforeAll(async () => {
  platform = await startPlatform({ log: () => {}, svcsql: { maxRows: MAX_ROWS, maxBytes: 4 * 1024 * 1024, timeoutMs: 1_500 } });
  const mgmt = createPlatformClient({ baseUrl: platform.info.baseUrl, credential: platform.info.apiKeys.viewer });
  jwt = await createDeploymentTokenManager({ client: mgmt, deploymentId: 1, expiresIn: 3600 }).getToken();
});
afterAll(async () => platform?.close());

async function post(path: string, body: unknown, signal?: AbortSignal) {
  const res = await fetch(platform.info.dataUrl + path, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: jwt },
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as { error?: string; type?: string; data?: unknown[][]; schema?: unknown[] } };
}
const sql = (query: string, signal?: AbortSignal) => post("/v1/svcsql", { query }, signal);

describe("the data sandbox", () => {
  it("never shows management state to a data token: no API key, no JWT secret, no state table", async () => {
    const secrets = [...Object.values(platform.info.apiKeys)];
    const attempts = [
      "SELECT * FROM query_table(['state_meta'])",
      "SELECT * FROM query_table(['state_reports'])",
      "SELECT * FROM query_table('main.state_placements')",
      "SELECT * FROM information_schema.tables",
      "SELECT * FROM duckdb_tables()",
      "SELECT * FROM duckdb_databases()",
      "SELECT * FROM read_text('*.duckdb')",
      "SELECT * FROM read_csv('/etc/passwd')",
      "SELECT * FROM glob('*')",
    ];
    for (const q of attempts) {
      const r = await sql(q);
      for (const s of secrets) expect(r.text, q).not.toContain(s);
      expect(r.text, q).not.toMatch(/jwtSecret|platform\.duckdb|cbk_/);
      expect([200, 400], q).toContain(r.status);
      if (r.status === 200) expect(r.text, q).not.toMatch(/state_meta|state_reports|state_placements/);
    }
    // What the catalogue does list is the sample data and its views, nothing else.
    const tables = await sql("SELECT DISTINCT table_name FROM information_schema.tables ORDER BY 1");
    expect(tables.status).toBe(200);
    const names = tables.json.data!.map((r) => r[0]);
    expect(names).toEqual(expect.arrayContaining(["orders", "customers", "products"]));
    for (const n of names) expect(String(n)).not.toMatch(/^state_/);
  });

  it("a query of state fails exactly as a query of any unknown table does", async () => {
    const state = await sql("SELECT * FROM query_table(['state_meta'])");
    const typo = await sql("SELECT * FROM query_table(['no_such_table'])");
    expect(state.status).toBe(400);
    expect(typo.status).toBe(400);
    expect(state.json.error!.replace("state_meta", "X")).toBe(typo.json.error!.replace("no_such_table", "X"));
    expect(state.json.error).toMatch(/^Unknown table\(s\): state_meta; the views are/);
    const direct = await sql("SELECT * FROM state_meta");
    const directTypo = await sql("SELECT * FROM no_such_table");
    expect(direct.status).toBe(400);
    expect(direct.json.error!.replace("state_meta", "X")).toBe(directTypo.json.error!.replace("no_such_table", "X"));
  });

  it("cannot turn external access back on or attach a database", async () => {
    for (const q of ["SELECT set_config('enable_external_access', 'true')", "ATTACH 'x.duckdb' AS x", "SET lock_configuration = false"]) {
      const r = await sql(q);
      expect(r.status, q).toBe(400);
    }
    expect((await sql("SELECT current_setting('enable_external_access') AS v")).json.data).toEqual([[false]]);
    expect((await sql("SELECT current_setting('lock_configuration') AS v")).json.data).toEqual([[true]]);
  });
});

describe("svcsql limits", () => {
  it("refuses a result over the row cap with a clear 400 (never a truncated answer)", async () => {
    const at = await sql(`SELECT * FROM range(${MAX_ROWS})`);
    expect(at.status).toBe(200);
    expect(at.json.data).toHaveLength(MAX_ROWS);
    const over = await sql("SELECT * FROM range(10000000)");
    expect(over.status).toBe(400);
    expect(over.json.type).toBe("UserError");
    expect(over.json.error).toMatch(/more than 50,000 rows.*row cap/);
  });

  it("refuses an answer over the byte cap", async () => {
    const r = await sql("SELECT repeat('x', 10000) AS s FROM range(1000)");
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/larger than 4 MiB/);
  });

  it("stops a statement past its timeout with a 400 that says so", async () => {
    const t0 = performance.now();
    const r = await sql("SELECT count(*) FROM range(100000000000)");
    expect(r.status).toBe(400);
    expect(r.json.error).toMatch(/longer than 1\.5 s.*statement timeout/);
    expect(performance.now() - t0).toBeLessThan(15_000);
  });

  it("a heavy svcsql query does not hold up /v1/load; a client that leaves interrupts its query", async () => {
    // A stand-in whose statement timeout (60 s) cannot end the heavy query during the test.
    const patient = await startPlatform({ log: () => {}, svcsql: { timeoutMs: 60_000 } });
    try {
      const mgmt = createPlatformClient({ baseUrl: patient.info.baseUrl, credential: patient.info.apiKeys.viewer });
      const token = await createDeploymentTokenManager({ client: mgmt, deploymentId: 1 }).getToken();
      const call = (path: string, body: unknown, signal?: AbortSignal) =>
        fetch(patient.info.dataUrl + path, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: token },
          body: JSON.stringify(body),
          ...(signal ? { signal } : {}),
        });
      const heavy = new AbortController();
      const running = call("/v1/svcsql", { query: "SELECT count(*) FROM range(100000000000)" }, heavy.signal).catch((e: unknown) => e);
      while (patient.state.svcsqlRunning() === 0) await new Promise((r) => setTimeout(r, 10));
      const t0 = performance.now();
      const load = await call("/v1/load", { query: { measures: ["orders.count"], dimensions: ["orders.status"] } });
      const loadMs = performance.now() - t0;
      expect(load.status).toBe(200);
      expect(((await load.json()) as { data: unknown[] }).data).toHaveLength(4);
      // Measured ~0.1–0.3 s beside the heavy query; blocked, it would wait for the 60 s timeout.
      expect(loadMs).toBeLessThan(10_000);
      expect(patient.state.svcsqlRunning()).toBe(1);
      heavy.abort();
      expect(await running).toBeInstanceOf(Error);
      // The client left: its statement is interrupted at once, not at the timeout.
      const t1 = performance.now();
      while (patient.state.svcsqlRunning() > 0 && performance.now() - t1 < 10_000) await new Promise((r) => setTimeout(r, 10));
      expect(patient.state.svcsqlRunning()).toBe(0);
      const after = await call("/v1/svcsql", { query: "SELECT 1 AS one" });
      expect(((await after.json()) as { data: unknown }).data).toEqual([["1"]]);
    } finally {
      await patient.close();
    }
  });
});

describe("request bodies", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  it("a deeply nested JSON body is a 400 on every API, not a 500", async () => {
    // Before: the management API answered 500 (the stack overflowed after parsing) and clients retried it.
    const mgmt = await fetch(`${platform.info.baseUrl}/api/v1/deployments/1/reports`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${platform.info.apiKeys.admin}` },
      body: `{"name": "Deep", "meta": ${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`,
    });
    const mgmtBody = (await mgmt.json()) as { error: string; field?: string };
    expect([mgmt.status, mgmtBody.error]).toEqual([400, "The body is nested deeper than 64 levels"]);
    expect(mgmtBody.field).toBe("(body)");
    const data = await post("/v1/svcsql", `{"query": "SELECT 1", "x": ${deep(200_000)}}`);
    expect(data.status).toBe(400);
    expect(data.json.error).toMatch(/nested/);
    const load = await post("/v1/load", `{"query": ${deep(100_000)}}`);
    expect(load.status).toBe(400);
    // 64 levels are fine (the validator then judges the body as usual).
    const ok = await post("/v1/svcsql", `{"query": "SELECT 1", "x": ${deep(63)}}`);
    expect(ok.json.error).toMatch(/Unrecognized key/);
  });
});
