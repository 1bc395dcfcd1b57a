// Excel tables in closed files (issue 33): the xlsx port reads every table part into the memory port's
// table model, writes the tables the engine makes or changes (part, relationship, content type,
// <tableParts>, calculated columns' formulas in every data row), keeps untouched table parts byte for
// byte, and LibreOffice reads what it wrote (and the port reads what LibreOffice saved).
import { copyFileSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Area, SheetValue, TableRead } from "../../../src/host/port.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { renameInFormula, toFileFormula, toModelFormula } from "../../../src/host/xlsx/tables.ts";
import { ZipReader } from "../../../src/host/xlsx/zip.ts";
import { libreOffice, type LibreOffice } from "../../support/libreoffice.ts";
import { byCustomer, startCliEnv, type CliEnv } from "../../cli/support.ts";
import { tempDir } from "./support.ts";

const tmp = tempDir("cb-tables-");
let lo: LibreOffice;
beforeAll(() => {
  lo = libreOffice();
});
afterAll(() => {
  lo.close();
  tmp.remove();
});

const CORPUS = path.resolve("../shared/fixtures/xlsx-excel");

function zipOf(file: string): ZipReader {
  return new ZipReader(file, readFileSync(file));
}
function partsOf(file: string): string[] {
  return zipOf(file).entries.map((e) => e.name);
}
function text(file: string, part: string): string {
  return zipOf(file).text(part);
}
/** The cells (r="…") of a sheet part with their <f> text. */
function formulaCells(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of xml.matchAll(/<c r="([A-Z]+\d+)"[^>]*>(?:(?!<\/c>).)*?<f>([^<]*)<\/f>/g)) out.set(m[1]!, m[2]!);
  return out;
}

async function tables(port: XlsxPort): Promise<TableRead[]> {
  return (await port.snapshot({ tables: true })).tables ?? [];
}

const REPORT: SheetValue[][] = [
  ["Region", "Amount", "Units"],
  ["North", 100, 1],
  ["South", 250, 2],
  ["East", 75, 3],
];

/** A new workbook with REPORT at B2 as table Sales, saved. */
async function withTable(name: string): Promise<{ file: string; port: XlsxPort; sheetId: string }> {
  const file = tmp.file(name);
  const port = XlsxPort.open(file, { create: "Report", checkData: false });
  const sheetId = port.wb.sheets[0]!.id;
  const area: Area = { sheetId, row: 1, col: 1, rows: REPORT.length, cols: 3 };
  await port.commit([
    { kind: "write", at: area, grid: REPORT },
    { kind: "table", table: "Sales", area, create: { style: "TableStyleMedium2" } },
  ]);
  port.save();
  return { file, port, sheetId };
}

describe("issue 33: tables in a closed file", () => {
  it("issue 33 (closed files): a table the port makes is a table part, read back by a fresh port with the same table", async () => {
    const { file, sheetId } = await withTable("made.xlsx");
    const parts = partsOf(file);
    expect(parts).toContain("xl/tables/table1.xml");
    const part = text(file, "xl/tables/table1.xml");
    expect(part).toMatch(/<table [^>]*id="1" name="Sales" displayName="Sales" ref="B2:D5"/);
    expect(part).toContain('<autoFilter ref="B2:D5"/>');
    expect(part).toContain('<tableColumns count="3"><tableColumn id="1" name="Region"/><tableColumn id="2" name="Amount"/>');
    expect(part).toContain('<tableStyleInfo name="TableStyleMedium2" showFirstColumn="0" showLastColumn="0" showRowStripes="1"');
    expect(text(file, "[Content_Types].xml")).toContain(
      '<Override PartName="/xl/tables/table1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml"/>',
    );
    expect(text(file, "xl/worksheets/_rels/sheet1.xml.rels")).toMatch(/Type="[^"]*\/relationships\/table" Target="..\/tables\/table1.xml"/);
    expect(text(file, "xl/worksheets/sheet1.xml")).toMatch(/<tableParts count="1"><tablePart r:id="rId\d+"\/><\/tableParts><\/worksheet>$/);
    const again = XlsxPort.open(file, { checkData: false });
    expect(again.pending()).toBe(false); // a table read as it is written: nothing to save
    expect(await tables(again)).toEqual([
      {
        name: "Sales",
        area: { sheetId, row: 1, col: 1, rows: 4, cols: 3 },
        columns: ["Region", "Amount", "Units"],
        style: "TableStyleMedium2",
        totals: false,
        sort: [],
        filtered: false,
      },
    ]);
  });
});

describe("issue 33: a table converted to a range in a closed file", () => {
  it("issue 33 (closed files): untable removes the table's part, its relationship, <tableParts> and content type; the cells stay", async () => {
    const { file } = await withTable("untable.xlsx");
    const port = XlsxPort.open(file, { checkData: false });
    await port.commit([{ kind: "untable", table: "Sales" }]);
    port.save();
    expect(partsOf(file)).not.toContain("xl/tables/table1.xml");
    expect(text(file, "[Content_Types].xml")).not.toContain("/xl/tables/table1.xml");
    expect(text(file, "xl/worksheets/sheet1.xml")).not.toContain("<tableParts");
    const again = XlsxPort.open(file, { checkData: false });
    expect(await tables(again)).toEqual([]);
    expect(again.wb.cell(again.wb.sheets[0]!.id, 1, 1).value).toBe("Region");
  });
});

/** A table Sales at B2 with REPORT and a calculated column Gross (=[@Amount]*1.2) at its right, saved. */
async function withCalculatedColumn(name: string): Promise<{ file: string; port: XlsxPort; sheetId: string }> {
  const file = tmp.file(name);
  const port = XlsxPort.open(file, { create: "Report", checkData: false });
  const sheetId = port.wb.sheets[0]!.id;
  const area: Area = { sheetId, row: 1, col: 1, rows: REPORT.length, cols: 4 };
  await port.commit([
    { kind: "write", at: area, grid: REPORT.map((r, i) => [...r, i === 0 ? "Gross" : ""]) },
    { kind: "table", table: "Sales", area, create: { style: "TableStyleMedium2" } },
  ]);
  port.wb.calculatedColumn("Sales", 3, "=[@Amount]*1.2");
  port.save();
  return { file, port, sheetId };
}

const sheetXml = (file: string) => text(file, "xl/worksheets/sheet1.xml");
const rowsOf = (from: number, to: number, col: string) => Array.from({ length: to - from + 1 }, (_, i) => `${col}${from + i}`);

describe("issue 33: a table's calculated column in a closed file", () => {
  it("issue 33 (closed files): the calculated column's formula is in every data row, after a resize larger and smaller", async () => {
    const { file, port, sheetId } = await withCalculatedColumn("resize.xlsx");
    let f = formulaCells(sheetXml(file));
    expect([...f.keys()]).toEqual(rowsOf(3, 5, "E"));
    expect(f.get("E3")).toBe("Sales[[#This Row],[Amount]]*1.2");
    expect(text(file, "xl/tables/table1.xml")).toContain(
      '<tableColumn id="4" name="Gross"><calculatedColumnFormula>Sales[[#This Row],[Amount]]*1.2</calculatedColumnFormula></tableColumn>',
    );
    // Larger: two rows more.
    await port.commit([
      {
        kind: "write",
        at: { sheetId, row: 5, col: 1 },
        grid: [
          ["West", 10, 4],
          ["Central", 20, 5],
        ],
      },
      { kind: "table", table: "Sales", area: { sheetId, row: 1, col: 1, rows: 6, cols: 4 } },
    ]);
    port.save();
    f = formulaCells(sheetXml(file));
    expect([...f.keys()]).toEqual(rowsOf(3, 7, "E"));
    expect(text(file, "xl/tables/table1.xml")).toMatch(/ref="B2:E7"[^>]*>.*<autoFilter ref="B2:E7"\/>/);
    // Smaller: the report lost three rows (the engine clears them, the table shrinks).
    await port.commit([
      { kind: "clear", area: { sheetId, row: 4, col: 1, rows: 3, cols: 4 } },
      { kind: "table", table: "Sales", area: { sheetId, row: 1, col: 1, rows: 3, cols: 4 } },
    ]);
    port.save();
    f = formulaCells(sheetXml(file));
    expect([...f.keys()]).toEqual(rowsOf(3, 4, "E"));
    const again = XlsxPort.open(file, { checkData: false });
    expect((await tables(again)).map((t) => [t.area.rows, t.columns])).toEqual([[3, ["Region", "Amount", "Units", "Gross"]]]);
    expect(again.wb.table("Sales").table.formulas).toEqual([null, null, null, "=[@Amount]*1.2"]);
  });

  it("issue 33 (closed files): insert, delete and rename a column: the calculated column's formula follows in every data row", async () => {
    const { file, port, sheetId } = await withCalculatedColumn("columns.xlsx");
    await port.commit([{ kind: "tableColumns", table: "Sales", edits: [{ op: "insert", index: 1, name: "Product" }] }]);
    port.save();
    let f = formulaCells(sheetXml(file));
    expect([...f.keys()]).toEqual(rowsOf(3, 5, "F"));
    let part = text(file, "xl/tables/table1.xml");
    expect(part).toMatch(/ref="B2:F5"/);
    expect(part).toContain(
      '<tableColumns count="5"><tableColumn id="1" name="Region"/><tableColumn id="5" name="Product"/><tableColumn id="2" name="Amount"/>',
    );
    expect((await tables(XlsxPort.open(file, { checkData: false })))[0]!.columns).toEqual([
      "Region",
      "Product",
      "Amount",
      "Units",
      "Gross",
    ]);

    await port.commit([{ kind: "tableColumns", table: "Sales", edits: [{ op: "delete", index: 1 }] }]);
    port.save();
    f = formulaCells(sheetXml(file));
    expect([...f.keys()]).toEqual(rowsOf(3, 5, "E"));
    expect(text(file, "xl/tables/table1.xml")).toContain(
      '<tableColumns count="4"><tableColumn id="1" name="Region"/><tableColumn id="2" name="Amount"/>',
    );

    await port.commit([{ kind: "tableColumns", table: "Sales", edits: [{ op: "rename", index: 1, name: "Net amount" }] }]);
    port.save();
    f = formulaCells(sheetXml(file));
    expect([...f.keys()]).toEqual(rowsOf(3, 5, "E"));
    expect([...new Set(f.values())]).toEqual(["Sales[[#This Row],[Net amount]]*1.2"]);
    part = text(file, "xl/tables/table1.xml");
    expect(part).toContain('<tableColumn id="2" name="Net amount"/>');
    expect(part).toContain("<calculatedColumnFormula>Sales[[#This Row],[Net amount]]*1.2</calculatedColumnFormula>");
    const again = XlsxPort.open(file, { checkData: false });
    expect((await again.snapshot({ areas: [{ sheetId, row: 1, col: 1, rows: 1, cols: 4 }], tables: true })).values[0]!.grid).toEqual([
      ["Region", "Net amount", "Units", "Gross"],
    ]);
    expect(again.wb.table("Sales").table.formulas[3]).toBe("=[@[Net amount]]*1.2");
  });

  it("issue 33 (closed files): an untouched table's part stays byte for byte after an unrelated write", async () => {
    const { file, port, sheetId } = await withCalculatedColumn("untouched.xlsx");
    const before = { table: zipOf(file).read("xl/tables/table1.xml"), f: formulaCells(sheetXml(file)) };
    await port.commit([{ kind: "write", at: { sheetId, row: 20, col: 8 }, grid: [["elsewhere"]] }]);
    const stats = port.save();
    expect(stats?.partsChanged).not.toContain("xl/tables/table1.xml");
    expect(zipOf(file).read("xl/tables/table1.xml").equals(before.table)).toBe(true);
    expect(formulaCells(sheetXml(file))).toEqual(before.f);
  });
});

describe("issue 33: tables in Excel's own files", () => {
  it("issue 33 (closed files): reads an Excel table with a totals row and a calculated column, and keeps it byte for byte", async () => {
    const file = tmp.file("excel-table.xlsx");
    copyFileSync(path.join(CORPUS, "phpspreadsheet-TableWithoutFilter.xlsx"), file);
    const port = XlsxPort.open(file);
    const [t] = await tables(port);
    expect(t).toEqual({
      name: "DeptSales",
      area: { sheetId: port.wb.sheets[0]!.id, row: 0, col: 0, rows: 8, cols: 5 },
      columns: ["Sales\u00a0Person", "Region", "Sales\u00a0Amount", "% Commission", "Commission Amount"], // Excel's no-break spaces
      style: "TableStyleMedium2",
      totals: true,
      sort: [],
      filtered: false,
    });
    expect(port.wb.table("DeptSales").table.formulas[4]).toBe("=[@[Sales\u00a0Amount]]*[@[% Commission]]");
    const before = { table: zipOf(file).read("xl/tables/table1.xml"), f: formulaCells(sheetXml(file)) };
    await port.commit([{ kind: "write", at: { sheetId: t!.area.sheetId, row: 2, col: 2 }, grid: [[700]] }]);
    port.save();
    expect(zipOf(file).read("xl/tables/table1.xml").equals(before.table)).toBe(true);
    expect(formulaCells(sheetXml(file))).toEqual(before.f);
  });

  it("issue 33 (closed files): reads the table of an Excel file with a chart, a comment and a picture", async () => {
    const port = XlsxPort.open(path.join(CORPUS, "openxmlsdk-Complex01.xlsx"));
    expect((await tables(port)).map((t) => [t.name, t.area.row, t.area.col, t.area.rows, t.area.cols, t.columns, t.totals])).toEqual([
      ["Table1", 16, 0, 3, 3, ["a", "b", "c"], false],
    ]);
  });
});

describe("issue 33: a closed file's tables as obstacles", () => {
  it("issue 33 (closed files): a table (one made in this session too) is reported once, by name; a write beside it does not join it", async () => {
    const { file, sheetId } = await withTable("obstacles.xlsx");
    const port = XlsxPort.open(file, { checkData: false });
    expect(await port.obstacles({ sheetId, row: 3, col: 0, rows: 2, cols: 2 })).toEqual([
      { kind: "table", address: "B2:D5", name: "Sales" },
    ]);
    expect(await port.obstacles({ sheetId, row: 5, col: 1, rows: 2, cols: 3 })).toEqual([]); // just below: no auto-expansion
    expect(await port.obstacles({ sheetId, row: 1, col: 4, rows: 2, cols: 2 })).toEqual([]); // just right
    const area: Area = { sheetId, row: 10, col: 0, rows: 3, cols: 2 };
    await port.commit([
      {
        kind: "write",
        at: area,
        grid: [
          ["A", "B"],
          [1, 2],
          [3, 4],
        ],
      },
      { kind: "table", table: "Fresh", area, create: { style: "TableStyleLight1" } },
    ]);
    expect(await port.obstacles({ sheetId, row: 11, col: 1, rows: 1, cols: 1 })).toEqual([
      { kind: "table", address: "A11:B13", name: "Fresh" },
    ]);
  });
});

describe("issue 33: LibreOffice and the port's tables", () => {
  it("issue 33 (closed files): LibreOffice re-saves the port's table intact, and the port reads LibreOffice's table back", async () => {
    const { file, sheetId } = await withCalculatedColumn("lo.xlsx");
    const shown = await lo.sheets(file);
    expect(
      shown
        .get("Report")
        ?.slice(1, 5)
        .map((r) => r.slice(1, 5)),
    ).toEqual([
      ["Region", "Amount", "Units", "Gross"],
      ["North", "100", "1", "120"],
      ["South", "250", "2", "300"],
      ["East", "75", "3", "90"],
    ]);
    const copy = tmp.file("lo-resaved.xlsx");
    copyFileSync(file, copy);
    await lo.resave(copy);
    const tableParts = partsOf(copy).filter((n) => /^xl\/tables\/[^/]+\.xml$/.test(n));
    expect(tableParts).toHaveLength(1);
    const part = text(copy, tableParts[0]!);
    expect(part).toMatch(/ref="B2:E5"/);
    expect([...part.matchAll(/<tableColumn [^>]*name="([^"]*)"/g)].map((m) => m[1])).toEqual(["Region", "Amount", "Units", "Gross"]);
    const again = XlsxPort.open(copy, { checkData: false });
    const [t] = await tables(again);
    expect([t?.name, t?.area, t?.columns]).toEqual([
      "Sales",
      { sheetId, row: 1, col: 1, rows: 4, cols: 4 },
      ["Region", "Amount", "Units", "Gross"],
    ]);
    const values = (await again.snapshot({ areas: [{ sheetId, row: 2, col: 1, rows: 3, cols: 4 }] })).values[0]!.grid;
    expect(values).toEqual([
      ["North", 100, 1, 120],
      ["South", 250, 2, 300],
      ["East", 75, 3, 90],
    ]);
  }, 240_000);
});

describe("issue 33: place --as-table on a file, refreshed", () => {
  let env: CliEnv;
  beforeAll(async () => {
    env = await startCliEnv();
  });
  afterAll(() => env.close());

  it("issue 33 (closed files): the command line places a table, a person's formula column fills every row after refreshes with more and fewer rows, LibreOffice computes it", async () => {
    const file = tmp.file("cli.xlsx");
    const report = await env.createReport(byCustomer(6));
    const placed = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2", "--as-table", "--json"]);
    expect(placed.code, placed.stdout + placed.stderr).toBe(0);
    let port = XlsxPort.open(file);
    const [t] = await tables(port);
    expect(t).toMatchObject({ area: { row: 1, col: 1, rows: 7, cols: 3 }, style: "TableStyleMedium2" });
    // The person adds a formula column at the table's right (as Excel saves it).
    const count = t!.columns[2]!;
    await port.commit([{ kind: "tableColumns", table: t!.name, edits: [{ op: "insert", index: 3, name: "Double" }] }]);
    port.wb.calculatedColumn(t!.name, 3, `=[@[${count}]]*2`);
    port.save();
    for (const rows of [10, 3]) {
      await env.client().updateReport(env.deploymentId, report.id, byCustomer(rows));
      const out = await env.cli(["refresh", file, "--json"]);
      expect(out.code, out.stdout + out.stderr).toBe(0);
      port = XlsxPort.open(file);
      const [now] = await tables(port);
      expect(now).toMatchObject({ name: t!.name, area: { row: 1, col: 1, rows: rows + 1, cols: 4 } });
      expect(now!.columns[3]).toBe("Double");
      expect([...formulaCells(text(file, "xl/worksheets/sheet1.xml")).keys()]).toEqual(rowsOf(3, rows + 2, "E"));
    }
    const shown = (await lo.sheets(file)).get("Sheet1")!;
    for (let r = 2; r < 5; r++) {
      expect(shown[r]![4]).toMatch(/^\d+$/);
      expect(Number(shown[r]![4])).toBe(Number(shown[r]![3]) * 2);
    }
    // A new column: the report gains a measure; the person's column moves right with the table and still computes.
    const twoMeasures = JSON.parse(byCustomer(5).jsonQuery!) as { measures: string[] };
    twoMeasures.measures.push("orders.customers_count");
    await env.client().updateReport(env.deploymentId, report.id, { jsonQuery: JSON.stringify(twoMeasures) });
    const grown = await env.cli(["refresh", file, "--json"]);
    expect(grown.code, grown.stdout + grown.stderr).toBe(0);
    const [wide] = await tables(XlsxPort.open(file));
    expect(wide).toMatchObject({ name: t!.name, area: { row: 1, col: 1, rows: 6, cols: 5 } });
    expect(wide!.columns.slice(2)).toEqual([count, expect.any(String), "Double"]);
    expect([...formulaCells(text(file, "xl/worksheets/sheet1.xml")).keys()]).toEqual(rowsOf(3, 7, "F"));
    const status = await env.cli(["status", file]);
    expect(status.stdout).toContain(`table ${t!.name}`);
    const after = (await lo.sheets(file)).get("Sheet1")!;
    for (let r = 2; r < 7; r++) expect(Number(after[r]![5])).toBe(Number(after[r]![3]) * 2);
    expect(after[7]?.[5] ?? "").toBe(""); // nothing below the table
    // LibreOffice's own save keeps the table, and the next refresh finds it.
    await lo.resave(file);
    const [kept] = await tables(XlsxPort.open(file));
    expect(kept).toMatchObject({ name: t!.name, area: { row: 1, col: 1, rows: 6, cols: 5 } });
    const again = await env.cli(["refresh", file, "--json"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const outcome = (JSON.parse(again.stdout) as { files: Array<{ placements: Array<{ outcome: string; editedCells: unknown[] }> }> })
      .files[0]!.placements[0]!;
    expect(outcome).toMatchObject({ outcome: "unchanged", editedCells: [] }); // a table LibreOffice saved is no hand edit
  }, 240_000);
});

describe("structured references between the file and the model", () => {
  it("a calculated column's formula round-trips between Excel's file form and the model's", () => {
    const file = "DeptSales[[#This Row],[Sales Amount]]*DeptSales[[#This Row],[% Commission]]";
    const model = toModelFormula(file, "DeptSales");
    expect(model).toBe("=[@[Sales Amount]]*[@[% Commission]]");
    expect(toFileFormula(model, "DeptSales")).toBe(file);
    expect(toFileFormula("=[@Amount]*1.2+SUM([Units])", "Sales")).toBe("Sales[[#This Row],[Amount]]*1.2+SUM(Sales[Units])");
    expect(renameInFormula("=[@Amount]*1.2+SUM([Amount])", "Amount", "Net amount")).toBe("=[@[Net amount]]*1.2+SUM([Net amount])");
  });
});
