// The process around runCli: arguments, environment, streams, exit code. Run from a clone with
// `npm run --silent cellbound -- …`, or as the package's bin `cellbound` (bin/cellbound.mjs).
import { runCli } from "./run.ts";

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  progress: process.stderr.isTTY === true,
  env: process.env,
});
process.exitCode = code;
