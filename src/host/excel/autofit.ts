// Fitting the columns of a placement (issue 22, item 4). Excel's Range.format.autofitColumns() fits the
// ENTIRE column, not the range (OfficeDev/office-js issues 1017 and 5999): the filter-summary line above
// a placement, or the user's own long cells in those columns, would widen them. So the adapter fits what
// it means to fit: it reads the text the area's cells show (Range.text, through their number formats)
// and widens each column to that text (column-width.ts), never narrowing a column the user made wider.
// Only the area's first FIT_MAX_CELLS cells are read (titles and the first rows), to keep the read small.
// The style commands are synced before the read, so a refused read never takes them down with it.

import { textWidthPoints } from "../column-width.ts";
import type { Area } from "../port.ts";
import { isPayloadTooLarge } from "./errors.ts";

export const FIT_MAX_CELLS = 10_000;

/**
 * Reads the area's text and its columns' widths, then sets the wider widths (two syncs). Widths are
 * cosmetic: when the text is too large to read in one answer (ResponsePayloadSizeLimitExceeded), the
 * columns keep their widths.
 */
export async function fitColumnsToCells(ctx: Excel.RequestContext, ws: Excel.Worksheet, area: Area): Promise<void> {
  const rows = Math.max(1, Math.min(area.rows, Math.floor(FIT_MAX_CELLS / area.cols)));
  const text = ws.getRangeByIndexes(area.row, area.col, rows, area.cols).load("text");
  const columns = Array.from({ length: area.cols }, (_, c) =>
    ws.getRangeByIndexes(area.row, area.col + c, 1, 1).format.load("columnWidth"),
  );
  try {
    await ctx.sync();
  } catch (e) {
    if (isPayloadTooLarge(e)) return;
    throw e;
  }
  columns.forEach((format, c) => {
    let chars = 0;
    for (const row of text.text) chars = Math.max(chars, String(row[c] ?? "").length);
    // One character of slack: the bold header and letters wider than the digit Excel's width counts in.
    const want = textWidthPoints(chars + 1);
    if (want > (format.columnWidth ?? 0)) format.columnWidth = want;
  });
  await ctx.sync();
}
