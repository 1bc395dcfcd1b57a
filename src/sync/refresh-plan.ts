// A refresh's plan (issue 34): from what was read — the placement's record, its cells, the prepared answer —
// to the writes and clears that make the cells the answer, or the outcome that ends the refresh before any
// (edited by hand and the person is asked). Pure: no port, no network (fingerprints are computed here).
//
// Only chunks whose incoming hash differs from what the sheet holds are written, and inside one only the
// span of differing rows; every write holds whole chunk spans, so an interruption between syncs leaves each
// chunk all old or all new (docs/SYNC.md "The write journal"). A smaller result clears what it leaves behind
// (clears.ts); "keep" leaves the edited rows alone.
import type { Area } from "../host/port.ts";
import { carriedRows, classifyHeld, editsOf, shapedFingerprints, structuralEdits, structureOf } from "./classify.ts";
import { stillToClear } from "./clears.ts";
import { movedFrom } from "./rows.ts";
import { chunkRows, contentHash, differingChunks, sliceGrid, type Grid } from "./fingerprint.ts";
import { changedRows, chunkHeight, cutGrid, groupSpans } from "./grids.ts";
import { mergeRuns, withoutRows } from "./plan.ts";
import type { CellState, LocalPlacement, PendingWrite } from "./state.ts";
import type { HandEdits, PreparedRefresh, RefreshChoice, RefreshOutcome, RefreshStats } from "./types.ts";
import type { Anchor, SheetRef } from "../host/port.ts";
import type { Shape } from "./plan.ts";
import { tableLeftovers, type TablePlan } from "./table.ts";

type Span = { from: number; to: number };

/** What a refresh read: the placement as recorded, where it is, and its cells in the union of its shapes. */
export interface RefreshRead {
  p: LocalPlacement;
  prep: PreparedRefresh;
  /** Where it is (its name's area, or its record's for a first placement stopped before its name). */
  t: { area: Area; sheet: SheetRef };
  anchor: Pick<Area, "sheetId" | "row" | "col">;
  /** Its tracking name and area, when it has a name: the writes follow it (issue 36). */
  pin: Anchor | undefined;
  old: Shape;
  /** What it covers now (its name's area when it has one: rows inserted or deleted inside it count). */
  held: Shape;
  next: Shape;
  /** Cells the new shape covers beyond the old (and a pending write's) shape. */
  growth: Area[];
  union: Shape;
  /** The cells now, from the anchor, in the union shape (a table the person sorted: in the order written, issue 33). */
  current: Grid;
  /** The cells as they are on the sheet, when `current` is not (a sorted table's rows put back in order). */
  physical?: Grid;
  /** Issue 33: a table placement's table as planned; "gone" when it is no longer there; null for a range. */
  table?: TablePlan | "gone" | null;
  /** The row and column prints of what Cellbound last wrote there (rows.ts), when they describe its record. */
  prints: { rows: Uint32Array; cols: Uint32Array | null } | null;
  /**
   * Issue 35 §3: the answer is the one recorded and the host's note says the cells hold it (cells-note.ts): they
   * were not read (`current` is empty) and there is nothing to compare or write.
   */
  noted?: boolean;
  /**
   * Issue 35 §3: the host's note says the cells hold what was recorded, and the answer was laid out only in the
   * chunks its rows changed (prep.chunks): `current` holds the rows from the first chunk whose fingerprint the
   * answer changes to the last (the rest are holes), and its fingerprint is the one recorded.
   */
  chunked?: boolean;
  readMs: number;
}

export interface RefreshPlan {
  kind: "plan";
  state: CellState;
  /** The person's edits (null: none); with "keep" their rows are left alone. */
  edits: HandEdits | null;
  /** "keep": the edited rows are left as they are and the placement stays marked edited. */
  keep: boolean;
  keptRows: Span[];
  /**
   * Keep my edits over rows or columns a person moved inside (issue 30: named, or its name's area is not its
   * record's shape): the name keeps covering what the placement holds, nothing in it is cleared.
   */
  keepsHeld: boolean;
  /** Write calls, rows relative to the anchor; each holds whole chunk spans. */
  calls: Span[];
  /** What is cleared (sheet areas). */
  leftovers: Area[];
  /** The journal's record of them, each with a hash of what Cellbound's cells there hold (issue 36, item 2). */
  clears: NonNullable<PendingWrite["clears"]>;
  /** Rows an earlier unfinished write left that this write rewrites (state.ts `carried`). */
  carried: Span[];
  /** The cells the writes and clears replace (checked again before writing when read ahead). */
  touched: Area[];
  /** The current cells in the new shape. */
  currentShaped: Grid;
  stats: RefreshStats;
}

export async function planRefresh(
  read: RefreshRead,
  choice: RefreshChoice,
  lastWritten: Grid | undefined,
  chunksPerCall: number,
): Promise<RefreshPlan | { kind: "outcome"; outcome: RefreshOutcome }> {
  if (read.noted) return notedPlan(read);
  const { p, prep, anchor, next, current, union } = read;
  // Laid out only when needed: an unchanged answer over untouched cells never is.
  const cells = () => (read.chunked && prep.chunks ? prep.chunks.cells : prep.layout().cells);
  // Chunked: the cells hold what was recorded, by the host's note (refresh.ts readCurrent).
  const fpOf = read.chunked && p.committed ? async () => p.committed! : shapedFingerprints(current);
  const state = await classifyHeld(p, current, read.held, fpOf);
  // Rows or columns inserted or deleted inside it are named as such (issue 30), else the edited rows.
  const found = state.kind === "edited" ? await structureOf(p, current, read.held, read.prints) : null;
  const edits =
    state.kind !== "edited"
      ? null
      : found
        ? structuralEdits(found, current, cells(), lastWritten, anchor, read.held)
        : editsOf(state, p, current, cells(), lastWritten, anchor);
  if (edits && choice === "ask") return { kind: "outcome", outcome: { kind: "handEdited", edits } };

  const currentShaped = read.chunked ? current : sliceGrid(current, next.rows, next.cols); // chunked: the same shape
  const reshaped = !p.pending && (read.held.rows !== p.shape.rows || read.held.cols !== p.shape.cols);
  const keepsHeld = edits !== null && choice === "keep" && (edits.structure !== undefined || reshaped);
  const keptRows = edits && choice === "keep" ? keptSpans(edits, Math.max(union.rows, read.held.rows), keepsHeld) : [];
  const inKept = (r: Span) => keptRows.some((k) => r.from <= k.to && k.from <= r.to);
  const chunks = differingChunks(prep.incoming, await fpOf(next))
    .map((i) => chunkRows(prep.incoming, i, next.rows))
    .filter((r) => !inKept(r));
  const spans = chunks.flatMap((c) => {
    const rows = changedRows(cells(), currentShaped, c.from, c.to);
    return rows.length ? [{ from: rows[0]!.from, to: rows[rows.length - 1]!.to }] : [];
  });
  // A table the person sorted is written whole and sorted again (issue 33): the rows of an unchanged chunk are elsewhere.
  const table = read.table && read.table !== "gone" ? read.table : null;
  if (table?.sorted && spans.length) spans.splice(0, spans.length, { from: 0, to: next.rows - 1 });
  const calls = groupSpans(spans, chunksPerCall * chunkHeight(prep.incoming));
  const left = table
    ? tableLeftovers(anchor, next, Math.max(union.rows, read.held.rows), table.extra, table.was.area)
    : await stillToClear(p, anchor, next, current, read.held);
  const leftovers = left.flatMap((a) => withoutRows(a, anchor.row, keptRows));
  const touched = [
    ...calls.map((r) => ({
      sheetId: anchor.sheetId,
      row: anchor.row + r.from,
      col: anchor.col,
      rows: r.to - r.from + 1,
      cols: union.cols,
    })),
    ...leftovers,
  ];
  const writes = calls.length > 0 || leftovers.length > 0;
  const clears = await Promise.all(
    leftovers.map(async (a) => {
      const at = { row: a.row - anchor.row, col: a.col - anchor.col, rows: a.rows, cols: a.cols };
      return { ...at, held: await contentHash(cutGrid(current, at.row, at.col, at.rows, at.cols)) };
    }),
  );
  const carried = p.pending && writes ? await carriedRows(p, prep, current, fpOf, inKept) : [];
  const stats = startStats(read, chunks.length, calls);
  return {
    kind: "plan",
    state,
    edits,
    keep: edits !== null && choice === "keep",
    keptRows,
    keepsHeld,
    calls,
    leftovers,
    clears,
    carried,
    touched,
    currentShaped,
    stats,
  };
}

/** The plan of a refresh whose cells hold the answer it recorded, by the host's note: clean, nothing written or cleared. */
function notedPlan(read: RefreshRead): RefreshPlan {
  const none: Span[] = [];
  return {
    kind: "plan",
    state: { kind: "clean" },
    edits: null,
    keep: false,
    keptRows: none,
    keepsHeld: false,
    calls: none,
    leftovers: [],
    clears: [],
    carried: none,
    touched: [],
    currentShaped: [],
    stats: startStats(read, 0, none),
  };
}

/** A plan's figures before its write: what the answer adds or removes and what it rewrites (the write fills in the rest). */
function startStats(read: RefreshRead, chunksWritten: number, calls: readonly Span[]): RefreshStats {
  const { next, old, prep } = read;
  return {
    rowsAdded: Math.max(0, next.rows - old.rows),
    rowsRemoved: Math.max(0, old.rows - next.rows),
    cellsChanged: 0,
    cellsWritten: 0,
    chunksWritten,
    chunksTotal: prep.incoming.chunks.length,
    rowsWritten: calls.reduce((n, r) => n + r.to - r.from + 1, 0),
    cellsCleared: 0,
    syncs: 0,
    maxSyncBytes: 0,
    bytes: 0,
    timings: { ...prep.timings, readMs: read.readMs, compareMs: 0, writeMs: 0, recordMs: 0 },
  };
}

/**
 * The rows Keep my edits leaves as they are: the edited rows; with rows or columns moved inside (`moved`, issue
 * 30), every row from the first of them down (`rows`: how far the placement reaches; from its first row when
 * they cannot be named), since the report's rows there are where the person moved them — nothing of theirs is
 * written over or cleared.
 */
export function keptSpans(edits: HandEdits, rows: number, moved: boolean): Span[] {
  if (!moved) return edits.rows;
  const first = edits.structure ? movedFrom(edits.structure, rows) : 0;
  const below = first < rows ? [{ from: first, to: rows - 1 }] : [];
  return mergeRuns([...edits.rows, ...below].sort((a, b) => a.from - b.from));
}
