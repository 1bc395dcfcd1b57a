// Place a report: read → plan → write (docs/SYNC.md "Placing a report").
//
//   read   one snapshot: the target's cells, what refuses a write there, other placements, frozen rows;
//   plan   the target is clear (checkTarget), or the outcome says why not (collides, wouldOverwrite);
//   write  one commit: journal, tracking name, cells (guarded: the target must still hold what was read),
//          journal closed, styles; then connect-workbook and the record's state.
// A large flat report is written page by page as it arrives (PagedPlacement, "First rows early"); a write
// that meets a person's newer cells is taken back and the person asked again (undoPlacement, issue 36).
import type { Report } from "../api/index.ts";
import { areaA1, cellA1, MAX_ROWS } from "../host/a1.ts";
import type { Area, CellConflict, SheetRef, SheetValue } from "../host/port.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import { CHECKSUM_VERSION, CHUNK_ROWS, GridHasher, ready as hashReady } from "../checksum/index.ts";
import { platformAddress, randomKey, readArea, trackingName } from "./context.ts";
import { CannotPlaceAsTable, DoesNotFit, ViewOnly } from "./errors.ts";
import { fingerprintGrid, type Grid } from "./fingerprint.ts";
import type { Layout } from "./layout.ts";
import { refuseOverLimits } from "./limits.ts";
import { refuseToWrite } from "./obstacles.ts";
import { areaAt, collisions, neighbours, occupiedCells, offSheet, overlaps, type OccupiedCell, type Shape } from "./plan.ts";
import { noteCells } from "./cells-note.ts";
import { connectNewPlacement, ensureReport, journal } from "./record.ts";
import { MAX_PLACED_ROWS, runReport, streamReport, type ReportStream, type RowCut, type RunOutput } from "./run-report.ts";
import { isRefusal, viewerRule } from "./access.ts";
import type { Session } from "./session.ts";
import { addPlacement, loadPlacements, updatePlacement, type LocalPlacement, type PendingWrite } from "./state.ts";
import { forgetRowPrints, storeRowPrints } from "./rows.ts";
import type { AnswerPrints } from "./answer-chunks.ts";
import { forgetStyle, setValuesOnly, stylePlaced } from "./styling.ts";
import type { Engine, PlaceOptions, PlaceOutcome } from "./types.ts";
import { bindForPlace, trackInputs, untrackInputs } from "./bind.ts";
import { CannotBind, type BoundInputs } from "./inputs.ts";
import { TABLE_STYLE, tableNameFor } from "./table.ts";
import type { TableRecord } from "./table-record.ts";
import type { UpsertOutcome } from "./upsert.ts";

type At = Pick<Area, "sheetId" | "row" | "col">;

/** Rows per style command when a streamed placement's column changes format (about 1 MB a request). */
const RESTYLE_ROWS = 100_000;

export async function place(e: Engine, report: Report, o: PlaceOptions = {}): Promise<PlaceOutcome> {
  const { ctx } = e;
  // Where the user chose: the cell selected when Place was pressed, read before the data is
  // fetched (a click elsewhere while the query runs must not move the report).
  const at = o.at ?? (await ctx.port.selection()).area;
  if (e.viewOnly(ctx.deploymentId)) throw new ViewOnly(viewerRule(ctx.deploymentNames?.(ctx.deploymentId) ?? ctx.deploymentName));
  // The platform's limits per workbook, from what was last seen of it (nothing is read; limits.ts).
  refuseOverLimits(e, { deploymentId: ctx.deploymentId, reportId: report.id, name: report.name });
  // A large flat report arrives in pages: its first rows are written while the others arrive (issue 20 §2).
  // Inputs (issue 32): bound, read and checked before the query; the query runs with their values.
  let runnable: Report = report;
  if (o.inputs?.length) {
    const b = await bindForPlace(e, report, (ctx.newKey ?? randomKey)(), o.inputs, o.signal);
    runnable = b.report;
    o = { ...o, bound: b.bound };
  }
  const stream = await streamReport(ctx.data, runnable, ctx.filterDefaults, o.signal);
  if (stream?.more) {
    const placed = await e.exclusive(() => placeStreamed(e, report, at, stream, o), o.signal);
    if (placed) return placed;
  }
  const run = stream ? await drained(stream) : await runReport(ctx.data, runnable, ctx.filterDefaults, o.signal);
  return e.exclusive(() => placeWhole(e, report, at, run, o), o.signal);
}

/** Place a grid known in full (call under the lock). */
async function placeWhole(
  e: Engine,
  report: Report,
  at: At,
  { layout, source, cut, prints }: { layout: Layout; source: string; cut: RowCut | null; prints?: AnswerPrints | null },
  o: PlaceOptions,
): Promise<PlaceOutcome> {
  const shape: Shape = { rows: layout.cells.length, cols: layout.columnFormats.length };
  refuseOffSheet(report.name, at, shape); // issue 36 (4): said in words, before anything is read or written
  refusePivotTable(report, layout, o);
  const target = areaAt(at, shape);
  // read: state, tracking, the target's cells, the sheet's frozen rows, its columns' widths (the fit).
  const s = await e.session({
    areas: [target],
    frozenRows: [at.sheetId],
    columnWidths: [target],
    writeChecks: true,
    ...(o.asTable ? { tables: true } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  // plan
  const checked = await checkTarget(e, s, at, target, layout, o);
  if (checked.kind !== "clear") return checked;
  const { sheet, before, occupied } = checked;
  const table = o.asTable ? await newTable(s, report, layout) : undefined;
  // The report first: a permanent upsert failure (ambiguous legacy id…) leaves the sheet untouched.
  const up = await ensureReport(e.ctx, report, o.signal);
  const fp = await fingerprintGrid(layout.cells);
  const local = newRecord(e, up, sheet, target, fp, shape, source, o.bound, table);
  // write: journal and track before the first cell (first in the commit): an interrupted first placement
  // is found and resumed by a refresh.
  await addPlacement(s, local);
  if (o.bound) await trackInputs(s, o.bound);
  if (o.valuesOnly) await setValuesOnly(s, local.key, true);
  await s.track(local.name, target);
  // Guarded (issue 36, item 1): the platform call above can take seconds; the write's own sync checks
  // that the target still holds what the check saw, and a person's newer cells are put back (undoPlacement).
  await s.write(
    at,
    layout.cells,
    {
      columnFormats: layout.columnFormats,
      breakRows: fp.chunks.map((c) => c.from),
      keepFormats: o.valuesOnly === true,
      ...(o.onProgress ? { onProgress: (done: number, total: number) => o.onProgress!(done, total, true) } : {}),
    },
    { guard: { expect: occupied.length ? before : "empty" } },
  );
  return finishPlacement(e, s, report, up, local, { at, target, sheet, layout, fp, cut, before, occupied, prints: prints ?? null }, o);
}

/**
 * Place a grid whose rows arrive in pages (call under the lock): the first page is written as soon as
 * it is in, each further page in its own commit, journalled like a growing write (state.ts): the
 * record's shape and `pending` cover the rows written so far, and the rows of the commit under way
 * are `inFlight`, so an interruption reads "Interrupted — finish", never a hand edit.
 * Writing before the height is known needs the rows below the first page free to the most rows a
 * placement holds: nothing in them (values or formulas), no other placement, nothing that refuses a
 * write. When they are not, null: the caller waits for every row and places the whole grid (which
 * asks before overwriting, as always).
 */
async function placeStreamed(e: Engine, report: Report, at: At, stream: ReportStream, o: PlaceOptions): Promise<PlaceOutcome | null> {
  const head = stream.head;
  refusePivotTable(report, head, o);
  const target = areaAt(at, { rows: head.cells.length, cols: head.columnFormats.length });
  // read: the first page's target, and whether the rows below it are free (values not read).
  const s = await roomBelow(e, at, target, head, o);
  if (!s) return null;
  const checked = await checkTarget(e, s, at, target, head, o);
  if (checked.kind !== "clear") return checked;
  if (o.asTable) o = { ...o, table: await newTable(s, report, head) };
  const up = await ensureReport(e.ctx, report, o.signal);
  // write: page by page.
  await hashReady();
  const pages = new PagedPlacement(e, s, report, up, checked, at, stream, o);
  await pages.step(false);
  for await (const rows of stream.rest()) {
    if (pages.refused) break;
    pages.add(rows);
    await pages.step(false);
  }
  if (pages.refused) return pages.refused;
  const run = await stream.finish();
  await pages.step(true);
  if (pages.refused) return pages.refused;
  const { local, whole, fp } = await pages.close(run);
  return finishPlacement(
    e,
    s,
    report,
    up,
    local,
    {
      at: pages.top,
      target: whole,
      sheet: checked.sheet,
      layout: run.layout,
      fp,
      cut: run.cut,
      prints: run.prints ?? null,
      before: checked.before,
      occupied: checked.occupied,
    },
    o,
  );
}

/**
 * The session a streamed placement writes in, when the rows below its first page are free to the most
 * rows a placement holds; null when they are not (or the sheet's end caps them: issue 36, item 4).
 */
async function roomBelow(e: Engine, at: At, target: Area, head: Layout, o: PlaceOptions): Promise<Session | null> {
  const maxRows = e.ctx.filterDefaults?.maxRows ?? MAX_PLACED_ROWS;
  const wanted = head.headerRows + maxRows - head.cells.length;
  const bandRows = Math.min(MAX_ROWS - (target.row + target.rows), wanted);
  if (bandRows < 1 || bandRows < wanted) return null;
  const band: Area = { sheetId: at.sheetId, row: target.row + target.rows, col: at.col, rows: bandRows, cols: target.cols };
  const s = await e.session({
    areas: [target],
    usedIn: [band],
    frozenRows: [at.sheetId],
    columnWidths: [target],
    writeChecks: true,
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const below = (await s.usedArea(band)) !== null || (await s.obstacles(band)).length > 0;
  if (below || collisions([band], neighbours(await s.tracked(), null, await loadPlacements(s))).length > 0) return null;
  return s;
}

/** A large placement being written as its pages arrive (placeStreamed). */
class PagedPlacement {
  /** The grid so far, its fingerprint over whole chunks (fed as rows are written), and the rows written. */
  private readonly cells: SheetValue[][];
  private readonly hasher = new GridHasher();
  private written = 0;
  /** Per column: the format its rows were written with, and the rows written before it last changed. */
  private readonly writtenWith: Array<string | null>;
  private readonly restyle: number[];
  private local: LocalPlacement | null = null;
  private final: ResultChecksum | null = null;
  private readonly cols: number;
  /** Where the placement is: its first cell, followed when rows are inserted above it meanwhile (issue 36, item 15). */
  top: At;
  /** Set when a person's cells were found where a page was written: the placement was taken back. */
  refused: PlaceOutcome | null = null;

  constructor(
    private readonly e: Engine,
    private readonly s: Session,
    private readonly report: Report,
    private readonly up: UpsertOutcome,
    private readonly checked: { sheet: SheetRef; before: Grid; occupied: OccupiedCell[] },
    at: At,
    private readonly stream: ReportStream,
    private readonly o: PlaceOptions,
  ) {
    const head = stream.head;
    this.cells = [...head.cells];
    this.cols = head.columnFormats.length;
    this.writtenWith = [...head.columnFormats];
    this.restyle = head.columnFormats.map(() => 0);
    this.top = { sheetId: at.sheetId, row: at.row, col: at.col };
  }

  add(rows: readonly SheetValue[][]): void {
    this.cells.push(...rows);
  }

  /** Write the rows in so far (whole chunks, or all of them when `last`) as one journalled commit. */
  async step(last: boolean): Promise<void> {
    const upTo = last ? this.cells.length : Math.floor(this.cells.length / CHUNK_ROWS) * CHUNK_ROWS; // a chunk is written whole
    if (upTo <= this.written || this.refused) return;
    const shape: Shape = { rows: upTo, cols: this.cols };
    this.hasher.rows(this.cells.slice(this.written, upTo));
    // No whole-grid payload before the end: the chunks so far.
    const partial: ResultChecksum = last ? (this.final = this.hasher.finish()) : { v: CHECKSUM_VERSION, chunks: this.hasher.chunksSoFar() };
    const local = await this.journalPage(shape, partial, last);
    await this.writePage(local, upTo, partial, last);
    await this.s.track(
      local.name,
      areaAt(this.top, shape),
      this.written === 0 ? undefined : areaAt(this.top, { rows: this.written, cols: this.cols }),
    );
    const sent = await this.s.flush(this.o.signal);
    if (sent.cellConflicts?.length) {
      this.refused = await undoPlacement(
        this.e,
        this.s,
        local,
        areaAt(this.top, shape),
        null,
        sent.cellConflicts,
        this.stream.head,
        this.o,
      );
      return;
    }
    const moved = sent.moved?.find((m) => m.name.toLowerCase() === local.name.toLowerCase());
    if (moved) {
      // Rows were inserted above (or the sheet renamed) while the page was on its way: the page followed the
      // name; the name itself was re-pointed where it had been. Put it where the placement is.
      if (!moved.found) throw new Error(`The cells of “${this.report.name}” were deleted while it was being placed.`);
      this.top = { sheetId: moved.found.sheetId, row: moved.found.row, col: moved.found.col };
      await this.s.track(local.name, areaAt(this.top, shape));
      await this.s.flush(this.o.signal);
    }
    this.written = upTo;
  }

  /** The journal of this page's commit: the record's shape and `pending` cover the rows written so far. */
  private async journalPage(shape: Shape, partial: ResultChecksum, last: boolean): Promise<LocalPlacement> {
    const inFlight = { from: this.written, to: shape.rows - 1 };
    const more = last ? {} : { partial: true };
    if (!this.local) {
      const local: LocalPlacement = {
        ...newRecord(this.e, this.up, this.checked.sheet, areaAt(this.top, shape), partial, shape, null, this.o.bound, this.o.table),
        pending: { checksum: partial, shape, at: new Date().toISOString(), source: null, phase: "writing", inFlight, ...more },
      };
      await addPlacement(this.s, local);
      if (this.o.bound) await trackInputs(this.s, this.o.bound);
      if (this.o.valuesOnly) await setValuesOnly(this.s, local.key, true);
      return (this.local = local);
    }
    await updatePlacement(this.s, this.local.key, (p) => ({
      ...p,
      shape,
      pending: p.pending ? { ...withoutPartial(p.pending), checksum: partial, shape, phase: "writing", inFlight, ...more } : p.pending,
    }));
    return this.local;
  }

  /**
   * The page's cells. The first page goes where the check looked; each later one where the placement's name
   * is when it is written (anchored), into rows that must still be empty (guarded): the rows below were
   * checked once, before the first page, and a page arrives from the network seconds later (issue 36).
   */
  private async writePage(local: LocalPlacement, upTo: number, partial: ResultChecksum, last: boolean): Promise<void> {
    const from = this.written;
    const rows = this.cells.slice(from, upTo);
    const formats = this.stream.formats();
    formats.forEach((f, c) => {
      if (f === this.writtenWith[c]) return;
      this.restyle[c] = from;
      this.writtenWith[c] = f;
    });
    const before = from === 0 ? null : areaAt(this.top, { rows: from, cols: this.cols });
    const { before: headBefore, occupied } = this.checked;
    const guard = from === 0 && occupied.length ? { expect: headBefore } : { expect: "empty" as const };
    const { onProgress } = this.o;
    const known = () => !this.stream.more || last;
    await this.s.write(
      { sheetId: this.top.sheetId, row: this.top.row + from, col: this.top.col },
      rows,
      {
        columnFormats: formats,
        breakRows: partial.chunks.map((c) => c.from - from).filter((r) => r > 0 && r < rows.length),
        keepFormats: this.o.valuesOnly === true,
        ...(onProgress ? { onProgress: (done: number) => onProgress(from + done, this.cells.length, known()) } : {}),
      },
      { guard, ...(before ? { anchor: { name: local.name, area: before } } : {}) },
    );
  }

  /** After the last page: the record's shape and fingerprint are the whole grid's; earlier rows get a format settled later. */
  async close(run: RunOutput & { source: string }): Promise<{ local: LocalPlacement; whole: Area; fp: ResultChecksum }> {
    const layout = run.layout;
    const shape: Shape = { rows: layout.cells.length, cols: this.cols };
    const fp = this.final ?? this.hasher.finish(); // every row was written before the last page: nothing left to hash
    const whole = areaAt(this.top, shape);
    const local = this.local;
    if (!local) throw new Error("placeStreamed: nothing was written"); // unreachable: the first page has rows
    await updatePlacement(this.s, local.key, (p) => ({
      ...p,
      shape,
      pending: p.pending ? { ...withoutPartial(p.pending), checksum: fp, shape, source: run.source } : p.pending,
    }));
    // A later page can settle a column's format otherwise (whole numbers, then a fraction): the rows
    // written before then get the column's format, in blocks that keep each request small.
    if (!this.o.valuesOnly)
      for (const [c, end] of this.restyle.entries())
        for (let r = layout.headerRows; r < end; r += RESTYLE_ROWS) {
          const area = { ...this.top, row: this.top.row + r, col: this.top.col + c, rows: Math.min(RESTYLE_ROWS, end - r), cols: 1 };
          await this.s.style(area, { columnFormats: [layout.columnFormats[c] ?? "General"] }, { name: local.name, area: whole });
        }
    return { local: { ...local, shape }, whole, fp };
  }
}

/**
 * The checks before a placement writes anything: the sheet, other placements, obstacles, content.
 * A confirmed overwrite covers what the question showed (e.asked): a cell typed or changed there since
 * the question — while the person read it, or while this placement's data was on its way — is asked
 * about again, never overwritten unseen. Without a question on record in this engine (a caller that
 * confirms up front), confirmed overwrites what is there.
 */
async function checkTarget(
  e: Engine,
  s: Session,
  at: At,
  target: Area,
  layout: Layout,
  o: PlaceOptions,
): Promise<
  | { kind: "clear"; sheet: SheetRef; before: SheetValue[][]; occupied: OccupiedCell[] }
  | Extract<PlaceOutcome, { kind: "collides" | "wouldOverwrite" }>
> {
  const sheet = (await s.sheets()).find((x) => x.id === at.sheetId);
  if (!sheet) throw new Error("The target sheet no longer exists.");
  const targetA1 = `${sheet.name}!${areaA1(target)}`;
  const hit = collisions([target], neighbours(await s.tracked(), null, await loadPlacements(s)));
  if (hit.length) return { kind: "collides", target: targetA1, placements: hit.map((h) => h.label) };
  // Its own input cells (issue 32): the report would write over the values it is filtered by.
  if (o.bound?.planned.some((pb) => pb.areas.some((a) => overlaps(a, target))))
    throw new CannotBind(`${targetA1} holds this report's own input cells: place it elsewhere, or bind cells outside it.`);
  await refuseToWrite(s, target, sheet.name, () => layout.columnFormats); // issue 22: merged, table, protected, 1904
  const before = await readArea(s, target, o.signal);
  const occupied = occupiedCells(target, before, 0, []);
  const key = askedKey(at);
  const shown = o.confirmed ? e.asked.get(key) : undefined;
  if (occupied.length > 0 && (!o.confirmed || (shown && occupied.some((c) => shown.get(c.address) !== c.value)))) {
    e.asked.set(key, new Map(occupied.map((c) => [c.address, c.value])));
    return {
      kind: "wouldOverwrite",
      count: occupied.length,
      addresses: occupied.slice(0, 50).map((c) => c.address),
      target: targetA1,
      at: { sheetId: at.sheetId, row: at.row, col: at.col },
    };
  }
  e.asked.delete(key);
  return { kind: "clear", sheet, before, occupied };
}

/** Where a "would overwrite" question was about: the target's top-left cell. */
const askedKey = (at: At) => `${at.sheetId}|${at.row}|${at.col}`;

/** Issue 33: a pivot stays a range (an Excel table has one header row); said before anything is read or written. */
function refusePivotTable(report: Report, layout: Layout, o: PlaceOptions): void {
  if (o.asTable && !layout.columnKeys)
    throw new CannotPlaceAsTable(
      `“${report.name}” is a pivot: a pivot is placed as cells, not as an Excel table (a table has one header row). Place it without “as an Excel table”, or make it a flat report.`,
    );
}

/** Issue 33: the table a new placement gets: a name after the report's, unique among the workbook's tables and names. */
async function newTable(s: Session, report: Report, layout: Layout): Promise<TableRecord> {
  const taken = [...(s.tables ?? []).map((t) => t.name), ...(await s.tracked()).map((t) => t.name)];
  let name = tableNameFor(report.name, taken);
  // A person's defined name of the same name would make Excel refuse the table after the cells are written.
  for (let i = 0; i < 20 && s.namedArea && (await s.namedArea(name)); i++) name = tableNameFor(report.name, [...taken, name]);
  return { name, columns: layout.columnKeys ?? [] };
}

/** The table's cells (issue 33): its header row (below the filter summary) to the last row; ≥ one data row, as Excel keeps. */
export function tableArea(at: At, layout: Pick<Layout, "cells" | "columnFormats" | "summaryRows">): Area {
  const top = layout.summaryRows ?? 0;
  return {
    sheetId: at.sheetId,
    row: at.row + top,
    col: at.col,
    rows: Math.max(2, layout.cells.length - top),
    cols: layout.columnFormats.length,
  };
}

/** A new placement's record, its write journalled as under way. */
function newRecord(
  e: Engine,
  up: UpsertOutcome,
  sheet: SheetRef,
  target: Area,
  fp: ResultChecksum,
  shape: Shape,
  source: string | null,
  bound?: BoundInputs,
  table?: TableRecord,
): LocalPlacement {
  const key = bound?.key ?? (e.ctx.newKey ?? randomKey)();
  const addr = platformAddress(sheet.name, target);
  return {
    key,
    name: trackingName(key),
    deploymentId: e.ctx.deploymentId,
    deploymentName: e.ctx.deploymentName ?? null,
    reportId: up.report.id,
    publicId: up.publicId,
    reportName: up.report.name,
    placementId: null,
    sheetId: sheet.id,
    sheetName: sheet.name,
    anchorCell: addr.anchorCell,
    shape,
    committed: null,
    source: null,
    editsKept: false,
    ...(bound ? { inputs: bound.planned.map((pb) => pb.binding), inputsUsed: bound.used } : {}),
    ...(table ? { table } : {}),
    pending: { checksum: fp, shape, at: new Date().toISOString(), source, phase: "writing", inFlight: { from: 0, to: shape.rows - 1 } },
  };
}

interface Written {
  at: At;
  target: Area;
  sheet: SheetRef;
  layout: Layout;
  fp: ResultChecksum;
  cut: RowCut | null;
  before: SheetValue[][];
  occupied: OccupiedCell[];
  /** What a large grid's chunks were laid out from (answer-chunks.ts), when known. */
  prints: AnswerPrints | null;
}

/** After a new placement's cells are queued: close the journal, style, send; record it with the platform. */
async function finishPlacement(
  e: Engine,
  s: Session,
  report: Report,
  up: UpsertOutcome,
  local: LocalPlacement,
  w: Written,
  o: PlaceOptions,
): Promise<PlaceOutcome> {
  const { at, target, layout, fp } = w;
  const frozeBefore = await s.frozenRows(at.sheetId);
  await journal(s, local.key, { phase: "written", inFlight: null });
  // Issue 30: an inserted row is named as one; issue 35 §3: a large one keeps what its chunks were laid out from.
  await storeRowPrints(s, local.key, layout.cells, fp, w.prints);
  // Issue 33: the table over the cells written (Microsoft's advice: write the values, then make the table).
  if (local.table)
    await s.commit([{ kind: "table", table: local.table.name, area: tableArea(at, layout), create: { style: TABLE_STYLE } }]);
  // Formats are not part of the fingerprint: styling after the journal closes never reads as a hand edit.
  if (!o.valuesOnly) await stylePlaced(s, at, layout, local.table !== undefined);
  const sent = await s.flush(o.signal);
  // Someone typed into the target after it was checked (issue 36, item 1): nothing of theirs is lost, and they are asked again.
  if (sent.cellConflicts?.length) return undoPlacement(e, s, local, target, w.before, sent.cellConflicts, layout, o, frozeBefore, true);
  // The sheet as it is named now (renamed while this placement was on its way: issue 36, item 16).
  const sheet = (await s.sheets()).find((x) => x.id === w.sheet.id) ?? w.sheet;
  e.lastWritten.set(local.key, layout.cells);
  // The cells hold the answer now: a host that keeps notes on cells keeps this one, saved with them (issue 35 §3).
  if (!local.table) await noteCells(e.ctx.port, target, fp);
  let placementId: string;
  try {
    placementId = await connectNewPlacement(e.ctx, s, local, fp, target, sheet, o.signal);
    await s.flush(o.signal);
  } catch (err) {
    if (!isRefusal(err)) throw err;
    throw await takeBackRefused(e, s, report, local, w, o);
  }

  return {
    kind: "placed",
    key: local.key,
    placementId,
    reportId: up.report.id,
    publicId: up.publicId,
    sheetName: sheet.name,
    range: areaA1(target),
    notices: [...up.notices, ...(w.cut ? [w.cut.message] : [])],
    stats: {
      rows: target.rows,
      cols: target.cols,
      cells: target.rows * target.cols,
      syncs: s.stats.syncs,
      maxSyncBytes: s.stats.maxSyncBytes,
    },
  };
}

/** Refused after the write (a viewer whose role was not known): the cells go back as they were. */
async function takeBackRefused(
  e: Engine,
  s: Session,
  report: Report,
  local: LocalPlacement,
  w: Written,
  o: PlaceOptions,
): Promise<ViewOnly> {
  e.refusedIn(e.ctx.deploymentId);
  if (local.table) await s.commit([{ kind: "untable", table: local.table.name }]); // issue 33: no table left behind
  await s.clear(w.target);
  if (w.occupied.length) await s.write(w.at, w.before, { keepFormats: true });
  await s.untrack(local.name);
  await untrackInputs(s, local);
  await updatePlacement(s, local.key, () => null);
  await forgetStyle(s, local.key);
  await forgetRowPrints(s, local.key);
  await s.flush(o.signal);
  e.lastWritten.delete(local.key);
  return new ViewOnly(
    `The platform did not let you place “${report.name}”: your role in this deployment does not allow it. The cells were put back as they were; ask an admin for the editor role.`,
  );
}

/**
 * Take back a placement whose write met a person's newer cells (a guarded write's conflicts, issue 36):
 * its cells are cleared, what the target held is put back — the cells the check saw (`before`) and,
 * exactly, every cell a conflict found (values, formulas, formats) — and its name, record and style go.
 * Nothing was recorded with the platform. The person is asked again, with the cells as they are now.
 */
async function undoPlacement(
  e: Engine,
  s: Session,
  local: LocalPlacement,
  written: Area,
  before: Grid | null,
  conflicts: readonly CellConflict[],
  layout: Pick<Layout, "headerRows">,
  o: PlaceOptions,
  frozeBefore?: number,
  /** Issue 33: its table was made (the last page's commit makes it): it goes before the cells are cleared. */
  madeTable = false,
): Promise<PlaceOutcome> {
  // Issue 33: the table goes first (a table's emptied header would be named Column1… by Excel).
  if (local.table && madeTable) await s.commit([{ kind: "untable", table: local.table.name }]);
  await s.clear(written, { name: local.name, area: written });
  const kept = before && outsideConflicts(before, written, conflicts);
  if (kept?.some((row) => row.some((v) => v !== "")))
    await s.write(written, kept, { keepFormats: true }, { anchor: { name: local.name, area: written } });
  for (const c of conflicts) if (c.found) await s.commit([{ kind: "restore", cells: c.found }]);
  if (frozeBefore === 0 && written.row === 0 && layout.headerRows > 0 && (await s.frozenRows(written.sheetId)) !== 0)
    await s.freezeRows(written.sheetId, 0);
  await s.untrack(local.name);
  await untrackInputs(s, local);
  await updatePlacement(s, local.key, () => null);
  await forgetStyle(s, local.key);
  await forgetRowPrints(s, local.key);
  await s.flush(o.signal);
  e.lastWritten.delete(local.key);
  const held = heldCells(written, kept, conflicts);
  const addresses = [...held.keys()];
  e.asked.set(askedKey(written), held);
  const sheet = (await s.sheets()).find((x) => x.id === written.sheetId);
  return {
    kind: "wouldOverwrite",
    count: addresses.length,
    addresses: addresses.slice(0, 50),
    target: `${sheet?.name ?? local.sheetName}!${areaA1(written)}`,
    at: { sheetId: written.sheetId, row: written.row, col: written.col },
  };
}

/**
 * What the check saw, without the cells a conflicting write landed on: there the cells held something else
 * just before the write (its `found`, put back exactly) — a row inserted above during the wait moved what
 * the check saw, and writing it back where it was would copy the person's cells one row off.
 */
function outsideConflicts(before: Grid, written: Area, conflicts: readonly CellConflict[]): Grid {
  const hit = (r: number, c: number) =>
    conflicts.some(
      ({ area: a }) =>
        a.sheetId === written.sheetId &&
        written.row + r >= a.row &&
        written.row + r < a.row + a.rows &&
        written.col + c >= a.col &&
        written.col + c < a.col + a.cols,
    );
  return before.map((row, r) => row.map((v, c) => (hit(r, c) ? "" : v)));
}

/** What the target holds after undoPlacement, as a person sees it: every conflict's cells and what the check saw. */
function heldCells(written: Area, before: Grid | null, conflicts: readonly CellConflict[]): Map<string, SheetValue> {
  const held = new Map<string, SheetValue>();
  before?.forEach((row, r) => row.forEach((v, c) => v !== "" && held.set(cellA1(written.row + r, written.col + c), v)));
  for (const c of conflicts)
    c.found?.values.forEach((row, r) =>
      row.forEach((v, k) => v !== "" && held.set(cellA1(c.found!.area.row + r, c.found!.area.col + k), v)),
    );
  return held;
}

function refuseOffSheet(reportName: string, at: Pick<Area, "row" | "col">, shape: Shape): void {
  const why = offSheet(at, shape);
  if (why) throw new DoesNotFit(`“${reportName}” does not fit there: ${why}. Nothing was written; place it higher up or further left.`);
}

/** Every page of a stream taken, then the whole output (a placement that cannot write early). */
async function drained(stream: ReportStream): Promise<RunOutput & { source: string }> {
  for await (const _ of stream.rest()) void _;
  return stream.finish();
}

/** A pending write without the mark of a streamed placement's rows so far. */
function withoutPartial(pending: PendingWrite): PendingWrite {
  const { partial: _partial, ...rest } = pending;
  return rest;
}
