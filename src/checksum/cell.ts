// The canonical cell model: what a sheet cell holds after Excel has taken a value.
//
// toCell(value, columnType) projects one typed data-API value (RawValue) to the cell the
// sheet will hold, so that the fingerprint of the cells as we write them equals the
// fingerprint of the cells as Excel reads them back. Every rule here is specified in
// docs/CHECKSUM.md §2 ("Cell model"); keep the two in step.
import type { ColumnType, RawValue } from "./types.ts";
import { excelSerial, parseTimestamp } from "./time.ts";

/** A canonical cell, as `range.values` returns it: "" is an empty cell. Same shape as SheetValue (src/host/port.ts). */
export type Cell = string | number | boolean;

/** Excel keeps 15 significant digits of a number. */
export const EXCEL_DIGITS = 15;
/** Largest number a cell holds (Excel specifications and limits). */
export const EXCEL_MAX_NUMBER = 9.99999999999999e307;
/** Smallest positive number a cell holds; smaller magnitudes become 0 (the smallest normal double at 15 digits). */
export const EXCEL_MIN_POSITIVE = 2.2250738585072e-308;
/** Most characters (UTF-16 code units) a cell holds. */
export const EXCEL_MAX_TEXT = 32767;
/** What a longer text ends with after it was cut to EXCEL_MAX_TEXT. */
export const TRUNCATION_MARK = "\u2026";
/** The text written where a number cannot be written (NaN, ±Infinity, beyond ±EXCEL_MAX_NUMBER). */
export const NOT_A_NUMBER_TEXT = "#NUM!";

/** Number format the writer applies to a time column: full date and time. */
export const DATETIME_FORMAT = "yyyy-mm-dd hh:mm:ss";
/** Number format for a time column whose granularity is a day or coarser. */
export const DATE_FORMAT = "yyyy-mm-dd";

const DATE_GRANULARITIES = new Set(["day", "week", "month", "quarter", "year"]);

export interface ToCellOptions {
  /**
   * IANA timezone the query ran in (TypedResult.timezone), "UTC" by default. Only used for a
   * timestamp that carries an explicit offset or "Z": it is shown as wall-clock time in this zone.
   */
  timezone?: string;
}

/** Project one data-API value to the cell the sheet will hold. Never throws for a RawValue. */
export function toCell(value: RawValue, columnType: ColumnType, options: ToCellOptions = {}): Cell {
  if (value === null) return "";
  switch (columnType) {
    case "string":
      return typeof value === "string" ? excelText(value) : toCellLoose(value);
    case "number":
      return numberCell(value);
    case "boolean":
      return booleanCell(value);
    case "time":
      return timeCell(value, options.timezone ?? "UTC");
    default:
      throw new Error(`toCell: unknown column type ${JSON.stringify(columnType satisfies never)}`);
  }
}

/**
 * The number format a column needs so its cells read as the platform meant them; null = General.
 * Strings need none here: the sheet adapter writes every string as text.
 */
export function columnNumberFormat(columnType: ColumnType, granularity?: string): string | null {
  if (columnType !== "time") return null;
  return granularity !== undefined && DATE_GRANULARITIES.has(granularity) ? DATE_FORMAT : DATETIME_FORMAT;
}

/** Text as a cell holds it: longer than EXCEL_MAX_TEXT code units is cut and ends with TRUNCATION_MARK. */
export function excelText(s: string): string {
  if (s.length <= EXCEL_MAX_TEXT) return s;
  let end = EXCEL_MAX_TEXT - TRUNCATION_MARK.length;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never leave half of a surrogate pair
  return s.slice(0, end) + TRUNCATION_MARK;
}

/**
 * A JS number as a cell holds it.
 *   - NaN, ±Infinity → NOT_A_NUMBER_TEXT.
 *   - An integer of magnitude below 1e21 that needs more than 15 significant digits (an id,
 *     anything beyond 2^53) → text: its shortest round-trip decimal digits, so no digit is lost.
 *   - Anything else → rounded to 15 significant digits; −0 → 0; below EXCEL_MIN_POSITIVE → 0;
 *     beyond EXCEL_MAX_NUMBER → NOT_A_NUMBER_TEXT.
 */
export function excelNumber(x: number): Cell {
  if (!Number.isFinite(x)) return NOT_A_NUMBER_TEXT;
  if (Number.isInteger(x)) {
    const a = Math.abs(x);
    if (a < 1e15) return x === 0 ? 0 : x; // ≤ 15 digits: exact as it is
    if (a < 1e21) {
      const digits = String(x); // plain integer digits below 1e21
      if (significantDigits(digits) > EXCEL_DIGITS) return digits;
      return x;
    }
  }
  const r = Number(x.toPrecision(EXCEL_DIGITS));
  const a = Math.abs(r);
  if (a > EXCEL_MAX_NUMBER) return NOT_A_NUMBER_TEXT;
  if (a < EXCEL_MIN_POSITIVE) return 0;
  return r;
}

const INTEGER_LITERAL = /^[+-]?\d+$/;
const DECIMAL_LITERAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NON_FINITE_LITERAL = /^[+-]?(?:nan|inf|infinity)$/i;

/** A number column's value: a JS number, or a decimal string when it has more than 15 significant digits. */
function numberCell(value: string | number | boolean): Cell {
  if (typeof value === "number") return excelNumber(value);
  if (typeof value === "boolean") return value;
  if (INTEGER_LITERAL.test(value)) {
    // An integer literal that Excel cannot hold exactly stays text, verbatim (ids keep every digit).
    if (significantDigits(value) > EXCEL_DIGITS) return excelText(value);
    return excelNumber(Number(value));
  }
  if (DECIMAL_LITERAL.test(value)) return excelNumber(Number(value));
  if (NON_FINITE_LITERAL.test(value)) return NOT_A_NUMBER_TEXT; // e.g. PostgreSQL numeric 'NaN'
  return excelText(value); // not a number at all: shown as received
}

const TRUE_TEXT = new Set(["true", "1"]);
const FALSE_TEXT = new Set(["false", "0"]);

/** A boolean column's value: a boolean, or "true"/"false"/"1"/"0" as some SQL backends send it. */
function booleanCell(value: string | number | boolean): Cell {
  if (typeof value === "boolean") return value;
  const key = String(value).toLowerCase();
  if (TRUE_TEXT.has(key)) return true;
  if (FALSE_TEXT.has(key)) return false;
  return toCellLoose(value);
}

/** A time column's value: an Excel serial number (format with columnNumberFormat), or text when Excel cannot show the date. */
function timeCell(value: string | number | boolean, timezone: string): Cell {
  if (typeof value !== "string") return toCellLoose(value);
  const parts = parseTimestamp(value, timezone);
  if (parts === null) return excelText(value);
  const serial = excelSerial(parts);
  return serial === null ? excelText(value) : excelNumber(serial);
}

/** A value whose JS type does not match its column: numbers and booleans keep their type, text is text. */
function toCellLoose(value: string | number | boolean): Cell {
  if (typeof value === "number") return excelNumber(value);
  if (typeof value === "boolean") return value;
  return excelText(value);
}

/** Significant digits of an integer literal: sign, leading and trailing zeros do not count. */
function significantDigits(integerLiteral: string): number {
  let start = 0;
  let end = integerLiteral.length;
  while (start < end && !isNonZeroDigit(integerLiteral.charCodeAt(start))) start++;
  while (end > start && integerLiteral.charCodeAt(end - 1) === 48) end--;
  return end - start;
}

function isNonZeroDigit(c: number): boolean {
  return c >= 49 && c <= 57;
}
