// A kill -9 in the middle of a refresh leaves the original file whole: the command line is run as a
// process (bin/cellbound.mjs), killed the moment its temporary file appears beside the workbook
// (the new package is being written), and the workbook must still be the original, byte for byte.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { ZipReader, writeZip } from "../../src/host/xlsx/zip.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byCustomer, startCliEnv, type CliEnv } from "./support.ts";

const BIN = path.resolve(import.meta.dirname, "../../bin/cellbound.mjs");
let env: CliEnv;
const tmp = tempDir("cb-kill-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

it("kill -9 while the new file is being written: the original stays whole", async () => {
  const report = await env.createReport(byCustomer(20));
  const file = tmp.file("Big.xlsx");
  expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
  // A large part nobody edits (40 MB of picture bytes) makes writing the new package take a while.
  const z = new ZipReader(file, readFileSync(file));
  const { writeFileSync } = await import("node:fs");
  writeFileSync(
    file,
    writeZip(z.bytes, [
      ...z.entries.map((e) => ({ name: e.name, from: e })),
      { name: "xl/media/image1.bin", data: randomBytes(40 * 1024 * 1024) },
    ]),
  );
  const original = readFileSync(file);
  await env.client().updateReport(env.deploymentId, report.id, byCustomer(25));

  const child = spawn(process.execPath, [BIN, "refresh", file, "--json"], { env: { ...process.env, ...env.env() }, stdio: "ignore" });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  let killedMidWrite = false;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (readdirSync(tmp.dir).some((f) => f.startsWith(".~Big.xlsx.") && f.endsWith(".tmp"))) {
      child.kill("SIGKILL");
      killedMidWrite = true;
      break;
    }
    await new Promise((r) => setImmediate(r));
  }
  const signal = await exited;
  expect(killedMidWrite).toBe(true);
  expect(signal).toBe("SIGKILL");
  expect(readFileSync(file).equals(original)).toBe(true);
  // Still a workbook with the placement as it was; the next refresh completes and replaces it.
  expect(XlsxPort.open(file).wb.sheets[0]!.cells.size).toBeGreaterThan(20);
  const again = await env.cli(["refresh", file, "--json"]);
  expect(again.code).toBe(0);
  expect(again.json().files[0]!.placements[0]!.outcome).toBe("refreshed");
  expect(readFileSync(file).equals(original)).toBe(false);
});
