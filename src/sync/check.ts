// Check (on open and on demand), fork of a copied workbook, and the workbook home data.
//
// check(): for each placement tracked in this workbook —
//   syncStatus from the platform (UP_TO_DATE / CHANGED / UNKNOWN);
//   hand-edit state from the fingerprint (an interrupted write of our own is finished, not flagged);
//   anchor moved (its name moved) or sheet renamed (same id, new name): connect-workbook with
//     addressOnly: true, which keeps the stored fingerprint;
//   sheet or range deleted: reported missing, with the offer to disconnect;
//   workbook copied (same stored id, another URL): offer to fork; a fork that did not finish for a
//     placement (its original's id set aside) is finished: connected anew under this workbook's id.
// home(): every page of GET /external-documents/{id}/placements merged with local tracking;
//   DENIED placements are listed read-only with their owner and deployment; a 422 (the workbook over
//   the platform's limits) lists the workbook's own placements, UNLISTED, with what to do (limits.ts).
// homeCheck(): the pane's home reload — check() and home() on ONE snapshot of the workbook (identity, state,
//   tracking and every placement's cells: two round trips in Excel), writes queued and sent per placement.
import { PlacementLimitError, type ExternalPlacement } from "../api/index.ts";
import { areaA1, cellA1 } from "../host/a1.ts";
import { inputsOn } from "./bind.ts";
import type { Area, SheetPort, SnapshotRequest, TrackedArea } from "../host/port.ts";
import { platformAddress, readArea, type SyncContext } from "./context.ts";
import { classifyCells, classifyHeld, structureOf } from "./classify.ts";
import { storedRowPrints } from "./rows.ts";
import { unsorted } from "./table.ts";
import { holdsOurs } from "./clears.ts";
import { cutGrid } from "./grids.ts";
import { findPlacementId } from "./record.ts";
import type { CheckReport, EditState, Engine, ForkOutcome, HandEdits, HomeData, HomeEntry, PlacementCheck } from "./types.ts";
import { chunkRows, type Grid } from "./fingerprint.ts";
import { forgetSeen, noteSeen, unlistedMessage } from "./limits.ts";
import { leftoverAreas, mergeRuns, type Shape } from "./plan.ts";
import { notedWhereNamed } from "./cells-note.ts";
import type { Session } from "./session.ts";
import {
  loadPlacements,
  ownPlacementId,
  placementArea,
  setAsideForFork,
  updatePlacement,
  type CellState,
  type LocalPlacement,
} from "./state.ts";

/** The platform refused the list: the document holds too many placements (seeds 01 §4.1, §8). */
export class HomeLimitError extends Error {
  constructor(readonly detail: string) {
    super(
      `This workbook holds more placements than the platform lists: over 500 placed reports or over 2,000 placements in total. Remove some placements (disconnect them) to see the list again. (${detail})`,
    );
    this.name = "HomeLimitError";
  }
}

async function platformPlacements(ctx: SyncContext, workbookId: string, signal?: AbortSignal): Promise<ExternalPlacement[]> {
  const out: ExternalPlacement[] = [];
  try {
    for await (const p of ctx.platform.iterateExternalPlacements(workbookId, {}, signal)) out.push(p);
  } catch (e) {
    if (e instanceof PlacementLimitError) throw new HomeLimitError(e.message);
    throw e;
  }
  return out;
}

const byName = (tracked: readonly TrackedArea[], name: string) => tracked.find((t) => t.name.toLowerCase() === name.toLowerCase());

/**
 * What a check reads: identity, state, tracking and every tracked placement's cells — but those of a
 * placement whose cells the host's note says hold what it recorded (issue 35 §3: `noted`).
 */
async function checkRead(engine: Engine, signal?: AbortSignal): Promise<{ req: SnapshotRequest; noted: ReadonlySet<string> }> {
  const port = engine.ctx.port;
  const noted = await notedPlacements(port);
  const skip = new Set([...noted.values()].map((name) => name.toLowerCase()));
  const trackedValues = noted.size ? (await port.tracked()).filter((t) => !skip.has(t.name.toLowerCase())).map((t) => t.name) : "all";
  return { req: { trackedValues, ...(signal ? { signal } : {}) }, noted: new Set(noted.keys()) };
}

/**
 * The placements (key → tracking name) whose cells the host's note says hold what they recorded
 * (cells-note.ts): a check need not read them to know they are clean. None on a host that keeps no notes (Excel).
 */
async function notedPlacements(port: SheetPort): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!port.cellsNote) return out;
  try {
    for (const p of await loadPlacements(port)) if (await notedWhereNamed(port, p)) out.set(p.key, p.name);
  } catch {
    return new Map(); // the check's own read says what is wrong
  }
  return out;
}

/**
 * The pane's home reload: check() then home(), both on one snapshot of the workbook (the session is read
 * again only if another operation of this engine wrote meanwhile).
 */
export async function homeCheck(engine: Engine, o: { signal?: AbortSignal } = {}): Promise<{ checked: CheckReport; data: HomeData }> {
  const session = await engine.session((await checkRead(engine, o.signal)).req);
  const checked = await check(engine, { ...o, session });
  const data = await home(engine, { ...o, session });
  return { checked, data };
}

export async function check(engine: Engine, o: { signal?: AbortSignal; session?: Session } = {}): Promise<CheckReport> {
  const { ctx } = engine;
  const read = await checkRead(engine, o.signal);
  let s = o.session ?? (await engine.session(read.req));
  const identity = await s.identity();
  let remote = new Map<string, ExternalPlacement>();
  let platformProblem: string | undefined;
  const records = await loadPlacements(s);
  try {
    const listed = await platformPlacements(ctx, identity.workbookId, o.signal);
    remote = new Map(listed.map((p) => [p.placementId, p]));
    noteSeen(engine, records, listed);
  } catch (e) {
    platformProblem = (e as Error).message;
    noteSeen(engine, records, e instanceof HomeLimitError ? "over" : null);
  }
  const out: PlacementCheck[] = [];
  for (const p of records) {
    o.signal?.throwIfAborted();
    out.push(
      await engine.exclusive(async () => {
        if (!s.current) s = await engine.session((await checkRead(engine, o.signal)).req); // another operation of this engine wrote since: read again
        const noted = read.noted.has(p.key) && (await notedNow(engine, s, p.key));
        const one = await checkOne(engine, s, p, remote.get(p.placementId ?? ""), identity.copied, o.signal, noted);
        await s.flush(o.signal); // anything still queued (checkOne sends its own writes)
        return one;
      }, o.signal),
    );
  }
  return {
    workbookName: identity.name,
    copied: identity.copied,
    offers: identity.copied ? ["fork"] : [],
    placements: out,
    ...(platformProblem ? { platformProblem } : {}),
  };
}

/** Whether the note on a placement's cells still says they hold what it recorded, as it is recorded now. */
async function notedNow(engine: Engine, s: Session, key: string): Promise<boolean> {
  const p = (await loadPlacements(s)).find((x) => x.key === key);
  return p !== undefined && (await notedWhereNamed(engine.ctx.port, p, s));
}

/**
 * One placement, on the session `s` (its writes are sent where the direct port calls were: one commit each).
 * `noted`: the host's note says its cells hold what it recorded (issue 35 §3) — clean, its cells not read.
 */
async function checkOne(
  engine: Engine,
  s: Session,
  recorded: LocalPlacement,
  remote: ExternalPlacement | undefined,
  copied: boolean,
  signal?: AbortSignal,
  noted = false,
): Promise<PlacementCheck> {
  const base = unchecked(recorded, remote);
  if (recorded.inputs?.length) base.inputs = await inputsFacts(s, recorded, signal); // issue 32: from this snapshot
  if (recorded.table) base.table = recorded.table.name; // issue 33: the card names its table
  const t = placementArea(recorded, await s.tracked(), await s.sheets());
  if (!t) return { ...base, missing: true, offers: ["disconnect"] };
  const area = t.area;
  const sheet = t.sheet;
  base.sheetName = sheet.name;
  base.range = areaA1(area);

  // View only (access.ts): nothing is recorded; someone who may change it corrects the address later.
  // A copy is not corrected: its placements belong to the original until it is forked.
  const mayRecord = !copied && !engine.viewOnly(recorded.deploymentId);
  const p = await followAddress(engine, s, recorded, t, base, mayRecord, signal);
  if (noted) {
    base.edit = "clean"; // the cells hold what it recorded (the note), unread
    return base;
  }

  // Hand edits, from the fingerprints (committed and pending).
  const read = await readArea(
    s,
    {
      ...area,
      rows: Math.max(area.rows, p.shape.rows, p.pending?.shape.rows ?? 0),
      cols: Math.max(area.cols, p.shape.cols, p.pending?.shape.cols ?? 0),
    },
    signal,
  );
  const local = (await loadPlacements(s)).find((x) => x.key === p.key) ?? p;
  // Issue 33: a table the person sorted holds the rows written in another order — their view, not edits.
  const current = (local.table && !local.pending && (await unsortedTable(s, local, read))) || read;
  const classified = await classifyHeld(local, current, area);
  // Keep my edits wrote all it would and only its record is missing: finish it as it stands (it stays edited).
  const keptWritten = local.pending?.kept === true && local.pending.phase === "written";
  const finishKept = keptWritten && classified.kind === "edited" && mayRecord;
  const state = finishKept ? ({ kind: "unrecorded" } as const) : classified;
  base.edit = editState(state);
  // The journal says a write began and did not end: interrupted even if no cell changed yet.
  if (state.kind === "clean" && local.pending?.phase === "writing") base.edit = "interrupted";
  if (state.kind === "edited") await nameEditedRows(engine, s, base, local, state, current, area);
  if (state.kind === "unrecorded" && mayRecord) {
    try {
      base.range = areaA1(await finishRecord(engine, s, local, sheet, area, current, signal));
      base.edit = "interrupted-finished";
      if (finishKept) {
        // Recorded as it stands: the edits kept are edits of the result now recorded.
        const recordedNow = (await loadPlacements(s)).find((x) => x.key === p.key) ?? local;
        const again = await classifyCells(recordedNow, current);
        base.edit = editState(again);
        if (again.kind === "edited") await nameEditedRows(engine, s, base, recordedNow, again, current, area);
      }
    } catch (e) {
      base.problem = `The last write is complete but could not be recorded yet: ${(e as Error).message}`;
      base.edit = "interrupted";
    }
  }
  return base;
}

/** A placement's check before anything is looked at: what its record and the platform's list say. */
function unchecked(recorded: LocalPlacement, remote: ExternalPlacement | undefined): PlacementCheck {
  return {
    key: recorded.key,
    placementId: recorded.placementId,
    reportId: recorded.reportId,
    reportName: remote?.reportName ?? recorded.reportName,
    syncStatus: remote?.syncStatus ?? "UNKNOWN",
    sheetName: null,
    range: null,
    missing: false,
    corrections: [],
    edit: "unknown",
    editedRows: [],
    editedRowsExact: false,
    offers: [],
    deploymentId: recorded.deploymentId,
  };
}

/** A sorted table placement's cells in the order written (table.ts unsorted), null when they are not a reordering. */
async function unsortedTable(s: Session, p: LocalPlacement, current: Grid): Promise<Grid | null> {
  const prints = await storedRowPrints(s, p.key, p.committed);
  return unsorted(current, prints?.rows ?? null, p.shape, headerRowsOf(current, p));
}

/** The rows above a table placement's data: its first non-empty row through the table's header (the filter summary, if any). */
function headerRowsOf(current: Grid, p: LocalPlacement): number {
  const cols = p.table?.columns.length ?? 0;
  // The header row is the first row whose every report column holds a title (the summary fills only its first cell).
  const at = current.findIndex((row) => row.slice(0, cols).every((v) => v !== ""));
  return at >= 0 ? at + 1 : 1;
}

/** A placement's inputs as a card shows them (issue 32), read in the check's snapshot (it holds every tracked name). */
async function inputsFacts(s: Session, p: LocalPlacement, signal?: AbortSignal): Promise<NonNullable<PlacementCheck["inputs"]>> {
  const now = await inputsOn(s, p, signal);
  return {
    count: now.inputs.length,
    changed: now.changed,
    problem: now.inputs.find((i) => i.problem)?.problem ?? null,
    autoRefresh: now.autoRefresh,
  };
}

/**
 * Rows or columns inserted or deleted inside it are named as such (issue 30: from the row prints); else the
 * rows a person edited, exactly when the cells last written are known (`lastWritten`), else by chunk.
 */
async function nameEditedRows(
  engine: Engine,
  s: Session,
  base: PlacementCheck,
  local: LocalPlacement,
  state: Extract<CellState, { kind: "edited" }>,
  current: Grid,
  held: Shape,
): Promise<void> {
  const found = await structureOf(local, current, held, await storedRowPrints(s, local.key, local.committed));
  if (found) {
    base.structure = found.structure;
    const inserted = found.structure.insertedRows;
    base.editedRows = mergeRuns([...found.changedRows.map((r) => ({ from: r, to: r })), ...inserted].sort((a, b) => a.from - b.from));
    base.editedRowsExact = true;
    return;
  }
  const lastWritten = engine.lastWritten.get(local.key);
  base.editedRows = editedRows(local, state, current, lastWritten);
  base.editedRowsExact = lastWritten !== undefined && base.editedRows.length > 0;
  if (!base.editedRowsExact) base.editedRows = editedRows(local, state, current, undefined);
}

/**
 * Where the placement is now, recorded (check): a fork that did not finish for it is finished where it
 * is; a move or a sheet rename is sent address-only (the platform keeps the fingerprint) and stored.
 * `mayRecord` false (a copy, or view only): nothing is recorded. Problems go to `base`.
 */
async function followAddress(
  engine: Engine,
  s: Session,
  recorded: LocalPlacement,
  { area, sheet }: { area: Area; sheet: { id: string; name: string } },
  base: PlacementCheck,
  mayRecord: boolean,
  signal?: AbortSignal,
): Promise<LocalPlacement> {
  const { ctx } = engine;
  let p = recorded;
  const workbookId = (await s.identity()).workbookId;
  // A fork that did not finish for this placement: connected under this workbook's id now, where it is.
  if (p.forkedFrom && p.placementId === null && mayRecord) {
    try {
      p = await finishFork(engine, s, p, sheet, area, signal);
      base.placementId = p.placementId;
    } catch (e) {
      base.problem = `It is not connected to this copy yet: ${(e as Error).message}. Cellbound tries again at the next check; a refresh connects it too.`;
    }
  }
  const anchorCell = cellA1(area.row, area.col);
  const moved = anchorCell !== p.anchorCell || sheet.id !== p.sheetId;
  const renamed = sheet.name !== p.sheetName;
  if (!(moved || renamed) || !mayRecord) return p;
  if (moved) base.corrections.push(`anchor moved from ${p.anchorCell} to ${anchorCell}`);
  if (renamed) base.corrections.push(`sheet renamed from ${p.sheetName} to ${sheet.name}`);
  try {
    // Only this workbook's own placement id: never the original's, set aside by an unfinished fork.
    const placementId = ownPlacementId(p, workbookId);
    if (placementId) {
      const addr = platformAddress(sheet.name, { ...area, rows: p.shape.rows, cols: p.shape.cols });
      await ctx.platform.connectWorkbook(
        p.deploymentId,
        p.reportId,
        { placementId, sheetId: sheet.id, sheetName: sheet.name, addressOnly: true, ...addr },
        signal,
      );
    }
    await updatePlacement(s, p.key, (x) => ({ ...x, sheetId: sheet.id, sheetName: sheet.name, anchorCell }));
    await s.flush(signal); // a failure to store it is this placement's problem, like the platform's
  } catch (e) {
    base.problem = `Could not record the new address: ${(e as Error).message}`;
  }
  return p;
}

function editState(s: CellState): EditState {
  switch (s.kind) {
    case "clean":
      return "clean";
    case "edited":
      return "edited";
    case "unrecorded":
    case "interrupted":
      return "interrupted";
  }
}

/**
 * Rows of the edited chunks; with the grid last written in this session, only the rows in them
 * that differ from it (the exact rows, as a refresh's hand-edit report names them).
 */
function editedRows(
  p: LocalPlacement,
  s: Extract<CellState, { kind: "edited" }>,
  current: Grid,
  lastWritten: Grid | undefined,
): { from: number; to: number }[] {
  const ref = p.committed ?? p.pending?.checksum;
  if (!ref) return [];
  const rows = p.committed ? p.shape.rows : p.pending!.shape.rows;
  const chunks = mergeRuns(s.editedChunks.filter((i) => i < ref.chunks.length).map((i) => chunkRows(ref, i, rows)));
  if (!lastWritten) return chunks;
  const exact: { from: number; to: number }[] = [];
  for (const c of chunks) {
    for (let r = c.from; r <= c.to; r++) {
      const a = current[r] ?? [],
        b = lastWritten[r] ?? [];
      let same = true;
      for (let k = 0; same && k < p.shape.cols; k++) same = (a[k] ?? "") === (b[k] ?? "");
      if (!same) exact.push({ from: r, to: r });
    }
  }
  return mergeRuns(exact);
}

/**
 * The cells equal the pending write: finish it — clear what a shrink leaves behind (the clear may
 * be what was interrupted), then record it (connect for a first placement, else refresh).
 */
async function finishRecord(
  engine: Engine,
  s: Session,
  p: LocalPlacement,
  sheet: { id: string; name: string },
  area: { sheetId: string; row: number; col: number },
  /** The placement's cells now, from its first cell, in the union of its shapes. */
  current: Grid,
  signal?: AbortSignal,
): Promise<Area> {
  const { ctx } = engine;
  const pending = p.pending!;
  const full = { ...area, rows: pending.shape.rows, cols: pending.shape.cols };
  // Older records carry no journal of the clears: the rows and columns the old shape had beyond the new one.
  const clears =
    pending.clears?.map((c) => ({ row: c.row, col: c.col, rows: c.rows, cols: c.cols, held: c.held })) ??
    leftoverAreas({ sheetId: area.sheetId, row: 0, col: 0 }, p.shape, pending.shape).map((c) => ({ ...c, held: undefined }));
  // Cleared again only when the write stopped before it was done, and only cells that still hold what
  // Cellbound wrote there (issue 36, item 2): a note typed there since the clear is the person's.
  if (pending.phase !== "written")
    for (const c of clears)
      if (await holdsOurs(cutGrid(current, c.row, c.col, c.rows, c.cols), c.held))
        await s.clear({ sheetId: area.sheetId, row: area.row + c.row, col: area.col + c.col, rows: c.rows, cols: c.cols });
  await s.flush(signal); // cleared before the platform records the result
  const addr = platformAddress(sheet.name, full);
  const identity = await s.identity();
  let placementId = ownPlacementId(p, identity.workbookId);
  if (placementId) {
    await ctx.platform.refreshReport(
      p.deploymentId,
      p.reportId,
      { placementId, resultChecksum: pending.checksum, sheetId: sheet.id, sheetName: sheet.name, ...addr },
      signal,
    );
  } else {
    const report = await ctx.platform.connectWorkbook(
      p.deploymentId,
      p.reportId,
      {
        externalWorkbookId: identity.workbookId,
        sheetId: sheet.id,
        sheetName: sheet.name,
        workbookName: identity.name,
        host: ctx.port.host,
        resultChecksum: pending.checksum,
        ...addr,
      },
      signal,
    );
    placementId = findPlacementId(report, identity.workbookId, sheet.id, addr.anchorCell);
  }
  // Keep my edits over rows or columns moved inside (issue 30): the name keeps covering what it holds.
  await s.track(p.name, pending.holds ? { ...full, rows: pending.holds.rows, cols: pending.holds.cols } : full);
  await updatePlacement(s, p.key, (x) => ({
    ...x,
    placementId,
    committed: pending.checksum,
    source: pending.source ?? null,
    pending: null,
    shape: pending.shape,
    ...(pending.kept ? { editsKept: true } : {}),
  }));
  await s.flush(signal); // stored here, so that a failure is this placement's problem
  return full;
}

// ---------------------------------------------------------------- fork

/**
 * The person says this workbook is not a copy but the same file renamed or moved (its URL changed):
 * keep the id and record the new URL (issue 22, item 7). A fork is only ever made when asked for.
 */
export async function keepIdentity(engine: Engine): Promise<void> {
  const { port } = engine.ctx;
  if (!port.keepIdentity) throw new Error("This workbook's host cannot record a new address.");
  await engine.exclusive(() => port.keepIdentity!().then(() => undefined));
}

/**
 * Give a copied workbook its own id and connect its placements anew under it. The original
 * workbook's placements on the platform are left untouched (no placementId is sent).
 *
 * All or nothing per placement, and resumable (issue 36, item 5): first every placement id is set
 * aside as the original's (one store write), then the copy gets its new id, then each placement is
 * connected and takes its own id. One whose connect fails keeps no placement id (the original's
 * stays aside, never sent from here); the copy's next check or refresh connects it.
 */
export async function fork(engine: Engine, o: { signal?: AbortSignal; as?: EarlierCopy } = {}): Promise<ForkOutcome> {
  const { ctx } = engine;
  return engine.exclusive(async () => {
    const original = await ctx.port.identity();
    const aside = new Set(await setAsideForFork(ctx.port, original.workbookId));
    const identity = o.as ? await takeIdentity(ctx.port, o.as.workbookId) : await ctx.port.forkIdentity();
    forgetSeen(engine); // the platform's list of the original is not the copy's
    const tracked = await ctx.port.tracked();
    const out: ForkOutcome = { workbookId: identity.workbookId, reconnected: {}, failed: {} };
    for (const p of await engine.placements()) {
      const t = byName(tracked, p.name);
      if (!aside.has(p.key) || !p.committed) {
        out.failed[p.key] = "It was never fully recorded.";
        continue;
      }
      if (!t?.area || !t.sheet) {
        out.failed[p.key] = "Its cells are missing.";
        continue;
      }
      const sheet = t.sheet;
      try {
        const placementId = o.as?.placementIds.get(p.key) ?? (await connectInCopy(engine, p, identity, sheet, t.area, o.signal));
        await updatePlacement(ctx.port, p.key, (x) => ({ ...x, ...ownAddress(placementId, sheet, t.area!) }));
        out.reconnected[p.key] = placementId;
      } catch (e) {
        out.failed[p.key] =
          `“${p.reportName ?? "A report"}” at ${sheet.name}!${areaA1(t.area)} is not connected to this copy yet: ${(e as Error).message}. ` +
          "Cellbound connects it at the next check of this workbook; a refresh connects it too.";
      }
    }
    return out;
  }, o.signal);
}

/**
 * A copy made again from its template over an earlier copy (`cellbound refresh --out`, issue 32): the earlier
 * copy's workbook id and its placement ids by key. `fork(engine, { as })` gives them to the new copy, so a loop
 * or a schedule refreshes the same copies on the platform instead of adding new ones every run; a placement
 * the earlier copy did not have is connected anew.
 */
export interface EarlierCopy {
  workbookId: string;
  placementIds: ReadonlyMap<string, string>;
}

async function takeIdentity(port: Engine["ctx"]["port"], workbookId: string) {
  if (!port.takeIdentity) throw new Error("This workbook's host cannot take another workbook's id.");
  return port.takeIdentity(workbookId);
}

/**
 * connect-workbook of a copy's placement under the copy's own workbook id, with the fingerprint last
 * recorded: a new placement on the platform (no placementId is sent: the original's stays as it is).
 */
async function connectInCopy(
  engine: Engine,
  p: LocalPlacement,
  identity: { workbookId: string; name: string },
  sheet: { id: string; name: string },
  area: Area,
  signal?: AbortSignal,
): Promise<string> {
  const { ctx } = engine;
  if (!p.committed) throw new Error("It was never fully recorded.");
  const addr = platformAddress(sheet.name, area);
  const report = await ctx.platform.connectWorkbook(
    p.deploymentId,
    p.reportId,
    {
      externalWorkbookId: identity.workbookId,
      sheetId: sheet.id,
      sheetName: sheet.name,
      workbookName: identity.name,
      host: ctx.port.host,
      resultChecksum: p.committed,
      ...addr,
    },
    signal,
  );
  return findPlacementId(report, identity.workbookId, sheet.id, addr.anchorCell);
}

/** The record's fields once it has its own placement id at `area` (the fork is finished for it). */
function ownAddress(placementId: string, sheet: { id: string; name: string }, area: Area): Partial<LocalPlacement> {
  return { placementId, forkedFrom: null, sheetId: sheet.id, sheetName: sheet.name, anchorCell: cellA1(area.row, area.col) };
}

/**
 * Finish a fork for one placement (check): connect it under this workbook's id where it is now. When
 * this workbook kept the id its placement id was set aside under (an interrupted fork, then "the same
 * file, renamed or moved"), that id is its own again: nothing is sent.
 */
async function finishFork(
  engine: Engine,
  s: Session,
  p: LocalPlacement,
  sheet: { id: string; name: string },
  area: Area,
  signal?: AbortSignal,
): Promise<LocalPlacement> {
  const identity = await s.identity();
  const at = { ...area, rows: p.shape.rows, cols: p.shape.cols };
  const placementId =
    p.forkedFrom?.workbookId === identity.workbookId
      ? p.forkedFrom.placementId
      : await connectInCopy(engine, p, identity, sheet, at, signal);
  const next = await updatePlacement(s, p.key, (x) => ({ ...x, ...ownAddress(placementId, sheet, at) }));
  await s.flush(signal); // stored here, so that a failure is this placement's problem
  return next ?? p;
}

// ---------------------------------------------------------------- home

export async function home(engine: Engine, o: { signal?: AbortSignal; session?: Session } = {}): Promise<HomeData> {
  // The check's session when nothing of this engine wrote since it was read (homeCheck), else one read.
  const s = o.session?.current ? o.session : await engine.session(o.signal ? { signal: o.signal } : {});
  const identity = await s.identity();
  const locals = await loadPlacements(s);
  let remote: ExternalPlacement[] = [];
  let platformProblem: string | undefined;
  try {
    remote = await platformPlacements(engine.ctx, identity.workbookId, o.signal);
    noteSeen(engine, locals, remote);
  } catch (e) {
    if (!(e instanceof HomeLimitError)) throw e;
    // The workbook is over the platform's limits: its own placements are listed, and what to do said.
    noteSeen(engine, locals, "over");
    platformProblem = unlistedMessage(locals);
  }
  const tracked = await s.tracked();
  const nameOf = (id: number, p: LocalPlacement | undefined) =>
    engine.ctx.deploymentNames?.(id) ??
    (p?.deploymentId === id ? p.deploymentName : null) ??
    locals.find((x) => x.deploymentId === id && x.deploymentName)?.deploymentName ??
    null;
  const localById = new Map(locals.filter((p) => p.placementId).map((p) => [p.placementId!, p]));
  const where = (p: LocalPlacement | undefined) => {
    const t = p ? byName(tracked, p.name) : undefined;
    return { sheetName: t?.sheet?.name ?? null, range: t?.area ? areaA1(t.area) : null, missing: p ? !t?.area : false };
  };
  const entries: HomeEntry[] = remote.map((r) => {
    const local = localById.get(r.placementId);
    const w = local ? where(local) : { sheetName: r.sheetName, range: r.resultLocation.replace(/^.*!/, ""), missing: false };
    const denied = r.access === "DENIED";
    return {
      placementId: r.placementId,
      key: local?.key ?? null,
      access: r.access,
      readOnly: denied,
      reportId: denied ? null : r.reportId,
      reportName: denied ? null : r.reportName,
      deploymentId: r.deploymentId,
      deploymentName: nameOf(r.deploymentId, local),
      owner: { name: r.ownerName, email: r.ownerEmail },
      viewOnly: !denied && engine.viewOnly(r.deploymentId),
      syncStatus: r.syncStatus,
      refreshedAt: r.refreshedAt,
      ...w,
    };
  });
  const listed = new Set(remote.map((r) => r.placementId));
  for (const p of locals) {
    if (p.placementId && listed.has(p.placementId)) continue;
    entries.push({
      placementId: p.placementId,
      key: p.key,
      access: platformProblem ? "UNLISTED" : "LOCAL",
      readOnly: false,
      reportId: p.reportId,
      reportName: p.reportName,
      deploymentId: p.deploymentId,
      deploymentName: nameOf(p.deploymentId, p),
      owner: null,
      viewOnly: engine.viewOnly(p.deploymentId),
      syncStatus: "UNKNOWN",
      refreshedAt: null,
      ...where(p),
    });
  }
  return {
    workbookName: identity.name,
    workbookId: identity.workbookId,
    copied: identity.copied,
    entries,
    ...(platformProblem ? { platformProblem } : {}),
  };
}

export type { CheckReport, EditState, ForkOutcome, Grid, HandEdits, HomeData, HomeEntry, PlacementCheck };
