// Benchmark: /v1/load of a 10,000-row result from the stand-in (1.2M fact rows), p50 and
// p95 of the HTTP round trip, plus the client's decode time (validation + TypedResult);
// also the stand-in's cold start (dataset generated) and warm start (dataset reused).
// Target: p50 ≤ 100 ms. A real semantic layer took 250–450 ms for such a query here.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { DuckDBInstance } from "@duckdb/node-api";
import path from "node:path";
import { startPlatform } from "../dev/platform/server";
import { createPlatformClient, LoadResponse, toTypedResult, type LoadQuery } from "../src/api";
import { compileLoad } from "../dev/platform/semantic";
import { DEFAULT_CACHE_DIR, DATASET_VERSION } from "../dev/platform/dataset";
import { percentile, round, writeResult } from "./lib";

const RUNS = 40;
const WARMUP = 5;

async function startupFigures() {
  const cache = mkdtempSync(path.join(tmpdir(), "cellbound-bench-cache-"));
  const dir = mkdtempSync(path.join(tmpdir(), "cellbound-bench-data-"));
  try {
    const cold = await startPlatform({ dataDir: dir, datasetCacheDir: cache, log: () => {} });
    await cold.close();
    const warm = await startPlatform({ dataDir: dir, datasetCacheDir: cache, log: () => {} });
    await warm.close();
    const fresh = await startPlatform({ datasetCacheDir: cache, log: () => {} }); // new temp data dir, dataset copied from the cache
    await fresh.close();
    return { coldMs: cold.startup.ms, coldGenerated: cold.startup.generated, warmMs: warm.startup.ms, freshDirMs: fresh.startup.ms };
  } finally {
    rmSync(cache, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

const platform = await startPlatform({ log: () => {} });
try {
  const mgmt = createPlatformClient({ baseUrl: platform.info.baseUrl, credential: platform.info.apiKeys.analyst });
  const { token } = await mgmt.createDeploymentToken(1, { expiresIn: 3600 });
  const query: LoadQuery = {
    measures: ["orders.count", "orders.total_amount"],
    dimensions: ["customers.name", "customers.country"],
    order: { "customers.name": "asc" },
    limit: 10_000,
  };
  const post = async (q: LoadQuery) => {
    const res = await fetch(`${platform.info.dataUrl}/v1/load`, {
      method: "POST",
      headers: { Authorization: token, "Content-Type": "application/json" },
      body: JSON.stringify({ query: q }),
    });
    return (await res.json()) as unknown;
  };
  const measure = async (base: LoadQuery, runs: number) => {
    const roundTrips: number[] = [];
    const decodes: number[] = [];
    let rows = 0;
    for (let i = 0; i < WARMUP + runs; i++) {
      // A different offset each time: same work, no chance of a cached answer.
      const q = { ...base, offset: i };
      const t0 = performance.now();
      const json = await post(q);
      const t1 = performance.now();
      const typed = toTypedResult(LoadResponse.parse(json));
      const t2 = performance.now();
      rows = typed.rows.length;
      if (rows !== 10_000) throw new Error(`expected 10,000 rows, got ${rows}`);
      if (i >= WARMUP) {
        roundTrips.push(t1 - t0);
        decodes.push(t2 - t1);
      }
    }
    return { roundTrips, decodes, rows };
  };
  const { roundTrips, decodes, rows } = await measure(query, RUNS);
  // A 10,000-row query no rollup answers (orders time dimension): the pushdown alone.
  const noRollupQuery: LoadQuery = {
    measures: ["orders.count", "orders.total_amount"],
    dimensions: ["customers.name"],
    timeDimensions: [{ dimension: "orders.created_at", granularity: "year" }],
    order: { "customers.name": "asc" },
    limit: 10_000,
  };
  const noRollup = await measure(noRollupQuery, 15);
  const p50 = percentile(roundTrips, 50);
  // The same SQL the server runs (rows rendered as JSON text by DuckDB), straight on DuckDB with
  // the server's thread count, in this run: what HTTP and the layer add.
  const inst = await DuckDBInstance.create(":memory:", { threads: "1" });
  const conn = await inst.connect();
  await conn.run(`ATTACH '${path.join(DEFAULT_CACHE_DIR, `dataset-v${DATASET_VERSION}.duckdb`)}' AS sample (READ_ONLY)`);
  const sqlOnly: number[] = [];
  for (let i = 0; i < WARMUP + 15; i++) {
    const c = compileLoad({ ...query, offset: i });
    const t0 = performance.now();
    (await conn.runAndReadAll(c.jsonSql, c.params)).getColumns();
    if (i >= WARMUP) sqlOnly.push(performance.now() - t0);
  }
  conn.closeSync();
  inst.closeSync();
  const startup = await startupFigures();
  writeResult({
    name: "data-load",
    unit: "ms",
    value: round(p50),
    baseline: 100,
    ratio: round(p50 / 100),
    details: {
      query,
      rows,
      runs: RUNS,
      loadP50Ms: round(p50),
      loadP95Ms: round(percentile(roundTrips, 95)),
      decodeP50Ms: round(percentile(decodes, 50)),
      decodeP95Ms: round(percentile(decodes, 95)),
      noRollupQuery,
      noRollupP50Ms: round(percentile(noRollup.roundTrips, 50)),
      noRollupP95Ms: round(percentile(noRollup.roundTrips, 95)),
      sqlOnlyP50Ms: round(percentile(sqlOnly, 50)),
      loadOverSqlRatio: round(p50 / percentile(sqlOnly, 50)),
      loadAverage: loadavg().map((x) => round(x)),
      targetP50Ms: 100,
      realSemanticLayerMs: "250-450",
      startup: Object.fromEntries(Object.entries(startup).map(([k, v]) => [k, typeof v === "number" ? round(v) : v])),
    },
  });
  console.log(
    `  /v1/load 10,000 rows: p50 ${round(p50)} ms, p95 ${round(percentile(roundTrips, 95))} ms; decode p50 ${round(percentile(decodes, 50))} ms`,
  );
  console.log(
    `  10,000 rows without a rollup (pushdown only): p50 ${round(percentile(noRollup.roundTrips, 50))} ms, p95 ${round(percentile(noRollup.roundTrips, 95))} ms`,
  );
  console.log(
    `  same SQL on DuckDB alone: p50 ${round(percentile(sqlOnly, 50))} ms; machine load average ${loadavg()
      .map((x) => round(x))
      .join(", ")} (2 cores)`,
  );
  console.log(
    `  startup: cold ${round(startup.coldMs)} ms (dataset generated: ${startup.coldGenerated}), warm ${round(startup.warmMs)} ms, fresh temp dir ${round(startup.freshDirMs)} ms`,
  );
} finally {
  await platform.close();
}
