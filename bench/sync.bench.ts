// Sync engine benchmark (issue 6): the platform stand-in (its own process) + the Office.js adapter on dev/excel.
//
//   1. first placement of a 100,000 × 20 result (sqlQuery through /v1/svcsql);
//   2. refresh with unchanged data: must write 0 cells and take ≤ 25% of (1);
//   3. refresh where only the last 1% of rows changed: must write ≤ 2 chunks.
// For each: time (total; queryMs = the data request: server work and transfer; clientMs = the rest:
// decoding, layout, fingerprints, sheet reads and writes, platform record), syncs and bytes sent to Excel
// (dev/excel's request-size accounting), cells written. Ratios are measured within this run.
import { spawnPlatform } from "../dev/platform/spawn.ts";
import { createDevExcel } from "../dev/excel/index.ts";
import { CHUNK_ROWS } from "../src/checksum/index.ts";
import { ExcelPort } from "../src/host/excel/index.ts";
import { SyncEngine } from "../src/sync/index.ts";
import { round, writeResult } from "./lib.ts";
import { standInClients } from "./stand-in.ts";

const ROWS = 100_000;
const base = ["id", "external_ref", "status", "created_at", "quantity", "amount", "is_returned", "customer_id", "product_id"];
const extra = (changed: boolean) =>
  Array.from({ length: 11 }, (_, i) =>
    changed && i === 0
      ? `CASE WHEN id > ${ROWS - ROWS / 100} THEN amount * 2 + 1 ELSE amount * 2 END AS amount_x2`
      : `amount * ${i + 2} AS amount_x${i + 2}`,
  );
const sql = (changed: boolean) => `SELECT ${[...base, ...extra(changed)].join(", ")} FROM orders WHERE id <= ${ROWS} ORDER BY id`;

const roundAll = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));

// The stand-in runs in its own process, as the real platform runs on its own machine: its work
// (DuckDB, JSON rendering) does not share the add-in's event loop.
const platform = await spawnPlatform();
try {
  let queryMs = 0;
  const { deploymentId, client, data } = standInClients(platform, (ms) => (queryMs += ms));
  const dx = createDevExcel({ platform: "OfficeOnline" });
  const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
  const engine = new SyncEngine({ port, platform: client, data, deploymentId });
  const report = await client.createReport(deploymentId, { name: "Bench 100k × 20", title: "Bench 100k × 20", sqlQuery: sql(false) });
  const sheetId = dx.workbook.sheets[0]!.id;

  const measure = async <T>(fn: () => Promise<T>) => {
    dx.workbook.resetStats();
    queryMs = 0;
    const t = performance.now();
    const out = await fn();
    const ms = performance.now() - t;
    const s = dx.workbook.stats;
    return {
      out,
      ms,
      queryMs,
      clientMs: ms - queryMs,
      syncs: s.syncs,
      requestBytes: s.totalRequestBytes,
      maxRequestBytes: s.maxRequestBytes,
    };
  };

  const place = await measure(() => engine.place(report, { at: { sheetId, row: 0, col: 0 } }));
  if (place.out.kind !== "placed") throw new Error(`placement failed: ${JSON.stringify(place.out)}`);
  const key = place.out.key;
  const unchanged = await measure(() => engine.refresh(key, "ask"));
  if (unchanged.out.kind !== "refreshed") throw new Error(`refresh failed: ${unchanged.out.kind}`);
  await client.updateReport(deploymentId, report.id, { sqlQuery: sql(true) });
  const tail = await measure(() => engine.refresh(key, "ask"));
  if (tail.out.kind !== "refreshed") throw new Error(`refresh failed: ${tail.out.kind}`);

  const fig = (m: Omit<typeof place, "out">, cells: number, extraFigures: Record<string, unknown> = {}) => ({
    ms: round(m.ms),
    queryMs: round(m.queryMs),
    clientMs: round(m.clientMs),
    syncs: m.syncs,
    requestBytes: m.requestBytes,
    maxRequestBytes: m.maxRequestBytes,
    cellsWritten: cells,
    ...extraFigures,
  });
  const u = unchanged.out.stats;
  const c = tail.out.stats;
  const ratioTotal = unchanged.ms / place.ms;
  const ratioSheet = unchanged.clientMs / place.clientMs;
  const details = {
    rows: ROWS,
    cols: 20,
    chunkRows: CHUNK_ROWS,
    port: "Office.js adapter on dev/excel (OfficeOnline limits)",
    data: "platform stand-in /v1/svcsql",
    firstPlacement: fig(place, place.out.stats.cells),
    refreshUnchanged: fig(unchanged, u.cellsWritten, {
      chunksWritten: u.chunksWritten,
      chunksTotal: u.chunksTotal,
      phases: roundAll(u.timings),
    }),
    refreshLast1Percent: fig(tail, c.cellsWritten, {
      chunksWritten: c.chunksWritten,
      rowsWritten: c.rowsWritten,
      chunkEquivalentsWritten: round(c.rowsWritten / CHUNK_ROWS),
      chunksTotal: c.chunksTotal,
      phases: roundAll(c.timings),
    }),
    unchangedVsFirst: { totalRatio: round(ratioTotal, 3), clientRatio: round(ratioSheet, 3), target: 0.25 },
    targets: {
      unchangedWritesZeroCells: u.cellsWritten === 0,
      unchangedWithin25PercentTotal: ratioTotal <= 0.25,
      unchangedWithin25PercentClientPart: ratioSheet <= 0.25,
      last1PercentChunksTouched: c.chunksWritten,
      last1PercentWithin2ChunksOfRows: c.rowsWritten <= 2 * CHUNK_ROWS,
    },
  };
  console.log(JSON.stringify(details, null, 2));
  writeResult({ name: "sync", unit: "ms", value: round(unchanged.ms), baseline: round(place.ms), ratio: ratioTotal, details });
} finally {
  await platform.stop();
}
