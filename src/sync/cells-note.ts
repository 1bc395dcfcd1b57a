// Notes on a placement's cells (issue 35 §3). A host that can tell an area's cells have not changed without
// reading them (the .xlsx file port: src/host/xlsx/notes.ts) keeps a note of what they hold; a refresh whose
// answer is the one it recorded, over cells that still carry the note of the fingerprint it recorded, has
// nothing to compare and reads no cells. The note is left only where the engine knows what the cells hold:
// once its write or place is recorded, all of the area written (not Keep my edits, not an Excel table).
import type { ResultChecksum } from "../checksum/types.ts";
import { h64Hex, ready } from "../checksum/hash.ts";
import type { Area, SheetPort } from "../host/port.ts";
import { sameShape, type Shape } from "./plan.ts";
import { placementArea, type LocalPlacement } from "./state.ts";

/** The note for cells whose fingerprint is `fp` in `shape`. */
export async function noteOf(fp: ResultChecksum, shape: Shape): Promise<string> {
  await ready();
  const chunks = fp.chunks.map((c) => `${c.from}:${c.hash}`).join(",");
  return h64Hex(new TextEncoder().encode(`cells|${shape.rows}x${shape.cols}|v${fp.v}|${chunks}`));
}

/**
 * Whether placement `p`'s cells at `area` (its name's area) hold what it recorded, by the host's note alone:
 * recorded and not under way, a range (a table's rows may be sorted by the person), the area its shape.
 */
export async function notedAsRecorded(port: SheetPort, p: LocalPlacement, area: Area): Promise<boolean> {
  if (!port.cellsNote || !p.committed || p.pending || p.table) return false;
  if (!sameShape(area, p.shape)) return false;
  const note = port.cellsNote(area);
  return note !== null && note === (await noteOf(p.committed, p.shape));
}

/**
 * Whether placement `p`'s cells, where its name is in `view` (the port itself by default: a session is one),
 * carry the note of what it recorded — notedAsRecorded at its name's area; false when it has none.
 */
export async function notedWhereNamed(port: SheetPort, p: LocalPlacement, view: SheetPort = port): Promise<boolean> {
  const t = placementArea(p, await view.tracked(), await view.sheets());
  return t !== null && (await notedAsRecorded(port, p, t.area));
}

/** Leave the note of `fp` on the cells at `area` (hosts that keep notes; others do nothing). */
export async function noteCells(port: SheetPort, area: Area, fp: ResultChecksum): Promise<void> {
  if (port.noteCells) port.noteCells(area, await noteOf(fp, { rows: area.rows, cols: area.cols }));
}
