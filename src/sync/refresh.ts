// Refresh one placement: prepare (the query, concurrently) → read → plan → write (docs/SYNC.md
// "Refreshing one placement").
//
//   prepare  the report's answer, laid out and fingerprinted (no sheet: Refresh all runs these at once);
//   read     the session's snapshot: the placement's record, where it is, its cells (readRefresh);
//   plan     pure (refresh-plan.ts): the chunks to write, the cells to clear, or the outcome that ends it;
//   confirm  read before the query (ahead): one recheck of where the placement is and of the cells the
//            writes replace, in the round trip before the write (issue 36); changed → plan again;
//   write    one commit (journal, styles, cells anchored to the placement's name, clears, journal closed,
//            name), then the platform's record and the record's state (writeRefresh).
import type { Report } from "../api/index.ts";
import type { Area, SheetRef } from "../host/port.ts";
import { readArea, reportsById, trackingName, type SyncContext } from "./context.ts";
import { NoAccess, ViewOnly } from "./errors.ts";
import { chunkRows, differingChunks, fingerprintGrid, type Grid } from "./fingerprint.ts";
import { changedCells, formatsAt, jsonBytes, mergeKept, sameCells } from "./grids.ts";
import { refuseToWrite } from "./obstacles.ts";
import {
  areaAt,
  boundingBox,
  collisions,
  growthAreas,
  maxShape,
  neighbours,
  occupiedCells,
  offSheet,
  samePlace,
  sameShape,
  type Neighbour,
  type OccupiedCell,
  type Shape,
} from "./plan.ts";
import { boundReport } from "./bind.ts";
import { inputNamesOf } from "./inputs.ts";
import { notedAsRecorded, notedWhereNamed, noteCells } from "./cells-note.ts";
import { journal, recordRefresh } from "./record.ts";
import { planRefresh, type RefreshPlan, type RefreshRead } from "./refresh-plan.ts";
import { deploymentLabel, noAccessReason } from "./reasons.ts";
import { prepareReport, type PreparedReport } from "./run-report.ts";
import { isRefusal, refusedRecordReason, viewOnlyReason } from "./access.ts";
import { addCommitStats, type Session } from "./session.ts";
import { loadPlacements, placementArea, updatePlacement, type LocalPlacement } from "./state.ts";
import { movedFrom, storedAnswerPrints, storedRowPrints, storeRowPrints } from "./rows.ts";
import type { ChunkLayout } from "./answer-chunks.ts";
import type { Layout } from "./layout.ts";
import { isValuesOnly, restyleMoved, styleGrowth } from "./styling.ts";
import { planTable, refreshedTableArea, tableGrowth, undoEdits, unsorted, type TablePlan } from "./table.ts";
import type { Engine, PreparedRefresh, RefreshChoice, RefreshOutcome } from "./types.ts";

/**
 * Run the query and lay out the result (no sheet access: this part runs concurrently). `view`: the
 * session to read the placement's record from (default: the workbook now).
 */
export async function prepareRefresh(
  e: Engine,
  key: string,
  report?: Report,
  signal?: AbortSignal,
  view?: Session,
): Promise<PreparedRefresh> {
  const t0 = performance.now();
  const placement = await e.placement(key, view);
  const r = report ?? (await reportOf(e.ctx, placement, (await (view ?? e.ctx.port).identity()).workbookId, signal));
  // Inputs (issue 32): their values from the same read as the placement, checked before anything is written.
  const bound = await boundReport(dataOf(e.ctx, placement), placement, r, view ?? e.ctx.port, signal);
  const t1 = performance.now();
  const prepared = await prepareReport(dataOf(e.ctx, placement), bound.report, e.ctx.filterDefaults, signal);
  const layoutOf = () => (prepared.layout ? prepared.layout() : prepared.build().layout); // the decoded rows are not kept
  const prints = () => prepared.prints?.() ?? null;
  const base = { placement, source: prepared.source, cut: prepared.cut, layout: layoutOf, inputsUsed: bound.used, prints };
  // The same answer as the one last written and recorded: its grid is the committed one.
  if (prepared.source === placement.source && placement.committed !== null && placement.pending === null) {
    const timings = { reportMs: t1 - t0, queryAndLayoutMs: performance.now() - t1, fingerprintMs: 0 };
    return { ...base, incoming: placement.committed, shape: placement.shape, sameSource: true, timings };
  }
  // Issue 35 §3: a large answer over cells the host vouches for, laid out only where its rows changed.
  const chunks = await changedChunksOf(e, placement, prepared, view);
  if (chunks) {
    const timings = { reportMs: t1 - t0, queryAndLayoutMs: performance.now() - t1, fingerprintMs: 0 };
    return { ...base, incoming: chunks.incoming, shape: placement.shape, sameSource: false, chunks, prints: () => chunks.prints, timings };
  }
  const { cells, columnFormats } = layoutOf();
  const t2 = performance.now();
  const incoming = await fingerprintGrid(cells);
  const timings = { reportMs: t1 - t0, queryAndLayoutMs: t2 - t1, fingerprintMs: performance.now() - t2 };
  return { ...base, incoming, shape: { rows: cells.length, cols: columnFormats.length }, sameSource: false, timings };
}

/**
 * Refresh one placement. The workbook is read once, before the query (its record, tracking and the
 * placement's cells); before anything is written or cleared, where the placement is and the rows concerned
 * are read again and must be unchanged, otherwise the whole comparison is redone on a fresh read
 * (docs/SYNC.md "Read-ahead", "A write planned before a wait").
 */
export async function refresh(
  e: Engine,
  key: string,
  choice: RefreshChoice = "ask",
  o: { signal?: AbortSignal } = {},
): Promise<RefreshOutcome> {
  const t0 = performance.now();
  // Its cells and its inputs' cells (issue 32) in one read; not its cells where the host's note says what they hold (issue 35 §3).
  const noted = await notedBefore(e, key);
  const view = await e.session({
    trackedValues: [...(noted ? [] : [trackingName(key)]), ...inputNamesOf(key)],
    writeChecks: true,
    tables: true, // issue 33: a table placement's table, read in the same round trips
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const placement = await e.placement(key, view);
  if (e.viewOnly(placement.deploymentId)) throw new ViewOnly(viewOnlyReason()); // never written, never recorded
  const report = await reportOf(e.ctx, placement, (await view.identity()).workbookId, o.signal); // the query needs it: look it up first
  const reportMs = performance.now() - t0;
  const prepared = await prepareRefresh(e, key, report, o.signal, view);
  prepared.timings.reportMs += reportMs;
  return applyRefresh(e, prepared, choice, o.signal, view);
}

/**
 * Only the chunks of a large SQL answer whose rows changed since the placement was last written, laid out
 * (answer-chunks.ts): where the placement's cells carry the host's note of what it recorded (they then need
 * not be read to be known; otherwise every row is laid out, so none is laid out twice), it is recorded, not
 * under way and not a table, and what it was last written from is kept.
 */
async function changedChunksOf(
  e: Engine,
  p: LocalPlacement,
  prepared: PreparedReport,
  view: Session | undefined,
): Promise<ChunkLayout | null> {
  if (!prepared.changedChunks || !e.ctx.port.cellsNote || !p.committed || p.pending || p.table) return null;
  if (!(await notedWhereNamed(e.ctx.port, p, view ?? e.ctx.port))) return null;
  const was = await storedAnswerPrints(view ?? e.ctx.port, p.key, p.committed);
  return was && prepared.changedChunks(was, p.committed, p.shape);
}

/** Whether the host's note on the placement's cells says they hold what it recorded (cells-note.ts): then they are read only if needed. */
async function notedBefore(e: Engine, key: string): Promise<boolean> {
  const port = e.ctx.port;
  if (!port.cellsNote) return false;
  try {
    return await notedWhereNamed(port, await e.placement(key));
  } catch {
    return false; // the read below says what is wrong
  }
}

/** The placement's report as the platform lists it for this workbook; NoAccess when the user cannot read it. */
export async function reportOf(ctx: SyncContext, placement: LocalPlacement, workbookId: string, signal?: AbortSignal): Promise<Report> {
  let r = (await reportsById(ctx, placement.deploymentId, workbookId, signal)).get(placement.reportId);
  // A first placement interrupted before connect-workbook is not attached to the workbook yet.
  if (!r && !placement.placementId) r = (await reportsById(ctx, placement.deploymentId, undefined, signal)).get(placement.reportId);
  if (!r) throw new NoAccess(noAccessReason(placement, ctx));
  return r;
}

/** The data client of the placement's deployment (its own data token). */
export function dataOf(ctx: SyncContext, p: LocalPlacement): SyncContext["data"] {
  if (p.deploymentId === ctx.deploymentId) return ctx.data;
  const data = ctx.dataFor?.(p.deploymentId);
  if (!data) throw new NoAccess(`It belongs to ${deploymentLabel(p, ctx)}; open that deployment to refresh it.`);
  return data;
}

/**
 * Compare, plan and write (the single writer). `view`: the session read before the query (its cells
 * were read ahead of the lock); used when nothing of this engine wrote since, else the workbook is
 * read again. Writes of the placement go out as one commit, its record's state update as another.
 */
export function applyRefresh(
  e: Engine,
  prep: PreparedRefresh,
  choice: RefreshChoice,
  signal?: AbortSignal,
  view: Session | null = null,
): Promise<RefreshOutcome> {
  return e.exclusive(async () => {
    const s = await e.current(view, {
      trackedValues: [prep.placement.name],
      writeChecks: true,
      tables: true,
      ...(signal ? { signal } : {}),
    });
    // Read before the query (ahead): checked against the workbook as it is now before anything is written.
    const out = await applyOn(e, prep, choice, signal, s, s === view);
    // The record's state update. (After a failure nothing queued is sent: what was sent is a prefix
    // of the journal's order, as after any interruption.)
    await s.flush(signal);
    return out;
  }, signal);
}

/** read → plan → (confirm) → write, on session `s`; `ahead`: it was read before the query. */
async function applyOn(
  e: Engine,
  prepared: PreparedRefresh,
  choice: RefreshChoice,
  signal: AbortSignal | undefined,
  s: Session,
  ahead: boolean,
): Promise<RefreshOutcome> {
  const read = await readRefresh(e, prepared, s, ahead, signal);
  if (read.kind === "again") return planAgain(e, prepared, choice, signal);
  if (read.kind === "outcome") return read.outcome;
  const tPlan = performance.now();
  const plan = await planRefresh(read, choice, e.lastWritten.get(read.p.key), e.ctx.writeChunksPerCall ?? 4);
  if (plan.kind === "outcome") return plan.outcome;
  const compareMs = performance.now() - tPlan;
  let formatsNow: { box: Area; formats: string[][] } | null = null;
  if (ahead && (plan.touched.length > 0 || read.growth.length > 0)) {
    const c = await confirm(s, read, plan, signal);
    if (c.kind === "again") return planAgain(e, prepared, choice, signal);
    if (c.kind === "outcome") return c.outcome;
    formatsNow = c.formatsNow;
  }
  plan.stats.timings.compareMs = compareMs;
  return writeRefresh(e, s, read, plan, formatsNow, signal);
}

type ReadResult = ({ kind: "read" } & RefreshRead) | { kind: "again" } | { kind: "outcome"; outcome: RefreshOutcome };

/** The read phase: the record, where the placement is, room to grow (read under the lock), its cells. */
async function readRefresh(
  e: Engine,
  prepared: PreparedRefresh,
  s: Session,
  ahead: boolean,
  signal: AbortSignal | undefined,
): Promise<ReadResult> {
  const p = await e.placement(prepared.placement.key, s);
  // Recorded again since it was prepared (another refresh of it ran first): fingerprint the answer after all.
  const stale = prepared.sameSource && (p.source !== prepared.source || p.pending !== null || p.committed === null);
  const prep = stale ? await laidOut(prepared) : prepared;
  const tracked = await s.tracked();
  const t = placementArea(p, tracked, await s.sheets());
  if (!t)
    return { kind: "outcome", outcome: { kind: "missing", reason: "The placement's cells were deleted (its sheet or range is gone)." } };
  const anchor = { sheetId: t.area.sheetId, row: t.area.row, col: t.area.col };
  const named = tracked.some((x) => x.area && x.name.toLowerCase() === p.name.toLowerCase());
  const { shape: next } = prep;
  const old = p.shape;
  const beyond = offSheet(anchor, next);
  if (beyond)
    return {
      kind: "outcome",
      outcome: {
        kind: "cannotGrow",
        reason: `The new result does not fit where the placement is: ${beyond}.`,
        occupied: [],
        placements: [],
      },
    };
  // Room to grow: never into another placement, never over content. Read before the query (ahead), the
  // workbook is looked at again where the placement is now (confirm, issue 36 item 17).
  // What it covers now: its name's area, which rows inserted or deleted inside it grew or shrank (issue 30):
  // growth starts below it, and every cell of it the new result does not cover is cleared.
  const held: Shape = named ? { rows: t.area.rows, cols: t.area.cols } : old;
  // Issue 33: a table placement keeps its table whole — its columns are edited, its rows grow below it.
  const table = p.table ? planTable(p.table, s.tables, anchor, prep.layout()) : null;
  if (table === "moved") return { kind: "outcome", outcome: tableMoved(p) };
  const tp = table === "gone" ? null : table;
  const before = p.pending ? maxShape(held, p.pending.shape) : held;
  const growth = tp ? tableGrowth(anchor, before, next, tp.extra) : growthAreas(anchor, before, next);
  if (!ahead) {
    const grids: Grid[] = [];
    for (const g of growth) grids.push(await readArea(s, g, signal));
    const blocked = roomToGrow(next, growth, grids, neighbours(tracked, p.name, await loadPlacements(s)));
    if (blocked) return { kind: "outcome", outcome: blocked };
  }
  const pin = named ? { name: p.name, area: t.area } : undefined;
  // Issue 35 §3: the answer it recorded, over cells the host's note says hold it: nothing to read, compare or write.
  if (prep.sameSource && sameShape(next, held) && (await notedAsRecorded(e.ctx.port, p, t.area))) {
    const read = { p, prep, t, anchor, pin, old, held, next, growth, union: next, current: [], prints: null, table: null, noted: true };
    return { kind: "read", ...read, readMs: 0 };
  }
  const union = maxShape(maxShape(maxShape(old, next), p.pending?.shape ?? old), held);
  const unionArea = areaAt(anchor, union);
  await refuseToWrite(s, unionArea, t.sheet.name, () => (prep.chunks ?? prep.layout()).columnFormats, tp?.name); // issue 22: merged, table, protected, 1904
  const tRead = performance.now();
  const got = await readCurrent(e, s, { p, prep, t, unionArea }, ahead, signal);
  if (!got) return { kind: "again" };
  const prints = await storedRowPrints(s, p.key, p.committed);
  const cells = await sortedBack(tp, p, got.current, prints, anchor);
  const read = {
    p,
    prep,
    t,
    anchor,
    pin,
    old,
    held,
    next,
    growth,
    union,
    ...cells,
    prints,
    table: table === "gone" ? table : tp,
    chunked: got.chunked,
  };
  return { kind: "read", ...read, readMs: performance.now() - tRead };
}

/**
 * The placement's cells now, from its anchor in the union shape; null when it moved since it was read ahead
 * (plan again). Read before the query and not all there (it grows): read where the placement is now, once
 * (issue 36, item 17). Issue 35 §3: over cells the host's note says hold what was recorded, an answer of
 * the same shape is read back only in the chunks whose fingerprint it changes; every other chunk holds what
 * the answer holds there (the same fingerprint), so it is the answer's rows. `chunked`: the answer was laid
 * out only in the chunks its rows changed (prep.chunks), so the rows read are from the first of the chunks
 * whose fingerprint it changes to the last, and every other row of `current` is a hole.
 */
async function readCurrent(
  e: Engine,
  s: Session,
  at: { p: LocalPlacement; prep: PreparedRefresh; t: { area: Area; sheet: SheetRef }; unionArea: Area },
  ahead: boolean,
  signal: AbortSignal | undefined,
): Promise<{ current: Grid; chunked: boolean } | null> {
  const { p, prep, t, unionArea } = at;
  const same = !prep.sameSource && sameShape(prep.shape, p.shape) && sameShape(unionArea, p.shape);
  const chunked = same && prep.chunks && (await notedAsRecorded(e.ctx.port, p, t.area)) ? prep.chunks : null;
  const laid = chunked ? chunked.cells : same ? prep.layout().cells : null;
  const noted =
    chunked !== null ||
    (laid !== null && laid.every((row) => row.length === p.shape.cols) && (await notedAsRecorded(e.ctx.port, p, t.area)));
  const spans = noted ? differingChunks(prep.incoming, p.committed).map((i) => chunkRows(prep.incoming, i, p.shape.rows)) : [];
  const first = spans[0];
  const last = spans[spans.length - 1];
  const rowsAt = (r: { from: number; to: number }) => ({ ...unionArea, row: unionArea.row + r.from, rows: r.to - r.from + 1 });
  const areas = !noted ? [unionArea] : chunked ? (first && last ? [rowsAt({ from: first.from, to: last.to })] : []) : spans.map(rowsAt);
  const grids: Grid[] = [];
  if (ahead && areas.length && !areas.every((a) => s.holds(a))) {
    const r = await s.recheck({ areas, ...(signal ? { signal } : {}) });
    if (!samePlace(placementArea(p, r.tracked, r.sheets), t)) return null;
    grids.push(...r.values.map((v) => v.grid));
  } else for (const a of areas) grids.push(await readArea(s, a, signal));
  if (!noted) return { current: grids[0]!, chunked: false };
  const current = chunked ? new Array<Grid[number]>(laid!.length) : laid!.slice();
  areas.forEach((a, k) => grids[k]!.forEach((row, i) => (current[a.row - unionArea.row + i] = row)));
  return { current, chunked: chunked !== null };
}

/**
 * Read before the query: one look at the workbook as it is now (issue 36, items 3, 16, 17) — where the
 * placement and its sheet are, the rows it grows into, the cells about to be overwritten or cleared and
 * their number formats (the writes under keepFormats need them: no number into an "@" cell). Moved,
 * renamed or changed meanwhile: compare and plan again on a fresh read.
 */
async function confirm(
  s: Session,
  read: RefreshRead,
  plan: RefreshPlan,
  signal: AbortSignal | undefined,
): Promise<
  { kind: "again" } | { kind: "outcome"; outcome: RefreshOutcome } | { kind: "ok"; formatsNow: { box: Area; formats: string[][] } | null }
> {
  const { p, t, anchor, growth, next, current } = read;
  const box = plan.touched.length ? boundingBox(plan.touched) : null;
  const r = await s.recheck({ areas: [...(box ? [box] : []), ...growth], numberFormats: true, ...(signal ? { signal } : {}) });
  const seen = box ? r.values[0]! : null;
  const changed = seen && box && !sameCells(seen.grid, read.physical ?? current, box.row - anchor.row, box.col - anchor.col);
  if (!samePlace(placementArea(p, r.tracked, r.sheets), t) || changed) return { kind: "again" };
  const grids = r.values.slice(box ? 1 : 0).map((v) => v.grid);
  const blocked = roomToGrow(next, growth, grids, neighbours(r.tracked, p.name, await loadPlacements(s)));
  if (blocked) return { kind: "outcome", outcome: blocked };
  return { kind: "ok", formatsNow: seen?.numberFormats && box ? { box, formats: seen.numberFormats } : null };
}

/** Compare and plan a refresh again on a fresh read of the workbook (it changed while the data was fetched). */
async function planAgain(
  e: Engine,
  prep: PreparedRefresh,
  choice: RefreshChoice,
  signal: AbortSignal | undefined,
): Promise<RefreshOutcome> {
  const fresh = await e.session({ trackedValues: [prep.placement.name], writeChecks: true, tables: true, ...(signal ? { signal } : {}) });
  const out = await applyOn(e, prep, choice, signal, fresh, false);
  await fresh.flush(signal);
  return out;
}

/** The write phase: one commit of what the plan says, then the platform's record. */
async function writeRefresh(
  e: Engine,
  s: Session,
  read: RefreshRead,
  plan: RefreshPlan,
  formatsNow: { box: Area; formats: string[][] } | null,
  signal: AbortSignal | undefined,
): Promise<RefreshOutcome> {
  const { p, prep, anchor, pin, old, next, t } = read;
  const { stats, calls, leftovers, keptRows, edits } = plan;
  const tWrite = performance.now();
  const laid = () => laidFor(read);
  const cells = () => laid().cells;
  const writes = await journalIntent(s, read, plan);
  const table = read.table && read.table !== "gone" ? read.table : null;
  // Issue 33: the table's columns first, so the person's columns at its right move with theirs before the cells land.
  if (table?.edits.length) await s.commit([{ kind: "tableColumns", table: table.name, edits: table.edits }]);
  // Formats: grown rows/columns get theirs first; the values keep whatever format a cell has (styling.ts).
  const styled = !(await isValuesOnly(s, p.key));
  if ((next.rows > old.rows || next.cols > old.cols) && styled) await styleGrowth(s, anchor, old, next, prep.layout(), pin, table !== null);
  const starts = prep.incoming.chunks.map((c) => c.from);
  for (const run of calls) {
    stats.cellsChanged += changedCells(cells(), plan.currentShaped, run.from, run.to);
    await journal(s, p.key, { inFlight: run });
    const w = await s.write(
      { sheetId: anchor.sheetId, row: anchor.row + run.from, col: anchor.col },
      cells().slice(run.from, run.to + 1),
      {
        columnFormats: laid().columnFormats,
        keepFormats: true,
        breakRows: starts.filter((r) => r > run.from && r <= run.to).map((r) => r - run.from),
        ...formatsAt(formatsNow, anchor.row + run.from, anchor.col, run.to - run.from + 1, next.cols),
      },
      { anchor: pin },
    );
    stats.cellsWritten += w.cells;
    stats.bytes += jsonBytes(cells(), run.from, run.to);
  }
  for (const piece of leftovers) {
    await s.clear(piece, pin);
    stats.cellsCleared += piece.rows * piece.cols;
  }
  // Rows or columns inserted inside and written over: the report's number formats and header style, as placed (issue 30).
  if (edits?.structure && !plan.keep && styled) await restyleMoved(s, anchor, prep.layout(), movedFrom(edits.structure), pin);
  const notices = await keepTable(s, read, writes, pin);
  if (writes) {
    await journal(s, p.key, { phase: "written", inFlight: null });
    // Issue 30: an inserted row is named as one; issue 35 §3: a large one keeps what its chunks were laid out from.
    await storeRowPrints(s, p.key, cells(), prep.incoming, prep.prints?.() ?? null);
  }
  const area = await sendRefresh(s, read, signal, stats, plan.keepsHeld);
  const lastWritten = keepLastWritten(e, read, plan);
  // All of the area holds the answer now (not Keep my edits, not a table): a host that keeps notes on cells keeps
  // this one (issue 35 §3). Before the record: a host saves the cells before it (the command line); a record that
  // fails leaves the placement pending, which the note does not vouch for.
  if (!plan.keep && !read.table && !read.noted) await noteCells(e.ctx.port, area, prep.incoming);
  const sheet = (await s.sheets()).find((x) => x.id === t.sheet.id) ?? t.sheet; // as named now (issue 36, item 16)
  const tRecord = performance.now();
  stats.timings.writeMs = tRecord - tWrite;
  try {
    await recordRefresh(e.ctx, s, p, prep.incoming, prep.source, area, sheet, signal, keptRows.length > 0);
    // The input values it was written with (issue 32): the card's "Inputs changed" compares with them.
    if (prep.inputsUsed && prep.inputsUsed !== p.inputsUsed)
      await updatePlacement(s, p.key, (x) => ({ ...x, inputsUsed: prep.inputsUsed }));
  } catch (err) {
    if (!isRefusal(err)) throw err;
    throw await rollBack(e, s, read, lastWritten, signal);
  }
  stats.timings.recordMs = performance.now() - tRecord;
  if (edits && plan.keep) return { kind: "kept", stats, edits };
  if (plan.state.kind === "unrecorded" || plan.state.kind === "interrupted")
    notices.unshift("An earlier refresh of this placement was interrupted after writing; it is now complete.");
  return { kind: "refreshed", stats, notices: prep.cut ? [...notices, prep.cut.message] : notices };
}

/** Keep the grid the cells now hold as the last written (`e.lastWritten`); what it was before. */
function keepLastWritten(e: Engine, read: RefreshRead, plan: RefreshPlan): Grid | undefined {
  const { p, prep } = read;
  const { calls, keptRows } = plan;
  const lastWritten = e.lastWritten.get(p.key);
  const cells = () => laidFor(read).cells;
  // Same source and nothing written: the cells last written are unchanged (and were never laid out).
  if (read.chunked)
    e.lastWritten.delete(p.key); // the rows of the chunks not laid out are not in memory
  else if (!(prep.sameSource && calls.length === 0 && keptRows.length === 0)) {
    e.lastWritten.set(p.key, keptRows.length && lastWritten ? mergeKept(cells(), lastWritten, keptRows) : cells());
    // Rows moved by hand and kept: what was last written is no longer where it was (the row prints name them).
    if (keptRows.length && (!lastWritten || plan.keepsHeld)) e.lastWritten.delete(p.key);
  }
  return lastWritten;
}

/** The answer's cells and formats a read plans with: only the chunks laid out when it was read so (readCurrent). */
function laidFor(read: Pick<RefreshRead, "prep" | "chunked">): Pick<Layout, "cells" | "columnFormats"> {
  return read.chunked && read.prep.chunks ? read.prep.chunks : read.prep.layout();
}

/**
 * Journal the write's intent before its first cell (docs/SYNC.md "The write journal"); false: nothing to
 * write, the same shape and not Keep my edits, so no journal and nothing sent. A new shape re-points the name even when every
 * chunk keeps a person's edit (Keep my edits), so it is journalled like a write: a record that fails then is
 * finished by check, never read as the whole new area edited by hand.
 */
async function journalIntent(s: Session, read: RefreshRead, plan: RefreshPlan): Promise<boolean> {
  const { p, prep, old, next } = read;
  // Keep my edits is journalled even when it writes nothing: its record, made but unanswered, is then finished by
  // check (issue 30, journeys seed 30001), never left with the platform's fingerprint not the workbook's.
  const writes = plan.calls.length > 0 || plan.leftovers.length > 0 || old.rows !== next.rows || old.cols !== next.cols || plan.keep;
  if (writes)
    await updatePlacement(s, p.key, (x) => ({
      ...x,
      pending: {
        checksum: prep.incoming,
        shape: next,
        at: new Date().toISOString(),
        source: prep.source,
        phase: "writing",
        inFlight: null,
        ...(plan.clears.length ? { clears: plan.clears } : {}),
        ...(plan.carried.length ? { carried: plan.carried } : {}),
        ...(plan.edits && plan.keep ? { kept: true } : {}),
        ...(plan.keepsHeld ? { holds: keptArea(read) } : {}),
      },
    }));
  return writes;
}

/** What the name covers after Keep my edits over rows or columns moved inside (issue 30): all it holds. */
function keptArea(read: RefreshRead): Shape {
  return { rows: read.held.rows, cols: Math.max(read.held.cols, read.next.cols) };
}

/**
 * Re-track the name to the new area, send the commit; when the name was elsewhere when it was re-pointed
 * (rows inserted above in the last round trip: the writes followed it), put the name where the placement is.
 * The placement's area as recorded.
 */
async function sendRefresh(
  s: Session,
  read: RefreshRead,
  signal: AbortSignal | undefined,
  stats: { syncs: number; maxSyncBytes: number },
  kept = false,
): Promise<Area> {
  const { p, anchor, pin, next } = read;
  let area = areaAt(anchor, next);
  // Keep my edits over rows inserted or deleted inside (issue 30): the name keeps covering what the placement holds.
  const held = kept ? keptArea(read) : next;
  await s.track(p.name, areaAt(anchor, held), pin?.area); // nothing is sent when the name already covers the area
  let sent = await s.flush(signal);
  const moved = sent.moved?.find((m) => m.name.toLowerCase() === p.name.toLowerCase());
  if (moved) {
    if (!moved.found) throw new Error(`The cells of “${p.reportName ?? "the report"}” were deleted while it was being refreshed.`);
    area = areaAt(moved.found, next);
    await s.track(p.name, areaAt(moved.found, held));
    sent = addCommitStats(sent, await s.flush(signal));
  }
  stats.syncs = sent.syncs;
  stats.maxSyncBytes = sent.maxSyncBytes;
  return area;
}

/**
 * The platform refused to record a refresh whose cells were written (a 403: the role changed
 * mid-refresh, or was never known): put back the cells read before the write (from the anchor, in the
 * union shape), the tracked area and the journal as they were, and say so in words. The deployment is
 * view only from then on (access.ts).
 */
async function rollBack(e: Engine, s: Session, read: RefreshRead, lastWritten: Grid | undefined, signal?: AbortSignal): Promise<ViewOnly> {
  const { p, anchor, current, t } = read;
  e.refusedIn(p.deploymentId);
  const table = read.table && read.table !== "gone" ? read.table : null;
  try {
    // Issue 33: the table's columns back first, so the cells read before land where they were; then its rows.
    if (table?.edits.length)
      await s.commit([{ kind: "tableColumns", table: table.name, edits: undoEdits(table.edits, table.was.columns) }]);
    if (read.chunked) {
      // Only the rows read were written over (readCurrent): they go back.
      const rows = current.flatMap((row, r) => (row ? [r] : []));
      if (rows.length)
        await s.write({ ...anchor, row: anchor.row + rows[0]! }, current.slice(rows[0]!, rows[rows.length - 1]! + 1), {
          keepFormats: true,
        });
    } else if (!read.noted) await s.write(anchor, read.physical ?? current, { keepFormats: true }); // noted: none read, none written
    if (table) await s.commit([{ kind: "table", table: table.name, area: table.was.area }]);
    await s.track(p.name, t.area);
    await updatePlacement(s, p.key, (x) => ({ ...x, pending: p.pending, table: p.table }));
    await s.flush(signal);
    if (lastWritten) e.lastWritten.set(p.key, lastWritten);
    else e.lastWritten.delete(p.key);
    return new ViewOnly(refusedRecordReason(p.reportName, true));
  } catch {
    return new ViewOnly(refusedRecordReason(p.reportName, false));
  }
}

/**
 * Issue 33: after the cells, the table covers the report's rows again (resized; its sort and filter applied again)
 * and the record keeps its name and columns. A table no longer there: the placement goes on as cells, said once.
 */
async function keepTable(s: Session, read: RefreshRead, writes: boolean, pin: RefreshRead["pin"]): Promise<string[]> {
  const { p, anchor, next } = read;
  if (read.table === "gone") {
    await updatePlacement(s, p.key, (x) => ({ ...x, table: undefined }));
    return [
      `The Excel table “${p.table?.name ?? ""}” is no longer there (converted to a range or deleted): “${p.reportName ?? "the report"}” was refreshed as cells. Place it again as a table to have one.`,
    ];
  }
  const t = read.table;
  if (!t) return [];
  const area = refreshedTableArea(t, anchor, next);
  if (writes || t.edits.length)
    await s.commit([{ kind: "table", table: t.name, area, reapply: t.reapply || t.sorted, ...(pin ? { anchor: pin } : {}) }]);
  if (JSON.stringify(t.record) !== JSON.stringify(p.table)) await updatePlacement(s, p.key, (x) => ({ ...x, table: t.record }));
  return [];
}

/**
 * A table the person sorted holds the rows written in another order: their view, not edits (issue 33). `current`
 * is then the rows in the order written (what the fingerprints compare), `physical` as they are on the sheet.
 */
async function sortedBack(
  tp: TablePlan | null,
  p: LocalPlacement,
  current: Grid,
  prints: RefreshRead["prints"],
  anchor: Pick<Area, "row">,
): Promise<{ current: Grid; physical?: Grid }> {
  const back = tp && !p.pending ? await unsorted(current, prints?.rows ?? null, p.shape, tp.headerRow - anchor.row + 1) : null;
  if (!tp || !back) return { current };
  tp.sorted = true;
  return { current: back, physical: current };
}

/** The answer's header row is not the table's any more (its applied-filters summary changed its number of lines). */
function tableMoved(p: LocalPlacement): RefreshOutcome {
  return {
    kind: "cannotGrow",
    reason: `The lines above the Excel table “${p.table?.name ?? ""}” (the report's applied filters) changed in number, and a table's header row cannot move: nothing was changed. Convert the table to a range (Table Design › Convert to Range), then refresh.`,
    occupied: [],
    placements: [],
  };
}

/** A prepared refresh with its grid laid out and fingerprinted. */
async function laidOut(prep: PreparedRefresh): Promise<PreparedRefresh> {
  const { cells, columnFormats } = prep.layout();
  return { ...prep, sameSource: false, incoming: await fingerprintGrid(cells), shape: { rows: cells.length, cols: columnFormats.length } };
}

/** Cannot grow: the rows and columns a result grows into belong to another placement or hold content (read in `grids`). */
export function roomToGrow(
  next: Shape,
  growth: readonly Area[],
  grids: readonly Grid[],
  others: readonly Neighbour[],
): RefreshOutcome | null {
  const hit = collisions(growth, others);
  if (hit.length)
    return {
      kind: "cannotGrow",
      reason: `The new result needs ${next.rows} × ${next.cols} cells, but the cells it would grow into belong to ${hit.map((h) => h.label).join(", ")}.`,
      occupied: [],
      placements: hit.map((h) => h.label),
    };
  const occupied: OccupiedCell[] = growth.flatMap((g, i) => occupiedCells(g, grids[i] ?? [], 0, []));
  if (!occupied.length) return null;
  return {
    kind: "cannotGrow",
    reason: `The new result needs ${next.rows} × ${next.cols} cells, but ${occupied.length} cell(s) it would grow into hold other content (${occupied
      .slice(0, 5)
      .map((c) => c.address)
      .join(", ")}${occupied.length > 5 ? ", …" : ""}).`,
    occupied,
    placements: [],
  };
}
