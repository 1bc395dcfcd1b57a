// Round trips (issue 20): what each operation costs in context.sync() calls, bytes sent to Excel and
// modelled time under each latency profile of dev/excel (measured time + syncs × the profile's
// round trip + bytes at its throughput). The Office.js adapter runs on dev/excel with Excel on the web's
// limits; the platform stand-in runs in its own process. Counts are exact; times are within this run.
//
//   1. first placement of a 2,000 × 3 report, then its refresh with nothing changed;
//   2. Refresh all of 50 unchanged placements of 2,000 × 10, then again with one value changed in one;
//   3. first placement of 100,000 × 20 (a paged semantic report; the same size as one SQL answer): when
//      the first cell is written against when the last of the data arrived, and the largest request of one sync.
import { spawnPlatform } from "../dev/platform/spawn.ts";
import { createDevExcel, LATENCY, LATENCY_PROFILES, type DevExcel } from "../dev/excel/index.ts";
import { ExcelPort } from "../src/host/excel/index.ts";
import { SyncEngine } from "../src/sync/index.ts";
import { round, writeResult } from "./lib.ts";
import { standInClients } from "./stand-in.ts";

const platform = await spawnPlatform();
try {
  /** When the last data answer arrived (ms since `t0`). */
  let dataAt = 0;
  let t0 = 0;
  const { deploymentId, client, data } = standInClients(platform, () => (dataAt = performance.now() - t0));
  const excel = (): { dx: DevExcel; engine: SyncEngine; sheetId: string } => {
    const dx = createDevExcel({ platform: "OfficeOnline" });
    const port = new ExcelPort({ Excel: dx.Excel as unknown as typeof Excel, Office: dx.Office as unknown as typeof Office });
    return {
      dx,
      engine: new SyncEngine({ port, platform: client, data, deploymentId, queryConcurrency: 4 }),
      sheetId: dx.workbook.sheets[0]!.id,
    };
  };
  const measure = async <T>(dx: DevExcel, fn: () => Promise<T>) => {
    dx.workbook.resetStats();
    t0 = performance.now();
    const out = await fn();
    const ms = performance.now() - t0;
    const s = dx.workbook.stats;
    const modelled = Object.fromEntries(
      LATENCY_PROFILES.map((p) => [
        p,
        round(ms + s.syncs * LATENCY[p].roundTripMs + (s.totalRequestBytes + s.totalResponseBytes) / LATENCY[p].bytesPerMs),
      ]),
    );
    return {
      out,
      figures: {
        syncs: s.syncs,
        emptySyncs: s.emptySyncs,
        requestBytes: s.totalRequestBytes,
        responseBytes: s.totalResponseBytes,
        maxRequestBytes: s.maxRequestBytes,
        measuredMs: round(ms),
        modelledMs: modelled,
      },
    };
  };
  const cols = (n: number, changedId?: number) =>
    [
      "id",
      "status",
      "amount",
      "quantity",
      "customer_id",
      "product_id",
      "amount * 2 AS a2",
      "amount * 3 AS a3",
      "amount * 4 AS a4",
      "amount * 5 AS a5",
    ]
      .slice(0, n)
      .map((c) =>
        c === "amount" && changedId !== undefined ? `CASE WHEN id = ${changedId} THEN amount + 1 ELSE amount END AS amount` : c,
      );
  const sql = (rows: number, n: number, changedId?: number) =>
    `SELECT ${cols(n, changedId).join(", ")} FROM orders WHERE id <= ${rows} ORDER BY id`;

  // 1. One placement of 2,000 × 3.
  const one = excel();
  const small = await client.createReport(deploymentId, { name: "Bench 2,000 × 3", title: "Bench 2,000 × 3", sqlQuery: sql(2000, 3) });
  const place = await measure(one.dx, () => one.engine.place(small, { at: { sheetId: one.sheetId, row: 0, col: 0 } }));
  if (place.out.kind !== "placed") throw new Error(`placement failed: ${JSON.stringify(place.out)}`);
  const key = place.out.key;
  const unchanged = await measure(one.dx, () => one.engine.refresh(key, "ask"));
  if (unchanged.out.kind !== "refreshed" || unchanged.out.stats.cellsWritten !== 0)
    throw new Error(`unexpected refresh: ${JSON.stringify(unchanged.out)}`);

  // 1b. A bound placement (issue 32): its country from Sheet1!A1; an unchanged refresh reads the input in the same snapshot.
  one.dx.workbook.typeInto(one.sheetId, "A1", "Germany");
  const byCountry = await client.createReport(deploymentId, {
    name: "Bench bound",
    title: "Bench bound",
    jsonQuery: JSON.stringify({
      measures: ["orders.count"],
      dimensions: ["customers.country", "orders.status"],
      order: [["orders.status", "asc"]],
    }),
  });
  const bound = await one.engine.place(byCountry, {
    at: { sheetId: one.sheetId, row: 0, col: 5 },
    inputs: [{ member: "customers.country", ref: "Sheet1!A1" }],
  });
  if (bound.kind !== "placed") throw new Error(`bound placement failed: ${JSON.stringify(bound)}`);
  const boundUnchanged = await measure(one.dx, () => one.engine.refresh(bound.key, "ask"));
  if (boundUnchanged.out.kind !== "refreshed" || boundUnchanged.out.stats.cellsWritten !== 0)
    throw new Error(`unexpected refresh: ${JSON.stringify(boundUnchanged.out)}`);

  // 2. Refresh all of 50 placements of 2,000 × 10 (side by side, one sheet each five).
  const many = excel();
  const reports = [];
  for (let i = 0; i < 50; i++)
    reports.push(
      await client.createReport(deploymentId, { name: `Bench 50 #${i + 1}`, title: `Bench 50 #${i + 1}`, sqlQuery: sql(2000, 10) }),
    );
  for (const [i, r] of reports.entries()) {
    const out = await many.engine.place(r, { at: { sheetId: many.sheetId, row: 0, col: i * 11 } });
    if (out.kind !== "placed") throw new Error(`placement ${i} failed: ${out.kind}`);
  }
  const allUnchanged = await measure(many.dx, () => many.engine.refreshAll());
  const done = (q: typeof allUnchanged.out) => Object.values(q.items).filter((x) => x.state === "done").length;
  if (done(allUnchanged.out) !== 50) throw new Error(`Refresh all: ${JSON.stringify(allUnchanged.out.items)}`);
  await client.updateReport(deploymentId, reports[17]!.id, { sqlQuery: sql(2000, 10, 1234) });
  const allOneChanged = await measure(many.dx, () => many.engine.refreshAll());
  if (done(allOneChanged.out) !== 50) throw new Error(`Refresh all: ${JSON.stringify(allOneChanged.out.items)}`);

  // 3. A large first placement: when does the first cell land, against when the last of the data arrived?
  //    a) a flat semantic report of 100,000 × 20 without a limit: two pages of 50,000 rows (the first
  //       rows are written while the second page arrives: issue 20 §2);
  //    b) the same size as SQL: one answer, written once it is in (reported, not a target).
  const wideMembers = {
    dimensions: [
      "orders.id",
      "orders.external_ref",
      "orders.status",
      "orders.created_at",
      "orders.quantity",
      "orders.amount",
      "orders.is_returned",
      "customers.name",
      "customers.country",
      "customers.segment",
      "customers.is_vip",
      "customers.signed_up_at",
      "products.name",
      "products.category",
      "products.price",
    ],
    measures: ["orders.count", "orders.total_amount", "orders.avg_amount", "orders.total_quantity", "orders.return_rate"],
  };
  const largeLoad = await client.createReport(deploymentId, {
    name: "Bench 100,000 × 20 (pages)",
    title: "Bench 100,000 × 20 (pages)",
    jsonQuery: JSON.stringify({ ...wideMembers, filters: [{ member: "orders.id", operator: "lte", values: ["100000"] }] }),
  });
  const largeSql = await client.createReport(deploymentId, {
    name: "Bench 100,000 × 20 (SQL)",
    title: "Bench 100,000 × 20 (SQL)",
    sqlQuery: `SELECT ${[...cols(10), ...Array.from({ length: 10 }, (_, i) => `amount * ${i + 6} AS b${i}`)].join(", ")} FROM orders WHERE id <= 100000 ORDER BY id`,
  });
  const large = async (report: typeof largeLoad) => {
    const big = excel();
    // The first cell lands with the first block of the first commit: the place progress callback's first call.
    let firstCellAt = -1;
    const onProgress = () => {
      if (firstCellAt < 0) firstCellAt = performance.now() - t0;
    };
    const m = await measure(big.dx, () => big.engine.place(report, { at: { sheetId: big.sheetId, row: 0, col: 0 }, onProgress }));
    if (m.out.kind !== "placed") throw new Error(`large placement failed: ${m.out.kind}`);
    return {
      ...m.figures,
      range: m.out.range,
      dataArrivedMs: round(dataAt),
      firstCellWrittenMs: round(firstCellAt),
      firstCellVsData: round(firstCellAt / dataAt),
    };
  };
  const paged = await large(largeLoad);
  const oneAnswer = await large(largeSql);

  const details = {
    port: "Office.js adapter on dev/excel (Excel on the web limits: 5 MB per request and response)",
    profiles: LATENCY,
    firstPlacement2000x3: place.figures,
    refreshUnchanged2000x3: unchanged.figures,
    refreshUnchangedBoundToACell: boundUnchanged.figures,
    refreshAll50Unchanged: allUnchanged.figures,
    refreshAll50OneValueChanged: allOneChanged.figures,
    firstPlacement100000x20Pages: paged,
    firstPlacement100000x20Sql: oneAnswer,
    targets: {
      unchangedRefreshAtMost2Syncs: unchanged.figures.syncs <= 2,
      unchangedBoundRefreshAtMost2Syncs: boundUnchanged.figures.syncs <= 2,
      firstPlacementAtMost5Syncs: place.figures.syncs <= 5,
      refreshAll50UnchangedAtMost12Syncs: allUnchanged.figures.syncs <= 12,
      oneChangedAtMost3More: allOneChanged.figures.syncs - allUnchanged.figures.syncs <= 3,
      noEmptySyncs: [place.figures, unchanged.figures, allUnchanged.figures, allOneChanged.figures, paged, oneAnswer].every(
        (f) => f.emptySyncs === 0,
      ),
      firstCellBefore2xData: paged.firstCellVsData < 2 && oneAnswer.firstCellVsData < 2,
      largeWithin5MBPerSync: Math.max(paged.maxRequestBytes, oneAnswer.maxRequestBytes) <= 5_000_000,
    },
  };
  console.log(JSON.stringify(details, null, 2));
  writeResult({ name: "roundtrips", unit: "syncs", value: allUnchanged.figures.syncs, details });
} finally {
  await platform.stop();
}
