// The file port's write checks (issue 36, item 12): the engine refuses to write over merged cells, a
// table, a protected sheet, a dynamic-array formula's results and filtered rows in a file as it does
// in Excel (src/sync/obstacles.ts, from the port's `obstacles`), and writes a 1904 workbook's dates as
// 1904 serials, so they show as the dates the report holds (issue 35 §4).
import { readFileSync, statSync } from "node:fs";
import { formatValue } from "../../../src/host/number-format.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { DAYS_1904 } from "../../../src/host/xlsx/sheet.ts";
import { byStatus, startCliEnv, type CliEnv } from "../../cli/support.ts";
import { differences, expectedText, libreOffice, type LibreOffice } from "../../support/libreoffice.ts";
import { partText, patchPackage, tempDir } from "./support.ts";

let env: CliEnv;
let lo: LibreOffice;
const tmp = tempDir("cb-checks-");
beforeAll(async () => {
  env = await startCliEnv();
  lo = libreOffice();
});
afterAll(async () => {
  await env.close();
  lo.close();
  tmp.remove();
});

const SHEET = "xl/worksheets/sheet1.xml";
const untouched = (file: string) => {
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  return () => {
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  };
};

/** A workbook with a title in A1, then its sheet part's text after </sheetData> extended as Excel writes it. */
async function workbook(name: string, after: string, rows = "", add: Record<string, string> = {}): Promise<string> {
  const file = tmp.file(name);
  const port = XlsxPort.open(file, { create: "Sheet1" });
  await port.write({ sheetId: port.wb.sheets[0]!.id, row: 0, col: 0 }, [["Title"]]);
  await port.identity(); // as a workbook the pane has seen (a refused place into a file without one still stores one)
  port.save();
  patchPackage(
    file,
    (part, text) =>
      part === SHEET
        ? text.replace(/<sheetData>(.*)<\/sheetData>/, `<sheetData>$1${rows}</sheetData>${after}`)
        : part === "[Content_Types].xml" && add["xl/tables/table1.xml"]
          ? text.replace(
              "</Types>",
              '<Override PartName="/xl/tables/table1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml"/></Types>',
            )
          : undefined,
    add,
  );
  return file;
}

async function placeRefused(file: string, at: string, reason: RegExp): Promise<void> {
  const report = await env.createReport(byStatus(4));
  const same = untouched(file);
  const out = await env.cli(["place", file, "--report", String(report.id), "--at", at, "--json"]);
  expect(out.code).toBe(1);
  const p = out.json().files[0]!.placements[0]!;
  expect(p.outcome).toBe("not-refreshed");
  expect(p.reason).toMatch(reason);
  expect(p.reason).toMatch(/Nothing was changed/);
  same();
}

describe("issue 36 item 12: the engine's write checks on the file port", () => {
  it("merged cells in the target: place is refused naming them; the file is untouched", async () => {
    const file = await workbook("merged.xlsx", '<mergeCells count="1"><mergeCell ref="C4:D4"/></mergeCells>');
    await placeRefused(file, "Sheet1!B2", /Sheet1!B2:C6: it holds merged cells \(C4:D4\)/);
  });

  it("a table in the target: refused naming the table", async () => {
    const table =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="Table1" displayName="Sales" ref="C5:D7" totalsRowShown="0"><autoFilter ref="C5:D7"/><tableColumns count="2"><tableColumn id="1" name="Region"/><tableColumn id="2" name="Amount"/></tableColumns><tableStyleInfo name="TableStyleMedium2" showFirstColumn="0" showLastColumn="0" showRowStripes="1" showColumnStripes="0"/></table>';
    const rels =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" Target="../tables/table1.xml"/></Relationships>';
    const file = await workbook(
      "table.xlsx",
      '<tableParts count="1"><tablePart r:id="rId1"/></tableParts>',
      '<row r="5"><c r="C5" t="inlineStr"><is><t>Region</t></is></c><c r="D5" t="inlineStr"><is><t>Amount</t></is></c></row>',
      { "xl/tables/table1.xml": table, "xl/worksheets/_rels/sheet1.xml.rels": rels },
    );
    await placeRefused(file, "Sheet1!B6", /it overlaps the table Sales/);
    expect((await env.cli(["place", file, "--report", String((await env.createReport(byStatus(2))).id), "--at", "Sheet1!F1"])).code).toBe(
      0,
    );
  });

  it("a protected sheet: refused", async () => {
    const file = await workbook("protected.xlsx", '<sheetProtection sheet="1" objects="1" scenarios="1"/>');
    await placeRefused(file, "Sheet1!H10", /the sheet Sheet1 is protected/);
  });

  it("a dynamic-array formula's results: refused naming the formula's cell", async () => {
    const file = await workbook("spill.xlsx", "", '<row r="3"><c r="E3" cm="1"><f t="array" ref="E3:E9">SEQUENCE(7)</f><v>1</v></c></row>');
    await placeRefused(file, "Sheet1!D8", /results of the array formula in Sheet1!E3/);
  });

  it("rows an AutoFilter filters: refused naming the filter", async () => {
    const file = await workbook(
      "filter.xlsx",
      '<autoFilter ref="A1:A30"><filterColumn colId="0"><filters><filter val="Title"/></filters></filterColumn></autoFilter>',
    );
    await placeRefused(file, "Sheet1!A3", /hidden by the sheet's filter on Sheet1!A1:A30/);
  });

  it("a refresh that would grow over merged cells is refused; the file is untouched", async () => {
    const report = await env.createReport(byStatus(2));
    const file = await workbook("grow.xlsx", '<mergeCells count="1"><mergeCell ref="B5:C5"/></mergeCells>');
    expect((await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2"])).code).toBe(0);
    await env.client().updateReport(env.deploymentId, report.id, byStatus(6));
    const same = untouched(file);
    const out = await env.cli(["refresh", file, "--json"]);
    expect(out.code).toBe(1);
    expect(out.json().files[0]!.placements[0]!.reason).toMatch(/it holds merged cells \(B5:C5\)/);
    same();
  });

  it("the port names what it finds, also after a save", async () => {
    const file = await workbook(
      "facts.xlsx",
      '<sheetProtection sheet="0"/><mergeCells count="2"><mergeCell ref="A10:B10"/><mergeCell ref="Z1:Z2"/></mergeCells>',
    );
    const port = XlsxPort.open(file);
    const sheetId = port.wb.sheets[0]!.id;
    const area = { sheetId, row: 8, col: 0, rows: 5, cols: 3 };
    expect(await port.obstacles(area)).toEqual([{ kind: "merged", address: "A10:B10" }]);
    expect(await port.obstacles({ ...area, row: 0, rows: 2 })).toEqual([]);
    await port.write({ sheetId, row: 1, col: 0 }, [["x"]]);
    port.save();
    expect(await port.obstacles(area)).toEqual([{ kind: "merged", address: "A10:B10" }]);
  });
});

describe("issue 35 §4 / issue 36 item 12: a 1904 workbook's dates", () => {
  it(
    "are written as 1904 serials: LibreOffice shows the report's dates; an unchanged refresh leaves the file alone",
    { timeout: 120_000 },
    async () => {
      const file = await workbook("1904.xlsx", "");
      patchPackage(file, (part, text) =>
        part === "xl/workbook.xml" ? text.replace("<bookViews>", '<workbookPr date1904="1"/><bookViews>') : undefined,
      );
      const report = await env.createReport({
        jsonQuery: JSON.stringify({
          measures: ["orders.count"],
          timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
          order: [["orders.created_at", "asc"]],
          limit: 4,
        }),
      });
      const out = await env.cli(["place", file, "--report", String(report.id), "--at", "Sheet1!B2", "--json"]);
      expect(out.code).toBe(0);
      const port = XlsxPort.open(file);
      expect(port.date1904).toBe(true);
      expect(await port.dateSystem()).toBe(1900); // the serials it exchanges; the file's are converted
      const first = port.wb.sheets[0]!.cells.get(2)!.get(1)!;
      expect(first.nf).toBe("mmm yyyy");
      // The file holds the 1904 serial of the date the model (and the report) holds.
      expect(partText(file, SHEET)).toContain(`<c r="B3" s="`);
      expect(partText(file, SHEET)).toMatch(new RegExp(`<c r="B3" s="\\d+"><v>${(first.v as number) - DAYS_1904}</v>`));
      const shown = await lo.sheets(file);
      expect(differences(shown.get("Sheet1")!, expectedText(port.wb, "Sheet1"))).toEqual([]);
      expect(shown.get("Sheet1")![2]![1]).toBe(formatValue(first.v, "mmm yyyy"));
      const same = untouched(file);
      const again = await env.cli(["refresh", file, "--json"]);
      expect(again.code).toBe(0);
      expect(again.json().files[0]!.placements[0]!.outcome).toBe("unchanged");
      same();
      // Saved by LibreOffice (issue 35 §2): still the same dates, found and refreshed again.
      await lo.resave(file);
      expect(XlsxPort.open(file).wb.sheets[0]!.cells.get(2)!.get(1)!.v).toBe(first.v);
      const third = await env.cli(["refresh", file, "--json"]);
      expect(third.json().files[0]!.placements[0]!.outcome).toBe("unchanged");
    },
  );
});
