// Benchmark: the project's data client against a plain fetch on a 10,000-row /v1/load from real
// Cube 0.33.65 (dev/cube/server; installed when missing). Both ask the same query, interleaved
// (the order alternates each round), so both see the same server and its result cache:
//   plain   — fetch + res.json()
//   client  — createDataClient().load(): fetch, JSON parse, schema check, decode into a TypedResult
// The figure is the client's overhead at the median: p50(client) / p50(plain) − 1.
//   npm run bench -- cube-client            (CUBE_BENCH_RUNS=N to change the 40 rounds)
import { loadavg } from "node:os";
import { createDataClient, type LoadQuery } from "../src/api";
import { installCube, startCube } from "../dev/cube/peer";
import { percentile, round, writeResult } from "./lib";

const RUNS = Number(process.env.CUBE_BENCH_RUNS ?? 40);
const WARMUP = 5;

installCube();
const cube = await startCube();
try {
  const token = cube.token();
  const query: LoadQuery = {
    measures: ["orders.count", "orders.total_amount", "orders.total_amount_text"],
    dimensions: ["orders.id", "orders.status", "orders.is_returned"],
    order: { "orders.id": "asc" },
    limit: 10_000,
  };
  const client = createDataClient({ dataUrl: cube.dataUrl, token });
  const plain = async () => {
    const r = await fetch(`${cube.dataUrl}/v1/load`, {
      method: "POST",
      headers: { Authorization: token, "Content-Type": "application/json" },
      body: JSON.stringify({ query }),
    });
    if (!r.ok) throw new Error(`plain fetch: ${r.status}`);
    const body = (await r.json()) as { data: unknown[] };
    return body.data.length;
  };
  const viaClient = async () => (await client.load(query)).rows.length;
  const timed = async (f: () => Promise<number>) => {
    const t0 = performance.now();
    const rows = await f();
    if (rows !== 10_000) throw new Error(`expected 10,000 rows, got ${rows}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < WARMUP; i++) {
    await timed(plain);
    await timed(viaClient);
  }
  const plainMs: number[] = [];
  const clientMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 2 === 0) {
      plainMs.push(await timed(plain));
      clientMs.push(await timed(viaClient));
    } else {
      clientMs.push(await timed(viaClient));
      plainMs.push(await timed(plain));
    }
  }
  const p50Plain = percentile(plainMs, 50);
  const p50Client = percentile(clientMs, 50);
  writeResult({
    name: "cube-client",
    unit: "ms",
    value: round(p50Client),
    baseline: round(p50Plain),
    ratio: round(p50Client / p50Plain),
    details: {
      server: "Cube 0.33.65, SQLite, 100,000 orders, in-memory cache",
      query,
      rows: 10_000,
      runs: RUNS,
      clientP50Ms: round(p50Client),
      clientP95Ms: round(percentile(clientMs, 95)),
      plainFetchP50Ms: round(p50Plain),
      plainFetchP95Ms: round(percentile(plainMs, 95)),
      overheadAtP50: `${round((p50Client / p50Plain - 1) * 100, 1)} %`,
      loadAverage: loadavg().map((x) => round(x)),
    },
  });
  console.log(
    `cube-client: client p50 ${round(p50Client)} ms vs plain fetch p50 ${round(p50Plain)} ms over ${RUNS} interleaved runs: overhead ${round((p50Client / p50Plain - 1) * 100, 1)} %`,
  );
} finally {
  await cube.stop();
}
