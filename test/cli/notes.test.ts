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

  it("a large SQL answer whose rows changed in two places: only the chunks holding them are decoded, and the cells are a fresh placement's", async () => {
    const sql = largeSql("id > 11990 OR id BETWEEN 5000 AND 5004");
    const { report, file } = await placedLarge(sql, "big-sql.xlsx");
    const other = tmp.file("big-sql-fresh.xlsx");
    await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(true) });
    const r = await decodedRows(() => env.cli(["refresh", file, "--json"]));
    expect(outcome(r.out)).toMatchObject({ outcome: "refreshed", saved: true, editedCells: [] });
    expect(r.out.json().files[0]!.placements[0]!.cellsWritten).toBe((5 + 10) * 3); // the rows of ids 5000–5004 and 11991–12000
    // The chunks holding them decoded, not 12,000 rows: grid rows 5000–5999, 11000–11999 and 12000 (row 0: the titles).
    expect(r.rows).toBe(1000 + 1000 + 1);
    expect((await env.cli(["place", other, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    expect(await grid(file, 12_001)).toEqual(await grid(other, 12_001));
    expect((await env.cli(["status", file, "--json"])).json().files[0]!.placements[0]!.status).toBe("up to date");
    // The refresh kept what its chunks were laid out from: back to the first answer, the same chunks again.
    await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(false) });
    const back = await decodedRows(() => env.cli(["refresh", file, "--json"]));
    expect(outcome(back.out)).toMatchObject({ outcome: "refreshed", saved: true });
    expect(back.rows).toBe(1000 + 1000 + 1);
    const first = tmp.file("big-sql-first.xlsx");
    expect((await env.cli(["place", first, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
    expect(await grid(file, 12_001)).toEqual(await grid(first, 12_001));
  });

  it("a large SQL answer laid out by chunk whose record the platform refuses: the rows written go back as they were", async () => {
    const sql = largeSql("id > 11990 OR id BETWEEN 5000 AND 5004");
    const { report, file } = await placedLarge(sql, "big-sql-refused.xlsx");
    const before = await grid(file, 12_001);
    await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(true) });
    const refusing: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (init?.method === "PUT" && /\/refresh$/.test(url))
        return new Response(JSON.stringify({ error: "forbidden", message: "not allowed" }), {
          status: 403,
          headers: { "content-type": "application/json" },
        });
      return fetch(input, init);
    };
    const r = await decodedRows(() => env.cli(["refresh", file, "--json"], "analyst", { fetch: refusing }));
    expect(r.rows).toBe(1000 + 1000 + 1); // laid out by chunk
    expect(outcome(r.out)).toMatchObject({
      outcome: "not-refreshed",
      reason: expect.stringMatching(/Its cells were put back as they were\./),
    });
    expect(await grid(file, 12_001)).toEqual(before);
  });

  it("a large SQL answer over a row inserted inside it: every row is laid out, and nothing is written over the person's row", async () => {
    const sql = largeSql("id > 11990");
    const { report, file } = await placedLarge(sql, "big-sql-inserted.xlsx");
    const port = XlsxPort.open(file);
    const sheetId = port.wb.sheets[0]!.id;
    port.wb.insertRows(sheetId, 3000, 1); // above the row of id 3000, inside the placement
    port.wb.userEdit(sheetId, 3000, 0, "a person's row");
    port.save();
    await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(true) });
    const r = await decodedRows(() => env.cli(["refresh", file, "--json"]));
    expect(outcome(r.out).outcome).toBe("edited");
    expect(r.rows).toBe(12_000); // the whole answer: the name's area is not the recorded shape, so no chunk is laid out alone
    const after = XlsxPort.open(file).wb.sheets[0]!;
    expect(after.cells.get(3000)?.get(0)?.v).toBe("a person's row");
    expect(after.cells.get(3001)?.get(0)?.v).toBe(3000); // the report's rows moved down with it, not written over
  });

  it("a large SQL answer over a value typed into it: every row is laid out, the edit named and kept", async () => {
    const sql = largeSql("id > 11990");
    const { report, file } = await placedLarge(sql, "big-sql-typed.xlsx");
    const port = XlsxPort.open(file);
    const at = parseAddress("B3001");
    port.wb.userEdit(port.wb.sheets[0]!.id, at.row, at.col, 777);
    port.save();
    await env.client().updateReport(env.deploymentId, report.id, { sqlQuery: sql(true) });
    const r = await decodedRows(() => env.cli(["refresh", file, "--json"]));
    expect(outcome(r.out)).toMatchObject({ outcome: "edited", editedCells: ["B3001"] });
    expect(r.rows).toBeGreaterThanOrEqual(12_000); // the whole answer: the note is gone, so no chunk is laid out on its own
    expect(XlsxPort.open(file).wb.sheets[0]!.cells.get(at.row)?.get(at.col)?.v).toBe(777);
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

/**
 * 12,000 orders' id, amount and status (more rows than MAX_ROW_PRINTS: the placement keeps the prints of the
 * answer rows each chunk holds); `changed`: the amount doubled where `where` holds.
 */
const largeSql = (where: string) => (changed: boolean) =>
  `SELECT id, ${changed ? `CASE WHEN ${where} THEN amount * 2 ELSE amount END` : "amount"} AS amount, status FROM orders WHERE id <= 12000 ORDER BY id`;

/** A report of `sql(false)` placed at A1 of a new workbook `name`. */
async function placedLarge(sql: (changed: boolean) => string, name: string) {
  const report = await env.createReport({ sqlQuery: sql(false) });
  const file = tmp.file(name);
  expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!A1"])).code).toBe(0);
  return { report, file };
}

/** The `rows` × 3 cells from A1 of a workbook's first sheet. */
async function grid(file: string, rows = 2501) {
  const port = XlsxPort.open(file);
  const out = [];
  for await (const b of readOf.call(port, { sheetId: port.wb.sheets[0]!.id, row: 0, col: 0, rows, cols: 3 })) out.push(...b);
  return out;
}

/** How many rows of data answers were decoded during `run` (JSON.parse of rows: a slice, a chunk or a whole body). */
async function decodedRows<T>(run: () => Promise<T>): Promise<{ out: T; rows: number }> {
  const parse = JSON.parse;
  let rows = 0;
  const spy = vi.spyOn(JSON, "parse").mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    const v: unknown = parse(text, reviver);
    if (Array.isArray(v) && v.every(Array.isArray))
      rows += v.length; // rows of a slice or a chunk
    else if (v && typeof v === "object" && Array.isArray((v as { data?: unknown }).data)) rows += (v as { data: unknown[] }).data.length; // a whole body
    return v;
  });
  try {
    return { out: await run(), rows };
  } finally {
    spy.mockRestore();
  }
}
