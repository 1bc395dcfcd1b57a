// How placed cells are formatted, through the port (formats.ts decides what; this applies it).
//
//   place    — the write carries each column's number format (layout.columnFormats); then the
//              header rows get HEADER_STYLE, and when the placement starts at row 1 they are frozen;
//   refresh  — values are written with keepFormats (a format the user chose stays); rows and columns
//              the placement grows into are formatted first: a column takes the format its last
//              data row has now (the user's choice, or Cellbound's), a new column Cellbound's;
//   Values only (per placement, in the workbook) — no number formats beyond the text format "@"
//              (which keeps strings from becoming formulas), no header style, no freeze.
// Formats are never part of a fingerprint: a format change is never a hand edit.
import { z } from "zod";
import type { Anchor, Area, AreaStyle, SheetPort } from "../host/port.ts";
import { HEADER_STYLE, isQuarterFormat, quarterRuns } from "./formats.ts";
import type { Layout } from "./layout.ts";
import { areaAt, growthAreas, type Shape } from "./plan.ts";

export const STYLE_KEY = "cellbound.sync.styles.v1";

const Styles = z.record(z.string(), z.object({ valuesOnly: z.boolean() }));
type Styles = z.infer<typeof Styles>;

async function load(port: SheetPort): Promise<Styles> {
  const parsed = Styles.safeParse(await port.getData(STYLE_KEY));
  return parsed.success ? parsed.data : {}; // absent or unreadable: every placement formatted (the default)
}

/** Whether a placement was placed with "Values only". */
export async function isValuesOnly(port: SheetPort, key: string): Promise<boolean> {
  return (await load(port))[key]?.valuesOnly === true;
}

export async function setValuesOnly(port: SheetPort, key: string, valuesOnly: boolean): Promise<void> {
  const all = await load(port);
  if ((all[key]?.valuesOnly ?? false) === valuesOnly) return;
  if (valuesOnly) all[key] = { valuesOnly };
  else delete all[key];
  await port.setData(STYLE_KEY, all);
}

/** Forget a disconnected placement's setting. */
export async function forgetStyle(port: SheetPort, key: string): Promise<void> {
  const all = await load(port);
  if (!(key in all)) return;
  delete all[key];
  await port.setData(STYLE_KEY, all);
}

/** Rows of the layout that are column titles (below the filter summary, if any). */
export function titleRows(layout: Pick<Layout, "cells" | "headerRows" | "summaryRows">): { from: number; rows: number } {
  const from = layout.summaryRows ?? 0;
  return { from, rows: Math.max(0, layout.headerRows - from) };
}

/** After a placement's cells were written: style its header and freeze it when it starts at row 1. */
export async function styleHeader(
  port: SheetPort & { style(area: Area, style: AreaStyle, anchor?: Anchor): Promise<void> },
  at: Pick<Area, "sheetId" | "row" | "col">,
  layout: Layout,
  cols = layout.columnFormats.length,
  fromCol = 0,
  pin?: Anchor,
): Promise<void> {
  const t = titleRows(layout);
  if (t.rows === 0 || cols - fromCol <= 0) return;
  await port.style(
    { sheetId: at.sheetId, row: at.row + t.from, col: at.col + fromCol, rows: t.rows, cols: cols - fromCol },
    HEADER_STYLE,
    pin,
  );
}

/**
 * Quarter buckets (layout.quarterColumns) of rows `from` … `to` − 1: each run of cells of one quarter
 * gets the format that reads "Q1 2025" (formats.ts quarterFormat); `only` picks the columns.
 */
async function styleQuarters(
  port: SheetPort & { style(area: Area, style: AreaStyle, anchor?: Anchor): Promise<void> },
  at: Pick<Area, "sheetId" | "row" | "col">,
  layout: Layout,
  from: number,
  to: number,
  only: (col: number) => boolean = () => true,
  pin?: Anchor,
): Promise<void> {
  for (const c of layout.quarterColumns ?? []) {
    if (!only(c)) continue;
    for (const run of quarterRuns(layout.cells, c, Math.max(from, layout.headerRows), to) ?? [])
      await port.style(
        { sheetId: at.sheetId, row: at.row + run.row, col: at.col + c, rows: run.rows, cols: 1 },
        { columnFormats: [run.format] },
        pin,
      );
  }
}

export async function stylePlaced(
  port: SheetPort,
  at: Pick<Area, "sheetId" | "row" | "col">,
  layout: Layout,
  /** An Excel table's header row has its table style (issue 33): no header style of Cellbound's over it. */
  table = false,
): Promise<void> {
  if (!table) await styleHeader(port, at, layout);
  await styleQuarters(port, at, layout, 0, layout.cells.length);
  // Column widths to fit titles and formatted values (not the filter summary's long lines): a
  // formatted amount wider than its column shows as "####" in Excel.
  const t = titleRows(layout);
  const rows = layout.cells.length - t.from;
  if (rows > 0 && layout.columnFormats.length > 0)
    await port.style(
      { sheetId: at.sheetId, row: at.row + t.from, col: at.col, rows, cols: layout.columnFormats.length },
      { autofit: true },
    );
  if (at.row === 0 && layout.headerRows > 0 && (await port.frozenRows(at.sheetId)) === 0)
    await port.freezeRows(at.sheetId, layout.headerRows);
}

/**
 * After Overwrite my edits wrote over rows or columns a person inserted or deleted inside a placement
 * (issue 30): the rows from `from` down (relative to its first row; what moved) get the report's number
 * formats (a column Cellbound leaves General is left as it is) and its quarter formats; when the header moved,
 * its title rows get the header style again and the data rows lose it.
 */
export async function restyleMoved(
  port: SheetPort & { style(area: Area, style: AreaStyle, anchor?: Anchor): Promise<void> },
  at: Pick<Area, "sheetId" | "row" | "col">,
  layout: Layout,
  from: number,
  pin?: Anchor,
): Promise<void> {
  const cols = layout.columnFormats.length;
  const first = Math.max(from, layout.headerRows);
  const rows = layout.cells.length - first;
  if (rows <= 0 || cols === 0) return;
  const body = { sheetId: at.sheetId, row: at.row + first, col: at.col, rows, cols };
  if (from < layout.headerRows) {
    await styleHeader(port, at, layout, cols, 0, pin);
    await port.style(body, { bold: false, fill: null }, pin);
  }
  if (layout.columnFormats.some((f) => f !== null)) await port.style(body, { columnFormats: layout.columnFormats }, pin);
  await styleQuarters(port, at, layout, first, layout.cells.length, () => true, pin);
}

/**
 * Before a refresh writes: give the rows and columns the placement grows into their number formats
 * (the header part of new columns also gets the header style).
 */
export async function styleGrowth(
  port: SheetPort & { style(area: Area, style: AreaStyle, anchor?: Anchor): Promise<void> },
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  old: Shape,
  next: Shape,
  layout: Layout,
  /** Where the placement's tracking name is as read (the styles follow it: issue 36). */
  pin?: Anchor,
  /** An Excel table (issue 33): its new columns' headers keep the table style. */
  table = false,
): Promise<void> {
  const growth = growthAreas(anchor, old, next);
  if (growth.length === 0) return;
  const ours = layout.columnFormats;
  // The column's format now, from the last old data row (a text cell's "@" says nothing about the column).
  let now: (string | null)[] = ours.map(() => null);
  const lastOld = old.rows - 1;
  if (lastOld >= layout.headerRows) {
    const row = await port.readStyle({
      sheetId: anchor.sheetId,
      row: anchor.row + lastOld,
      col: anchor.col,
      rows: 1,
      cols: Math.min(old.cols, ours.length),
    });
    now = ours.map((_, c) => row.numberFormats[0]?.[c] ?? null).map((f) => (f === "@" ? null : f));
  }
  const whole = areaAt(anchor, next);
  for (const g of growth) {
    const firstCol = g.col - anchor.col;
    const formats = Array.from({ length: g.cols }, (_, i) => {
      const c = firstCol + i;
      return (c < old.cols ? now[c] : null) ?? ours[c] ?? null;
    });
    if (formats.some((f) => f !== null)) await port.style(g, { columnFormats: formats }, pin);
  }
  // Quarter buckets in the rows it grows into read their own quarter, while the column's format is
  // Cellbound's (a quarter's, or the column's "yyyy-mm-dd"), not one the user chose.
  const cellbound = (c: number) => c >= old.cols || now[c] === null || now[c] === ours[c] || isQuarterFormat(now[c]);
  if (next.rows > old.rows) await styleQuarters(port, anchor, layout, old.rows, next.rows, cellbound, pin);
  if (next.cols > old.cols) await styleQuarters(port, anchor, layout, 0, old.rows, (c) => c >= old.cols, pin);
  if (next.cols > old.cols && !table)
    await styleHeader(port, { sheetId: whole.sheetId, row: whole.row, col: whole.col }, layout, next.cols, old.cols, pin);
}
