// Two `cellbound` processes writing one workbook at once (issue 35 §5): each run is its own process
// (bin/cellbound.mjs), started together. Whatever the timing, never two "saved" with one placement
// lost: a run that says it placed or refreshed finds its work in the file, and one that could not wait
// says so (exit 2, naming the other).
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byCustomer, byStatus, startCliEnv, type CliEnv, type CliJson } from "./support.ts";

const BIN = path.resolve(import.meta.dirname, "../../bin/cellbound.mjs");
let env: CliEnv;
const tmp = tempDir("cb-cli-writers-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

function cellbound(args: string[]): Promise<{ code: number | null; json: CliJson }> {
  const child = spawn(process.execPath, [BIN, ...args, "--json"], {
    env: { ...process.env, ...env.env() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, json: JSON.parse(out || '{"files":[]}') as CliJson })));
}

/** The placements the file holds: range → report id. */
function placementsIn(file: string): Map<string, number> {
  const port = XlsxPort.open(file);
  const raw = port.wb.data.get("cellbound.sync.placements.v1");
  const records = raw ? (JSON.parse(raw) as { placements: Array<{ name: string; reportId: number }> }).placements : [];
  const out = new Map<string, number>();
  for (const r of records) {
    const t = [...port.wb.tracks.values()].find((x) => x.name.toLowerCase() === r.name.toLowerCase());
    const sheet = port.wb.sheets.find((s) => s.id === t?.sheetId);
    if (t?.area && sheet) out.set(`${sheet.name}!${t.area.row},${t.area.col}`, r.reportId);
  }
  return out;
}

const noLockLeft = (dir: string) => expect(readdirSync(dir).filter((f) => f.endsWith(".cellbound-lock") || f.endsWith(".tmp"))).toEqual([]);

describe("issue 35 §5: two writers at once", () => {
  it("issue 35 §5: two places into one new file at once (3 tries): every placement reported placed is in the file and on the platform", async () => {
    const a = await env.createReport(byStatus(3));
    const b = await env.createReport(byStatus(4));
    for (const attempt of [1, 2, 3]) {
      const dir = tmp.file(`new-${attempt}`);
      mkdirSync(dir);
      const file = path.join(dir, "Book.xlsx");
      const runs = await Promise.all([
        cellbound(["place", file, "--report", String(a.id), "--at", "Sheet1!A1"]),
        cellbound(["place", file, "--report", String(b.id), "--at", "Sheet1!E1"]),
      ]);
      const inFile = placementsIn(file);
      const wbId = XlsxPort.open(file).wb.workbookId!;
      const onPlatform = env.platform.state.placements().filter((p) => p.workbookId === wbId);
      const saved = runs.filter((r) => r.code === 0);
      expect(saved.length, `try ${attempt}: ${JSON.stringify(runs)}`).toBeGreaterThanOrEqual(1);
      for (const [i, r] of runs.entries()) {
        const report = [a, b][i]!;
        if (r.code === 0) {
          expect(r.json.files[0]).toMatchObject({ saved: true, placements: [{ outcome: "placed", reportId: report.id }] });
          expect([...inFile.values()], `try ${attempt}`).toContain(report.id);
        } else {
          expect(r.code, `try ${attempt}`).toBe(2);
          expect(r.json.files[0]!.error).toMatch(/another cellbound run \(process \d+ .*\) is writing it/);
          expect([...inFile.values()]).not.toContain(report.id);
        }
      }
      expect(inFile.size, `try ${attempt}`).toBe(saved.length);
      expect(onPlatform, `try ${attempt}`).toHaveLength(saved.length);
      noLockLeft(dir);
    }
  }, 240_000);

  it("issue 35 §5: a place and a refresh of one file at once: both placements and the refresh survive", async () => {
    const first = await env.createReport(byCustomer(5));
    const second = await env.createReport(byStatus(3));
    const dir = tmp.file("place-refresh");
    mkdirSync(dir);
    const file = path.join(dir, "Book.xlsx");
    expect((await env.cli(["place", file, "--report", String(first.id), "--at", "Sheet1!A1"])).code).toBe(0);
    await env.client().updateReport(env.deploymentId, first.id, byCustomer(6));
    const [refresh, place] = await Promise.all([
      cellbound(["refresh", file]),
      cellbound(["place", file, "--report", String(second.id), "--at", "Sheet1!H1"]),
    ]);
    const inFile = placementsIn(file);
    if (place.code === 0) expect([...inFile.values()].sort()).toEqual([first.id, second.id].sort());
    else expect(place.json.files[0]!.error).toMatch(/another cellbound run/);
    if (refresh.code === 0) {
      expect(refresh.json.files[0]!.placements[0]!.outcome).toBe("refreshed");
      const wb = XlsxPort.open(file).wb;
      expect(wb.cell(wb.sheets[0]!.id, 6, 0).value).not.toBe(""); // the sixth customer's row
    } else expect(refresh.json.files[0]!.error).toMatch(/another cellbound run/);
    expect([refresh.code, place.code]).toContain(0);
    noLockLeft(dir);
  }, 120_000);
});

describe("issue 35 §5: the lock is removed when a run is stopped", () => {
  it("issue 35 §5: SIGTERM while a refresh waits for the platform: the run ends, its lock is gone, the file as it was", async () => {
    const report = await env.createReport(byStatus(3));
    const dir = tmp.file("stopped");
    mkdirSync(dir);
    const file = path.join(dir, "Book.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const before = readFileSync(file);
    env.platform.chaos.set({ seed: 5, rates: { hang: 1 }, paths: /^\/cubejs-api\// });
    try {
      const child = spawn(process.execPath, [BIN, "refresh", file], { env: { ...process.env, ...env.env() }, stdio: "ignore" });
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && !readdirSync(dir).some((f) => f.endsWith(".cellbound-lock")))
        await new Promise((r) => setTimeout(r, 50));
      expect(readdirSync(dir).filter((f) => f.endsWith(".cellbound-lock"))).toHaveLength(1);
      child.kill("SIGTERM");
      expect(await exited).toBe(143);
    } finally {
      env.platform.chaos.off();
    }
    noLockLeft(dir);
    expect(readFileSync(file).equals(before)).toBe(true);
  }, 90_000);
});
