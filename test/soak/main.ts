// `npm run soak -- --minutes N --seed S [--quiet]`: the long soak (test/soak/soak.ts). Prints a
// summary and writes bench/results/soak.json: operations run, faults injected by kind, invariant
// violations (must be 0), the seed. Exit code 1 when any invariant was violated.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runSoak } from "./soak.ts";

function usage(msg: string): never {
  process.stderr.write(`${msg}\nusage: npm run soak -- [--minutes N] [--seed S] [--quiet]\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: { minutes: { type: "string", default: "10" }, seed: { type: "string" }, quiet: { type: "boolean" } },
    strict: true,
  }).values;
} catch (e) {
  usage((e as Error).message);
}
const minutes = Number(args.minutes);
if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60) usage("--minutes must be a number of minutes (0 < N ≤ 1440)");
const seed = args.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(args.seed);
if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) usage("--seed must be an integer from 0 to 2^32-1");

process.stderr.write(`soak: seed ${seed}, ${minutes} min\n`);
const result = await runSoak({ seed, durationMs: minutes * 60_000, log: args.quiet ? undefined : (l) => process.stderr.write(l + "\n") });

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const out = path.join(root, "bench/results/soak.json");
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ ...result, at: new Date().toISOString(), minutes }, null, 2) + "\n");

const line = (o: Record<string, number>) =>
  Object.entries(o)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(", ") || "none";
process.stdout.write(
  [
    `soak seed ${result.seed}: ${result.steps} steps in ${(result.durationMs / 1000).toFixed(0)} s`,
    `  operations: ${line(result.operations)}`,
    `  platform faults: ${line(result.faults.platform)}`,
    `  excel faults: ${line(result.faults.excel)} (co-author edits ${result.faults.coauthorEdits})`,
    `  the person, while Cellbound waited on the network: ${line(result.faults.person)}`,
    `  invariant violations: ${result.violations.length}${result.violations.length ? ` (${line(result.violationCounts)})` : ""}`,
    ...result.violations
      .slice(0, 20)
      .map(
        (v) =>
          `    step ${v.step} ${v.op}: ${v.invariant}: ${v.detail}${v.during.length ? `\n      during the step: ${v.during.join("; ")}` : ""}`,
      ),
    `  written to ${path.relative(root, out)}`,
  ].join("\n") + "\n",
);
process.exit(result.violations.length ? 1 : 0);
