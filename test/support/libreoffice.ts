// LibreOffice Calc as an independent reader of the .xlsx files the tests write: it opens a file
// headless in a throw-away profile and exports every sheet to CSV "as shown" (the text each cell
// displays under its number format). Filter options of "Text - txt - csv (StarCalc)", by position:
// 44 (comma), 34 (quote), 76 (UTF-8), 1 (first line), "" (column formats), 0 (language), false (quote
// all text), true (detect special numbers), true (save cell contents as shown), false (export
// formulas), false (remove spaces), -1 (every sheet, one file each: <name>-<Sheet>.csv; LibreOffice ≥ 7.2).
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { formatValue, isDateFormat } from "../../src/host/number-format.ts";
import type { MemoryWorkbook } from "../../src/host/memory/index.ts";

const run = promisify(execFile);
const FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1";

export interface LibreOffice {
  /** Every sheet of `file` as LibreOffice shows it: sheet name → rows of cell texts. */
  sheets(file: string): Promise<Map<string, string[][]>>;
  /**
   * Open `file` and save it over itself as LibreOffice saves an Excel workbook ("Calc MS Excel 2007
   * XML", or the VBA variant for an .xlsm): another program's save of a Cellbound workbook (issue 35 §2).
   */
  resave(file: string): Promise<void>;
  close(): void;
}

export function libreOffice(): LibreOffice {
  const root = mkdtempSync(path.join(tmpdir(), "cb-lo-"));
  const profile = path.join(root, "profile");
  let n = 0;
  return {
    async sheets(file) {
      const out = path.join(root, `out${++n}`);
      await run(
        "soffice",
        ["--headless", "--norestore", `-env:UserInstallation=file://${profile}`, "--convert-to", FILTER, "--outdir", out, file],
        {
          timeout: 120_000,
        },
      );
      const base = path.basename(file).replace(/\.[^.]+$/, "");
      const files = readdirSync(out).filter((f) => f.startsWith(`${base}-`) && f.endsWith(".csv"));
      if (files.length === 0) throw new Error(`LibreOffice could not open ${path.basename(file)}: no CSV came out`);
      return new Map(files.map((f) => [f.slice(base.length + 1, -4), parseCsv(readFileSync(path.join(out, f), "utf8"))]));
    },
    async resave(file) {
      const out = path.join(root, `saved${++n}`);
      const xlsm = /\.xlsm$/i.test(file);
      const filter = xlsm ? "xlsm:Calc MS Excel 2007 VBA XML" : "xlsx:Calc MS Excel 2007 XML";
      await run(
        "soffice",
        ["--headless", "--norestore", `-env:UserInstallation=file://${profile}`, "--convert-to", filter, "--outdir", out, file],
        {
          timeout: 120_000,
        },
      );
      const saved = path.join(out, `${path.basename(file).replace(/\.[^.]+$/, "")}.${xlsm ? "xlsm" : "xlsx"}`);
      if (!existsSync(saved)) throw new Error(`LibreOffice could not save ${path.basename(file)}`);
      copyFileSync(saved, file);
    },
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(cell);
      cell = "";
    } else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) {
      if (c === "\r") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += c;
  }
  if (cell !== "" || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/**
 * What a sheet of the model should show, as text per cell (Excel's rendering of value + number format).
 * `date1904`: the workbook counts dates from 1904, so a date-formatted serial is 1,462 days later.
 */
export function expectedText(wb: MemoryWorkbook, sheetName: string, date1904 = false): Map<string, string> {
  const s = wb.sheets.find((x) => x.name === sheetName);
  const out = new Map<string, string>();
  if (!s) return out;
  for (const [r, row] of s.cells)
    for (const [c, cell] of row) {
      if (cell.v === "") continue;
      const v = date1904 && typeof cell.v === "number" && cell.nf !== null && isDateFormat(cell.nf) ? cell.v + 1462 : cell.v;
      out.set(`${r},${c}`, formatValue(v, cell.nf));
    }
  return out;
}

/**
 * Differences between what LibreOffice shows and what the model says every cell shows (both ways:
 * a cell LibreOffice shows that the model leaves empty is a difference too). General numbers are
 * compared as numbers (LibreOffice's General shows more digits than Excel's 11 characters).
 */
export function differences(shown: string[][], want: Map<string, string>): string[] {
  const diffs: string[] = [];
  const seen = new Set<string>();
  shown.forEach((row, r) =>
    row.forEach((text, c) => {
      const key = `${r},${c}`;
      seen.add(key);
      const w = want.get(key) ?? "";
      if (text === w) return;
      if (
        w !== "" &&
        text !== "" &&
        Number.isFinite(Number(w)) &&
        Math.abs(Number(w) - Number(text)) <= 1e-9 * Math.max(1, Math.abs(Number(w)))
      )
        return;
      diffs.push(`row ${r + 1} col ${c + 1}: LibreOffice shows ${JSON.stringify(text)}, expected ${JSON.stringify(w)}`);
    }),
  );
  for (const [key, w] of want)
    if (!seen.has(key) && w !== "") diffs.push(`${key}: LibreOffice shows nothing, expected ${JSON.stringify(w)}`);
  return diffs;
}
