import { spawnPlatform } from "../dev/platform/spawn.ts";
import { standInClients } from "../bench/stand-in.ts";
import { layout } from "../src/sync/layout.ts";
import { fingerprintGrid } from "../src/sync/fingerprint.ts";
const platform = await spawnPlatform();
try {
  const { data } = standInClients(platform);
  const cols = ["id","status","amount","quantity","customer_id","product_id","amount * 2 AS a2","amount * 3 AS a3","amount * 4 AS a4","amount * 5 AS a5", ...Array.from({length:10},(_,i)=>`amount * ${i+6} AS b${i}`)];
  const sql = `SELECT ${cols.join(", ")} FROM orders WHERE id <= 100000 ORDER BY id`;
  for (let k = 0; k < 2; k++) {
    let t = performance.now();
    const f = await data.fetchSql(sql, {});
    const tFetch = performance.now() - t; t = performance.now();
    const r = f.result();
    const tDecode = performance.now() - t; t = performance.now();
    const l = layout({ result: r });
    const tLayout = performance.now() - t; t = performance.now();
    await fingerprintGrid(l.cells);
    const tFp = performance.now() - t;
    console.log({ tFetch, tDecode, tLayout, tFp });
  }
} finally { await platform.stop(); }
