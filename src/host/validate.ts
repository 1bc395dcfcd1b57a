// Input checks shared by every SheetPort implementation, so bad input gets the same
// clear error everywhere and nothing is half-written.

import { MAX_COLS, MAX_ROWS } from "./a1.ts";
import type { Area, SheetValue } from "./port.ts";

/** Excel's limit on the characters in one cell. */
export const MAX_CELL_CHARS = 32_767;

export class PortInputError extends Error {
  override name = "PortInputError";
}

/** Checks a grid is rectangular and holds only values a cell can take. Returns its shape. */
export function validateGrid(grid: ReadonlyArray<ReadonlyArray<SheetValue>>): { rows: number; cols: number } {
  if (!Array.isArray(grid)) throw new PortInputError("grid must be an array of rows");
  const rows = grid.length;
  const cols = rows === 0 ? 0 : (grid[0]?.length ?? 0);
  for (let r = 0; r < rows; r++) {
    const row = grid[r];
    if (!Array.isArray(row) || row.length !== cols) {
      throw new PortInputError(`grid is not rectangular: row ${r} has ${Array.isArray(row) ? row.length : "no"} cells, row 0 has ${cols}`);
    }
    for (let c = 0; c < cols; c++) {
      const v = row[c];
      if (typeof v === "number") {
        if (!Number.isFinite(v)) throw new PortInputError(`cell [${r}][${c}] is ${v}: a cell cannot hold NaN or Infinity`);
      } else if (typeof v === "string") {
        if (v.length > MAX_CELL_CHARS) {
          throw new PortInputError(`cell [${r}][${c}] has ${v.length} characters; a cell holds at most ${MAX_CELL_CHARS}`);
        }
      } else if (typeof v !== "boolean") {
        throw new PortInputError(
          `cell [${r}][${c}] is ${v === null ? "null" : typeof v}: only strings, numbers and booleans can be written`,
        );
      }
    }
  }
  return { rows, cols };
}

/** Column formats: one string (or null = General) per column at most; Excel caps a format at 255 characters. */
export function validateColumnFormats(formats: ReadonlyArray<string | null> | undefined, cols: number): void {
  if (formats === undefined) return;
  // An empty grid (no rows) has no width to compare with.
  if (!Array.isArray(formats) || (cols > 0 && formats.length > cols))
    throw new PortInputError(`columnFormats must be an array of at most ${cols} formats`);
  formats.forEach((f, i) => {
    if (f !== null && (typeof f !== "string" || f.length === 0 || f.length > 255))
      throw new PortInputError(`columnFormats[${i}] must be a format string of 1–255 characters, or null`);
  });
}

/** Checks the grid fits on the sheet when its top-left is at (row, col). */
export function validatePlacement(at: { row: number; col: number }, shape: { rows: number; cols: number }): void {
  if (!Number.isInteger(at.row) || !Number.isInteger(at.col) || at.row < 0 || at.col < 0) {
    throw new PortInputError(`top-left (${at.row}, ${at.col}) is not a cell`);
  }
  if (at.row + shape.rows > MAX_ROWS || at.col + shape.cols > MAX_COLS) {
    throw new PortInputError(`a ${shape.rows}×${shape.cols} grid at (${at.row}, ${at.col}) does not fit on a sheet`);
  }
}

export function validateArea(a: Area): void {
  if (typeof a.sheetId !== "string" || a.sheetId === "") throw new PortInputError("area.sheetId is missing");
  for (const k of ["row", "col", "rows", "cols"] as const) {
    if (!Number.isInteger(a[k])) throw new PortInputError(`area.${k} must be an integer`);
  }
  if (a.rows < 1 || a.cols < 1) throw new PortInputError(`an area needs at least one row and one column (got ${a.rows}×${a.cols})`);
  validatePlacement(a, a);
}

/** Tracking names: letters, digits and underscores, starting with a letter; case-insensitive like Excel's names. */
export function validateTrackName(name: string): void {
  if (typeof name !== "string" || !/^[A-Za-z][A-Za-z0-9_]{0,199}$/.test(name)) {
    throw new PortInputError(`tracking name ${JSON.stringify(name)} must be 1–200 letters, digits or underscores, starting with a letter`);
  }
}

/** Per-workbook data keys. */
export function validateDataKey(key: string): void {
  if (typeof key !== "string" || !/^[A-Za-z0-9_.:-]{1,200}$/.test(key)) {
    throw new PortInputError(`data key ${JSON.stringify(key)} must be 1–200 characters of A–Z, a–z, 0–9, _ . : -`);
  }
}

/** Per-workbook data must survive JSON; returns its JSON text. */
export function dataToJson(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new PortInputError(`data for ${key} cannot be stored: ${(e as Error).message}`);
  }
  if (text === undefined) throw new PortInputError(`data for ${key} cannot be stored: ${typeof value} is not JSON`);
  return text;
}

/** Excel stores numbers with 15 significant digits: 0.1 + 0.2 → 0.3, 1/3 → 0.333333333333333. */
export function to15Digits(n: number): number {
  if (n === 0) return 0; // also turns -0 into 0, as Excel does
  // Fast path: the shortest round-trip form has at most 15 characters, hence at most 15 digits.
  if (String(n).length <= 15) return n;
  return Number(n.toPrecision(15));
}

/** An AreaStyle's fields: column formats as for writes, fill "#RRGGBB" or null. */
export function validateStyle(
  style: { columnFormats?: ReadonlyArray<string | null>; bold?: boolean; fill?: string | null; autofit?: boolean },
  cols: number,
): void {
  if (style.autofit !== undefined && typeof style.autofit !== "boolean") throw new PortInputError("autofit must be true or false");
  validateColumnFormats(style.columnFormats, cols);
  if (style.bold !== undefined && typeof style.bold !== "boolean") throw new PortInputError("bold must be true or false");
  if (style.fill !== undefined && style.fill !== null && !/^#[0-9A-Fa-f]{6}$/.test(style.fill))
    throw new PortInputError(`fill must be a colour "#RRGGBB" or null, not ${JSON.stringify(style.fill)}`);
}

/**
 * A picture for putPicture: base64 (no data: prefix) of a PNG or a JPEG, as Excel's
 * shapes.addImage takes it; its size in pixels (PNG: IHDR; JPEG: the first SOFn segment).
 */
export function pictureSize(base64: string): { format: "PNG" | "JPEG"; widthPx: number; heightPx: number } {
  if (typeof base64 !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64))
    throw new PortInputError("a picture is base64 text without a data: prefix");
  const bin = atob(base64.slice(0, 64 * 1024));
  const b = (i: number) => bin.charCodeAt(i);
  if (bin.length > 24 && b(0) === 0x89 && bin.slice(1, 4) === "PNG") {
    const u32 = (i: number) => ((b(i) << 24) | (b(i + 1) << 16) | (b(i + 2) << 8) | b(i + 3)) >>> 0;
    return { format: "PNG", widthPx: u32(16), heightPx: u32(20) };
  }
  if (bin.length > 4 && b(0) === 0xff && b(1) === 0xd8) {
    for (let i = 2; i + 9 < bin.length;) {
      if (b(i) !== 0xff) break;
      const marker = b(i + 1);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { format: "JPEG", heightPx: (b(i + 5) << 8) | b(i + 6), widthPx: (b(i + 7) << 8) | b(i + 8) };
      }
      i += 2 + ((b(i + 2) << 8) | b(i + 3));
    }
  }
  throw new PortInputError("a picture must be a PNG or a JPEG");
}
