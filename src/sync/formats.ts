// Number formats and titles from the semantic layer (pure). What a placed range looks like besides
// its values: each column's Excel number format, the header's style, and short column titles.
// None of this is part of a fingerprint (docs/SYNC.md "Formats"): a format the user changes is
// never a hand edit, and a refresh keeps it (styling.ts).
//
//   time        by granularity: year "yyyy", week/day "yyyy-mm-dd" (the period's first day),
//               month "mmm yyyy", hour "yyyy-mm-dd hh:00", minute "yyyy-mm-dd hh:mm", else seconds;
//               quarter "yyyy-mm-dd" for the column, and each bucket a format of its own that reads
//               "Q1 2025" (quarterFormat: Excel has no format code for a quarter);
//   currency    "$#,##0.00";
//   percent     0.00"%": the semantic layer's percent values are already ×100 (Cube's own example is
//               `sql: {a} / {b} * 100.0, format: percent`), so Excel must not multiply them again;
//   number      a measure (or format "number"): thousands separators, "#,##0" when every value of the
//               column is whole, else "#,##0.00"; a number dimension (an id, a year) stays General
//               unless its values have decimals (an amount from a SQL report): "#,##0.00";
//   SQL time    no granularity is known: "yyyy-mm-dd" when every value is a whole day, else seconds.
import type { SheetValue } from "../host/port.ts";
import type { ResultColumn, TypedResult } from "../checksum/types.ts";

export type FormatColumn = Pick<ResultColumn, "type" | "granularity" | "format"> & { kind?: ResultColumn["kind"] };

export const CURRENCY_FORMAT = "$#,##0.00";
export const PERCENT_FORMAT = '0.00"%"';
export const INTEGER_FORMAT = "#,##0";
export const DECIMAL_FORMAT = "#,##0.00";
/** Placeholder for "thousands separators, decimals if the values have any"; settled by settleNumberFormats. */
export const NUMBER_AUTO = "#,##0.##";
/** Placeholder for "General, or #,##0.00 if the values have decimals" (valid in Excel should it ever be written). */
export const DECIMALS_AUTO = "General";
/** Placeholder for a time column of unknown granularity: a date when every value is a whole day. */
export const TIME_AUTO = "yyyy-mm-dd h:mm:ss";

/** The header row's look: bold on a light accent fill (Office theme "Blue, Accent 1, Lighter 80%"). */
export const HEADER_STYLE = { bold: true, fill: "#DDEBF7" } as const;

const TIME_FORMATS: Record<string, string> = {
  year: "yyyy",
  quarter: "yyyy-mm-dd",
  month: "mmm yyyy",
  week: "yyyy-mm-dd",
  day: "yyyy-mm-dd",
  hour: "yyyy-mm-dd hh:00",
  minute: "yyyy-mm-dd hh:mm",
  second: "yyyy-mm-dd hh:mm:ss",
};

/** The Excel number format of a column (null = General). */
export function numberFormatFor(c: FormatColumn): string | null {
  if (c.type === "time") return c.granularity ? (TIME_FORMATS[c.granularity] ?? TIME_FORMATS.second!) : TIME_AUTO;
  if (c.type !== "number") return null;
  switch (c.format) {
    case "currency":
      return CURRENCY_FORMAT;
    case "percent":
      return PERCENT_FORMAT;
    case "number":
      return NUMBER_AUTO;
    case "id":
    case "link":
    case "imageUrl":
      return null;
  }
  return c.kind === "measure" ? NUMBER_AUTO : DECIMALS_AUTO;
}

const DAY_MS = 86_400_000;
/** Serial 0 of Excel's 1900 date system, for dates from 1900-03-01 on (serial 61). */
const SERIAL_EPOCH = Date.UTC(1899, 11, 30);
const serialOf = (year: number, month0: number) => (Date.UTC(year, month0, 1) - SERIAL_EPOCH) / DAY_MS;

/**
 * The number format of one quarter bucket's cell (issue 31, item 5). Excel has no format code for a
 * quarter, so a column format cannot say "Q1"; the cell keeps its date serial (the quarter's first
 * day, as a month keeps its first day under "mmm yyyy") and gets a format of its own whose conditions
 * bound its quarter: `[<45658]yyyy-mm-dd;[<45748]"Q1 "yyyy;yyyy-mm-dd` shows "Q1 2025" for any date
 * of that quarter, and any other date as the date itself, so a value that moved into the cell (a
 * refresh keeps formats) is never shown as the wrong quarter. Null for a value that is not a date
 * from 1900-03-01 on.
 */
export function quarterFormat(serial: number): string | null {
  if (!Number.isFinite(serial) || serial < 61) return null;
  const d = new Date(SERIAL_EPOCH + Math.floor(serial) * DAY_MS);
  const q = Math.floor(d.getUTCMonth() / 3);
  const start = serialOf(d.getUTCFullYear(), q * 3);
  const end = serialOf(d.getUTCFullYear(), q * 3 + 3); // Date.UTC carries month 12 into the next year
  return `[<${start}]yyyy-mm-dd;[<${end}]"Q${q + 1} "yyyy;yyyy-mm-dd`;
}

/** Whether `f` is a format quarterFormat makes (Cellbound's, not one the user chose). */
export function isQuarterFormat(f: string | null | undefined): boolean {
  return f !== null && f !== undefined && /^\[<\d+\]yyyy-mm-dd;\[<\d+\]"Q[1-4] "yyyy;yyyy-mm-dd$/.test(f);
}

/** At most this many runs of quarter formats per column are written; past it the column keeps "yyyy-mm-dd". */
export const MAX_QUARTER_RUNS = 1000;

/**
 * The rows of a quarter column (from `from`, below the header) as runs of consecutive cells of one
 * quarter, each with its format; cells that are not dates get none. Null past MAX_QUARTER_RUNS (a
 * report ordered by something else first, with many rows: one format per row would cost more than it
 * shows).
 */
export function quarterRuns(
  cells: readonly (readonly SheetValue[])[],
  col: number,
  from: number,
  to = cells.length,
): { row: number; rows: number; format: string }[] | null {
  const runs: { row: number; rows: number; format: string }[] = [];
  for (let r = from; r < to; r++) {
    const v = cells[r]?.[col];
    const f = typeof v === "number" ? quarterFormat(v) : null;
    const last = runs[runs.length - 1];
    if (f === null) continue;
    if (last && last.format === f && last.row + last.rows === r) last.rows++;
    else if (runs.push({ row: r, rows: 1, format: f }) > MAX_QUARTER_RUNS) return null;
  }
  return runs;
}

/** Replace NUMBER_AUTO by "#,##0" or "#,##0.00" from the column's data rows. */
export function settleNumberFormats(
  cells: readonly (readonly SheetValue[])[],
  formats: (string | null)[],
  headerRows: number,
): (string | null)[] {
  return settleFormatsWith(formats, (c) => fractionIn(cells, headerRows, cells.length, c));
}

/** Whether column `c` of rows [from, to) holds a number with a fraction. */
export function fractionIn(cells: readonly (readonly SheetValue[])[], from: number, to: number, c: number): boolean {
  for (let r = from; r < to; r++) {
    const v = cells[r]![c];
    if (typeof v === "number" && !Number.isInteger(v)) return true;
  }
  return false;
}

/** settleNumberFormats, told which columns' data rows hold a number with a fraction (`anyFraction`). */
export function settleFormatsWith(formats: (string | null)[], anyFraction: (c: number) => boolean): (string | null)[] {
  return formats.map((f, c) => {
    if (f === NUMBER_AUTO) return anyFraction(c) ? DECIMAL_FORMAT : INTEGER_FORMAT;
    if (f === DECIMALS_AUTO) return anyFraction(c) ? DECIMAL_FORMAT : null;
    // Times are serial numbers: a whole number is midnight, a whole day.
    if (f === TIME_AUTO) return anyFraction(c) ? TIME_FORMATS.second! : TIME_FORMATS.day!;
    return f;
  });
}

/**
 * Column titles people read: the member's short title ("Is Returned", not "Orders Is Returned"),
 * unless two columns would share it (orders.count and customers.count): those keep the full title.
 */
export function withShortTitles(result: TypedResult): TypedResult {
  const count = new Map<string, number>();
  for (const c of result.columns) count.set(c.shortTitle, (count.get(c.shortTitle) ?? 0) + 1);
  const columns = result.columns.map((c) => (c.shortTitle && count.get(c.shortTitle) === 1 ? { ...c, title: c.shortTitle } : c));
  return { ...result, columns };
}
