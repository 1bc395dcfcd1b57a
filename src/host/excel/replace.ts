// Replacing in place without a gap (issue 22, item 3). A failing context.sync() keeps the commands
// before the failing one applied (OfficeExtension.Error; Excel's application-specific API model), so a
// "delete the old one, then add the new one" batch that fails at the add leaves nothing: the dashboard
// picture or the placement's tracking name is gone and the placement reads "missing". These helpers
// queue the replacement so that every prefix of the batch still has the old object, or the new one.

import { columnLetters, quoteSheetName } from "../a1.ts";
import type { Area } from "../port.ts";

/** Suffix of a replacement picture until it takes the old one's name. */
export const PICTURE_PENDING_SUFFIX = " (new)";

/**
 * Queue: add the new image, give it a temporary name and its place, delete the old picture, then give
 * the new one its name. Where a failure leaves things:
 *   at addImage                      the old picture, unchanged;
 *   at the temporary name            the old picture, plus an unnamed new one at the sheet's top-left
 *                                    (Excel names it "Picture N"; nothing can avoid this one prefix);
 *   at left/top or the delete        the old picture, plus the new one under the temporary name, which the
 *                                    next replacement deletes first (`stray`);
 *   at the final name                only the new picture, under the temporary name: `pictureNamed` and
 *                                    the next replacement take it for the picture.
 */
export function queueReplacePicture(
  ws: Excel.Worksheet,
  name: string,
  base64: string,
  place: { left: number; top: number },
  old: Excel.Shape | null,
  stray: Excel.Shape | null,
): void {
  if (stray) stray.delete();
  const shape = ws.shapes.addImage(base64);
  shape.name = name + PICTURE_PENDING_SUFFIX;
  shape.left = place.left;
  shape.top = place.top;
  if (old) old.delete();
  shape.name = name;
}

/** "=Sheet1!$B$2:$C$4": a named item's formula for an area (absolute, as Excel stores it). */
export function nameFormula(sheetName: string, area: Pick<Area, "row" | "col" | "rows" | "cols">): string {
  const cell = (r: number, c: number) => `$${columnLetters(c)}$${r + 1}`;
  const a = cell(area.row, area.col);
  const b = cell(area.row + area.rows - 1, area.col + area.cols - 1);
  return `=${quoteSheetName(sheetName)}!${a === b ? a : `${a}:${b}`}`;
}

/**
 * Queue: point an existing name at the area in one command (NamedItem.formula, ExcelApi 1.7), or add it
 * when there is none. Never delete-then-add: a failure leaves the name where it was.
 */
export function queueTrackName(
  ctx: Excel.RequestContext,
  existing: Excel.NamedItem | null,
  fullName: string,
  range: Excel.Range,
  sheetName: string,
  area: Area,
): void {
  if (existing) {
    existing.formula = nameFormula(sheetName, area);
    existing.visible = false;
    return;
  }
  // No comment: on Excel on the web NamedItem.comment has no undo support and clears the user's undo
  // stack (issue 22, item 9). The hidden name's prefix (Cellbound_) says whose it is.
  const item = ctx.workbook.names.add(fullName, range);
  item.visible = false;
}

/** The picture called `name` among a sheet's picture names: itself, or a replacement left under the temporary name. */
export function pictureNamed(names: readonly string[], name: string): string | null {
  return names.includes(name) ? name : names.includes(name + PICTURE_PENDING_SUFFIX) ? name + PICTURE_PENDING_SUFFIX : null;
}
