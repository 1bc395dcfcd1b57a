// How wide a column must be to show a text, in points (Excel's RangeFormat.columnWidth unit).
// Excel's default font (Calibri 11) has a maximum digit width of 7 px and a column adds 5 px of padding;
// the default width, 8.43 characters, is 64 px = 48 pt. A bold header needs about one character more.
// Real Excel measures the font; this is an estimate meant to be wide enough to show the text, not "####".
// Used by the adapter to fit placed columns (src/host/excel/autofit.ts) and by dev/excel's autofit model.

export const DEFAULT_COLUMN_WIDTH_PT = 48;
const PX_PER_CHAR = 7;
const PADDING_PX = 5;
const PT_PER_PX = 0.75;

/** Points needed to show `chars` characters (at least Excel's default width). */
export function textWidthPoints(chars: number): number {
  return Math.max(DEFAULT_COLUMN_WIDTH_PT, (chars * PX_PER_CHAR + PADDING_PX) * PT_PER_PX);
}
