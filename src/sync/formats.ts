// Number formats and titles from the semantic layer (pure). What a placed range looks like besides
// its values: each column's Excel number format, the header's style, and short column titles.
// None of this is part of a fingerprint (docs/SYNC.md "Formats"): a format the user changes is
// never a hand edit, and a refresh keeps it (styling.ts).
//
//   time        by granularity: year "yyyy", quarter/week/day "yyyy-mm-dd" (the period's first day),
//               month "mmm yyyy", hour "yyyy-mm-dd hh:00", minute "yyyy-mm-dd hh:mm", else seconds;
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

/** Replace NUMBER_AUTO by "#,##0" or "#,##0.00" from the column's data rows. */
export function settleNumberFormats(
  cells: readonly (readonly SheetValue[])[],
  formats: (string | null)[],
  headerRows: number,
): (string | null)[] {
  const anyFraction = (c: number): boolean => {
    for (let r = headerRows; r < cells.length; r++) {
      const v = cells[r]![c];
      if (typeof v === "number" && !Number.isInteger(v)) return true;
    }
    return false;
  };
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
