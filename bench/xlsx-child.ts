// One `cellbound` run in its own process for bench/xlsx.bench.ts: runs the command line in process
// and prints one JSON line {code, ms, maxRssMb, stdout} (peak RSS of this process as the kernel counts it).
import { runCli } from "../src/cli/run.ts";

let stdout = "";
const t = performance.now();
const code = await runCli(process.argv.slice(2), {
  stdout: (s) => void (stdout += s),
  stderr: (s) => void process.stderr.write(s),
  progress: false,
  env: process.env,
});
const ms = performance.now() - t;
console.log(JSON.stringify({ code, ms, maxRssMb: process.resourceUsage().maxRSS / 1024, stdout }));
