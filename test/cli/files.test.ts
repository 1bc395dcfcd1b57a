// Files, links, locks and the order of save and record (issue 35 §5): the command line against the
// platform stand-in, files in a temporary folder. Tests run as the current user (root here and in CI
// containers); what differs for root is asserted as such.
import { spawnSync } from "node:child_process";
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, userInfo } from "node:os";
import path from "node:path";
import { ownerName } from "../../src/cli/files.ts";
import { lockPath } from "../../src/cli/lock.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byCustomer, startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-files-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  env.platform.chaos.off();
  await env.close();
  tmp.remove();
});

/** Short retries: a 500 is retried in milliseconds, not seconds. */
const fast = { retry: { baseDelayMs: 5, maxDelayMs: 20 } };

const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};

/** The platform's records of a workbook's placements. */
const recorded = (file: string) => {
  const wbId = XlsxPort.open(file).wb.workbookId!;
  return env.platform.state.placements().filter((p) => p.workbookId === wbId);
};

/** Rows of the first sheet that hold something. */
const rowsIn = (file: string) => {
  const wb = XlsxPort.open(file).wb;
  return [...wb.sheets[0]!.cells.values()].filter((row) => [...row.values()].some((c) => c.v !== "")).length;
};

/** Neither a lock nor a temporary file is left beside the workbook. */
const nothingLeftBeside = (file: string) =>
  expect(readdirSync(path.dirname(file)).filter((f) => f.endsWith(".cellbound-lock") || f.endsWith(".tmp"))).toEqual([]);

async function placed(name: string, rows = 5): Promise<{ file: string; reportId: number }> {
  const report = await env.createReport(byCustomer(rows));
  const file = tmp.file(name);
  mkdirSync(path.dirname(file), { recursive: true });
  const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"]);
  expect(out.code, out.stderr).toBe(0);
  return { file, reportId: report.id };
}

const changeReport = (reportId: number, rows: number) => env.client().updateReport(env.deploymentId, reportId, byCustomer(rows));

describe("issue 35 §5: a link is replaced, not followed", () => {
  it("issue 35 §5: refreshing through a symlink rewrites the real workbook, and the link stays a link", async () => {
    const { file: real, reportId } = await placed("real/Book.xlsx");
    const link = tmp.file("links/Book link.xlsx");
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(real, link);
    await changeReport(reportId, 7);
    const out = await env.cli(["refresh", link, "--json"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.json().files[0]).toMatchObject({ file: link, saved: true, placements: [{ outcome: "refreshed" }] });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(real);
    expect(rowsIn(real)).toBe(8);
    const status = await env.cli(["status", real, "--json"]);
    expect(status.json().files[0]!.placements[0]!.status).toBe("up to date");
    nothingLeftBeside(real);
    nothingLeftBeside(link);
  });
});

describe("issue 35 §5: save first, then record", () => {
  /** A fetch that lets `meddle` change the workbook while the report's data is being fetched (another program saving it). */
  const meddling = (meddle: () => void): typeof fetch => {
    let done = false;
    return async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!done && url.includes("/v1/load")) {
        done = true;
        meddle();
      }
      return fetch(input, init);
    };
  };

  it("issue 35 §5: a refresh whose save fails (the file changed meanwhile) records nothing with the platform", async () => {
    const { file, reportId } = await placed("race/Book.xlsx");
    const before = recorded(file)[0]!;
    await changeReport(reportId, 9);
    const theirs = meddling(() => {
      const port = XlsxPort.open(file);
      port.wb.userEdit(port.wb.sheets[0]!.id, 30, 10, "saved by someone else");
      port.save();
    });
    const out = await env.cli(["refresh", file, "--json"], "analyst", { fetch: theirs });
    expect(out.code).toBe(2);
    expect(out.json().files[0]!.error).toMatch(
      /^Book\.xlsx: the file changed on disk while Cellbound was working on it; nothing was written, run it again; the file is as it was/,
    );
    const after = recorded(file)[0]!;
    expect(after.resultChecksum).toEqual(before.resultChecksum);
    expect(after.refreshedAt).toBe(before.refreshedAt);
    const wb = XlsxPort.open(file).wb;
    expect(wb.cell(wb.sheets[0]!.id, 30, 10).value).toBe("saved by someone else");
    expect(rowsIn(file)).toBe(7); // header, 5 rows, the other program's cell
    nothingLeftBeside(file);
  });

  it("issue 35 §5: a place whose save fails (another program created the file meanwhile) leaves no placement on the platform", async () => {
    const report = await env.createReport(byCustomer(4));
    const file = tmp.file("race-new/New.xlsx");
    mkdirSync(path.dirname(file), { recursive: true });
    const theirs = meddling(() => XlsxPort.open(file, { create: "Theirs" }).save());
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1", "--json"], "analyst", { fetch: theirs });
    expect(out.code).toBe(2);
    expect(out.json().files[0]!.error).toMatch(/^New\.xlsx: the file changed on disk while Cellbound was working on it/);
    expect(XlsxPort.open(file).wb.sheets.map((s) => s.name)).toEqual(["Theirs"]);
    expect(env.platform.state.placements().filter((p) => p.reportId === report.id)).toEqual([]);
    expect((await env.cli(["status", file, "--json"])).json().files[0]!.placements).toEqual([]);
    nothingLeftBeside(file);
  });

  it("issue 35 §5: PUT …/refresh answering 500: reported as written to the file and not yet recorded; status records it", async () => {
    const { file, reportId } = await placed("record/Book.xlsx");
    const before = recorded(file)[0]!;
    await changeReport(reportId, 8);
    env.platform.chaos.set({ seed: 7, rates: { error5xx: 1 }, paths: /\/refresh$/ });
    let out: Awaited<ReturnType<CliEnv["cli"]>>;
    try {
      out = await env.cli(["refresh", file, "--json"], "analyst", { api: fast });
    } finally {
      env.platform.chaos.off();
    }
    expect(out.code).toBe(1);
    const f = out.json().files[0]!;
    expect(f.saved).toBe(true);
    expect(f.placements[0]).toMatchObject({
      outcome: "unrecorded",
      range: "Sheet1!A1:C9",
      reason: expect.stringMatching(
        /^Written to the file, not yet recorded with the platform \(.*50[023].*\); the next refresh or status records it\.$/,
      ),
    });
    expect(f.placements[0]!.cellsWritten).toBeGreaterThan(0);
    expect(rowsIn(file)).toBe(9);
    expect(recorded(file)[0]!.resultChecksum).toEqual(before.resultChecksum); // not recorded
    const text = await env.cli(["status", file]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/Sheet1!A1:C9 .*: up to date.*\n\s+An interrupted refresh was finished\./);
    expect(recorded(file)[0]!.resultChecksum).not.toEqual(before.resultChecksum);
    // Recorded, and the file says so: the next refresh finds nothing to do and leaves the file alone.
    const same = untouched(file);
    const again = await env.cli(["refresh", file, "--json"]);
    expect(again.code).toBe(0);
    expect(again.json().files[0]!.placements[0]).toMatchObject({ outcome: "unchanged", reason: null });
    same();
    nothingLeftBeside(file);
  });

  it("issue 35 §5: a failed record is finished by the next refresh too", async () => {
    const { file, reportId } = await placed("record2/Book.xlsx");
    await changeReport(reportId, 6);
    env.platform.chaos.set({ seed: 8, rates: { error5xx: 1 }, paths: /\/refresh$/ });
    try {
      expect((await env.cli(["refresh", file, "--json"], "analyst", { api: fast })).json().files[0]!.placements[0]!.outcome).toBe(
        "unrecorded",
      );
    } finally {
      env.platform.chaos.off();
    }
    const next = await env.cli(["refresh", file, "--json"]);
    expect(next.code).toBe(0);
    // Recorded as the 6 rows the file already holds: no cell written again.
    expect(next.json().files[0]!.placements[0]).toMatchObject({
      outcome: "refreshed",
      cellsWritten: 0,
      reason: "An earlier refresh of this placement was interrupted after writing; it is now complete.",
    });
    const status = await env.cli(["status", file, "--json"]);
    expect(status.json().files[0]!.placements[0]!.status).toBe("up to date");
  });

  it("issue 35 §5: a place whose connect-workbook fails after the save is in the file, unrecorded; the next refresh records it", async () => {
    const report = await env.createReport(byCustomer(3));
    const file = tmp.file("connect/Book.xlsx");
    mkdirSync(path.dirname(file), { recursive: true });
    env.platform.chaos.set({ seed: 9, rates: { error5xx: 1 }, paths: /\/connect-workbook$/ });
    let out: Awaited<ReturnType<CliEnv["cli"]>>;
    try {
      out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2", "--json"], "analyst", { api: fast });
    } finally {
      env.platform.chaos.off();
    }
    expect(out.code).toBe(1);
    expect(out.json().files[0]!.placements[0]).toMatchObject({
      outcome: "unrecorded",
      range: "Sheet1!B2:D5",
      reportId: report.id,
      reason: expect.stringMatching(/^Written to the file, not yet recorded with the platform/),
    });
    expect(env.platform.state.placements().filter((p) => p.reportId === report.id)).toEqual([]);
    const next = await env.cli(["refresh", file, "--json"]);
    expect(next.code).toBe(0);
    expect(recorded(file)).toHaveLength(1);
    expect(recorded(file)[0]!.resultLocation).toBe("Sheet1!B2:D5");
  });
});

describe("issue 35 §5: read-only files are not rewritten, also as root", () => {
  it("issue 35 §5: a workbook with no write bit: exit 2 naming it, bytes and mode kept (the mode bits decide, not the operating system)", async () => {
    const { file, reportId } = await placed("readonly/Locked.xlsx");
    await changeReport(reportId, 8);
    chmodSync(file, 0o444);
    try {
      const same = untouched(file);
      const out = await env.cli(["refresh", file, "--json"]);
      expect(out.code).toBe(2);
      expect(out.json().files[0]!.error).toBe(
        "Locked.xlsx: it is marked read-only (mode 0444, no write permission): Cellbound does not rewrite it; make it writable (chmod u+w) to refresh it",
      );
      const text = await env.cli(["refresh", file]);
      expect(text.code).toBe(2);
      expect(text.stderr).toContain(`cellbound: ${path.resolve(file)}: it is marked read-only`);
      expect((await env.cli(["place", file, "--report", String(reportId), "--at", "Sheet2!A1"])).code).toBe(2);
      // A dry run writes nothing: it may read a read-only workbook.
      expect((await env.cli(["refresh", file, "--dry-run", "--json"])).code).toBe(0);
      same();
      expect(statSync(file).mode & 0o777).toBe(0o444);
      // What the operating system alone would do: root may write a 0444 file, another user may not.
      const root = process.getuid?.() === 0;
      if (root) expect(() => accessSync(file, constants.W_OK)).not.toThrow();
      else expect(() => accessSync(file, constants.W_OK)).toThrow();
      nothingLeftBeside(file);
    } finally {
      chmodSync(file, 0o644);
    }
  });
});

/** Excel's owner file as Excel writes it (165 bytes): the name in the code page, padded to 55, then its UTF-16 copy. */
function excelOwnerFile(name: string): Buffer {
  const b = Buffer.alloc(165, 0x20);
  b[0] = name.length;
  b.write(name, 1, "latin1");
  b.writeUInt16LE(name.length, 55);
  b.write(name, 57, "utf16le");
  return b;
}

describe("issue 35 §5: a workbook open in Excel is left alone", () => {
  it("issue 35 §5: Excel's owner file beside it: exit 2 'open in Excel by <name>'; --ignore-lock refreshes it", async () => {
    const { file, reportId } = await placed("excel/Book.xlsx");
    await changeReport(reportId, 6);
    writeFileSync(path.join(path.dirname(file), "~$Book.xlsx"), excelOwnerFile("Zoë Ångström"));
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(2);
    expect(out.json().files[0]!.error).toBe(
      "Book.xlsx: it is open in Excel by Zoë Ångström (its owner file ~$Book.xlsx is beside it): Cellbound leaves it alone — close it in Excel and run again, or pass --ignore-lock if it is not open",
    );
    same();
    // Reading is fine while Excel has it open.
    expect((await env.cli(["status", file])).code).toBe(0);
    const anyway = await env.cli(["refresh", file, "--ignore-lock", "--json"]);
    expect(anyway.code).toBe(0);
    expect(anyway.json().files[0]!.placements[0]!.outcome).toBe("refreshed");
    expect(rowsIn(file)).toBe(7);
  });

  it("issue 35 §5: the owner file's name is read as Office writes it (Excel's and Word's layouts), or not at all", () => {
    expect(ownerName(excelOwnerFile("Ada Lovelace"))).toBe("Ada Lovelace");
    expect(ownerName(excelOwnerFile("Zoë Ångström"))).toBe("Zoë Ångström");
    // Word's layout: zeros up to byte 54, where the UTF-16 copy's length is (162 bytes).
    const word = Buffer.alloc(162, 0);
    word[0] = 5;
    word.write("Grace", 1, "latin1");
    word.writeUInt16LE(5, 54);
    word.write("Grace", 56, "utf16le");
    expect(ownerName(word)).toBe("Grace");
    // Only the code-page copy (a short file): that one.
    expect(ownerName(Buffer.from([4, ...Buffer.from("Alan", "latin1")]))).toBe("Alan");
    expect(ownerName(Buffer.alloc(0))).toBeNull();
    expect(ownerName(Buffer.alloc(165, 0))).toBeNull();
  });
});

describe("issue 35 §5: one writer per workbook", () => {
  const lockOf = (file: string, holder: { pid: number; host: string }) =>
    writeFileSync(
      lockPath(realpathSync(file)),
      JSON.stringify({ ...holder, user: userInfo().username, since: new Date().toISOString(), token: "someone-else" }),
    );

  it("issue 35 §5: a lock left by a run that died on this machine is recognised and removed; a run leaves none", async () => {
    const { file, reportId } = await placed("stale/Book.xlsx");
    nothingLeftBeside(file);
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    lockOf(file, { pid: dead, host: hostname() });
    await changeReport(reportId, 6);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code, out.stdout).toBe(0);
    expect(out.json().files[0]!.placements[0]!.outcome).toBe("refreshed");
    nothingLeftBeside(file);
  });

  it("issue 35 §5: a lock nobody touched for minutes (another machine's) is recognised by its age", async () => {
    const { file } = await placed("old/Book.xlsx");
    lockOf(file, { pid: 1, host: "another-machine" });
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(lockPath(realpathSync(file)), old, old);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code, out.stdout).toBe(0);
    nothingLeftBeside(file);
  });

  it("issue 35 §5: a live run's lock: the second run waits briefly, then exits 2 naming the first; the file untouched", async () => {
    const { file, reportId } = await placed("busy/Book.xlsx");
    await changeReport(reportId, 6);
    lockOf(file, { pid: process.pid, host: hostname() });
    const same = untouched(file);
    const t0 = Date.now();
    const out = await env.cli(["refresh", file, "--timeout", "2", "--json"]);
    expect(Date.now() - t0).toBeLessThan(8_000);
    expect(out.code).toBe(2);
    expect(out.json().files[0]!.error).toMatch(
      new RegExp(
        `^Book\\.xlsx: another cellbound run \\(process ${process.pid} of ${userInfo().username} on ${hostname()}, since .+\\) is writing it: nothing was done — run it again when that has finished`,
      ),
    );
    same();
    expect(existsSync(lockPath(realpathSync(file)))).toBe(true); // not ours to remove
    // The other run ends within the wait: this one goes on.
    const lockFile = lockPath(realpathSync(file));
    const freed = setTimeout(() => unlinkSync(lockFile), 1_000);
    const waited = await env.cli(["refresh", file, "--json"]);
    clearTimeout(freed);
    expect(waited.code, waited.stdout).toBe(0);
    expect(waited.json().files[0]!.placements[0]!.outcome).toBe("refreshed");
    nothingLeftBeside(file);
  });
});
