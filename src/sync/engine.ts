// The sync engine: place, refresh one, refresh all, disconnect. (Check, fork and the workbook
// home are in check.ts.) Every operation talks to the workbook only through the SheetPort and to
// the platform only through src/api; outcomes are typed values, never UI.
//
// Write protocol of place and refresh (docs/SYNC.md "The write journal"):
//   1. journal the intent: `pending` = fingerprint and shape of the grid about to be written,
//      phase "writing", the cells a shrink will clear (workbook data); a first placement is also
//      tracked now, so an interruption never strands untracked cells;
//   2. write the cells (only the chunks that differ; each call whole chunks, its rows journalled
//      as `inFlight` first), clear what a shrink leaves behind;
//   3. journal the completion (phase "written"); re-track the name to the new area;
//   4. record with the platform (connect-workbook / PUT refresh);
//   5. committed := pending, pending := null.
// A failure between 1 and 4 leaves `pending`: the next check reports "Interrupted — finish
// refresh" (or, when every cell landed, finishes the record), never a hand edit.
//
// Round trips (docs/SYNC.md "Round trips"): each operation works on a Session — one snapshot of the
// workbook (state, tracking, the cells it compares), then its writes queued in the order above and sent
// as one commit (steps 1–3), and the record's state update as another (step 5). The order of the queue
// is the journal's order, so batching keeps every interruption recoverable. A refresh that changes
// nothing reads the workbook once and writes nothing.
import { isPlaceholderPublicId, type Report } from "../api/index.ts";
import { cellA1, areaA1, columnLetters, MAX_COLS, MAX_ROWS } from "../host/a1.ts";
import type {
  Anchor,
  Area,
  CellConflict,
  SheetPort,
  SheetRef,
  SheetValue,
  SnapshotRequest,
  TrackedArea,
  WriteStats,
} from "../host/port.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import { ApiError, ForbiddenError, NotFoundError } from "../api/index.ts";
import {
  Lock,
  type LastWrittenStore,
  platformAddress,
  randomKey,
  readArea,
  reportsById,
  trackingName,
  type SyncContext,
} from "./context.ts";
import { CHECKSUM_VERSION, CHUNK_ROWS, GridHasher, ready as hashReady } from "../checksum/index.ts";
import { chunkRows, contentHash, differingChunks, emptyGrid, fingerprintGrid, sliceGrid, type Grid } from "./fingerprint.ts";
import type { Layout } from "./layout.ts";
import {
  areaAt,
  collisions,
  growthAreas,
  leftoverAreas,
  mergeRuns,
  occupiedCells,
  subtract,
  type Neighbour,
  type OccupiedCell,
  type Shape,
} from "./plan.ts";
import { refuseToWrite } from "./obstacles.ts";
import { refuseOverLimits } from "./limits.ts";
import { NotRefreshed, runQueue, type QueueProgress } from "./queue.ts";
import { MAX_PLACED_ROWS, prepareReport, runReport, streamReport, type ReportStream, type RowCut, type RunOutput } from "./run-report.ts";
import { describeChange, noAccessPrefix } from "./status.ts";
import { isRefusal, mayChangePlacements, refusedRecordReason, viewOnlyPrefix, viewOnlyReason } from "./access.ts";
import {
  addPlacement,
  classify,
  loadPlacements,
  MAX_CARRIED,
  placementArea,
  updatePlacement,
  type CellState,
  type LocalPlacement,
  type PendingWrite,
} from "./state.ts";
import { addCommitStats, clocked, Session, WriteClock } from "./session.ts";
import { forgetStyle, isValuesOnly, setValuesOnly, styleGrowth, stylePlaced } from "./styling.ts";
import { upsertReport, type UpsertOutcome } from "./upsert.ts";

// ---------------------------------------------------------------- outcomes

export interface PlaceOptions {
  /** Top-left cell to place at; default: the selected cell. */
  at?: Pick<Area, "sheetId" | "row" | "col">;
  /** The user confirmed overwriting the non-empty cells reported by a previous attempt. */
  confirmed?: boolean;
  signal?: AbortSignal;
  /**
   * Rows written so far of the rows expected; `known` is false while pages are still arriving (the
   * total is then the rows in so far: the placement has at least that many).
   */
  onProgress?: (rowsWritten: number, totalRows: number, known: boolean) => void;
  /** Values only: no number formats, header style or freeze (styling.ts); kept for later refreshes. */
  valuesOnly?: boolean;
}

export type PlaceOutcome =
  | {
      kind: "placed";
      key: string;
      placementId: string;
      reportId: number;
      publicId: string;
      sheetName: string;
      range: string;
      notices: string[];
      stats: WriteStats;
    }
  /** Non-empty cells that belong to no placement: nothing was written. */
  /** `at`: the target's top-left cell — confirm with `place(report, { at, confirmed: true })` so it lands there. */
  | { kind: "wouldOverwrite"; count: number; addresses: string[]; target: string; at: Pick<Area, "sheetId" | "row" | "col"> }
  /** The target overlaps another placement: never allowed. */
  | { kind: "collides"; target: string; placements: string[] };

export type RefreshChoice = "ask" | "overwrite" | "keep";

export interface CellDiff {
  address: string;
  /** undefined when the value last written is no longer known (see docs/SYNC.md). */
  lastWritten: SheetValue | undefined;
  now: SheetValue;
  incoming: SheetValue;
}

export interface HandEdits {
  /** Zero-based row ranges relative to the placement's first row, inclusive. */
  rows: { from: number; to: number }[];
  /** The same as A1 ranges on the sheet, e.g. "B12:F15". */
  ranges: string[];
  cells: CellDiff[];
  /** Edited cells found; `cells` lists at most MAX_DIFF of them. */
  cellCount: number;
}

export interface RefreshStats {
  /** Rows the result gained / lost (a grown or shrunk placement). */
  rowsAdded: number;
  rowsRemoved: number;
  /** Cells whose value changed (written cells that differ from what the sheet held). */
  cellsChanged: number;
  cellsWritten: number;
  chunksWritten: number;
  chunksTotal: number;
  /** Rows sent to the sheet (only the differing rows of the differing chunks). */
  rowsWritten: number;
  cellsCleared: number;
  syncs: number;
  /** Largest request of one sync, as the port estimates it. */
  maxSyncBytes: number;
  /** JSON size of the values written (an estimate of the bytes sent to Excel). */
  bytes: number;
  /** Where the time went (ms): preparation (see PreparedRefresh.timings), then the sheet work. */
  timings: PreparedRefresh["timings"] & { readMs: number; compareMs: number; writeMs: number; recordMs: number };
}

export type RefreshOutcome =
  | { kind: "refreshed"; stats: RefreshStats; notices: string[] }
  /** "Keep my edits": edited chunks were skipped; the placement stays marked edited. */
  | { kind: "kept"; stats: RefreshStats; edits: HandEdits }
  /** Edited by hand and the caller asked: nothing was written. */
  | { kind: "handEdited"; edits: HandEdits }
  /** The result cannot grow: the reason names what is in the way. Nothing was written. */
  | { kind: "cannotGrow"; reason: string; occupied: OccupiedCell[]; placements: string[] }
  | { kind: "missing"; reason: string };

export const MAX_DIFF = 500;

export interface PreparedRefresh {
  placement: LocalPlacement;
  /** Fingerprint and shape of the grid the refresh brings. */
  incoming: ResultChecksum;
  shape: Shape;
  /** What the grid depends on (run-report.ts). */
  source: string;
  /** The report returns more rows than a placement holds; the placed rows were cut (run-report.ts). */
  cut?: RowCut | null;
  /**
   * The answer is the one last written (same source): `incoming` is the committed fingerprint and
   * nothing was decoded or laid out yet — layout() does it if the sheet turns out to need cells.
   */
  sameSource: boolean;
  /** The grid and its column formats, laid out on first use. */
  layout(): Layout;
  /** Where the preparation's time went (ms). */
  timings: { reportMs: number; queryAndLayoutMs: number; fingerprintMs: number };
}

// ---------------------------------------------------------------- engine

export class SyncEngine {
  private readonly lock = new Lock();
  /** What Cellbound last wrote per placement, this session only (for "last written" in diffs). */
  private readonly lastWritten: LastWrittenStore;
  /** Counts this engine's writes: a session planned before one of them is read again (session.ts). */
  private readonly clock = new WriteClock();
  /** The port as given; `ctx.port` is the same port with its writes counted on the clock. */
  private readonly raw: SheetPort;
  readonly ctx: SyncContext;
  /** Deployments whose platform refused a placement's record (a 403): view only from then on (access.ts). */
  private readonly refused = new Set<number>();

  constructor(ctx: SyncContext) {
    this.raw = ctx.port;
    this.ctx = { ...ctx, port: clocked(ctx.port, this.clock) };
    this.lastWritten = ctx.lastWritten ?? new Map<string, Grid>();
  }

  placements(): Promise<LocalPlacement[]> {
    return loadPlacements(this.ctx.port);
  }

  /** One read of the workbook for an operation (session.ts). */
  session(req: SnapshotRequest = {}): Promise<Session> {
    return Session.open(this.raw, req, this.clock);
  }

  /** The session if nothing else of this engine wrote since it was read, else a new one (call under the lock). */
  private async current(s: Session | null, req: SnapshotRequest): Promise<Session> {
    return s?.current ? s : this.session(req);
  }

  /** The signed-in user may read but not change placements of this deployment (access.ts). */
  viewOnly(deploymentId: number): boolean {
    return !mayChangePlacements(this.ctx.roleOf?.(deploymentId)) || this.refused.has(deploymentId);
  }

  /** Find one of this deployment's reports by id (a paged listing). */
  async report(reportId: number, signal?: AbortSignal): Promise<Report> {
    const r = (await reportsById(this.ctx, this.ctx.deploymentId, undefined, signal)).get(reportId);
    if (!r) throw new Error(`Report ${reportId} was not found in deployment ${this.ctx.deploymentId}, or you cannot read it.`);
    return r;
  }

  // ---- place --------------------------------------------------------------------------------

  async place(report: Report, o: PlaceOptions = {}): Promise<PlaceOutcome> {
    const { port } = this.ctx;
    // Where the user chose: the cell selected when Place was pressed, read before the data is
    // fetched (a click elsewhere while the query runs must not move the report).
    const at = o.at ?? (await port.selection()).area;
    if (this.viewOnly(this.ctx.deploymentId))
      throw new ViewOnly("You can view reports in this deployment but not place them — ask an admin for the editor role.");
    // The platform's limits per workbook, from what was last seen of it (nothing is read; limits.ts).
    refuseOverLimits(this, { deploymentId: this.ctx.deploymentId, reportId: report.id, name: report.name });
    // A large flat report arrives in pages: its first rows are written while the others arrive (issue 20 §2).
    const stream = await streamReport(this.ctx.data, report, this.ctx.filterDefaults, o.signal);
    if (stream?.more) {
      const placed = await this.lock.run(() => this.placeStreamed(report, at, stream, o), o.signal);
      if (placed) return placed;
    }
    const run = stream ? await drained(stream) : await runReport(this.ctx.data, report, this.ctx.filterDefaults, o.signal);
    return this.lock.run(() => this.placeWhole(report, at, run, o), o.signal);
  }

  /** Place a grid known in full (call under the lock). */
  private async placeWhole(
    report: Report,
    at: Pick<Area, "sheetId" | "row" | "col">,
    { layout, source, cut }: { layout: Layout; source: string; cut: RowCut | null },
    o: PlaceOptions,
  ): Promise<PlaceOutcome> {
    const shape: Shape = { rows: layout.cells.length, cols: layout.columnFormats.length };
    refuseOffSheet(report.name, at, shape); // issue 36 (4): said in words, before anything is read or written
    const target = areaAt(at, shape);
    // One read: state, tracking, the target's cells, the sheet's frozen rows, its columns' widths (the fit).
    const s = await this.session({
      areas: [target],
      frozenRows: [at.sheetId],
      columnWidths: [target],
      writeChecks: true,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const checked = await this.checkTarget(s, at, target, layout, o);
    if (checked.kind !== "clear") return checked;
    const { sheet, before, occupied } = checked;
    // The report first: a permanent upsert failure (ambiguous legacy id…) leaves the sheet untouched.
    const up = await this.ensureReport(report, o.signal);
    const fp = await fingerprintGrid(layout.cells);
    const local = this.newRecord(up, sheet, target, fp, shape, source);
    // Journal and track before the first cell (first in the commit): an interrupted first placement
    // is found and resumed by a refresh.
    await addPlacement(s, local);
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
    return this.finishPlacement(s, report, up, local, { at, target, sheet, layout, fp, cut, before, occupied }, o);
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
  private async placeStreamed(
    report: Report,
    at: Pick<Area, "sheetId" | "row" | "col">,
    stream: ReportStream,
    o: PlaceOptions,
  ): Promise<PlaceOutcome | null> {
    const head = stream.head;
    const cols = head.columnFormats.length;
    const maxRows = this.ctx.filterDefaults?.maxRows ?? MAX_PLACED_ROWS;
    const firstShape: Shape = { rows: head.cells.length, cols };
    const target = areaAt(at, firstShape);
    // The rows it may grow into, free to the most rows a placement holds. Capped by the sheet's end, the
    // report may not fit (issue 36, item 4): then it is placed whole, once its height is known.
    const wanted = head.headerRows + maxRows - head.cells.length;
    const bandRows = Math.min(MAX_ROWS - (target.row + target.rows), wanted);
    if (bandRows < 1 || bandRows < wanted) return null;
    const band: Area = { sheetId: at.sheetId, row: target.row + target.rows, col: at.col, rows: bandRows, cols };
    const s = await this.session({
      areas: [target],
      usedIn: [band],
      frozenRows: [at.sheetId],
      columnWidths: [target],
      writeChecks: true,
      ...(o.signal ? { signal: o.signal } : {}),
    });
    const below = (await s.usedArea(band)) !== null || (await s.obstacles(band)).length > 0;
    if (below || collisions([band], neighbours(await s.tracked(), null, await loadPlacements(s))).length > 0) return null;
    const checked = await this.checkTarget(s, at, target, head, o);
    if (checked.kind !== "clear") return checked;
    const { sheet, before, occupied } = checked;
    const headBefore = before;
    const occupiedBefore = occupied.length > 0;
    const up = await this.ensureReport(report, o.signal);

    // The grid so far, its fingerprint over whole chunks (fed as rows are written), and the rows written.
    const cells: SheetValue[][] = [...head.cells];
    await hashReady();
    const hasher = new GridHasher();
    let written = 0;
    // Per column: the format its rows were written with, and the rows written before it last changed.
    const writtenWith = [...head.columnFormats];
    const restyle: number[] = head.columnFormats.map(() => 0);
    let local: LocalPlacement | null = null;
    let final: ResultChecksum | null = null;
    /** Where the placement is: its first cell, followed when rows are inserted above it meanwhile (issue 36, item 15). */
    let top: Pick<Area, "sheetId" | "row" | "col"> = { sheetId: at.sheetId, row: at.row, col: at.col };
    /** Set when a person's cells were found where a page was written: the placement is taken back. */
    let refused: PlaceOutcome | null = null;
    const step = async (last: boolean) => {
      const upTo = last ? cells.length : Math.floor(cells.length / CHUNK_ROWS) * CHUNK_ROWS; // a chunk is written whole
      if (upTo <= written || refused) return;
      const shape: Shape = { rows: upTo, cols };
      hasher.rows(cells.slice(written, upTo));
      // No whole-grid payload before the end: the chunks so far.
      const partial: ResultChecksum = last ? (final = hasher.finish()) : { v: CHECKSUM_VERSION, chunks: hasher.chunksSoFar() };
      const inFlight = { from: written, to: upTo - 1 };
      if (!local) {
        local = { ...this.newRecord(up, sheet, areaAt(at, shape), partial, shape, null), pending: null };
        local.pending = {
          checksum: partial,
          shape,
          at: new Date().toISOString(),
          source: null,
          phase: "writing",
          inFlight,
          ...(last ? {} : { partial: true }),
        };
        await addPlacement(s, local);
        if (o.valuesOnly) await setValuesOnly(s, local.key, true);
      } else {
        const key = local.key;
        await updatePlacement(s, key, (p) => ({
          ...p,
          shape,
          pending: p.pending
            ? { ...withoutPartial(p.pending), checksum: partial, shape, phase: "writing", inFlight, ...(last ? {} : { partial: true }) }
            : p.pending,
        }));
      }
      const rows = cells.slice(written, upTo);
      const from = written;
      const formats = stream.formats();
      formats.forEach((f, c) => {
        if (f === writtenWith[c]) return;
        restyle[c] = written;
        writtenWith[c] = f;
      });
      // The first page goes where the check looked; each later one where the placement's name is when it is
      // written (anchored), into rows that must still be empty (guarded): the rows below were checked once,
      // before the first page, and a page arrives from the network seconds later (issue 36, items 1 and 15).
      const before = from === 0 ? null : areaAt(top, { rows: from, cols });
      const guard = from === 0 ? { expect: occupiedBefore ? headBefore : ("empty" as const) } : { expect: "empty" as const };
      await s.write(
        { sheetId: top.sheetId, row: top.row + from, col: top.col },
        rows,
        {
          columnFormats: formats,
          breakRows: partial.chunks.map((c) => c.from - from).filter((r) => r > 0 && r < rows.length),
          keepFormats: o.valuesOnly === true,
          ...(o.onProgress ? { onProgress: (done: number) => o.onProgress!(from + done, cells.length, !stream.more || last) } : {}),
        },
        { guard, ...(before ? { anchor: { name: local.name, area: before } } : {}) },
      );
      await s.track(local.name, areaAt(top, shape), before ?? undefined);
      const sent = await s.flush(o.signal);
      if (sent.cellConflicts?.length) {
        refused = await this.undoPlacement(s, local, areaAt(top, shape), null, sent.cellConflicts, head, o);
        return;
      }
      const moved = sent.moved?.find((m) => m.name.toLowerCase() === local!.name.toLowerCase());
      if (moved) {
        // Rows were inserted above (or the sheet renamed) while the page was on its way: the page followed the
        // name; the name itself was re-pointed where it had been. Put it where the placement is.
        if (!moved.found) throw new Error(`The cells of “${report.name}” were deleted while it was being placed.`);
        top = { sheetId: moved.found.sheetId, row: moved.found.row, col: moved.found.col };
        await s.track(local.name, areaAt(top, shape));
        await s.flush(o.signal);
      }
      written = upTo;
    };
    await step(false);
    for await (const rows of stream.rest()) {
      if (refused) break;
      cells.push(...rows);
      await step(false);
    }
    if (refused) return refused;
    const run = await stream.finish();
    const layout = run.layout;
    const shape: Shape = { rows: layout.cells.length, cols };
    await step(true);
    if (refused) return refused;
    const fp = final ?? hasher.finish(); // every row was written before the last page: nothing left to hash
    const whole = areaAt(top, shape);
    if (!local) throw new Error("placeStreamed: nothing was written"); // unreachable: the first page has rows
    const key = (local as LocalPlacement).key;
    await updatePlacement(s, key, (p) => ({
      ...p,
      shape,
      pending: p.pending ? { ...withoutPartial(p.pending), checksum: fp, shape, source: run.source } : p.pending,
    }));
    // A later page can settle a column's format otherwise (whole numbers, then a fraction): the rows
    // written before then get the column's format, in blocks that keep each request small.
    if (!o.valuesOnly) {
      for (const [c, end] of restyle.entries()) {
        for (let r = layout.headerRows; r < end; r += RESTYLE_ROWS) {
          const area = { sheetId: top.sheetId, row: top.row + r, col: top.col + c, rows: Math.min(RESTYLE_ROWS, end - r), cols: 1 };
          await s.style(
            area,
            { columnFormats: [layout.columnFormats[c] ?? "General"] },
            { name: (local as LocalPlacement).name, area: whole },
          );
        }
      }
    }
    return this.finishPlacement(
      s,
      report,
      up,
      { ...(local as LocalPlacement), shape },
      { at: top, target: whole, sheet, layout, fp, cut: run.cut, before, occupied },
      o,
    );
  }

  /** The checks before a placement writes anything: the sheet, other placements, obstacles, content. */
  private async checkTarget(
    s: Session,
    at: Pick<Area, "sheetId" | "row" | "col">,
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
    await refuseToWrite(s, target, sheet.name, () => layout.columnFormats); // issue 22: merged, table, protected, 1904
    const before = await readArea(s, target, o.signal);
    const occupied = occupiedCells(target, before, 0, []);
    if (occupied.length > 0 && !o.confirmed) {
      return {
        kind: "wouldOverwrite",
        count: occupied.length,
        addresses: occupied.slice(0, 50).map((c) => c.address),
        target: targetA1,
        at: { sheetId: at.sheetId, row: at.row, col: at.col },
      };
    }
    return { kind: "clear", sheet, before, occupied };
  }

  /** A new placement's record, its write journalled as under way. */
  private newRecord(
    up: UpsertOutcome,
    sheet: SheetRef,
    target: Area,
    fp: ResultChecksum,
    shape: Shape,
    source: string | null,
  ): LocalPlacement {
    const key = (this.ctx.newKey ?? randomKey)();
    const addr = platformAddress(sheet.name, target);
    return {
      key,
      name: trackingName(key),
      deploymentId: this.ctx.deploymentId,
      deploymentName: this.ctx.deploymentName ?? null,
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
      pending: { checksum: fp, shape, at: new Date().toISOString(), source, phase: "writing", inFlight: { from: 0, to: shape.rows - 1 } },
    };
  }

  /** After a new placement's cells are queued: close the journal, style, send; record it with the platform. */
  private async finishPlacement(
    s: Session,
    report: Report,
    up: UpsertOutcome,
    local: LocalPlacement,
    w: {
      at: Pick<Area, "sheetId" | "row" | "col">;
      target: Area;
      sheet: SheetRef;
      layout: Layout;
      fp: ResultChecksum;
      cut: RowCut | null;
      before: SheetValue[][];
      occupied: OccupiedCell[];
    },
    o: PlaceOptions,
  ): Promise<PlaceOutcome> {
    const { at, target, layout, fp, before, occupied } = w;
    const key = local.key;
    const frozeBefore = await s.frozenRows(at.sheetId);
    await this.journal(s, key, { phase: "written", inFlight: null });
    // Formats are not part of the fingerprint: styling after the journal closes never reads as a hand edit.
    if (!o.valuesOnly) await stylePlaced(s, at, layout);
    const sent = await s.flush(o.signal);
    // Someone typed into the target after it was checked (issue 36, item 1): nothing of theirs is lost, and they are asked again.
    if (sent.cellConflicts?.length) return this.undoPlacement(s, local, target, before, sent.cellConflicts, layout, o, frozeBefore);
    // The sheet as it is named now (renamed while this placement was on its way: issue 36, item 16).
    const sheet = (await s.sheets()).find((x) => x.id === w.sheet.id) ?? w.sheet;
    this.lastWritten.set(key, layout.cells);
    let placementId: string;
    try {
      placementId = await this.connectNewPlacement(s, local, fp, target, sheet, o.signal);
      await s.flush(o.signal);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      // Refused after the write (a viewer whose role was not known): the cells go back as they were.
      this.refused.add(this.ctx.deploymentId);
      await s.clear(target);
      if (occupied.length) await s.write(at, before, { keepFormats: true });
      await s.untrack(local.name);
      await updatePlacement(s, key, () => null);
      await forgetStyle(s, key);
      await s.flush(o.signal);
      this.lastWritten.delete(key);
      throw new ViewOnly(
        `The platform did not let you place “${report.name}”: your role in this deployment does not allow it. The cells were put back as they were; ask an admin for the editor role.`,
      );
    }
    return {
      kind: "placed",
      key,
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

  /**
   * Take back a placement whose write met a person's newer cells (a guarded write's conflicts, issue 36):
   * its cells are cleared, what the target held is put back — the cells the check saw (`before`) and,
   * exactly, every cell a conflict found (values, formulas, formats) — and its name, record and style go.
   * Nothing was recorded with the platform. The person is asked again, with the cells as they are now.
   */
  private async undoPlacement(
    s: Session,
    local: LocalPlacement,
    written: Area,
    before: Grid | null,
    conflicts: readonly CellConflict[],
    layout: Pick<Layout, "headerRows">,
    o: PlaceOptions,
    frozeBefore?: number,
  ): Promise<PlaceOutcome> {
    await s.clear(written, { name: local.name, area: written });
    if (before?.some((row) => row.some((v) => v !== "")))
      await s.write(written, before, { keepFormats: true }, { anchor: { name: local.name, area: written } });
    for (const c of conflicts) if (c.found) await s.commit([{ kind: "restore", cells: c.found }]);
    if (frozeBefore === 0 && written.row === 0 && layout.headerRows > 0 && (await s.frozenRows(written.sheetId)) !== 0)
      await s.freezeRows(written.sheetId, 0);
    await s.untrack(local.name);
    await updatePlacement(s, local.key, () => null);
    await forgetStyle(s, local.key);
    await s.flush(o.signal);
    this.lastWritten.delete(local.key);
    // What the target holds now, as a person sees it: every conflict's cells and what the check saw.
    const held = new Map<string, true>();
    before?.forEach((row, r) => row.forEach((v, c) => v !== "" && held.set(cellA1(written.row + r, written.col + c), true)));
    for (const c of conflicts)
      c.found?.values.forEach((row, r) =>
        row.forEach((v, k) => v !== "" && held.set(cellA1(c.found!.area.row + r, c.found!.area.col + k), true)),
      );
    const addresses = [...held.keys()];
    const sheet = (await s.sheets()).find((x) => x.id === written.sheetId);
    return {
      kind: "wouldOverwrite",
      count: addresses.length,
      addresses: addresses.slice(0, 50),
      target: `${sheet?.name ?? local.sheetName}!${areaA1(written)}`,
      at: { sheetId: written.sheetId, row: written.row, col: written.col },
    };
  }

  /** Journal how far the pending write got (state.ts). */
  private async journal(port: SheetPort, key: string, change: Partial<PendingWrite>): Promise<void> {
    await updatePlacement(port, key, (x) => (x.pending ? { ...x, pending: { ...x.pending, ...change } } : x));
  }

  /**
   * Create or upsert the report under a client-chosen publicId (its own, or a new one after a 409
   * without code). A report the caller can read but not edit, with a real publicId, is used as it
   * is: an upsert needs edit access and would change nothing.
   */
  private async ensureReport(report: Report, signal?: AbortSignal): Promise<UpsertOutcome> {
    if (report.canEdit === false && !isPlaceholderPublicId(report.publicId)) return { report, publicId: report.publicId, notices: [] };
    return upsertReport(
      this.ctx.platform,
      this.ctx.deploymentId,
      report.publicId,
      {
        name: report.name,
        title: report.title,
        ...(report.jsonQuery ? { jsonQuery: report.jsonQuery } : {}),
        ...(report.sqlQuery ? { sqlQuery: report.sqlQuery } : {}),
        ...(report.pivotItems ? { pivotItems: report.pivotItems } : {}),
        source: this.ctx.port.host,
      },
      { ...(signal ? { signal } : {}), ...(this.ctx.newPublicId ? { newPublicId: this.ctx.newPublicId } : {}) },
    );
  }

  /** connect-workbook for a placement just written; then commit its fingerprint. */
  private async connectNewPlacement(
    port: SheetPort,
    local: LocalPlacement,
    fp: ResultChecksum,
    area: Area,
    sheet: SheetRef,
    signal?: AbortSignal,
  ): Promise<string> {
    const { platform, deploymentId } = this.ctx;
    const identity = await port.identity();
    const addr = platformAddress(sheet.name, area);
    const connected = await platform.connectWorkbook(
      deploymentId,
      local.reportId,
      {
        externalWorkbookId: identity.workbookId,
        sheetId: sheet.id,
        sheetName: sheet.name,
        workbookName: identity.name,
        host: port.host,
        resultChecksum: fp,
        ...addr,
      },
      signal,
    );
    const placementId = findPlacementId(connected, identity.workbookId, sheet.id, addr.anchorCell);
    await updatePlacement(port, local.key, (p) => ({
      ...p,
      placementId,
      committed: fp,
      source: p.pending?.source ?? null,
      pending: null,
      shape: { rows: area.rows, cols: area.cols },
      sheetId: sheet.id,
      sheetName: sheet.name,
      anchorCell: addr.anchorCell,
    }));
    return placementId;
  }

  // ---- refresh one --------------------------------------------------------------------------

  /**
   * Run the query and lay out the result (no sheet access: this part runs concurrently). `view`: the
   * session to read the placement's record from (default: the workbook now).
   */
  async prepareRefresh(key: string, report?: Report, signal?: AbortSignal, view?: SheetPort): Promise<PreparedRefresh> {
    const t0 = performance.now();
    const placement = await this.placement(key, view);
    const r = report ?? (await this.reportOf(placement, (await (view ?? this.ctx.port).identity()).workbookId, signal));
    const t1 = performance.now();
    const prepared = await prepareReport(this.dataOf(placement), r, this.ctx.filterDefaults, signal);
    const layoutOf = () => prepared.build().layout;
    // The same answer as the one last written and recorded: its grid is the committed one.
    const sameSource = prepared.source === placement.source && placement.committed !== null && placement.pending === null;
    if (sameSource) {
      const timings = { reportMs: t1 - t0, queryAndLayoutMs: performance.now() - t1, fingerprintMs: 0 };
      return {
        placement,
        incoming: placement.committed!,
        shape: placement.shape,
        source: prepared.source,
        cut: prepared.cut,
        sameSource,
        layout: layoutOf,
        timings,
      };
    }
    const { cells, columnFormats } = layoutOf();
    const t2 = performance.now();
    const incoming = await fingerprintGrid(cells);
    const shape = { rows: cells.length, cols: columnFormats.length };
    return {
      placement,
      incoming,
      shape,
      source: prepared.source,
      cut: prepared.cut,
      sameSource,
      layout: layoutOf,
      timings: { reportMs: t1 - t0, queryAndLayoutMs: t2 - t1, fingerprintMs: performance.now() - t2 },
    };
  }

  /**
   * Refresh one placement. The workbook is read once, before the query (its record, tracking and the
   * placement's cells); before anything is written or cleared, the rows concerned are read again and
   * must be unchanged, otherwise the whole comparison is redone on a fresh read (docs/SYNC.md "Read-ahead").
   */
  async refresh(key: string, choice: RefreshChoice = "ask", o: { signal?: AbortSignal } = {}): Promise<RefreshOutcome> {
    const t0 = performance.now();
    const view = await this.session({ trackedValues: [trackingName(key)], writeChecks: true, ...(o.signal ? { signal: o.signal } : {}) });
    const placement = await this.placement(key, view);
    if (this.viewOnly(placement.deploymentId)) throw new ViewOnly(viewOnlyReason()); // never written, never recorded
    const report = await this.reportOf(placement, (await view.identity()).workbookId, o.signal); // the query needs it: look it up first
    const reportMs = performance.now() - t0;
    const prepared = await this.prepareRefresh(key, report, o.signal, view);
    prepared.timings.reportMs += reportMs;
    return this.applyRefresh(prepared, choice, o.signal, view);
  }

  private async reportOf(placement: LocalPlacement, workbookId: string, signal?: AbortSignal): Promise<Report> {
    let r = (await reportsById(this.ctx, placement.deploymentId, workbookId, signal)).get(placement.reportId);
    // A first placement interrupted before connect-workbook is not attached to the workbook yet.
    if (!r && !placement.placementId) r = (await reportsById(this.ctx, placement.deploymentId, undefined, signal)).get(placement.reportId);
    if (!r) throw new NoAccess(noAccessReason(placement, this.ctx));
    return r;
  }

  /** The data client of the placement's deployment (its own data token). */
  private dataOf(p: LocalPlacement): SyncContext["data"] {
    if (p.deploymentId === this.ctx.deploymentId) return this.ctx.data;
    const data = this.ctx.dataFor?.(p.deploymentId);
    if (!data) throw new NoAccess(`It belongs to ${deploymentLabel(p, this.ctx)}; open that deployment to refresh it.`);
    return data;
  }

  /**
   * Compare, plan and write (the single writer). `view`: the session read before the query (its cells
   * were read ahead of the lock); used when nothing of this engine wrote since, else the workbook is
   * read again. Writes of the placement go out as one commit, its record's state update as another.
   */
  applyRefresh(prep: PreparedRefresh, choice: RefreshChoice, signal?: AbortSignal, view: Session | null = null): Promise<RefreshOutcome> {
    return this.lock.run(async () => {
      const name = prep.placement.name;
      const s = await this.current(view, { trackedValues: [name], writeChecks: true, ...(signal ? { signal } : {}) });
      // Read before the query (ahead): checked against the workbook as it is now before anything is written.
      const out = await this.applyRefreshLocked(prep, choice, signal, s, s === view);
      // The record's state update. (After a failure nothing queued is sent: what was sent is a prefix
      // of the journal's order, as after any interruption.)
      await s.flush(signal);
      return out;
    }, signal);
  }

  private async applyRefreshLocked(
    prepared: PreparedRefresh,
    choice: RefreshChoice,
    signal: AbortSignal | undefined,
    s: Session,
    ahead: boolean,
  ): Promise<RefreshOutcome> {
    const p = await this.placement(prepared.placement.key, s);
    // Recorded again since it was prepared (another refresh of it ran first): fingerprint the answer after all.
    const prep =
      prepared.sameSource && (p.source !== prepared.source || p.pending !== null || p.committed === null)
        ? await laidOut(prepared)
        : prepared;
    const tracked = await s.tracked();
    const t = placementArea(p, tracked, await s.sheets());
    if (!t) return { kind: "missing", reason: "The placement's cells were deleted (its sheet or range is gone)." };
    const anchor = { sheetId: t.area.sheetId, row: t.area.row, col: t.area.col };
    // The cells are laid out only when needed: an unchanged answer over untouched cells never is.
    const cells = () => prep.layout().cells;
    const next: Shape = prep.shape;
    const old = p.shape;
    // The tracking name, when there is one: the writes are placed where it is when they are sent (issue 36).
    const named = tracked.some((x) => x.area && x.name.toLowerCase() === p.name.toLowerCase());
    const pin: Anchor | undefined = named ? { name: p.name, area: t.area } : undefined;
    const beyond = offSheet(anchor, next);
    if (beyond)
      return { kind: "cannotGrow", reason: `The new result does not fit where the placement is: ${beyond}.`, occupied: [], placements: [] };

    // Room to grow: never into another placement, never over content. Read before the query (ahead), the
    // workbook is looked at again where the placement is now, below (issue 36, item 17).
    const growth = growthAreas(anchor, p.pending ? maxShape(old, p.pending.shape) : old, next);
    if (!ahead) {
      const grid: Grid[] = [];
      for (const g of growth) grid.push(await readArea(s, g, signal));
      const blocked = roomToGrow(next, growth, grid, neighbours(tracked, p.name, await loadPlacements(s)));
      if (blocked) return blocked;
    }

    // What the sheet holds now, in every shape we need to compare.
    const union = maxShape(maxShape(old, next), p.pending?.shape ?? old);
    const unionArea = areaAt(anchor, union);
    await refuseToWrite(s, unionArea, t.sheet.name, () => prep.layout().columnFormats); // issue 22: merged, table, protected, 1904
    const tRead = performance.now();
    // Read before the query and not all there (it grows): read where the placement is now, once (issue 36, item 17).
    let current: Grid;
    if (ahead && !s.holds(unionArea)) {
      const r = await s.recheck({ areas: [unionArea], ...(signal ? { signal } : {}) });
      if (!samePlace(placementArea(p, r.tracked, r.sheets), t)) return this.planAgain(prepared, choice, signal);
      current = r.values[0]!.grid;
    } else current = await readArea(s, unionArea, signal);
    const tCompare = performance.now();
    const fpOf = shapedFingerprints(current);
    const state = await this.classifyCells(p, current, fpOf);
    const lastWritten = this.lastWritten.get(p.key);
    const edits = state.kind === "edited" ? editsOf(state, p, current, cells(), lastWritten, anchor) : null;
    if (edits && choice === "ask") return { kind: "handEdited", edits };

    // Plan: write only chunks whose incoming hash differs from what the sheet holds.
    const currentShaped = sliceGrid(current, next.rows, next.cols);
    const currentNext = await fpOf(next);
    const keptRows = edits && choice === "keep" ? edits.rows : [];
    const inKept = (r: { from: number; to: number }) => keptRows.some((k) => r.from <= k.to && k.from <= r.to);
    const chunks = differingChunks(prep.incoming, currentNext)
      .map((i) => chunkRows(prep.incoming, i, next.rows))
      .filter((r) => !inKept(r));
    const tWrite = performance.now();
    const stats: RefreshStats = {
      rowsAdded: Math.max(0, next.rows - old.rows),
      rowsRemoved: Math.max(0, old.rows - next.rows),
      cellsChanged: 0,
      cellsWritten: 0,
      chunksWritten: chunks.length,
      chunksTotal: prep.incoming.chunks.length,
      rowsWritten: 0,
      cellsCleared: 0,
      syncs: 0,
      maxSyncBytes: 0,
      bytes: 0,
      timings: { ...prep.timings, readMs: tCompare - tRead, compareMs: tWrite - tCompare, writeMs: 0, recordMs: 0 },
    };
    // Inside a differing chunk only the span of differing rows is sent (both grids are in memory),
    // and every write holds whole chunk spans: an interruption between syncs leaves each chunk all old
    // or all new, which classify() recognises as Cellbound's own (never a hand edit).
    const spans = chunks.flatMap((c) => {
      const rows = changedRows(cells(), currentShaped, c.from, c.to);
      return rows.length ? [{ from: rows[0]!.from, to: rows[rows.length - 1]!.to }] : [];
    });
    const calls = groupSpans(spans, (this.ctx.writeChunksPerCall ?? 4) * chunkHeight(prep.incoming));
    stats.rowsWritten = calls.reduce((n, r) => n + r.to - r.from + 1, 0);
    const leftovers = (await stillToClear(p, anchor, next, current)).flatMap((left) => withoutRows(left, anchor.row, keptRows));
    // Read ahead of the lock: the cells about to be overwritten or cleared must still be what was read
    // (one read of the rows they span; a change means comparing again on a fresh read).
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
    // The same round trip brings the cells' number formats, which the writes under keepFormats need
    // (no number into an "@" cell): the adapter then reads none of its own (WriteOptions.currentFormats).
    // Read before the query: one look at the workbook as it is now (issue 36, items 3, 16, 17) — where the
    // placement and its sheet are, the rows it grows into, the cells about to be overwritten or cleared and
    // their number formats (the writes under keepFormats need them: no number into an "@" cell). Moved,
    // renamed or changed meanwhile: compare and plan again on a fresh read.
    let formatsNow: { box: Area; formats: string[][] } | null = null;
    if (ahead && (touched.length > 0 || growth.length > 0)) {
      const box = touched.length ? boundingBox(touched) : null;
      const r = await s.recheck({ areas: [...(box ? [box] : []), ...growth], numberFormats: true, ...(signal ? { signal } : {}) });
      const seen = box ? r.values[0]! : null;
      const changed = seen && box && !sameCells(seen.grid, current, box.row - anchor.row, box.col - anchor.col);
      if (!samePlace(placementArea(p, r.tracked, r.sheets), t) || changed) return this.planAgain(prepared, choice, signal);
      const blocked = roomToGrow(
        next,
        growth,
        r.values.slice(box ? 1 : 0).map((v) => v.grid),
        neighbours(r.tracked, p.name, await loadPlacements(s)),
      );
      if (blocked) return blocked;
      if (seen?.numberFormats && box) formatsNow = { box, formats: seen.numberFormats };
    }
    const writes = calls.length > 0 || leftovers.length > 0; // nothing to write: no journal, nothing sent
    // What each cleared area holds now (Cellbound's cells): only that is ever cleared again (issue 36, item 2).
    const clears = await Promise.all(
      leftovers.map(async (a) => ({
        row: a.row - anchor.row,
        col: a.col - anchor.col,
        rows: a.rows,
        cols: a.cols,
        held: await contentHash(cutGrid(current, a.row - anchor.row, a.col - anchor.col, a.rows, a.cols)),
      })),
    );
    const carried = p.pending && writes ? await this.carriedRows(p, prep, current, fpOf, inKept) : [];
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
          ...(clears.length ? { clears } : {}),
          ...(carried.length ? { carried } : {}),
        },
      }));
    // Formats: grown rows/columns get theirs first; the values keep whatever format a cell has (styling.ts).
    if ((next.rows > old.rows || next.cols > old.cols) && !(await isValuesOnly(s, p.key)))
      await styleGrowth(s, anchor, old, next, prep.layout(), pin);
    const starts = prep.incoming.chunks.map((c) => c.from);
    for (const run of calls) {
      stats.cellsChanged += changedCells(cells(), currentShaped, run.from, run.to);
      await this.journal(s, p.key, { inFlight: run });
      const w = await s.write(
        { sheetId: anchor.sheetId, row: anchor.row + run.from, col: anchor.col },
        cells().slice(run.from, run.to + 1),
        {
          columnFormats: prep.layout().columnFormats,
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
    if (writes) await this.journal(s, p.key, { phase: "written", inFlight: null });
    let area = areaAt(anchor, next);
    await s.track(p.name, area, pin?.area); // nothing is sent when the name already covers the area
    let sent = await s.flush(signal);
    // The name was elsewhere when it was re-pointed (rows inserted above in the last round trip): the writes
    // followed it; put the name where the placement is.
    const moved = sent.moved?.find((m) => m.name.toLowerCase() === p.name.toLowerCase());
    if (moved) {
      if (!moved.found) throw new Error(`The cells of “${p.reportName ?? "the report"}” were deleted while it was being refreshed.`);
      area = areaAt(moved.found, next);
      await s.track(p.name, area);
      sent = addCommitStats(sent, await s.flush(signal));
    }
    stats.syncs = sent.syncs;
    stats.maxSyncBytes = sent.maxSyncBytes;
    const sheet = (await s.sheets()).find((x) => x.id === t.sheet.id) ?? t.sheet; // as named now (issue 36, item 16)
    // Same source and nothing written: the cells last written are unchanged (and were never laid out).
    if (!(prep.sameSource && calls.length === 0 && keptRows.length === 0)) {
      this.lastWritten.set(p.key, keptRows.length && lastWritten ? mergeKept(cells(), lastWritten, keptRows) : cells());
      if (keptRows.length && !lastWritten) this.lastWritten.delete(p.key);
    }
    const tRecord = performance.now();
    stats.timings.writeMs = tRecord - tWrite;
    try {
      await this.record(s, p, prep.incoming, prep.source, area, sheet, signal, keptRows.length > 0);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      throw await this.rollBack(s, p, anchor, current, t.area, lastWritten, signal);
    }
    stats.timings.recordMs = performance.now() - tRecord;
    if (edits && choice === "keep") return { kind: "kept", stats, edits };
    const notices =
      state.kind === "unrecorded" || state.kind === "interrupted"
        ? ["An earlier refresh of this placement was interrupted after writing; it is now complete."]
        : [];
    return { kind: "refreshed", stats, notices: prep.cut ? [...notices, prep.cut.message] : notices };
  }

  /** Compare and plan a refresh again on a fresh read of the workbook (it changed while the data was fetched). */
  private async planAgain(prep: PreparedRefresh, choice: RefreshChoice, signal: AbortSignal | undefined): Promise<RefreshOutcome> {
    const fresh = await this.session({ trackedValues: [prep.placement.name], writeChecks: true, ...(signal ? { signal } : {}) });
    const out = await this.applyRefreshLocked(prep, choice, signal, fresh, false);
    await fresh.flush(signal);
    return out;
  }

  /**
   * The platform refused to record a refresh whose cells were written (a 403: the role changed
   * mid-refresh, or was never known): put back the cells read before the write (`before`, from the
   * anchor, in the union shape), the tracked area and the journal as they were, and say so in
   * words. The deployment is view only from then on (access.ts).
   */
  private async rollBack(
    s: Session,
    p: LocalPlacement,
    anchor: Pick<Area, "sheetId" | "row" | "col">,
    before: Grid,
    area: Area,
    lastWritten: Grid | undefined,
    signal?: AbortSignal,
  ): Promise<ViewOnly> {
    this.refused.add(p.deploymentId);
    try {
      await s.write(anchor, before, { keepFormats: true });
      await s.track(p.name, area);
      await updatePlacement(s, p.key, (x) => ({ ...x, pending: p.pending }));
      await s.flush(signal);
      if (lastWritten) this.lastWritten.set(p.key, lastWritten);
      else this.lastWritten.delete(p.key);
      return new ViewOnly(refusedRecordReason(p.reportName, true));
    } catch {
      return new ViewOnly(refusedRecordReason(p.reportName, false));
    }
  }

  /** PUT .../refresh, then commit the fingerprint locally (queued on the session: the caller sends it). */
  private async record(
    s: Session,
    p: LocalPlacement,
    checksum: ResultChecksum,
    source: string,
    area: Area,
    sheet: SheetRef,
    signal: AbortSignal | undefined,
    editsKept: boolean,
  ): Promise<void> {
    // A first placement interrupted before its record (resumed by this refresh): connect it now.
    if (!p.placementId) {
      await this.connectNewPlacement(s, p, checksum, area, sheet, signal);
      if (editsKept) await updatePlacement(s, p.key, (x) => ({ ...x, editsKept }));
      return;
    }
    const addr = platformAddress(sheet.name, area);
    await this.ctx.platform.refreshReport(
      p.deploymentId,
      p.reportId,
      { placementId: p.placementId, resultChecksum: checksum, sheetId: sheet.id, sheetName: sheet.name, ...addr },
      signal,
    );
    await updatePlacement(s, p.key, (x) => ({
      ...x,
      committed: checksum,
      source,
      pending: null,
      shape: { rows: area.rows, cols: area.cols },
      sheetId: sheet.id,
      sheetName: sheet.name,
      anchorCell: addr.anchorCell,
      editsKept,
    }));
  }

  /**
   * The rows an earlier unfinished write left holding neither the committed grid nor the one this
   * write brings (the half-written call of its journal, or whole chunks of its grid). The new
   * journal replaces the earlier one, its `inFlight` with it, so it carries these rows until this
   * write rewrites them: an interruption before then still reads "Interrupted", never a hand edit.
   * Only rows this write rewrites are carried (rows kept as edits stay edits).
   */
  private async carriedRows(
    p: LocalPlacement,
    prep: PreparedRefresh,
    current: Grid,
    fpOf: (s: Shape) => Promise<ResultChecksum>,
    kept: (r: { from: number; to: number }) => boolean,
  ): Promise<{ from: number; to: number }[]> {
    const next: PendingWrite = { checksum: prep.incoming, shape: prep.shape, at: "", phase: "writing", inFlight: null };
    const probe = await this.classifyCells({ ...p, pending: next }, current, fpOf);
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

  /** Classify the current cells (read in the union shape) of a placement. */
  async classifyCells(
    p: LocalPlacement,
    current: Grid,
    fpOf: (s: Shape) => Promise<ResultChecksum> = shapedFingerprints(current),
  ): Promise<CellState> {
    const state = await this.classifyJournal(p, current, fpOf);
    // The rows a large placement had written when it stopped, all there: not the whole result, so not a
    // write to finish by recording it — a refresh finishes it (placeStreamed).
    return p.pending?.partial && state.kind === "unrecorded" ? { kind: "interrupted", staleChunks: [] } : state;
  }

  private async classifyJournal(p: LocalPlacement, current: Grid, fpOf: (s: Shape) => Promise<ResultChecksum>): Promise<CellState> {
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

  // ---- refresh all ----------------------------------------------------------------------------

  /**
   * Refresh every placement of this workbook. Queries run with bounded concurrency; the sheet
   * has one writer. Hand-edited placements are not overwritten (they end as Not refreshed, with
   * their edited rows); the caller refreshes them one by one. Placements the signed-in user cannot
   * refresh (report not readable, another deployment without a data client) end Not refreshed
   * with the reason — never counted as refreshed.
   *
   * Stop (the signal) stops between placements: queued items and items still querying end
   * "Stopped"; a placement whose write has begun is finished and recorded (docs/SYNC.md).
   */
  async refreshAll(
    o: { signal?: AbortSignal; onProgress?: (p: QueueProgress) => void; readable?: (p: LocalPlacement) => boolean } = {},
  ): Promise<QueueProgress> {
    // One read of the workbook for every placement: state, tracking and all their cells.
    const view = await this.session({ trackedValues: "all", writeChecks: true, ...(o.signal ? { signal: o.signal } : {}) });
    const identity = await view.identity();
    const all = await loadPlacements(view);
    const byDeployment = new Map<number, Map<number, Report> | Error>();
    for (const id of new Set(all.map((p) => p.deploymentId))) {
      try {
        byDeployment.set(id, await reportsById(this.ctx, id, identity.workbookId, o.signal));
      } catch (e) {
        if (o.signal?.aborted) throw e;
        byDeployment.set(id, e as Error);
      }
    }
    // View only (access.ts): not queued, not counted; each says so.
    const skipped: QueueProgress["items"] = {};
    for (const p of all)
      if (this.viewOnly(p.deploymentId)) skipped[p.key] = { state: "not-refreshed", reason: viewOnlyPrefix + viewOnlyReason() };
    const withSkipped = (q: QueueProgress): QueueProgress => ({ ...q, items: { ...skipped, ...q.items } });
    const onProgress = o.onProgress;
    const queued = all.filter((p) => !skipped[p.key]);
    const progress = await runQueue(
      queued.map((p) => ({
        key: p.key,
        prepare: (signal: AbortSignal) => {
          const reports = byDeployment.get(p.deploymentId);
          if (reports instanceof Error) throw listingFailed(reports, p, this.ctx);
          const report = reports?.get(p.reportId);
          if (!report || o.readable?.(p) === false) throw new NotRefreshed(`${noAccessPrefix}${noAccessReason(p, this.ctx)}`);
          try {
            this.dataOf(p);
          } catch (e) {
            throw new NotRefreshed(`${noAccessPrefix}${(e as Error).message}`);
          }
          return this.prepareRefresh(p.key, report, signal, view);
        },
        // No stop signal here: a write that has begun is finished (an unbounded hang is ended by
        // the API layer's deadlines and the port's sync deadline), so Stop never leaves a placement half written.
        apply: async (prep: PreparedRefresh) => {
          // Another operation of this engine wrote since the read: read this placement again (applyRefresh does).
          const out = await this.applyRefresh(prep, "ask", undefined, view);
          switch (out.kind) {
            case "refreshed":
              return describeChange(out.stats);
            case "handEdited":
              throw new NotRefreshed(
                `Edited by hand (${describeRowList(out.edits.rows, prep.placement)}); refresh it on its own to choose overwrite or keep.`,
              );
            case "cannotGrow":
            case "missing":
              throw new NotRefreshed(out.reason);
            case "kept":
              return "Kept edits";
          }
        },
      })),
      {
        concurrency: this.ctx.queryConcurrency ?? 2,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(onProgress ? { onProgress: (q: QueueProgress) => onProgress(withSkipped(q)) } : {}),
      },
    );
    return withSkipped(progress);
  }

  // ---- disconnect ---------------------------------------------------------------------------

  /**
   * DELETE .../connect-workbook for one placement; the cells stay unless `clear`; the name goes.
   * Idempotent: a report or placement already gone on the platform (404) still loses its local record.
   */
  async disconnect(key: string, o: { clear?: boolean; signal?: AbortSignal } = {}): Promise<void> {
    await this.lock.run(async () => {
      const s = await this.session(o.signal ? { signal: o.signal } : {});
      const p = await this.placement(key, s);
      if (this.viewOnly(p.deploymentId)) throw new ViewOnly(viewOnlyReason().replace("not refresh it", "not disconnect it"));
      if (p.placementId) {
        try {
          await this.ctx.platform.disconnectWorkbook(p.deploymentId, p.reportId, { placementId: p.placementId }, o.signal);
        } catch (e) {
          // 404 means gone — or not ours to see: only a placement the platform no longer lists is gone.
          if (!(e instanceof NotFoundError) || (await this.stillListed(p.placementId, (await s.identity()).workbookId, o.signal))) throw e;
        }
      }
      const t = (await s.tracked()).find((x) => x.name.toLowerCase() === p.name.toLowerCase());
      let clearFailed: unknown = null;
      if (o.clear && t?.area) {
        try {
          await s.clear(t.area);
          await s.flush(o.signal);
        } catch (e) {
          clearFailed = e;
        }
      }
      // The platform no longer has this placement: the workbook stops tracking it even when clearing failed
      // (a record kept here would point at nothing, and every refresh of it would fail).
      if (t) await s.untrack(p.name);
      await updatePlacement(s, key, () => null);
      await forgetStyle(s, key);
      await s.flush(o.signal);
      this.lastWritten.delete(key);
      if (clearFailed) {
        const why = clearFailed instanceof Error ? clearFailed.message : String(clearFailed);
        throw new Error(
          `“${p.reportName}” is disconnected, but its cells at ${p.sheetName}!${t?.area ? areaA1(t.area) : p.anchorCell} could not all be cleared (${why}). They are plain values now: clear them by hand if you do not want them.`,
          { cause: clearFailed },
        );
      }
    }, o.signal);
  }

  /** Does the platform still list this placement for the workbook (GRANTED or DENIED)? */
  private async stillListed(placementId: string, workbookId: string, signal?: AbortSignal): Promise<boolean> {
    for await (const x of this.ctx.platform.iterateExternalPlacements(workbookId, {}, signal))
      if (x.placementId === placementId) return true;
    return false;
  }

  async placement(key: string, view?: SheetPort): Promise<LocalPlacement> {
    const p = (await loadPlacements(view ?? this.ctx.port)).find((x) => x.key === key);
    if (!p) throw new Error(`No placement ${key} is tracked in this workbook.`);
    return p;
  }

  /** For check.ts: run under the single-writer lock (given up when `signal` aborts). */
  exclusive<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.lock.run(fn, signal);
  }

  /** The grid this engine last wrote for a placement in this session (exact edited rows in check). */
  lastWrittenGrid(key: string): Grid | undefined {
    return this.lastWritten.get(key);
  }
}

// ---------------------------------------------------------------- helpers

/** A report too large for where it would go: nothing was written (issue 36, item 4). */
export class DoesNotFit extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DoesNotFit";
  }
}

/** What stops a grid of `shape` at `at` from fitting on a sheet, in words (null when it fits). */
export function offSheet(at: Pick<Area, "row" | "col">, shape: Shape): string | null {
  if (at.row + shape.rows > MAX_ROWS)
    return `it has ${shape.rows.toLocaleString("en-US")} rows: from row ${(at.row + 1).toLocaleString("en-US")} it would pass the sheet's last row (${MAX_ROWS.toLocaleString("en-US")})`;
  if (at.col + shape.cols > MAX_COLS)
    return `it has ${shape.cols.toLocaleString("en-US")} columns: from column ${columnLetters(at.col)} it would pass the sheet's last column (${columnLetters(MAX_COLS - 1)})`;
  return null;
}

function refuseOffSheet(reportName: string, at: Pick<Area, "row" | "col">, shape: Shape): void {
  const why = offSheet(at, shape);
  if (why) throw new DoesNotFit(`“${reportName}” does not fit there: ${why}. Nothing was written; place it higher up or further left.`);
}

/** The signed-in user cannot refresh this placement; the message says why. */
export class NoAccess extends NotRefreshed {
  constructor(reason: string) {
    super(reason);
    this.name = "NoAccess";
  }
}

/** The signed-in user may read this placement's report but not change placements (access.ts). Nothing was left written. */
export class ViewOnly extends NoAccess {
  constructor(reason: string) {
    super(reason);
    this.name = "ViewOnly";
  }
}

function deploymentLabel(p: LocalPlacement, ctx: SyncContext): string {
  const name = ctx.deploymentNames?.(p.deploymentId) ?? p.deploymentName ?? null;
  return name ? `deployment ${name}` : "another deployment";
}

function noAccessReason(p: LocalPlacement, ctx: SyncContext): string {
  return `you cannot read ${p.reportName ? `the report ${p.reportName}` : "this report"} in ${deploymentLabel(p, ctx)} (it was deleted, or it is not shared with you).`;
}

/**
 * Refresh all could not list a deployment's reports. A 403 or 404 means this user cannot read them:
 * No access. Anything else did not say so — no answer, a server error, a deadline: the item failed,
 * says what happened, and Refresh stays offered (issue 36, item 7).
 */
function listingFailed(e: Error, p: LocalPlacement, ctx: SyncContext): Error {
  if (e instanceof ForbiddenError || e instanceof NotFoundError) return new NotRefreshed(`${noAccessPrefix}${noAccessReason(p, ctx)}`);
  const what = p.reportName ? `the report ${p.reportName}` : "this report";
  const why = unreachable(e);
  return new Error(
    why
      ? `Could not reach the platform to look up ${what}: ${why}. Nothing was changed; try again.`
      : `Could not look up ${what} on the platform: ${e.message}`,
  );
}

/** Why the platform could not be reached, in words; null when it answered and refused. */
function unreachable(e: unknown): string | null {
  if (!(e instanceof ApiError)) return null;
  if (e.kind === "retry-exhausted") return unreachable(e.cause);
  if (e.kind === "network") return "there was no answer (the network or the platform is down)";
  if (e.kind === "server") return "it answered with a server error";
  if (e.kind === "timeout") return "it did not answer in time";
  if (e.kind === "rate-limited") return "it asked Cellbound to slow down";
  return null;
}

/** "rows 3–7 and 12" as sheet rows, for reasons (exact rows relative to the placement). */
function describeRowList(rows: readonly { from: number; to: number }[], p: LocalPlacement): string {
  const top = parseCellRow(p.anchorCell);
  const parts = rows.map((r) => (r.from === r.to ? `${top + r.from}` : `${top + r.from}–${top + r.to}`));
  return `${parts.length === 1 && rows[0]!.from === rows[0]!.to ? "row" : "rows"} ${parts.join(", ")}`;
}

function parseCellRow(a1: string): number {
  return Number(/\d+$/.exec(a1)?.[0] ?? "1");
}

/** Cells in rows [from, to] whose incoming value differs from the current one. */
function changedCells(incoming: Grid, current: Grid, from: number, to: number): number {
  let n = 0;
  for (let r = from; r <= to; r++) {
    const a = incoming[r]!,
      b = current[r];
    for (let c = 0; c < a.length; c++) if (!sameValue(a[c]!, b?.[c] ?? "")) n++;
  }
  return n;
}

function sameValue(a: SheetValue, b: SheetValue): boolean {
  return Object.is(a, b) || (a === 0 && b === 0);
}

/** Fingerprints of the top-left sub-grids of `current`, computed once per shape. */
function shapedFingerprints(current: Grid): (s: Shape) => Promise<ResultChecksum> {
  const memo = new Map<string, Promise<ResultChecksum>>();
  return (s) => {
    const k = `${s.rows}x${s.cols}`;
    let v = memo.get(k);
    if (!v) memo.set(k, (v = fingerprintGrid(sliceGrid(current, s.rows, s.cols))));
    return v;
  };
}

/** The smallest area holding all of these (same sheet). */
function boundingBox(areas: readonly Area[]): Area {
  const row = Math.min(...areas.map((a) => a.row)),
    col = Math.min(...areas.map((a) => a.col));
  const end = Math.max(...areas.map((a) => a.row + a.rows)),
    right = Math.max(...areas.map((a) => a.col + a.cols));
  return { sheetId: areas[0]!.sheetId, row, col, rows: end - row, cols: right - col };
}

/** The formats read in `box` for a write of rows × cols at (row, col), when the box holds them all. */
function formatsAt(
  read: { box: Area; formats: string[][] } | null,
  row: number,
  col: number,
  rows: number,
  cols: number,
): { currentFormats?: string[][] } {
  if (!read) return {};
  const { box, formats } = read;
  const dr = row - box.row,
    dc = col - box.col;
  if (dr < 0 || dc < 0 || dr + rows > box.rows || dc + cols > box.cols) return {};
  return { currentFormats: formats.slice(dr, dr + rows).map((r) => r.slice(dc, dc + cols)) };
}

/** Does `fresh` (read at rows/cols offset from the anchor) hold what `earlier` (read from the anchor) held there? */
function sameCells(fresh: Grid, earlier: Grid, rowOffset: number, colOffset: number): boolean {
  for (let r = 0; r < fresh.length; r++) {
    const a = fresh[r]!;
    const b = earlier[rowOffset + r];
    for (let c = 0; c < a.length; c++) if (a[c] !== (b?.[colOffset + c] ?? "")) return false;
  }
  return true;
}

function maxShape(a: Shape, b: Shape): Shape {
  return { rows: Math.max(a.rows, b.rows), cols: Math.max(a.cols, b.cols) };
}

/** Cannot grow: the rows and columns a result grows into belong to another placement or hold content (read in `grids`). */
function roomToGrow(next: Shape, growth: readonly Area[], grids: readonly Grid[], others: readonly Neighbour[]): RefreshOutcome | null {
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

/**
 * What a refresh to `next` clears: the cells the committed shape had beyond it — except cells an earlier
 * shrink of this placement already cleared (its journal's `clears`): those are cleared again only when its
 * write stopped before it was done and they still hold what Cellbound wrote there (issue 36, item 2: a
 * person's note typed there since is theirs). `current` is read from the anchor, in the union shape.
 */
async function stillToClear(p: LocalPlacement, anchor: Pick<Area, "sheetId" | "row" | "col">, next: Shape, current: Grid): Promise<Area[]> {
  const base = leftoverAreas(anchor, p.shape, next);
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

/** rows × cols of a grid from (row, col), "" where it is smaller. */
export function cutGrid(grid: Grid, row: number, col: number, rows: number, cols: number): Grid {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => grid[row + r]?.[col + c] ?? ""));
}

/** The placement is where it was read, on the sheet as it was named (nothing moved, resized or renamed it). */
function samePlace(now: { area: Area; sheet: SheetRef } | null, then: { area: Area; sheet: SheetRef }): boolean {
  return now !== null && sameArea(now.area, then.area) && now.sheet.name === then.sheet.name;
}

function sameArea(a: Area, b: Area): boolean {
  return a.sheetId === b.sheetId && a.row === b.row && a.col === b.col && a.rows === b.rows && a.cols === b.cols;
}

/** Other placements' areas, labelled as people know them: report title and range, never the tracking name. */
function neighbours(tracked: readonly TrackedArea[], self: string | null, placements: readonly LocalPlacement[]): Neighbour[] {
  const titles = new Map(placements.map((p) => [p.name.toLowerCase(), p.reportName] as const));
  return tracked
    .filter((t) => t.area && t.name.toLowerCase() !== self?.toLowerCase())
    .map((t) => {
      const title = titles.get(t.name.toLowerCase());
      const where = `${t.sheet?.name ?? "?"}!${areaA1(t.area!)}`;
      return { label: title ? `“${title}” at ${where}` : `another placement at ${where}`, area: t.area! };
    });
}

export function findPlacementId(report: Report, workbookId: string, sheetId: string, anchorCell: string): string {
  const match = (report.externalWorkbookPlacements ?? []).filter(
    (x) => x.workbookId === workbookId && x.sheetId === sheetId && x.anchorCell.replace(/\$/g, "").toUpperCase() === anchorCell,
  );
  const p = match[match.length - 1];
  if (!p) throw new Error("The platform did not return the new placement after connect-workbook.");
  return p.id;
}

/** Rows of a leftover area minus the kept (edited) rows, as areas. */
function withoutRows(area: Area, anchorRow: number, kept: readonly { from: number; to: number }[]): Area[] {
  let pieces = [area];
  for (const k of kept) {
    const from = anchorRow + k.from,
      to = anchorRow + k.to;
    pieces = pieces.flatMap((a) => {
      if (to < a.row || from > a.row + a.rows - 1) return [a];
      const out: Area[] = [];
      if (from > a.row) out.push({ ...a, rows: from - a.row });
      if (to < a.row + a.rows - 1) out.push({ ...a, row: to + 1, rows: a.row + a.rows - 1 - to });
      return out;
    });
  }
  return pieces;
}

function mergeKept(incoming: Grid, previous: Grid, kept: readonly { from: number; to: number }[]): Grid {
  return incoming.map((row, r) => (kept.some((k) => r >= k.from && r <= k.to) ? (previous[r] ?? row) : row));
}

/** The hand-edit report: edited row ranges and, per edited cell, last written / now / incoming. */
function editsOf(
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

/** A prepared refresh with its grid laid out and fingerprinted. */
async function laidOut(prep: PreparedRefresh): Promise<PreparedRefresh> {
  const { cells, columnFormats } = prep.layout();
  return { ...prep, sameSource: false, incoming: await fingerprintGrid(cells), shape: { rows: cells.length, cols: columnFormats.length } };
}

/** The checksum's chunk height (rows per chunk), from the fingerprint itself. */
function chunkHeight(c: ResultChecksum): number {
  const first = c.chunks[0];
  return first && c.chunks.length > 1 ? c.chunks[1]!.from - first.from : Math.max(1, (first?.to ?? 1) - (first?.from ?? 0));
}

/** Merge contiguous spans into write calls of at most `maxRows` rows (never splitting a span). */
function groupSpans(spans: readonly { from: number; to: number }[], maxRows: number): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.from === last.to + 1 && s.to - last.from + 1 <= maxRows) last.to = s.to;
    else out.push({ ...s });
  }
  return out;
}

/** Runs of rows in [from, to] where the incoming row differs from the current one. */
function changedRows(incoming: Grid, current: Grid, from: number, to: number): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (let r = from; r <= to; r++) {
    const a = incoming[r]!,
      b = current[r];
    let same = b !== undefined && a.length === b.length;
    for (let c = 0; same && c < a.length; c++) same = Object.is(a[c], b![c]) || (a[c] === 0 && b![c] === 0);
    if (same) continue;
    const last = out[out.length - 1];
    if (last && last.to === r - 1) last.to = r;
    else out.push({ from: r, to: r });
  }
  return out;
}

function jsonBytes(grid: Grid, from: number, to: number): number {
  let n = 0;
  for (let r = from; r <= to; r++) n += JSON.stringify(grid[r]).length + 1;
  return n;
}

/** Rows per style command when a streamed placement's column changes format (about 1 MB a request). */
const RESTYLE_ROWS = 100_000;

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
