// The process around runCli: arguments, environment, streams, exit code. Run from a clone with
// `npm run --silent cellbound -- …`, or as the package's bin `cellbound` (bin/cellbound.mjs).
import { constants } from "node:os";
import { releaseAllLocks } from "./lock.ts";
import { runCli } from "./run.ts";

// A workbook's lock is removed however the run ends: normally, or stopped (Ctrl-C, a job's SIGTERM).
// (A kill -9 leaves it; the next run sees its process is gone.)
process.on("exit", releaseAllLocks);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.once(signal, () => {
    releaseAllLocks();
    process.exit(128 + constants.signals[signal]);
  });

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  progress: process.stderr.isTTY === true,
  env: process.env,
});
process.exitCode = code;
