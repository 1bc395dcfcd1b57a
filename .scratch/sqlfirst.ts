import { spawnPlatform } from "../dev/platform/spawn.ts";
import { createDevExcel } from "../dev/excel/index.ts";
import { ExcelPort } from "../src/host/excel/index.ts";
import { SyncEngine } from "../src/sync/index.ts";
import { standInClients } from "../bench/stand-in.ts";
const platform = await spawnPlatform();
try {
  let t0 = 0, dataAt = 0;
  const { deploymentId, client, data } = standInClients(platform, () => (dataAt = performance.now() - t0));
  const cols = ["id","status","amount","quantity","customer_id","product_id","amount * 2 AS a2","amount * 3 AS a3","amount * 4 AS a4","amount * 5 AS a5", ...Array.from({length:10},(_,i)=>`amount * ${i+6} AS b${i}`)];
  const r = await client.createReport(deploymentId, { name: "x", title: "x", sqlQuery: `SELECT ${cols.join(", ")} FROM orders WHERE id <= 100000 ORDER BY id` });
  for (let k = 0; k < 3; k++) {
    const dx = createDevExcel({ platform: "OfficeOnline" });
    const port = new ExcelPort({ Excel: dx.Excel as never, Office: dx.Office as never });
    const engine = new SyncEngine({ port, platform: client, data, deploymentId });
    let first = -1;
    t0 = performance.now();
    await engine.place(r, { at: { sheetId: dx.workbook.sheets[0]!.id, row: 0, col: 0 }, onProgress: () => { if (first < 0) first = performance.now() - t0; } });
    console.log({ dataAt: Math.round(dataAt), first: Math.round(first), ratio: (first / dataAt).toFixed(2), total: Math.round(performance.now() - t0) });
  }
} finally { await platform.stop(); }
