// A1 addresses: the only place that turns zero-based (row, col) coordinates into
// "B3:D10" strings and back. Used by both port implementations and by dev/excel.

import type { Area } from "./port.ts";

export const MAX_ROWS = 1_048_576;
export const MAX_COLS = 16_384;

/** 0 → "A", 25 → "Z", 26 → "AA". */
export function columnLetters(col: number): string {
  if (!Number.isInteger(col) || col < 0 || col >= MAX_COLS) throw new RangeError(`column index out of range: ${col}`);
  let s = "";
  let n = col + 1;
  while (n > 0) {
    const rem = (n - 1) % 26;
    s = String.fromCharCode(65 + rem) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** "A" → 0, "AA" → 26. */
export function columnIndex(letters: string): number {
  if (!/^[A-Za-z]{1,3}$/.test(letters)) throw new RangeError(`not a column: ${letters}`);
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  if (n > MAX_COLS) throw new RangeError(`column out of range: ${letters}`);
  return n - 1;
}

export function cellA1(row: number, col: number): string {
  if (!Number.isInteger(row) || row < 0 || row >= MAX_ROWS) throw new RangeError(`row index out of range: ${row}`);
  return `${columnLetters(col)}${row + 1}`;
}

/** "B3" for one cell, "B3:D10" otherwise (no sheet prefix). */
export function areaA1(a: Pick<Area, "row" | "col" | "rows" | "cols">): string {
  assertShape(a);
  const tl = cellA1(a.row, a.col);
  if (a.rows === 1 && a.cols === 1) return tl;
  return `${tl}:${cellA1(a.row + a.rows - 1, a.col + a.cols - 1)}`;
}

export function assertShape(a: Pick<Area, "row" | "col" | "rows" | "cols">): void {
  for (const [k, v] of Object.entries({ row: a.row, col: a.col, rows: a.rows, cols: a.cols })) {
    if (!Number.isInteger(v)) throw new RangeError(`${k} must be an integer, got ${String(v)}`);
  }
  if (a.rows < 1 || a.cols < 1) throw new RangeError(`an area needs at least one row and one column (got ${a.rows}×${a.cols})`);
  if (a.row < 0 || a.col < 0 || a.row + a.rows > MAX_ROWS || a.col + a.cols > MAX_COLS) {
    throw new RangeError(`area ${a.row},${a.col} ${a.rows}×${a.cols} lies outside the sheet`);
  }
}

/** Quote a sheet name for use in a reference: Sales → Sales, "My Sheet" → 'My Sheet', O'Neil → 'O''Neil'. */
export function quoteSheetName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) && !/^[A-Za-z]{1,3}[0-9]+$/.test(name) ? name : `'${name.replace(/'/g, "''")}'`;
}

export interface ParsedAddress {
  /** Sheet name as written (unquoted), or null when the address has no sheet part. */
  sheet: string | null;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

/**
 * Parse "A1", "$B$3:$D$10", "Sheet1!A1:B2", "'My Sheet'!A1", whole rows "3:5" and whole columns "B:D".
 * Throws RangeError on anything else.
 */
export function parseAddress(address: string): ParsedAddress {
  let sheet: string | null = null;
  let ref = address.trim();
  const bang = ref.lastIndexOf("!");
  if (bang >= 0) {
    const s = ref.slice(0, bang);
    ref = ref.slice(bang + 1);
    sheet = s.startsWith("'") && s.endsWith("'") && s.length >= 2 ? s.slice(1, -1).replace(/''/g, "'") : s;
    if (sheet === "") throw new RangeError(`empty sheet name in ${address}`);
  }
  ref = ref.replace(/\$/g, "").toUpperCase();
  const parts = ref.split(":");
  if (parts.length > 2 || parts.some((p) => p === "")) throw new RangeError(`not an A1 address: ${address}`);
  const first = parts[0]!;
  const last = parts[1] ?? first;
  const cellRe = /^([A-Z]{1,3})([0-9]{1,7})$/;
  const c1 = cellRe.exec(first);
  const c2 = cellRe.exec(last);
  if (c1 && c2) {
    const r1 = Number(c1[2]) - 1,
      r2 = Number(c2[2]) - 1;
    const k1 = columnIndex(c1[1]!),
      k2 = columnIndex(c2[1]!);
    if (r1 < 0 || r2 < 0 || r1 >= MAX_ROWS || r2 >= MAX_ROWS) throw new RangeError(`row out of range in ${address}`);
    const row = Math.min(r1, r2),
      col = Math.min(k1, k2);
    return { sheet, row, col, rows: Math.abs(r2 - r1) + 1, cols: Math.abs(k2 - k1) + 1 };
  }
  if (/^[0-9]{1,7}$/.test(first) && /^[0-9]{1,7}$/.test(last) && parts.length === 2) {
    const r1 = Number(first) - 1,
      r2 = Number(last) - 1;
    if (r1 < 0 || r2 < 0 || r1 >= MAX_ROWS || r2 >= MAX_ROWS) throw new RangeError(`row out of range in ${address}`);
    return { sheet, row: Math.min(r1, r2), col: 0, rows: Math.abs(r2 - r1) + 1, cols: MAX_COLS };
  }
  if (/^[A-Z]{1,3}$/.test(first) && /^[A-Z]{1,3}$/.test(last) && parts.length === 2) {
    const k1 = columnIndex(first),
      k2 = columnIndex(last);
    return { sheet, row: 0, col: Math.min(k1, k2), rows: MAX_ROWS, cols: Math.abs(k2 - k1) + 1 };
  }
  throw new RangeError(`not an A1 address: ${address}`);
}
