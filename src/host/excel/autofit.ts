// Fitting the columns of a placement (issue 22, item 4). Excel's Range.format.autofitColumns() fits the
// ENTIRE column, not the range (OfficeDev/office-js issues 1017 and 5999): the filter-summary line above
// a placement, or the user's own long cells in those columns, would widen them. So the adapter fits what
// it means to fit: the text the area's cells show (through their number formats) widens each column
// (column-width.ts), never narrowing a column the user made wider. Only the area's first FIT_MAX_CELLS
// cells count (titles and the first rows), to keep the work small.
//
// Two ways (issue 20: every sync is a round trip):
//   - planned (no round trip of its own): when the commit itself writes the area's cells with known number
//     formats (plannedText) and the snapshot it was planned on read the columns' widths
//     (SnapshotRequest.columnWidths), the text is what formatValue shows — the same model dev/excel's
//     Range.text uses — and the widths are set in the same sync as the cells and the style;
//   - read (two syncs, fitColumnsToCells): otherwise the cells' text and the widths are read after the
//     style's sync, then the wider widths set. The style commands are synced before the read, so a
//     refused read never takes them down with it.

import { textWidthPoints } from "../column-width.ts";
import { formatValue } from "../number-format.ts";
import type { Area, Command, SheetValue } from "../port.ts";
import { isPayloadTooLarge } from "./errors.ts";

export const FIT_MAX_CELLS = 10_000;

/** How many of the area's rows are fitted (at least one). */
export function fitRows(area: Area): number {
  return Math.max(1, Math.min(area.rows, Math.floor(FIT_MAX_CELLS / area.cols)));
}

/**
 * The width each column should get to show `text` (rows of the shown text), or null where its width
 * `current` is enough (a column is never narrowed).
 */
export function fitWidths(text: ReadonlyArray<ReadonlyArray<string>>, current: ReadonlyArray<number | null>): Array<number | null> {
  return current.map((now, c) => {
    let chars = 0;
    for (const row of text) chars = Math.max(chars, String(row[c] ?? "").length);
    // One character of slack: the bold header and letters wider than the digit Excel's width counts in.
    const want = textWidthPoints(chars + 1);
    return want > (now ?? 0) ? want : null;
  });
}

/**
 * The text the fitted rows of `area` will show once `earlier` (the commands before the style, in order)
 * are applied, when they decide every such cell: written by a write, with a number format the commands
 * set (a string shows as itself under any format). null when a cell is not written by them, or a number
 * lands under keepFormats (its format is the user's, not known here): then the text is read instead.
 */
export function plannedText(area: Area, earlier: readonly Command[]): string[][] | null {
  const rows = fitRows(area);
  const values: Array<Array<SheetValue | undefined>> = Array.from({ length: rows }, () => new Array<SheetValue | undefined>(area.cols));
  const formats: Array<Array<string | undefined>> = Array.from({ length: rows }, () => new Array<string | undefined>(area.cols));
  // Cells of `area`'s fitted rows that a rectangle at (row, col) covers, as (r, c) within both.
  const each = (
    at: { sheetId: string; row: number; col: number },
    h: number,
    w: number,
    fn: (r: number, c: number, i: number, j: number) => void,
  ) => {
    if (at.sheetId !== area.sheetId) return;
    const r0 = Math.max(area.row, at.row),
      r1 = Math.min(area.row + rows, at.row + h);
    const c0 = Math.max(area.col, at.col),
      c1 = Math.min(area.col + area.cols, at.col + w);
    for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) fn(r - area.row, c - area.col, r - at.row, c - at.col);
  };
  for (const cmd of earlier) {
    if (cmd.kind === "write") {
      const o = cmd.options ?? {};
      each(cmd.at, cmd.grid.length, cmd.grid[0]?.length ?? 0, (r, c, i, j) => {
        const v = cmd.grid[i]![j]!;
        values[r]![c] = v;
        // The write's own formats (batch.ts writeOps): "@" for a string, else the column's, or the cell's under keepFormats.
        formats[r]![c] = typeof v === "string" && v !== "" ? "@" : o.keepFormats ? undefined : (o.columnFormats?.[j] ?? "General");
      });
    } else if (cmd.kind === "clear") {
      each(cmd.area, cmd.area.rows, cmd.area.cols, (r, c) => {
        values[r]![c] = "";
        formats[r]![c] = "General";
      });
    } else if (cmd.kind === "style" && cmd.style.columnFormats) {
      const f = cmd.style.columnFormats;
      each(cmd.area, cmd.area.rows, cmd.area.cols, (r, c, _i, j) => {
        if (f[j] !== null && f[j] !== undefined) formats[r]![c] = f[j];
      });
    }
  }
  const text: string[][] = [];
  for (let r = 0; r < rows; r++) {
    const row: string[] = [];
    for (let c = 0; c < area.cols; c++) {
      const v = values[r]![c];
      if (v === undefined) return null;
      if (typeof v === "string") row.push(v);
      else if (formats[r]![c] === undefined) return null;
      else row.push(formatValue(v, formats[r]![c]));
    }
    text.push(row);
  }
  return text;
}

/**
 * Reads the area's text and its columns' widths, then sets the wider widths (two syncs). Widths are
 * cosmetic: when the text is too large to read in one answer (ResponsePayloadSizeLimitExceeded), the
 * columns keep their widths.
 */
export async function fitColumnsToCells(ctx: Excel.RequestContext, ws: Excel.Worksheet, area: Area): Promise<void> {
  const text = ws.getRangeByIndexes(area.row, area.col, fitRows(area), area.cols).load("text");
  const columns = Array.from({ length: area.cols }, (_, c) =>
    ws.getRangeByIndexes(area.row, area.col + c, 1, 1).format.load("columnWidth"),
  );
  try {
    await ctx.sync();
  } catch (e) {
    if (isPayloadTooLarge(e)) return;
    throw e;
  }
  const widths = fitWidths(
    text.text,
    columns.map((f) => f.columnWidth),
  );
  widths.forEach((w, c) => {
    if (w !== null) columns[c]!.columnWidth = w;
  });
  await ctx.sync();
}
