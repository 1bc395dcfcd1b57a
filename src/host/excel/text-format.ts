// Numbers written into text-formatted cells (issue 22, item 1).
//
// Excel stores a number or boolean written into a cell whose number format is text ("@") as the text of
// the number: SUM skips it and the value reads back as a string, so the fingerprint of what Cellbound
// wrote never matches what it reads. Cellbound's own writes leave "@" behind on every cell that once
// held a string, and a refresh keeps the user's formats (keepFormats), so a later number can land in
// such a cell (columns reordered, header rows moved, a column that once held an error string).
//
// The writer therefore reads the number formats of the cells it is about to fill with numbers, booleans
// (dates are numbers) and resets "@" on exactly those cells to the column's format (or General); every
// other format the user chose is kept. The formats come with the write when its caller read them with the
// values it checked (WriteOptions.currentFormats: a refresh's re-read, no extra round trip); otherwise one
// extra read per commit sync that holds such blocks (batch.ts readFormatsFirst), only when keepFormats is
// set and a block holds a non-string value.

import type { SheetValue } from "../port.ts";

/** True when a block has a value Excel would store as text under "@" (a number or a boolean). */
export function hasNonText(rows: ReadonlyArray<ReadonlyArray<SheetValue>>): boolean {
  return rows.some((row) => row.some((v) => typeof v === "number" || typeof v === "boolean"));
}

/** Cells per format read (batch.ts): at ~10 response bytes a cell ("General" as JSON), well under the 5 MB response limit. */
export const FORMAT_READ_CELLS = 200_000;

/**
 * The number formats to send with a block: `planned` (null = keep the cell's format), except that a
 * cell about to receive a number or boolean while it is formatted "@" gets `fallback(col)` instead.
 */
export function clearTextFormat(
  planned: ReadonlyArray<ReadonlyArray<string | null>>,
  rows: ReadonlyArray<ReadonlyArray<SheetValue>>,
  current: ReadonlyArray<ReadonlyArray<string>>,
  fallback: (col: number) => string,
): Array<Array<string | null>> {
  return planned.map((row, r) =>
    row.map((f, c) => {
      const v = rows[r]![c];
      return f === null && (typeof v === "number" || typeof v === "boolean") && current[r]?.[c] === "@" ? fallback(c) : f;
    }),
  );
}
