// Issue 35 §3: a refresh of a closed workbook that finds its placement as its last save left it (the note on its
// cells, src/sync/cells-note.ts) reads no sheet; anything that changed the cells makes it read them as before.
import { readFileSync } from "node:fs";
import { parseAddress } from "../../src/host/a1.ts";
import { Book } from "../../src/host/xlsx/book.ts";
import { XlsxPort } from "../../src/host/xlsx/port.ts";
import { GROUPS } from "../../src/host/xlsx/rewrite.ts";
import { ZipReader } from "../../src/host/xlsx/zip.ts";
import { tempDir } from "../host/xlsx/support.ts";
import { byStatus, startCliEnv, type CliEnv } from "./support.ts";

let env: CliEnv;
const tmp = tempDir("cb-cli-notes-");
beforeAll(async () => {
  env = await startCliEnv();
});
afterAll(async () => {
  await env.close();
  tmp.remove();
});

/**
 * Sheet parts scanned whole (their cells read) during `run`, and groups of rows read alone (a noted part read a
 * group at a time; its first group, the part's beginning before any row, is not a read of cells).
 */
async function scans<T>(run: () => Promise<T>): Promise<{ out: T; scanned: number; groups: number }> {
  const spy = vi.spyOn(Book.prototype as unknown as { scanCells: () => unknown }, "scanCells");
  const groups = vi.spyOn(ZipReader.prototype, "group");
  try {
    const out = await run();
    const rowGroups = groups.mock.calls.filter(([, i]) => i > 0).length;
    return { out, scanned: spy.mock.calls.length + rowGroups, groups: rowGroups };
  } finally {
    spy.mockRestore();
    groups.mockRestore();
  }
}

const outcome = (r: {
  json: () => { files: Array<{ saved?: boolean; placements: Array<{ outcome: string; editedCells: string[] }> }> };
}) => {
  const f = r.json().files[0]!;
  return { saved: f.saved, ...f.placements[0]! };
};

describe("a refresh over cells as the last save left them (issue 35 §3)", () => {
  it("reads no sheet when nothing changed; after the report changes it reads and writes, and the next one reads none again", async () => {
    const report = await env.createReport(byStatus(3));
    const file = tmp.file("noted.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2"])).code).toBe(0);

    const same = await scans(() => env.cli(["refresh", file, "--json"]));
    expect(same.out.code).toBe(0);
    expect(outcome(same.out)).toMatchObject({ outcome: "unchanged", saved: false });
    expect(same.scanned).toBe(0);

    await env.client().updateReport(env.deploymentId, report.id, byStatus(5));
    const changed = await scans(() => env.cli(["refresh", file, "--json"]));
    expect(outcome(changed.out)).toMatchObject({ outcome: "refreshed", saved: true });
    expect(changed.scanned).toBeGreaterThan(0);
    expect(changed.out.json().files[0]!.placements[0]!.cellsWritten).toBeGreaterThan(0);

    const again = await scans(() => env.cli(["refresh", file, "--json"]));
    expect(outcome(again.out)).toMatchObject({ outcome: "unchanged", saved: false });
    expect(again.scanned).toBe(0);

    // status (the check) believes the note too: up to date without reading the cells.
    const status = await scans(() => env.cli(["status", file, "--json"]));
    expect(status.out.json().files[0]!.placements[0]!.status).toBe("up to date");
    expect(status.scanned).toBe(0);
  });

  it("a value typed into the placement: the refresh reads the cells and names the edit, as without the note", async () => {
    const report = await env.createReport(byStatus(3));
    const file = tmp.file("typed.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2"])).code).toBe(0);
    const port = XlsxPort.open(file);
    const at = parseAddress("C4");
    port.wb.userEdit(port.wb.sheets[0]!.id, at.row, at.col, 12345); // as a person would in Excel
    port.save();
    const status = await scans(() => env.cli(["status", file, "--json"]));
    expect(status.scanned).toBeGreaterThan(0); // the note is gone: the cells are read
    expect(status.out.json().files[0]!.placements[0]!.status).toBe("edited by hand");
    const r = await scans(() => env.cli(["refresh", file, "--json"]));
    expect(r.scanned).toBeGreaterThan(0);
    expect(outcome(r.out)).toMatchObject({ outcome: "edited", editedCells: ["C4"] });
    expect(XlsxPort.open(file).wb.sheets[0]!.cells.get(at.row)?.get(at.col)?.v).toBe(12345); // never clobbered
  });

  it("another answer of the same shape: only the chunks it changes are read back and written; the rest is as the answer holds", async () => {
    const sql = (changed: boolean) => lastRowsDoubled(changed, 2450);
    const report = await env.createReport({ sqlQuery: sql(false) });
    const file = tmp.file("chunks.xlsx");
    const other = tmp.file("fresh.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(true) });
    const rowsRead: number[] = [];
    const spy = vi.spyOn(XlsxPort.prototype, "read").mockImplementation(function (this: XlsxPort, area, o) {
      rowsRead.push(area.rows);
      return readOf.call(this, area, o);
    });
    const r = await env.cli(["refresh", file, "--json"]).finally(() => spy.mockRestore());
    expect(outcome(r)).toMatchObject({ outcome: "refreshed", editedCells: [] });
    expect(r.json().files[0]!.placements[0]!.cellsWritten).toBe(50 * 3); // ids 2451–2500, three columns
    expect(rowsRead.reduce((n, x) => n + x, 0)).toBeLessThanOrEqual(1001); // one chunk of 1,000 rows (and the last row), not 2,501
    // What a fresh placement of the same answer holds, cell for cell; and the check reads it as up to date.
    expect((await env.cli(["place", other, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    expect(await grid(file)).toEqual(await grid(other));
    const status = await env.cli(["status", file, "--json"]);
    expect(status.json().files[0]!.placements[0]!.status).toBe("up to date");
  });

  it("a large noted sheet is read a group at a time: another answer changing its last rows reads only the group holding them", async () => {
    const was = GROUPS.bytes;
    GROUPS.bytes = 16_000; // groups of a few hundred rows (4 MiB in use)
    try {
      const sql = (changed: boolean) => lastRowsDoubled(changed, 2490);
      const report = await env.createReport({ sqlQuery: sql(false) });
      const file = tmp.file("groups.xlsx");
      const other = tmp.file("groups-fresh.xlsx");
      expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
      const total = new ZipReader(file, readFileSync(file)).entries.find((e) => e.name.startsWith("xl/worksheets/"))!.groups!.length;
      expect(total).toBeGreaterThan(5);
      await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(true) });
      const r = await scans(() => env.cli(["refresh", file, "--json"]));
      expect(outcome(r.out)).toMatchObject({ outcome: "refreshed", saved: true });
      expect(r.out.json().files[0]!.placements[0]!.cellsWritten).toBe(10 * 3);
      // The chunk read back (1,000 rows) spans a few groups; the save reads the one it rewrites; nothing is scanned whole.
      expect(r.groups).toBeGreaterThan(0);
      expect(r.scanned).toBe(r.groups);
      expect(r.groups).toBeLessThan(total / 2);
      expect((await env.cli(["place", other, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
      expect(await grid(file)).toEqual(await grid(other)); // as a fresh placement of the same answer, cell for cell
      const again = await scans(() => env.cli(["refresh", file, "--json"]));
      expect(outcome(again.out)).toMatchObject({ outcome: "unchanged", saved: false });
      expect(again.scanned).toBe(0);
    } finally {
      GROUPS.bytes = was;
    }
  });

  it("a value typed into the placement and another answer: the note is gone, the cells are read whole and the edit named", async () => {
    const report = await env.createReport(byStatus(3));
    const file = tmp.file("typed-changed.xlsx");
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2"])).code).toBe(0);
    const port = XlsxPort.open(file);
    const at = parseAddress("C3");
    port.wb.userEdit(port.wb.sheets[0]!.id, at.row, at.col, 777);
    port.save();
    await env.client().updateReport(env.deploymentId, report.id, byStatus(4));
    const r = await env.cli(["refresh", file, "--json"]);
    expect(outcome(r)).toMatchObject({ outcome: "edited", editedCells: ["C3"] });
    expect(XlsxPort.open(file).wb.sheets[0]!.cells.get(at.row)?.get(at.col)?.v).toBe(777);
  });
});

const readOf = XlsxPort.prototype.read;

/** 2,500 orders' id, amount and status; `changed`: the amount doubled for ids above `from`. */
const lastRowsDoubled = (changed: boolean, from: number) =>
  `SELECT id, ${changed ? `CASE WHEN id > ${from} THEN amount * 2 ELSE amount END` : "amount"} AS amount, status FROM orders WHERE id <= 2500 ORDER BY id`;

/** The 2,501 × 3 cells from A1 of a workbook's first sheet. */
async function grid(file: string) {
  const port = XlsxPort.open(file);
  const out = [];
  for await (const b of readOf.call(port, { sheetId: port.wb.sheets[0]!.id, row: 0, col: 0, rows: 2501, cols: 3 })) out.push(...b);
  return out;
}
