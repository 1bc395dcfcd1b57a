// npm run bench [-- filter]: runs every bench/*.bench.ts in its own process, one after another
// (these machines have 2 cores: benchmarks must not compete with each other).
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => !filter || f.includes(filter))
  .sort();
if (files.length === 0) {
  console.error(`No benchmark matches ${filter ?? "(all)"}.`);
  process.exit(1);
}
let failed = 0;
for (const file of files) {
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) {
    failed++;
    console.error(`!! ${file} failed (exit ${r.status})`);
  }
}
console.log(`\nbench: ${files.length - failed} of ${files.length} benchmarks ran; results in bench/results/`);
process.exit(failed ? 1 : 0);
