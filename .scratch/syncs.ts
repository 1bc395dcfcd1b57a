import { spawnPlatform } from "../dev/platform/spawn.ts";
import { createDevExcel } from "../dev/excel/index.ts";
import { ExcelPort } from "../src/host/excel/index.ts";
import { SyncEngine } from "../src/sync/index.ts";
import { standInClients } from "../bench/stand-in.ts";
const platform = await spawnPlatform();
try {
  const { deploymentId, client, data } = standInClients(platform);
  const r = await client.createReport(deploymentId, { name: "x", title: "x", sqlQuery: "SELECT id, status, amount FROM orders WHERE id <= 2000 ORDER BY id" });
  const dx = createDevExcel({ platform: "OfficeOnline" });
  const port = new ExcelPort({ Excel: dx.Excel as never, Office: dx.Office as never });
  const inst = port as unknown as { sync: (...a: unknown[]) => Promise<unknown> };
  const orig = inst.sync;
  inst.sync = function (this: unknown, ...a: unknown[]) {
    const st = (new Error().stack ?? "").split("\n").slice(2, 7).map((l) => l.trim().replace(/\(.*\/(src|dev)\//, "(")).join(" < ");
    console.log("SYNC", st);
    return orig(...a);
  };
  const engine = new SyncEngine({ port, platform: client, data, deploymentId });
  await engine.place(r, { at: { sheetId: dx.workbook.sheets[0]!.id, row: 0, col: 0 } });
  console.log("total", dx.workbook.stats.syncs);
} finally { await platform.stop(); }
