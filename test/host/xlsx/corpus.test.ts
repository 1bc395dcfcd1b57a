// Every workbook in test/fixtures/xlsx-corpus (see SOURCE.md there): place a report beside what the
// first sheet holds, refresh it after the report changed, and check that every part other than the
// ones Cellbound edits keeps its bytes, that the edited sheet keeps its other cells, and that
// LibreOffice opens the result and shows what the engine wrote.
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { areaA1 } from "../../../src/host/a1.ts";
import { XlsxPort } from "../../../src/host/xlsx/port.ts";
import { ZipReader } from "../../../src/host/xlsx/zip.ts";
import { byCustomer, startCliEnv, type CliEnv } from "../../cli/support.ts";
import { differences, expectedText, libreOffice, type LibreOffice } from "../../support/libreoffice.ts";
import { tempDir } from "./support.ts";

const CORPUS = path.resolve(import.meta.dirname, "../../fixtures/xlsx-corpus");
const FILES = readdirSync(CORPUS).filter((f) => /\.xls[xm]$/i.test(f));

let env: CliEnv;
let lo: LibreOffice;
const tmp = tempDir("cb-corpus-");
beforeAll(async () => {
  env = await startCliEnv();
  lo = libreOffice();
});
afterAll(async () => {
  await env.close();
  lo.close();
  tmp.remove();
});

function raw(file: string): Map<string, Buffer> {
  const z = new ZipReader(file, readFileSync(file));
  return new Map(z.entries.map((e) => [e.name, z.bytes.subarray(e.offset, e.end)]));
}

/** Parts Cellbound may edit: the placed sheet, the workbook and its relationships, styles, content types, its own custom XML. */
const editable = (name: string, sheetPart: string) =>
  name === sheetPart ||
  ["xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/styles.xml", "[Content_Types].xml"].includes(name) ||
  name.startsWith("customXml/");

it("the corpus folder holds workbooks", () => {
  expect(FILES.length).toBeGreaterThan(0);
});

for (const name of FILES) {
  it(`${name}: place and refresh keep every other part byte-identical; LibreOffice agrees`, { timeout: 120_000 }, async () => {
    const file = tmp.file(name);
    copyFileSync(path.join(CORPUS, name), file);
    const original = raw(file);
    const before = XlsxPort.open(file);
    const sheet = before.wb.sheets[0]!;
    const otherCells = JSON.stringify([...sheet.cells].map(([r, row]) => [r, [...row]]));
    const used = Math.max(-1, ...[...sheet.cells.values()].flatMap((row) => [...row.keys()]));
    const at = `'${sheet.name.replace(/'/g, "''")}'!${areaA1({ row: 0, col: used + 2, rows: 1, cols: 1 })}`;
    const report = await env.createReport(byCustomer(15));
    const placed = await env.cli(["place", file, "--report", String(report.id), "--at", at, "--json"]);
    expect(placed.stderr).toBe("");
    expect(placed.code).toBe(0);
    await env.client().updateReport(env.deploymentId, report.id, byCustomer(18));
    const refreshed = await env.cli(["refresh", file, "--json"]);
    expect(refreshed.code).toBe(0);
    expect(refreshed.json().files[0]!.placements[0]!.outcome).toBe("refreshed");

    const after = raw(file);
    const sheetPart = [...original.keys()].find((n) => n.startsWith("xl/worksheets/") && !n.includes("_rels")) ?? "";
    for (const [part, bytes] of original) {
      expect(after.has(part), `${part} survives`).toBe(true);
      if (!editable(part, sheetPart)) expect(after.get(part)!.equals(bytes), `${part} keeps its bytes`).toBe(true);
    }
    // The cells that were there are still there.
    const port = XlsxPort.open(file);
    const now = port.wb.sheets.find((s) => s.name === sheet.name)!;
    const kept = JSON.parse(otherCells) as Array<[number, Array<[number, unknown]>]>;
    for (const [r, row] of kept) for (const [c, cell] of row) expect(now.cells.get(r)?.get(c)).toEqual(cell);
    const shown = await lo.sheets(file);
    for (const s of port.wb.sheets) expect(differences(shown.get(s.name) ?? [], expectedText(port.wb, s.name)), s.name).toEqual([]);
  });
}
