// `npm run journeys -- [--port memory|excel] [--runs N] [--steps N] [--seed S] [--path P] [--inside-structural]`:
// the workbook journeys of test/sync/journeys.ts, longer than npm test runs them. Prints what was done (steps by
// kind, what the person did while Cellbound waited, the faults injected) and, on a violation, fast-check's seed,
// path and shrunk counterexample with the journey's trace. Exit code 1 on a violation.
import { parseArgs } from "node:util";
import { runJourneys } from "./journeys.ts";
import { devExcelWorkbook, memoryWorkbook, startEnv } from "./support.ts";

function usage(msg: string): never {
  process.stderr.write(
    `${msg}\nusage: npm run journeys -- [--port memory|excel] [--runs N] [--steps N] [--seed S] [--path P] [--inside-structural]\n`,
  );
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      port: { type: "string", default: "memory" },
      runs: { type: "string", default: "100" },
      steps: { type: "string", default: "40" },
      seed: { type: "string" },
      path: { type: "string" },
      "inside-structural": { type: "boolean" },
    },
    strict: true,
  }).values;
} catch (e) {
  usage((e as Error).message);
}
if (args.port !== "memory" && args.port !== "excel") usage("--port is memory or excel");
const count = (name: string, v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) usage(`--${name} must be a whole number from 1 to 100000`);
  return n;
};
const runs = count("runs", args.runs);
const steps = count("steps", args.steps);
const seed = args.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(args.seed);
if (!Number.isInteger(seed)) usage("--seed must be an integer");

const env = await startEnv();
try {
  process.stderr.write(`journeys: ${args.port} port, seed ${seed}, ${runs} journeys of up to ${steps} steps\n`);
  const r = await runJourneys(env, args.port === "excel" ? devExcelWorkbook : memoryWorkbook, {
    seed,
    runs,
    steps,
    ...(args.path ? { path: args.path } : {}),
    ...(args["inside-structural"] ? { insideStructural: true } : {}),
  });
  const line = (o: Record<string, number>) =>
    Object.entries(o)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, n]) => `${k} ${n}`)
      .join(", ") || "none";
  const ops = Object.entries(r.stats.ops);
  const pick = (f: (k: string) => boolean) => Object.fromEntries(ops.filter(([k]) => f(k)));
  process.stdout.write(
    [
      `journeys seed ${seed}: ${r.stats.runs} journeys, ${r.stats.steps} steps in ${(r.durationMs / 1000).toFixed(1)} s`,
      `  steps: ${line(pick((k) => !k.includes(":")))}`,
      `  the person, while Cellbound waited: ${line(pick((k) => k.startsWith("during:")))}`,
      `  faults: ${line(pick((k) => k.startsWith("fault:")))}`,
      r.failure ? `VIOLATION\n${r.failure}` : "  violations: 0",
    ].join("\n") + "\n",
  );
  process.exitCode = r.failure ? 1 : 0;
} finally {
  await env.close();
}
