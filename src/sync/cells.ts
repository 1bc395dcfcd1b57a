// The one door from layout to the checksum's canonical cell model: every value the engine
// writes goes through toCell, and every column gets the number format its type needs.
//
// Fast path: a finite number whose shortest decimal form has at most 15 significant digits (and
// a magnitude well inside Excel's range) is already what toCell returns; the general path rounds
// with toPrecision(15), which costs microseconds per cell and dominates the layout of large
// results. test/sync/cells.test.ts checks the fast path against toCell on random numbers.
import type { SheetValue } from "../host/port.ts";
import type { ColumnType, RawValue } from "../checksum/types.ts";
import { toCell } from "../checksum/index.ts";
import { numberFormatFor, type FormatColumn } from "./formats.ts";

const NO_OPTIONS = {};

export function cellFor(value: RawValue, type: ColumnType, timezone?: string): SheetValue {
  if (type === "number" && typeof value === "number" && isPlainNumber(value)) return value === 0 ? 0 : value;
  return toCell(value, type, timezone ? { timezone } : NO_OPTIONS);
}

/** True when `x` needs no rounding to Excel's 15 digits and is far from its range limits. */
export function isPlainNumber(x: number): boolean {
  if (!Number.isFinite(x)) return false;
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-200 || a > 1e200)) return false;
  if (Number.isInteger(x)) return a < 1e15;
  // Cheapest test first: x is the double nearest to k/10⁴ with |k| < 10¹⁴, so its shortest form
  // has at most 14 significant digits (prices, amounts, ratios with few decimals).
  if (a < 1e10 && Math.round(x * 1e4) / 1e4 === x) return true;
  const s = String(x);
  if (s.length > 17 || s.includes("e")) return false;
  // Significant digits: all digits minus leading zeros ("0.00123" → 3).
  let digits = 0;
  let leading = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) continue;
    if (leading && c === 48) continue;
    leading = false;
    digits++;
  }
  return digits <= 15;
}

/** A column's Excel number format from its type, granularity and semantic format (formats.ts). */
export function formatFor(column: FormatColumn): string | null {
  return numberFormatFor(column);
}
