// One `cellbound` run in its own process for bench/xlsx.bench.ts: runs the command line in process
// and prints one JSON line {code, ms, maxRssMb, stdout, portMs, engine} — peak RSS of this process as
// the kernel counts it; portMs, the time spent inside the file port (opening, reading and writing the
// workbook: every XlsxPort call, outermost only); engine, the refresh's own timings (query and layout,
// fingerprints, compare…) as the engine reports them.
import { runCli } from "../src/cli/run.ts";
import { XlsxPort } from "../src/host/xlsx/port.ts";
import { SyncEngine } from "../src/sync/index.ts";

let portMs = 0;
const byMethod: Record<string, number> = {};
let depth = 0;
// Where the peak RSS grew: each rise of the kernel's high-water mark is put down to the port method
// that just ran (or runs: async ones are sampled every 20 ms), else to the engine and the command line.
let phase = "engine";
let lastMaxRss = process.resourceUsage().maxRSS;
const rssGrowthMb: Record<string, number> = {};
const sampleRss = (to: string) => {
  const now = process.resourceUsage().maxRSS;
  if (now > lastMaxRss) rssGrowthMb[to] = Math.round(((rssGrowthMb[to] ?? 0) + (now - lastMaxRss) / 1024) * 10) / 10;
  lastMaxRss = now;
};
setInterval(() => sampleRss(phase), 20).unref();
const timed = <A extends unknown[], R>(f: (...a: A) => R, name: string) =>
  function (this: unknown, ...a: A): R {
    const t = performance.now();
    if (depth === 0) {
      sampleRss(phase);
      phase = name;
    }
    depth++;
    const done = () => {
      depth--;
      if (depth === 0) {
        sampleRss(name);
        phase = "engine";
        portMs += performance.now() - t;
        byMethod[name] = (byMethod[name] ?? 0) + performance.now() - t;
      }
    };
    try {
      const r = f.apply(this, a);
      if (r instanceof Promise) {
        return r.finally(done) as R;
      }
      if (r && typeof r === "object" && Symbol.asyncIterator in r) {
        done(); // the iterator's steps are timed one by one
        const it = (r as AsyncIterable<unknown>)[Symbol.asyncIterator]();
        return {
          [Symbol.asyncIterator]: () => ({
            next: timed(() => it.next(), name),
          }),
        } as R;
      }
      done();
      return r;
    } catch (e) {
      done();
      throw e;
    }
  };
const proto = XlsxPort.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
for (const name of [
  "snapshot",
  "commit",
  "read",
  "write",
  "clear",
  "style",
  "readStyle",
  "usedArea",
  "obstacles",
  "save",
  "tracked",
  "sheets",
])
  proto[name] = timed(proto[name]!, name);
const open = XlsxPort.open.bind(XlsxPort);
XlsxPort.open = timed(open, "open") as typeof XlsxPort.open;

const engine: Array<Record<string, number>> = [];
const refresh = SyncEngine.prototype.refresh;
SyncEngine.prototype.refresh = async function (...a: Parameters<typeof refresh>) {
  const out = await refresh.apply(this, a);
  if (out.kind === "refreshed") engine.push(out.stats.timings as unknown as Record<string, number>);
  return out;
};

let stdout = "";
const t = performance.now();
const cpu0 = process.cpuUsage();
const code = await runCli(process.argv.slice(2), {
  stdout: (s) => void (stdout += s),
  stderr: (s) => void process.stderr.write(s),
  progress: false,
  env: process.env,
});
const ms = performance.now() - t;
const cpu = process.cpuUsage(cpu0);
sampleRss(phase);
/** CPU time of this process (user + system): the rest of `ms` is waiting, mostly for the platform's answers. */
const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
const portByMethod = Object.fromEntries(Object.entries(byMethod).map(([k, v]) => [k, Math.round(v)]));
console.log(
  JSON.stringify({ code, ms, cpuMs, maxRssMb: process.resourceUsage().maxRSS / 1024, rssGrowthMb, stdout, portMs, portByMethod, engine }),
);
