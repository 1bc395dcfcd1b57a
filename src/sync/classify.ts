// Classifying a placement's cells against its fingerprints (state.ts classify, with the journal), and the
// hand-edit report a refresh shows (issue 34: pure — no port, no network; fingerprints are computed here).
import type { Area } from "../host/port.ts";
import { cellA1, areaA1 } from "../host/a1.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import { chunkRows, emptyGrid, fingerprintGrid, sliceGrid, type Grid } from "./fingerprint.ts";
import { maxShape, mergeRuns, type Shape } from "./plan.ts";
import { classify, MAX_CARRIED, type CellState, type LocalPlacement, type PendingWrite } from "./state.ts";
import { alignRows, columnPrints, rowPrints, type RowStep } from "./rows.ts";
import { MAX_DIFF, type CellDiff, type HandEdits, type PreparedRefresh, type Structure } from "./types.ts";

/** Fingerprints of the top-left sub-grids of `current`, computed once per shape. */
export function shapedFingerprints(current: Grid): (s: Shape) => Promise<ResultChecksum> {
  const memo = new Map<string, Promise<ResultChecksum>>();
  return (s) => {
    const k = `${s.rows}x${s.cols}`;
    let v = memo.get(k);
    if (!v) memo.set(k, (v = fingerprintGrid(sliceGrid(current, s.rows, s.cols))));
    return v;
  };
}

/** Classify the current cells (read in the union shape) of a placement. */
export async function classifyCells(
  p: LocalPlacement,
  current: Grid,
  fpOf: (s: Shape) => Promise<ResultChecksum> = shapedFingerprints(current),
): Promise<CellState> {
  const state = await classifyJournal(p, current, fpOf);
  // The rows a large placement had written when it stopped, all there: not the whole result, so not a
  // write to finish by recording it — a refresh finishes it (placeStreamed).
  return p.pending?.partial && state.kind === "unrecorded" ? { kind: "interrupted", staleChunks: [] } : state;
}

async function classifyJournal(p: LocalPlacement, current: Grid, fpOf: (s: Shape) => Promise<ResultChecksum>): Promise<CellState> {
  const committedNow = await fpOf(p.shape);
  // A first placement interrupted mid-write: the cells it had not reached yet are still empty,
  // so "committed" is the empty grid of that shape.
  const committed = p.committed ?? (p.pending ? await fingerprintGrid(emptyGrid(p.shape.rows, p.shape.cols)) : null);
  const pendingNow = p.pending ? await fpOf(p.pending.shape) : committedNow;
  const pending = p.pending;
  if (!pending) return classify(committedNow, committed, null, pendingNow);
  const emptyPending =
    committed && pending.shape.rows > p.shape.rows ? await fingerprintGrid(emptyGrid(pending.shape.rows, pending.shape.cols)) : null;
  // Rows that may hold neither fingerprint: the call under way, and what an earlier unfinished write left (`carried`).
  const spans = pending.phase === "writing" ? [...(pending.inFlight ? [pending.inFlight] : []), ...(pending.carried ?? [])] : [];
  return classify(committedNow, committed, pending.checksum, pendingNow, {
    emptyPending,
    inFlight: (i) => {
      if (spans.length === 0 || i >= pending.checksum.chunks.length) return false;
      const r = chunkRows(pending.checksum, i, pending.shape.rows);
      return spans.some((s) => r.from <= s.to && s.from <= r.to);
    },
  });
}

/**
 * The rows an earlier unfinished write left holding neither the committed grid nor the one this
 * write brings (the half-written call of its journal, or whole chunks of its grid). The new
 * journal replaces the earlier one, its `inFlight` with it, so it carries these rows until this
 * write rewrites them: an interruption before then still reads "Interrupted", never a hand edit.
 * Only rows this write rewrites are carried (rows kept as edits stay edits).
 */
export async function carriedRows(
  p: LocalPlacement,
  prep: PreparedRefresh,
  current: Grid,
  fpOf: (s: Shape) => Promise<ResultChecksum>,
  kept: (r: { from: number; to: number }) => boolean,
): Promise<{ from: number; to: number }[]> {
  const next: PendingWrite = { checksum: prep.incoming, shape: prep.shape, at: "", phase: "writing", inFlight: null };
  const probe = await classifyCells({ ...p, pending: next }, current, fpOf);
  if (probe.kind !== "edited") return [];
  const rows = mergeRuns(
    probe.editedChunks
      .filter((i) => i < prep.incoming.chunks.length)
      .map((i) => chunkRows(prep.incoming, i, prep.shape.rows))
      .filter((r) => !kept(r)),
  );
  // The journal holds a bounded list (a sheet's 1,048,576 rows make at most 525 separate spans of
  // 1,000-row chunks, so this never applies in Excel): past it, one span over them all.
  return rows.length > MAX_CARRIED ? [{ from: rows[0]!.from, to: rows[rows.length - 1]!.to }] : rows;
}

/** The hand-edit report: edited row ranges and, per edited cell, last written / now / incoming. */
export function editsOf(
  state: Extract<CellState, { kind: "edited" }>,
  p: LocalPlacement,
  current: Grid,
  incoming: Grid,
  lastWritten: Grid | undefined,
  anchor: Pick<Area, "sheetId" | "row" | "col">,
): HandEdits {
  const refs: [ResultChecksum, Shape][] = [];
  if (p.committed) refs.push([p.committed, p.shape]);
  if (p.pending) refs.push([p.pending.checksum, p.pending.shape]);
  const rangeOf = (i: number) => {
    const [ref, s] = refs.find(([c]) => c.chunks[i] !== undefined) ?? refs[0]!;
    return chunkRows(ref, Math.min(i, ref.chunks.length - 1), s.rows);
  };
  const shape = refs.reduce((a, [, s]) => maxShape(a, s), p.shape);
  const chunkRanges = mergeRuns(state.editedChunks.map(rangeOf));
  const cells: CellDiff[] = [];
  const editedRows = new Set<number>();
  let cellCount = 0;
  for (const range of chunkRanges) {
    for (let r = range.from; r <= range.to; r++) {
      for (let c = 0; c < shape.cols; c++) {
        const now = current[r]?.[c] ?? "";
        const before = lastWritten?.[r]?.[c];
        const next = incoming[r]?.[c] ?? "";
        const changed = lastWritten ? now !== (before ?? "") : now !== next;
        if (!changed) continue;
        editedRows.add(r);
        cellCount++;
        if (cells.length < MAX_DIFF)
          cells.push({
            address: cellA1(anchor.row + r, anchor.col + c),
            lastWritten: lastWritten ? (before ?? "") : undefined,
            now,
            incoming: next,
          });
      }
    }
  }
  // Without the last-written grid an edit that happens to equal the incoming value is invisible
  // cell by cell; the edited chunk still is, so its rows are reported.
  const rows = editedRows.size ? mergeRuns([...editedRows].map((r) => ({ from: r, to: r }))) : chunkRanges;
  return {
    rows,
    ranges: rows.map((r) => areaA1({ row: anchor.row + r.from, col: anchor.col, rows: r.to - r.from + 1, cols: shape.cols })),
    cells,
    cellCount,
  };
}

/**
 * Its cells against its fingerprints, and its name's area (`held`) against its record (issue 30): a name that
 * covers more rows or columns than the report (rows a person inserted inside and kept with Keep my edits)
 * holds their cells beyond the fingerprint, so the placement is edited even where the fingerprint matches.
 */
export async function classifyHeld(
  p: LocalPlacement,
  current: Grid,
  held: Shape,
  fpOf?: (s: Shape) => Promise<ResultChecksum>,
): Promise<CellState> {
  const state = await classifyCells(p, current, fpOf);
  const wider = !p.pending && (held.rows > p.shape.rows || held.cols > p.shape.cols);
  return state.kind === "clean" && wider ? { kind: "edited", editedChunks: [] } : state;
}

/**
 * Rows or columns inserted or deleted inside a placement (issue 30): its cells now (`current`, from its first
 * cell, `held` rows × cols of them: its name's area) aligned with the prints of what Cellbound last wrote
 * (rows.ts). Null when nothing was inserted or deleted, or it cannot tell (no prints, a write under way,
 * rows and columns both changed).
 */
export async function structureOf(
  p: LocalPlacement,
  current: Grid,
  held: Shape,
  prints: { rows: Uint32Array; cols: Uint32Array | null } | null,
): Promise<{ structure: Structure; changedRows: number[]; steps: RowStep[] } | null> {
  if (!prints || p.pending || prints.rows.length !== p.shape.rows) return null;
  const grid = current.slice(0, held.rows).map((row) => Array.from({ length: held.cols }, (_, c) => row[c] ?? ""));
  if (held.cols !== p.shape.cols) {
    // Columns inserted or deleted: aligned by their prints over the rows as they are.
    if (!prints.cols || held.rows !== p.shape.rows) return null;
    const steps = alignRows(prints.cols, await columnPrints(grid, held.cols));
    if (!steps || steps.some((s) => s.kind === "changed")) return null;
    const { inserted, deleted } = spansOf(steps);
    return { structure: { insertedRows: [], deletedRows: [], insertedCols: inserted, deletedCols: deleted }, changedRows: [], steps: [] };
  }
  const now = await rowPrints(grid.map((row) => row.slice(0, p.shape.cols)));
  const steps = alignRows(prints.rows, now);
  if (!steps || !steps.some((s) => s.kind === "inserted" || s.kind === "deleted")) return null;
  const { inserted, deleted } = spansOf(steps);
  const changedRows = steps.flatMap((s) => (s.kind === "changed" ? [s.now] : []));
  const movedRows = movesOf(steps, prints.rows, now);
  return {
    structure: {
      insertedRows: inserted,
      deletedRows: deleted,
      insertedCols: [],
      deletedCols: [],
      ...(movedRows.length ? { movedRows } : {}),
    },
    changedRows,
    steps,
  };
}

/**
 * The moved blocks of an alignment: a run of deleted rows whose prints are, in order, those of a run of
 * inserted rows (a block cut and inserted elsewhere; a sort shows as several). Each inserted run is
 * matched once.
 */
function movesOf(steps: readonly RowStep[], last: ArrayLike<number>, now: ArrayLike<number>): NonNullable<Structure["movedRows"]> {
  const deletedRuns: { at: number; rows: number[] }[] = [];
  const insertedRuns: number[][] = [];
  let position = 0;
  let previous: RowStep["kind"] | null = null;
  for (const s of steps) {
    if (s.kind === "deleted") {
      if (previous === "deleted") deletedRuns[deletedRuns.length - 1]!.rows.push(s.last);
      else deletedRuns.push({ at: position, rows: [s.last] });
    } else {
      if (s.kind === "inserted") {
        if (previous === "inserted") insertedRuns[insertedRuns.length - 1]!.push(s.now);
        else insertedRuns.push([s.now]);
      }
      position++;
    }
    previous = s.kind;
  }
  const used = new Set<number>();
  const moves: NonNullable<Structure["movedRows"]> = [];
  for (const d of deletedRuns) {
    const i = insertedRuns.findIndex(
      (run, k) => !used.has(k) && run.length === d.rows.length && run.every((r, j) => now[r] === last[d.rows[j]!]),
    );
    if (i < 0) continue;
    used.add(i);
    moves.push({ from: d.rows[0]!, to: insertedRuns[i]![0]!, count: d.rows.length, at: d.at });
  }
  return moves;
}

/** Inserted runs (where they are now) and deleted runs (where they were, as a position now) of an alignment. */
function spansOf(steps: readonly RowStep[]): { inserted: { from: number; to: number }[]; deleted: { at: number; count: number }[] } {
  const inserted = mergeRuns(steps.flatMap((s) => (s.kind === "inserted" ? [{ from: s.now, to: s.now }] : [])));
  const deleted: { at: number; count: number }[] = [];
  let now = 0;
  for (const s of steps) {
    if (s.kind === "deleted") {
      const last = deleted[deleted.length - 1];
      if (last && last.at === now) last.count++;
      else deleted.push({ at: now, count: 1 });
    } else now++;
  }
  return { inserted, deleted };
}

/**
 * The hand-edit report of a placement whose rows were inserted or deleted inside (issue 30): the inserted
 * rows and the changed ones (where they are now), each changed or inserted cell with what it holds now and
 * what a refresh would write there; the structure names the rest.
 */
export function structuralEdits(
  found: { structure: Structure; changedRows: number[]; steps: RowStep[] },
  current: Grid,
  incoming: Grid,
  lastWritten: Grid | undefined,
  anchor: Pick<Area, "sheetId" | "row" | "col">,
  held: Shape,
): HandEdits {
  const { cols, rows: rowsHeld } = held;
  const cells: CellDiff[] = [];
  let cellCount = 0;
  const rows = mergeRuns(
    [...found.changedRows, ...found.structure.insertedRows.flatMap((r) => Array.from({ length: r.to - r.from + 1 }, (_, i) => r.from + i))]
      .sort((a, b) => a - b)
      .map((r) => ({ from: r, to: r })),
  );
  const lastOf = new Map(found.steps.flatMap((s) => (s.kind === "changed" ? [[s.now, s.last] as const] : [])));
  for (const span of rows)
    for (let r = span.from; r <= span.to; r++)
      for (let c = 0; c < cols; c++) {
        const last = lastOf.get(r);
        const before = last === undefined ? "" : lastWritten?.[last]?.[c];
        const now = current[r]?.[c] ?? "";
        if (last !== undefined && lastWritten && now === (before ?? "")) continue;
        if (last === undefined && now === "") continue;
        cellCount++;
        if (cells.length < MAX_DIFF)
          cells.push({
            address: cellA1(anchor.row + r, anchor.col + c),
            lastWritten: lastWritten || last === undefined ? (before ?? "") : undefined,
            now,
            incoming: incoming[r]?.[c] ?? "",
            ...(last === undefined ? { inserted: true as const } : {}),
          });
      }
  // The cells a person typed into columns they inserted (issue 30): what they hold now, nothing written there.
  for (const span of found.structure.insertedCols)
    for (let r = 0; r < rowsHeld; r++)
      for (let c = span.from; c <= span.to; c++) {
        const now = current[r]?.[c] ?? "";
        if (now === "") continue;
        cellCount++;
        if (cells.length < MAX_DIFF)
          cells.push({
            address: cellA1(anchor.row + r, anchor.col + c),
            lastWritten: "",
            now,
            incoming: incoming[r]?.[c] ?? "",
            inserted: true,
          });
      }
  return {
    rows,
    ranges: rows.map((r) => areaA1({ row: anchor.row + r.from, col: anchor.col, rows: r.to - r.from + 1, cols })),
    cells,
    cellCount,
    structure: found.structure,
  };
}
