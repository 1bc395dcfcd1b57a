// The command as it ships (issue 35 §3): src/cli/main.ts bundled by esbuild (dev/cli-bundle.ts) and run
// with plain node says and does exactly what the sources run through tsx do; bin/cellbound.mjs runs the
// bundle only while every source it was built from is unchanged, and the bundled process peaks lower.
// Each run is its own process against the platform stand-in (in this process, port 0).
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildCli, CLI_BUNDLE_DIR, CLI_INPUTS, ROOT } from "../../dev/cli-bundle.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byStatus, startCliEnv, type CliEnv } from "./support.ts";

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}
function node(args: string[], extraEnv: Record<string, string> = {}): Promise<Ran> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let env: CliEnv;
const tmp = tempDir("cb-cli-bundle-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

describe("issue 35 §3: the bundled command line", () => {
  it("issue 35 §3: the bundle built into a temp folder runs place, status and refresh with the same output and exit codes as the tsx run", async () => {
    const { bundle } = await buildCli({ outDir: tmp.file("bundle") });
    const report = await env.createReport(byStatus(3));
    const ways = {
      tsx: ["--import", "tsx", path.join(ROOT, "src/cli/main.ts")],
      bundle: [bundle],
    };
    const runs: Record<string, Array<Ran & { args: string }>> = { tsx: [], bundle: [] };
    const step = async (args: (book: string) => string[]) => {
      for (const [way, start] of Object.entries(ways)) {
        const dir = tmp.file(`books-${way}`);
        mkdirSync(dir, { recursive: true });
        const book = path.join(dir, "Sales.xlsx");
        const r = await node([...start, ...args(book)], env.env());
        // The same text once the folder (each way has its own) and the moment of a refresh are named alike.
        const alike = (t: string) => t.replaceAll(dir, "<folder>").replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
        runs[way]!.push({ code: r.code, stdout: alike(r.stdout), stderr: alike(r.stderr), args: args("Sales.xlsx").join(" ") });
      }
    };
    await step((b) => ["place", b, "--report", String(report.id), "--at", "Sheet1!B2"]);
    await step((b) => ["status", b]);
    await step((b) => ["refresh", b]);
    await env.client().updateReport(env.deploymentId, report.id, byStatus(4));
    await step((b) => ["refresh", b, "--json"]);
    await step((b) => ["status", b, "--json"]);
    await step((b) => ["refresh", b.replace("Sales", "Missing")]);
    await step(() => ["place", "--at", "Sheet1!A1"]);

    expect(runs.bundle).toEqual(runs.tsx);
    // What was compared did happen: placed, refreshed with the new row, and the two failures.
    const codes = runs.tsx!.map((r) => r.code);
    expect(codes.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(codes[5]).not.toBe(0);
    expect(codes[6]).toBe(2);
    expect(runs.tsx![0]!.stdout).toContain("(saved)");
    const refreshed = JSON.parse(runs.tsx![3]!.stdout) as { files: Array<{ placements: Array<{ outcome: string }> }> };
    expect(refreshed.files[0]!.placements[0]!.outcome).toBe("refreshed");
  }, 120_000);
});

describe("issue 35 §3: bin/cellbound.mjs runs the bundle only while its sources are unchanged", () => {
  // A copy of the project's sources and bin (node_modules linked), so its sources can be edited.
  const project = tmp.file("project");
  const usage = path.join(project, "src/cli/args.ts");
  const bin = path.join(project, "bin/cellbound.mjs");
  const trace = { CELLBOUND_BIN_TRACE: "1" };
  const help = (extraEnv: Record<string, string> = {}) => node([bin, "--help"], extraEnv);
  beforeAll(async () => {
    mkdirSync(project);
    for (const f of ["src", "bin", "package.json", "tsconfig.json"]) cpSync(path.join(ROOT, f), path.join(project, f), { recursive: true });
    symlinkSync(path.join(ROOT, "node_modules"), path.join(project, "node_modules"), "dir");
    await buildCli({ root: project });
  });

  it("issue 35 §3: a fresh bundle runs; a source changed since runs the sources through tsx (the change shows); a rebuild runs the bundle again", async () => {
    const fresh = await help(trace);
    expect(fresh.stderr).toBe("cellbound: running the bundle dist/cli/cellbound.mjs\n");
    expect(fresh.stdout).toMatch(/^Usage:\n/);
    expect(fresh.code).toBe(0);

    writeFileSync(usage, readFileSync(usage, "utf8").replace("`Usage:", "`Usage (edited):"));
    const edited = await help(trace);
    expect(edited.stderr).toBe("cellbound: running src/cli/main.ts through tsx: src/cli/args.ts changed since the bundle was built\n");
    expect(edited.stdout).toMatch(/^Usage \(edited\):\n/);
    expect(edited.stdout.replace("Usage (edited):", "Usage:")).toBe(fresh.stdout);
    expect(edited.code).toBe(0);
    // Which one ran is not shown to people: without the dev aid, nothing on stderr either way.
    expect((await help()).stderr).toBe("");

    await buildCli({ root: project });
    const rebuilt = await help(trace);
    expect(rebuilt.stderr).toBe("cellbound: running the bundle dist/cli/cellbound.mjs\n");
    expect(rebuilt.stdout).toBe(edited.stdout);
    expect((await help()).stderr).toBe("");
  });

  it("issue 35 §3: a record of the sources that is not readable, or no bundle, runs the sources through tsx", async () => {
    await buildCli({ root: project });
    const record = path.join(project, CLI_BUNDLE_DIR, CLI_INPUTS);
    const inputs = JSON.parse(readFileSync(record, "utf8")) as { inputs: unknown[] };
    writeFileSync(record, JSON.stringify({ ...inputs, inputs: [] }));
    const emptied = await help(trace);
    expect(emptied.stderr).toBe("cellbound: running src/cli/main.ts through tsx: no bundle built (npm run build:cli)\n");
    expect(emptied.stdout).toMatch(/^Usage/);

    await buildCli({ root: project });
    writeFileSync(path.join(project, CLI_BUNDLE_DIR, "cellbound.mjs"), "process.stdout.write('stale');\n");
    const replaced = await help(trace);
    expect(replaced.stderr).toBe("cellbound: running src/cli/main.ts through tsx: the bundle is not the one its record describes\n");
    expect(replaced.stdout).toMatch(/^Usage/);

    rmSync(path.join(project, "dist"), { recursive: true });
    const none = await help(trace);
    expect(none.stderr).toBe("cellbound: running src/cli/main.ts through tsx: no bundle built (npm run build:cli)\n");
    expect(none.stdout).toMatch(/^Usage/);
    expect(none.code).toBe(0);
  });

  it("issue 35 §3: the bundled `cellbound --help` process peaks well below the one run through tsx (max RSS)", async () => {
    // A small wrapper loaded first records the process's peak RSS (kB) as it exits.
    const wrapper = tmp.file("max-rss.mjs");
    writeFileSync(
      wrapper,
      `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(process.env.MAX_RSS_FILE, String(process.resourceUsage().maxRSS)));\n`,
    );
    const peak = async () => {
      const out = tmp.file("max-rss.txt");
      let best = Infinity;
      for (let i = 0; i < 2; i++) {
        const r = await node(["--import", wrapper, bin, "--help"], { MAX_RSS_FILE: out });
        expect(r.code).toBe(0);
        best = Math.min(best, Number(readFileSync(out, "utf8")));
      }
      return best;
    };
    await buildCli({ root: project });
    const bundled = await peak();
    rmSync(path.join(project, "dist"), { recursive: true });
    const tsx = await peak();
    expect(bundled, `bundled ${bundled} kB, through tsx ${tsx} kB`).toBeLessThan(0.85 * tsx);
  });
});
