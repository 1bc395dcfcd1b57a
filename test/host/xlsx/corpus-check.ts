// The corpus checks shared by test/host/xlsx/corpus.test.ts (test/fixtures/xlsx-corpus) and
// excel-corpus.test.ts (the Excel-written files in ../shared/fixtures/xlsx-excel): place a report beside
// what a sheet holds with `cellbound place`, refresh it unchanged (the file is untouched) and changed,
// then check that
//   - every part Cellbound does not edit keeps its bytes (local header, compressed data, descriptor);
//   - the parts it edits keep their XML outside its edits (other rows and cells of the sheet, other
//     defined names, styles, relationships and content types);
//   - the sheet's other cells read as before, and LibreOffice shows the placed cells as the engine wrote them;
//   - after LibreOffice saves the file, `cellbound refresh` finds the placement again (issue 35 §2).
import { chmodSync, copyFileSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { areaA1, parseAddress } from "../../../src/host/a1.ts";
import type { ReportInput } from "../../../src/api/index.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { findElement, nextTag, tagAttrs } from "../../../src/host/xlsx/xml.ts";
import { ZipReader } from "../../../src/host/xlsx/zip.ts";
import type { CliEnv } from "../../cli/support.ts";
import { differences, expectedText, type LibreOffice } from "../../support/libreoffice.ts";

/** A report with a date column, so a 1904 workbook's dates are checked too. */
export const byMonth = (limit: number): ReportInput => ({
  jsonQuery: JSON.stringify({
    measures: ["orders.count"],
    dimensions: ["orders.status"],
    timeDimensions: [{ dimension: "orders.created_at", granularity: "month" }],
    order: [["orders.created_at", "asc"]],
    limit,
  }),
});

function raw(file: string): ZipReader {
  return new ZipReader(file, readFileSync(file));
}
const entryBytes = (z: ZipReader, name: string) => z.bytes.subarray(z.entry(name)!.offset, z.entry(name)!.end);

/** Parts Cellbound may edit to place a report into `sheetPart` (its own custom XML parts are new parts). */
const EDITABLE = ["xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/styles.xml", "[Content_Types].xml"];

/** The element tags (open or empty) of an XML text, as written. */
function tags(xml: string, name: string): string[] {
  const out: string[] = [];
  for (let t = nextTag(xml, 0); t; t = nextTag(xml, t.end)) if (t.name === name && !t.closing) out.push(xml.slice(t.start, t.end));
  return out;
}

/** The `<row>` elements of sheetData by row number, as written. */
function rows(xml: string): Map<number, string> {
  const out = new Map<number, string>();
  const span = findElement(xml, "sheetData")!;
  for (let at = span.inner; at < span.innerEnd;) {
    const r = findElement(xml, "row", at, span.innerEnd);
    if (!r) break;
    out.set(Number(/\br="(\d+)"/.exec(xml.slice(r.start, r.end))![1]), xml.slice(r.start, r.end));
    at = r.end;
  }
  return out;
}
const outsideSheetData = (xml: string) => {
  const span = findElement(xml, "sheetData")!;
  return [xml.slice(0, span.start).replace(/<(\w+:)?dimension\b[^>]*\/>/, ""), xml.slice(span.end)];
};
const withoutCounts = (xml: string) => xml.replace(/\scount="\d+"/g, "");

/** The edited parts' XML outside Cellbound's edits is what it was. */
function otherXmlUnchanged(before: ZipReader, after: ZipReader, sheetPart: string, placedRows: ReadonlySet<number>): void {
  // The sheet: everything outside sheetData (but the dimension), and every row the placement does not reach.
  const [was, now] = [before.text(sheetPart), after.text(sheetPart)];
  expect(outsideSheetData(now), `${sheetPart} outside sheetData`).toEqual(outsideSheetData(was));
  const rowsNow = rows(now);
  for (const [r, xml] of rows(was)) {
    if (!placedRows.has(r)) expect(rowsNow.get(r), `${sheetPart} row ${r}`).toBe(xml);
    else for (const c of tags(xml, "c")) expect(rowsNow.get(r), `${sheetPart} row ${r}'s cells`).toContain(c);
  }
  // The workbook: other defined names, sheets, views… as they were; Cellbound adds its names and recalculation on open.
  const wb = (xml: string) =>
    xml
      .replace(/<(\w+:)?definedName\b[^>]*name="Cellbound_[^"]*"[^>]*>[^<]*<\/(\w+:)?definedName>/g, "")
      .replace(/<(\w+:)?definedNames><\/(\w+:)?definedNames>/, "")
      .replace(/\sfullCalcOnLoad="1"/, "")
      .replace(/<(\w+:)?calcPr\/>/, "");
  expect(wb(after.text("xl/workbook.xml"))).toBe(wb(before.text("xl/workbook.xml")));
  // Relationships and content types: every original entry stays.
  for (const part of ["xl/_rels/workbook.xml.rels", "[Content_Types].xml"]) {
    const now = new Set([
      ...tags(after.text(part), "Relationship"),
      ...tags(after.text(part), "Override"),
      ...tags(after.text(part), "Default"),
    ]);
    for (const t of [
      ...tags(before.text(part), "Relationship"),
      ...tags(before.text(part), "Override"),
      ...tags(before.text(part), "Default"),
    ])
      expect(now.has(t), `${part} keeps ${t}`).toBe(true);
  }
  // Styles: existing entries never change; new ones are appended to their sections.
  if (before.has("xl/styles.xml")) {
    let [s0, s1] = [withoutCounts(before.text("xl/styles.xml")), withoutCounts(after.text("xl/styles.xml"))];
    for (const section of ["numFmts", "fonts", "fills", "cellXfs"]) {
      const [a, b] = [findElement(s0, section), findElement(s1, section)];
      if (!b) continue;
      const innerA = a ? s0.slice(a.inner, a.innerEnd) : "";
      expect(s1.slice(b.inner, b.innerEnd).startsWith(innerA), `styles.xml ${section} keeps its entries`).toBe(true);
      s1 = a ? s1.slice(0, b.inner) + innerA + s1.slice(b.innerEnd) : s1.slice(0, b.start) + s1.slice(b.end);
      s0 = a ? s0.slice(0, a.inner) + innerA + s0.slice(a.innerEnd) : s0;
    }
    expect(s1, "styles.xml outside the appended entries").toBe(s0);
  }
}

/** Where a placement can go on a sheet: right of everything it holds, from row 2 (row 1 would freeze panes). */
async function target(port: XlsxPort): Promise<{ sheet: (typeof port.wb.sheets)[number]; row: number; col: number }> {
  for (const sheet of port.wb.sheets) {
    let used = -1;
    for (const row of sheet.cells.values()) for (const c of row.keys()) used = Math.max(used, c);
    const at = { sheet, row: 1, col: used + 2 };
    if ((await port.obstacles({ sheetId: sheet.id, row: 1, col: at.col, rows: 40, cols: 3 })).length === 0) return at;
  }
  throw new Error("no sheet without obstacles");
}

/** The part of the sheet named `name` (workbook.xml → its relationships). */
function sheetPartOf(z: ZipReader, name: string): string {
  const sheet = tagAttrs(tags(z.text("xl/workbook.xml"), "sheet").find((t) => tagAttrs(t).name === name)!);
  const rid = Object.entries(sheet).find(([k]) => k.endsWith(":id"))![1];
  const rel = tagAttrs(tags(z.text("xl/_rels/workbook.xml.rels"), "Relationship").find((t) => tagAttrs(t).Id === rid)!);
  return rel.Target!.startsWith("/") ? rel.Target!.slice(1) : path.posix.normalize(`xl/${rel.Target}`);
}

export interface CorpusOptions {
  /** LibreOffice shows every cell of every sheet as the port reads it (not only the placed ones). */
  wholeWorkbook?: boolean;
}

export async function placeAndRefreshKeepsTheRest(
  env: CliEnv,
  lo: LibreOffice,
  source: string,
  file: string,
  options: CorpusOptions = {},
): Promise<void> {
  copyFileSync(source, file);
  chmodSync(file, 0o644); // the corpus is read-only where it is kept, and the command line leaves read-only files alone
  const original = raw(file);
  const before = XlsxPort.open(file);
  const { sheet, row, col } = await target(before);
  const otherCells = JSON.stringify([...sheet.cells].map(([r, cells]) => [r, [...cells]]));
  const at = `'${sheet.name.replace(/'/g, "''")}'!${areaA1({ row, col, rows: 1, cols: 1 })}`;
  const report = await env.createReport(byMonth(6));
  const placed = await env.cli(["place", file, "--report", String(report.id), "--at", at, "--json"]);
  expect(placed.stderr).toBe("");
  expect(placed.json().files[0]!.placements[0]!.outcome, placed.stdout).toBe("placed");

  // Unchanged: the file keeps its bytes and its modification time.
  const [bytes, mtime] = [readFileSync(file), statSync(file).mtimeMs];
  const unchanged = await env.cli(["refresh", file, "--json"]);
  expect(unchanged.code, unchanged.stdout).toBe(0);
  expect(unchanged.json().files[0]!.placements[0]!.outcome).toBe("unchanged");
  expect(readFileSync(file).equals(bytes) && statSync(file).mtimeMs === mtime, "an unchanged refresh leaves the file alone").toBe(true);

  await env.client().updateReport(env.deploymentId, report.id, byMonth(9));
  const refreshed = await env.cli(["refresh", file, "--json"]);
  expect(refreshed.code, refreshed.stdout).toBe(0);
  const p = refreshed.json().files[0]!.placements[0]!;
  expect(p.outcome).toBe("refreshed");

  const after = raw(file);
  const sheetPart = sheetPartOf(original, sheet.name);
  for (const e of original.entries) {
    expect(after.has(e.name), `${e.name} survives`).toBe(true);
    if (e.name !== sheetPart && !EDITABLE.includes(e.name))
      expect(entryBytes(after, e.name).equals(entryBytes(original, e.name)), `${e.name} keeps its bytes`).toBe(true);
  }
  const area = parseAddress(p.range!);
  otherXmlUnchanged(original, after, sheetPart, new Set(Array.from({ length: area.rows }, (_, i) => area.row + i + 1)));

  // The cells that were there are still there; LibreOffice shows the placed cells as the engine wrote them.
  const port = XlsxPort.open(file);
  const now = port.wb.sheets.find((s) => s.name === sheet.name)!;
  for (const [r, cells] of JSON.parse(otherCells) as Array<[number, Array<[number, unknown]>]>)
    for (const [c, cell] of cells) expect(now.cells.get(r)?.get(c)).toEqual(cell);
  const placedText = (shown: string[][]) =>
    Array.from({ length: area.rows }, (_, r) => Array.from({ length: area.cols }, (_, c) => shown[area.row + r]?.[area.col + c] ?? ""));
  const want = expectedText(port.wb, sheet.name);
  const wantGrid = Array.from({ length: area.rows }, (_, r) =>
    Array.from({ length: area.cols }, (_, c) => want.get(`${area.row + r},${area.col + c}`) ?? ""),
  );
  const sheets = await lo.sheets(file);
  const shown = sheets.get(sheet.name) ?? [];
  expect(differences(placedText(shown), toMap(wantGrid)), `${path.basename(file)}: LibreOffice shows the placed cells`).toEqual([]);
  if (options.wholeWorkbook)
    for (const s of port.wb.sheets) expect(differences(sheets.get(s.name) ?? [], expectedText(port.wb, s.name)), s.name).toEqual([]);

  // LibreOffice saves it: the placement is found and refreshed again.
  await lo.resave(file);
  const again = await env.cli(["refresh", file, "--json"]);
  expect(again.code, again.stdout).toBe(0);
  expect(again.json().files[0]!.placements.map((x) => [x.range, x.outcome])).toEqual([[p.range, "unchanged"]]);
}

function toMap(grid: string[][]): Map<string, string> {
  const out = new Map<string, string>();
  grid.forEach((row, r) => row.forEach((text, c) => out.set(`${r},${c}`, text)));
  return out;
}
