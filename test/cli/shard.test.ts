// `cellbound refresh --shard i/n` and `--shard-count n` (a Kubernetes Indexed Job): every workbook in
// exactly one shard, the same split on every machine, shards balanced (issue 35 §4).
import { cpSync, mkdirSync } from "node:fs";
import path from "node:path";
import { runCli } from "../../src/cli/run.ts";
import { inShard, listWorkbooks, shardOf } from "../../src/cli/shard.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-shard-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

const names = Array.from({ length: 1000 }, (_, i) => `region-${String(Math.floor(i / 100)).padStart(2, "0")}/Sales ${i + 1}.xlsx`);

describe("issue 35 §4: sharding", () => {
  it("issue 35 §4: every one of 1,000 names lands in exactly one shard, for any number of shards", () => {
    for (const n of [1, 2, 3, 4, 5, 7, 8, 16, 100]) {
      const listed = names.map((key) => ({ file: key, key }));
      const taken = Array.from({ length: n }, (_, i) => inShard(listed, { index: i + 1, count: n }).map((l) => l.key));
      const all = taken.flat();
      expect(all, `n=${n}`).toHaveLength(names.length);
      expect(new Set(all).size, `n=${n}`).toBe(names.length);
      for (const k of names) expect(shardOf(k, n)).toBeGreaterThanOrEqual(1);
    }
  });

  it("issue 35 §4: 1,000 names are balanced within 20 % over 2 to 7 shards", () => {
    // Each name is placed by its own hash (no shard depends on which other files a machine sees), so a
    // shard's size is binomial: its spread grows with the number of shards (σ ≈ 5.5 % of 250 at n = 4,
    // 10 % at n = 10). 20 % holds with a wide margin up to 7 shards of 1,000 names.
    for (const n of [2, 3, 4, 5, 6, 7]) {
      const sizes = new Array<number>(n).fill(0);
      for (const k of names) sizes[shardOf(k, n) - 1]!++;
      const expected = names.length / n;
      for (const size of sizes) expect(Math.abs(size - expected) / expected, `n=${n}: ${sizes.join(", ")}`).toBeLessThanOrEqual(0.2);
    }
  });

  it("issue 35 §4: the split is by the path below the folder named, so the same on another machine (another mount point)", async () => {
    const a = tmp.file("machine-a/reports");
    for (const sub of ["north", "south", "north/archive"]) mkdirSync(path.join(a, sub), { recursive: true });
    const books = ["Top.xlsx", "north/Sales.xlsx", "north/Costs.xlsm", "south/Sales.xlsx", "north/archive/2023.xlsx", "south/Plan.xlsx"];
    for (const b of books) XlsxPort.open(path.join(a, b), { create: "Sheet1" }).save();
    // Not workbooks, or Excel's and Cellbound's own files: never listed.
    XlsxPort.open(path.join(a, "north", "~$Sales.xlsx"), { create: "Sheet1" }).save();
    XlsxPort.open(path.join(a, ".~Top.xlsx.1.tmp.xlsx"), { create: "Sheet1" }).save();
    const b = tmp.file("elsewhere/deeper/mount");
    mkdirSync(path.dirname(b), { recursive: true });
    cpSync(a, b, { recursive: true });
    expect(listWorkbooks([a]).map((l) => l.key)).toEqual([...books].sort());

    const run = async (args: string[], extraEnv: Record<string, string> = {}) => {
      let stdout = "";
      const code = await runCli(args, {
        stdout: (t) => void (stdout += t),
        stderr: () => {},
        progress: false,
        env: { ...env.env(), ...extraEnv },
      });
      return {
        code,
        json: JSON.parse(stdout) as {
          shard: { index: number; count: number; workbooks: number; of: number };
          files: Array<{ file: string }>;
        },
      };
    };
    const below = (root: string, files: Array<{ file: string }>) => files.map((f) => path.relative(root, f.file).split(path.sep).join("/"));
    const seen: string[] = [];
    for (const i of [1, 2, 3]) {
      const onA = await run(["refresh", a, "--shard", `${i}/3`, "--dry-run", "--json"]);
      const onB = await run(["refresh", b, "--shard", `${i}/3`, "--dry-run", "--json"]);
      // A Kubernetes Indexed Job's pod i-1 takes the same shard.
      const indexed = await run(["refresh", a, "--shard-count", "3", "--dry-run", "--json"], { JOB_COMPLETION_INDEX: String(i - 1) });
      expect(onA.code).toBe(0);
      expect(onA.json.shard).toEqual({ index: i, count: 3, workbooks: onA.json.files.length, of: books.length });
      expect(below(b, onB.json.files)).toEqual(below(a, onA.json.files));
      expect(indexed.json.files).toEqual(onA.json.files);
      seen.push(...below(a, onA.json.files));
    }
    expect(seen.sort()).toEqual([...books].sort());
  });

  it("issue 35 §4: --shard and --shard-count are checked as usage (exit 2)", async () => {
    const file = tmp.file("one.xlsx");
    XlsxPort.open(file, { create: "Sheet1" }).save();
    for (const args of [
      ["--shard", "0/3"],
      ["--shard", "4/3"],
      ["--shard", "two"],
      ["--shard", "1/2", "--shard-count", "2"],
      ["--shard-count", "3"], // no JOB_COMPLETION_INDEX
    ]) {
      const out = await env.cli(["refresh", file, ...args]);
      expect(out.code, args.join(" ")).toBe(2);
      expect(out.stderr, args.join(" ")).toMatch(/--shard|JOB_COMPLETION_INDEX/);
    }
    const empty = tmp.file("empty-folder");
    mkdirSync(empty);
    const none = await env.cli(["refresh", empty]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no workbooks \(\.xlsx, \.xlsm\) in .*empty-folder/);
  });
});
