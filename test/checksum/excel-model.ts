// How Excel takes the values the sheet adapter writes and what `range.values` reads back,
// as a small model of the documented conversion rules (docs/CHECKSUM.md §2, notes/excel-facts.md):
//   - strings are written as text (the adapter protects them) and read back verbatim;
//     a string longer than 32,767 characters is rejected;
//   - numbers keep 15 significant digits; −0 reads back as 0; NaN, ±Infinity and magnitudes
//     beyond 9.99999999999999E+307 are rejected;
//   - booleans read back as booleans; "" is an empty cell and reads back as "".
// The round-trip property test runs every grid through each ReadBack in READ_BACKS: this model,
// and the Excel stand-in's own value conversion (dev/excel/convert.ts), fed the way the sheet
// adapter (src/host/excel) writes: text format "@" on every non-empty string cell, the column's
// number format elsewhere.
import type { Cell } from "../../src/checksum/index.ts";
import { convertInput } from "../../dev/excel/convert.ts";

export interface ReadBack {
  name: string;
  /** Write `grid` (with a number format per column) and return what reading the same area gives. */
  roundTrip(grid: Cell[][], columnFormats: (string | null)[]): Promise<Cell[][]>;
}

export class ExcelRejects extends Error {}

function takeCell(v: Cell): Cell {
  if (typeof v === "string") {
    if (v.length > 32767) throw new ExcelRejects(`text of ${v.length} characters`);
    return v;
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new ExcelRejects(`number ${v}`);
    const r = Number(v.toPrecision(15));
    if (Math.abs(r) > 9.99999999999999e307) throw new ExcelRejects(`number ${v} is too large`);
    if (Math.abs(r) < 2.2250738585072e-308) return 0;
    return r === 0 ? 0 : r;
  }
  return v;
}

export const documentedRules: ReadBack = {
  name: "documented conversion rules",
  async roundTrip(grid) {
    return grid.map((row) => row.map(takeCell));
  },
};

export const devExcelConversion: ReadBack = {
  name: "dev/excel value conversion",
  async roundTrip(grid, columnFormats) {
    return grid.map((row, r) =>
      row.map((cell, c) => {
        const format = typeof cell === "string" && cell !== "" ? "@" : (columnFormats[c] ?? "General");
        const content = convertInput(cell, format, `R${r + 1}C${c + 1}`);
        if (content === "unchanged") throw new Error(`R${r + 1}C${c + 1}: a written value left the cell unchanged`);
        if (content === "clear") return "";
        if (content.f !== undefined) throw new Error(`R${r + 1}C${c + 1}: ${JSON.stringify(cell)} became the formula ${content.f}`);
        return content.v; // an error cell reads back as its text
      }),
    );
  },
};

export const READ_BACKS: ReadBack[] = [documentedRules, devExcelConversion];
