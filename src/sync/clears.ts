// What a shrink clears, and what it clears again after an interruption (issue 36, item 2): only cells that
// still hold what Cellbound wrote there. Pure: reads nothing but the cells given.
import type { Area } from "../host/port.ts";
import { contentHash, type Grid } from "./fingerprint.ts";
import { cutGrid } from "./grids.ts";
import { areaAt, leftoverAreas, subtract, type Shape } from "./plan.ts";
import type { LocalPlacement } from "./state.ts";

/**
 * What a refresh to `next` clears: the cells the committed shape had beyond it — except cells an earlier
 * shrink of this placement already cleared (its journal's `clears`): those are cleared again only when its
 * write stopped before it was done and they still hold what Cellbound wrote there (issue 36, item 2: a
 * person's note typed there since is theirs). `current` is read from the anchor, in the union shape.
 */
export async function stillToClear(
  p: LocalPlacement,
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  next: Shape,
  current: Grid,
  /** What the placement covers now: its recorded shape, or its name's area when rows were inserted or deleted inside it (issue 30). */
  held: Shape = p.shape,
): Promise<Area[]> {
  const base = leftoverAreas(anchor, held, next);
  const journal = (p.pending?.clears ?? []).map((c) => ({
    area: { sheetId: anchor.sheetId, row: anchor.row + c.row, col: anchor.col + c.col, rows: c.rows, cols: c.cols },
    held: c.held,
    rel: c,
  }));
  if (!journal.length) return base;
  const outside = (a: Area) => subtract(a, areaAt(anchor, next));
  let rest = base;
  for (const j of journal) rest = rest.flatMap((a) => subtract(a, j.area));
  const again: Area[] = [];
  if (p.pending?.phase !== "written")
    for (const j of journal)
      if (await holdsOurs(cutGrid(current, j.rel.row, j.rel.col, j.rel.rows, j.rel.cols), j.held)) again.push(...outside(j.area));
  return [...rest, ...again];
}

/** A journalled clear's cells still hold what Cellbound wrote there (`held`; older journals have none: not empty). */
export async function holdsOurs(grid: Grid, held: string | undefined): Promise<boolean> {
  if (grid.every((row) => row.every((v) => v === ""))) return false; // cleared already
  return held === undefined || (await contentHash(grid)) === held;
}
