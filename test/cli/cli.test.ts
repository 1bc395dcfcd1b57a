// `cellbound` place / refresh / status over .xlsx files, against the platform stand-in, with
// LibreOffice reading every file the commands write.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { parseAddress } from "../../src/host/a1.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { differences, expectedText, libreOffice, type LibreOffice } from "../support/libreoffice.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byCustomer, byStatus, startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
let lo: LibreOffice;
const tmp = tempDir("cb-cli-");
beforeAll(async () => {
  env = await startCliEnv();
  lo = libreOffice();
});
afterAll(async () => {
  await env.close();
  lo.close();
  tmp.remove();
});

const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};

/** LibreOffice shows every sheet of the file exactly as the file port's model says. */
async function libreOfficeAgrees(file: string): Promise<Map<string, string[][]>> {
  const port = XlsxPort.open(file);
  const shown = await lo.sheets(file);
  for (const s of port.wb.sheets) expect(differences(shown.get(s.name) ?? [], expectedText(port.wb, s.name)), s.name).toEqual([]);
  return shown;
}

/** Type into a cell of the file as a person would in Excel (the sheet XML changes; nothing else). */
async function handEdit(file: string, sheet: string, a1: string, value: string | number): Promise<void> {
  const port = XlsxPort.open(file);
  const s = port.wb.sheets.find((x) => x.name === sheet)!;
  const at = parseAddress(a1);
  port.wb.userEdit(s.id, at.row, at.col, value);
  port.save();
}

describe("cellbound place", () => {
  it("creates the workbook, places the report, and LibreOffice shows what the engine wrote", async () => {
    const report = await env.createReport(byStatus(4));
    const file = tmp.file("new.xlsx");
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Orders!B2", "--json"]);
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    const p = out.json().files[0]!.placements[0]!;
    expect(p).toMatchObject({
      outcome: "placed",
      reportId: report.id,
      reportName: report.name,
      range: expect.stringMatching(/^Orders!B2:C\d+$/),
    });
    expect(p.cellsWritten).toBeGreaterThan(4);
    const shown = await libreOfficeAgrees(file);
    expect(shown.get("Orders")![1]!.slice(1)).toEqual(["Status", "Count"]);
    // By publicId too, into a new sheet of the same file.
    const again = await env.cli(["place", file, "--report", report.publicId, "--at", "'Second sheet'!A1", "--json"]);
    expect(again.code).toBe(0);
    expect(again.json().files[0]!.placements[0]!.range).toMatch(/^'Second sheet'!A1:B\d+$/);
    await libreOfficeAgrees(file);
  });

  it("dates, money and percentages: LibreOffice shows them as the engine formatted them", async () => {
    const report = await env.createReport({
      jsonQuery: JSON.stringify({
        measures: ["orders.total_amount", "orders.count", "orders.return_rate"],
        timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
        order: [["orders.created_at", "asc"]],
        limit: 6,
      }),
    });
    const file = tmp.file("formats.xlsx");
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1", "--json"]);
    expect(out.code).toBe(0);
    const port = XlsxPort.open(file);
    const s = port.wb.sheets[0]!;
    const formats = [...s.cells.get(1)!.values()].map((c) => c.nf);
    expect(formats[0]).toBe("mmm yyyy");
    expect(formats.some((f) => f !== null && /0/.test(f))).toBe(true);
    const shown = (await libreOfficeAgrees(file)).get("Sheet1")!;
    const [month, money, count, rate] = shown[1]!;
    expect([month, money, count, rate]).toEqual([
      expect.stringMatching(/^[A-Z][a-z]{2} \d{4}$/),
      expect.stringMatching(/^\$\d{1,3}(,\d{3})*\.\d\d$/),
      expect.stringMatching(/^\d{1,3}(,\d{3})*$/),
      expect.stringMatching(/^\d+\.\d\d%$/),
    ]);
  });

  it("issue 31 item 5: quarterly buckets are dates that LibreOffice shows as “Q1 2023”", async () => {
    const report = await env.createReport({
      jsonQuery: JSON.stringify({
        measures: ["orders.count"],
        timeDimensions: [{ dimension: "orders.created_at", granularity: "quarter" }],
        order: [["orders.created_at", "asc"]],
        limit: 4,
      }),
    });
    const file = tmp.file("quarters.xlsx");
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1", "--json"]);
    expect(out.code).toBe(0);
    const s = XlsxPort.open(file).wb.sheets[0]!;
    expect([1, 2, 3, 4].map((r) => typeof s.cells.get(r)!.get(0)!.v)).toEqual(["number", "number", "number", "number"]);
    const shown = (await libreOfficeAgrees(file)).get("Sheet1")!;
    expect(shown.slice(1, 5).map((row) => row[0])).toEqual(["Q1 2023", "Q2 2023", "Q3 2023", "Q4 2023"]);
  });

  it("refuses with exit 3 when the target holds someone else's values, and leaves the file untouched", async () => {
    const report = await env.createReport(byStatus(3));
    const file = tmp.file("occupied.xlsx");
    const first = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1", "--json"]);
    expect(first.code).toBe(0);
    await handEdit(file, "Sheet1", "F3", "my note");
    const same = untouched(file);
    const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!E2", "--json"]);
    expect(out.code).toBe(3);
    expect(out.json().files[0]!.placements[0]).toMatchObject({ outcome: "edited", editedCells: ["F3"] });
    same();
  });
});

describe("cellbound refresh", () => {
  it("unchanged: exit 0, the file keeps its bytes and its mtime, and the refresh is recorded with the platform", async () => {
    const report = await env.createReport(byStatus(4));
    const file = tmp.file("same.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2"])).code).toBe(0);
    const wbId = XlsxPort.open(file).wb.workbookId!;
    const before = [];
    for await (const x of env.client().iterateExternalPlacements(wbId)) before.push(x);
    await new Promise((r) => setTimeout(r, 20));
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(0);
    expect(out.json().files[0]!.placements.map((p) => p.outcome)).toEqual(["unchanged"]);
    same();
    const after = [];
    for await (const x of env.client().iterateExternalPlacements(wbId)) after.push(x);
    expect(after[0]!.refreshedAt > before[0]!.refreshedAt).toBe(true);
  });

  it("a report that changed: rewrites only its cells; cells outside the placement are unchanged as LibreOffice shows them", async () => {
    const report = await env.createReport(byCustomer(30));
    const file = tmp.file("changed.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!C3"])).code).toBe(0);
    await handEdit(file, "Sheet1", "A1", "Notes by hand");
    await handEdit(file, "Sheet1", "H40", 42);
    const beforeShown = (await lo.sheets(file)).get("Sheet1")!;
    await env.client().updateReport(env.deploymentId, report.id, { ...byCustomer(40) });
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(0);
    const p = out.json().files[0]!.placements[0]!;
    expect(p.outcome).toBe("refreshed");
    expect(p.range).toMatch(/^Sheet1!C3:E43$/);
    const shown = (await libreOfficeAgrees(file)).get("Sheet1")!;
    const inside = (r: number, c: number) => r >= 2 && r <= 42 && c >= 2 && c <= 4;
    for (let r = 0; r < Math.max(shown.length, beforeShown.length); r++)
      for (let c = 0; c < 10; c++)
        if (!inside(r, c)) expect(shown[r]?.[c] ?? "", `row ${r + 1} col ${c + 1}`).toBe(beforeShown[r]?.[c] ?? "");
    expect(shown[0]![0]).toBe("Notes by hand");
    expect(shown[39]![7]).toBe("42");
  });

  it("hand-edited cells are left as they are and named (exit 3); --overwrite-edits replaces them (exit 0)", async () => {
    const report = await env.createReport(byStatus(4));
    const file = tmp.file("edited.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2"])).code).toBe(0);
    await handEdit(file, "Sheet1", "C4", 999);
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(3);
    expect(out.json().files[0]!.placements[0]).toMatchObject({ outcome: "edited", editedCells: ["C4"] });
    same();
    const text = await env.cli(["refresh", file]);
    expect(text.stdout).toMatch(/Sheet1!B2:C\d+ {2}Report \d+: edited C4 — Edited by hand/);
    const over = await env.cli(["refresh", file, "--overwrite-edits", "--json"]);
    expect(over.code).toBe(0);
    expect(over.json().files[0]!.placements[0]!.outcome).toBe("refreshed");
    expect(XlsxPort.open(file).wb.cell(XlsxPort.open(file).wb.sheets[0]!.id, 3, 2).value).not.toBe(999);
    await libreOfficeAgrees(file);
  });

  it("DENIED placements are never touched (exit 1, owner named); the reader's own placement is refreshed", async () => {
    const theirs = await env.createReport(byStatus(2), "outsider");
    const mine = await env.createReport(byStatus(2));
    const file = tmp.file("denied.xlsx");
    expect((await env.cli(["place", file, "--report", String(theirs.id), "--at", "Sheet1!A1"], "outsider")).code).toBe(0);
    expect((await env.cli(["place", file, "--report", String(mine.id), "--at", "Sheet1!E1"])).code).toBe(0);
    await handEdit(file, "Sheet1", "B2", 77); // inside theirs: must survive
    const out = await env.cli(["refresh", file, "--overwrite-edits", "--json"]);
    expect(out.code).toBe(1);
    const ps = out.json().files[0]!.placements;
    expect(ps.find((p) => p.outcome === "not-refreshed")!.reason).toMatch(
      /^No access: placed by Oscar Outsider; Cellbound does not touch these cells\.$/,
    );
    expect(ps.filter((p) => p.outcome === "unchanged")).toHaveLength(1);
    const wb = XlsxPort.open(file).wb;
    expect(wb.cell(wb.sheets[0]!.id, 1, 1).value).toBe(77);
    const status = await env.cli(["status", file, "--json"]);
    const lines = (JSON.parse(status.stdout) as { files: Array<{ placements: Array<{ status: string; owner: unknown }> }> }).files[0]!
      .placements;
    expect(lines.map((l) => l.status).sort()).toEqual(["no access", "up to date"]);
    expect(lines.find((l) => l.status === "no access")!.owner).toMatchObject({ name: "Oscar Outsider" });
    expect(status.code).toBe(0);
  });

  it("--dry-run says what it would do and writes nothing, records nothing", async () => {
    const report = await env.createReport(byCustomer(10));
    const file = tmp.file("dry.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    await env.client().updateReport(env.deploymentId, report.id, { ...byCustomer(12) });
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--dry-run", "--json"]);
    expect(out.code).toBe(0);
    expect(out.json().files[0]!.placements[0]!.outcome).toBe("refreshed");
    same();
    const status = await env.cli(["status", file, "--json"]);
    expect(JSON.parse(status.stdout).files[0].placements[0].status).toBe("changed");
  });

  it("several files with bounded concurrency; a bad file gets exit 2 with its name and cause, the others are refreshed", async () => {
    const report = await env.createReport(byStatus(3));
    const files = [tmp.file("m1.xlsx"), tmp.file("m2.xlsx"), tmp.file("m3.xlsx")];
    for (const f of files) expect((await env.cli(["place", f, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const bad = tmp.file("notes.xlsx");
    writeFileSync(bad, "just text");
    const same = untouched(bad);
    const out = await env.cli(["refresh", ...files, bad, "--concurrency", "2", "--json"]);
    expect(out.code).toBe(2);
    const json = out.json();
    expect(json.files.map((f) => f.file)).toEqual([...files, bad]);
    expect(json.files.slice(0, 3).every((f) => f.placements[0]!.outcome === "unchanged")).toBe(true);
    expect(json.files[3]!.error).toBe("notes.xlsx: it is not an .xlsx/.xlsm workbook (not a zip package)");
    same();
  });
});

describe("files Cellbound cannot use", () => {
  it("unreadable placement data in the file: exit 2 naming the file, untouched", async () => {
    const report = await env.createReport(byStatus(2));
    const file = tmp.file("corrupt-data.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const port = XlsxPort.open(file);
    port.wb.data.set("cellbound.sync.placements.v1", JSON.stringify({ v: 1, placements: [{ key: "?" }] }));
    port.save();
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(2);
    expect(out.json().files[0]!.error).toMatch(/^.*corrupt-data\.xlsx: Cellbound's placement data in this workbook is unreadable/);
    same();
  });
});

describe("progress", () => {
  it("a progress line on a terminal, none with --json", async () => {
    const report = await env.createReport(byStatus(2));
    const file = tmp.file("progress.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    const { runCli } = await import("../../src/cli/run.ts");
    const run = async (args: string[]) => {
      let err = "";
      const code = await runCli(args, { stdout: () => {}, stderr: (t) => void (err += t), progress: true, env: env.env() });
      return { code, err };
    };
    const tty = await run(["refresh", file]);
    expect(tty.code).toBe(0);
    expect(tty.err.startsWith("\r\x1b[2KRefreshing 1 workbook…")).toBe(true);
    expect(tty.err.endsWith("\r\x1b[2K")).toBe(true);
    expect((await run(["refresh", file, "--json"])).err).toBe("");
  });
});

describe("usage and credentials: exit 2, never a key on the command line", () => {
  it("a key the platform refuses is exit 2; a platform that cannot be reached is exit 1", async () => {
    const { runCli } = await import("../../src/cli/run.ts");
    let err = "";
    const io = (e: Record<string, string>) => ({ stdout: () => {}, stderr: (t: string) => void (err += t), progress: false, env: e });
    expect(await runCli(["status", "x.xlsx"], io({ ...env.env(), CELLBOUND_API_KEY: "not-a-key" }))).toBe(2);
    expect(err).toMatch(/cannot sign in/);
    expect(err).not.toContain("not-a-key");
    expect(await runCli(["status", "x.xlsx"], io({ ...env.env(), CELLBOUND_PLATFORM_URL: "http://127.0.0.1:9" }))).toBe(1);
  });
  it("refuses an API key on the command line without echoing it", async () => {
    const out = await env.cli(["refresh", "x.xlsx", "--api-key=sk_secret_123"]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/CELLBOUND_API_KEY only/);
    expect(out.stderr + out.stdout).not.toContain("sk_secret_123");
  });
  it("missing credentials, unknown options and commands", async () => {
    const { runCli } = await import("../../src/cli/run.ts");
    let err = "";
    const code = await runCli(["refresh", "x.xlsx"], { stdout: () => {}, stderr: (t) => void (err += t), progress: false, env: {} });
    expect(code).toBe(2);
    expect(err).toMatch(/CELLBOUND_PLATFORM_URL is not set/);
    expect((await env.cli(["refresh"])).code).toBe(2);
    expect((await env.cli(["frobnicate", "a.xlsx"])).stderr).toMatch(/unknown command "frobnicate"/);
    expect((await env.cli(["status", "a.xlsx", "--overwrite-edits"])).code).toBe(2);
  });
});
