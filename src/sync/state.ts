// Local tracking of placements, stored in the workbook through the port's per-workbook data
// (validated on every read: the workbook is a boundary), and the classification of a
// placement's cells against the fingerprints Cellbound wrote.
//
// Two fingerprints are kept per placement so that a refresh interrupted between writing the
// cells and recording them with the platform is never mistaken for a hand edit:
//   committed — what the platform has recorded (resultChecksum of the last PUT that succeeded);
//   pending   — what Cellbound is writing / has written but not yet recorded.
// A chunk whose current hash equals either of them at the same index was written by Cellbound.
// See docs/SYNC.md "The write journal".
//
// `pending` is also the write journal: it records the intent before the first cell is written
// (phase "writing", the rows of the port.write under way in `inFlight`, the cells a shrink will
// clear in `clears`) and the completion after the last (phase "written"); the record with the
// platform then moves it to `committed`. One store, one zod schema, under STATE_KEY. A new record is
// refused when the workbook is at one of the platform's limits (limits.ts).
import { z } from "zod";
import { TableRecord } from "./table-record.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import { parseAddress } from "../host/a1.ts";
import { DataChangedError, type Area, type SheetPort, type SheetRef, type TrackedArea } from "../host/port.ts";
import { InputBinding, MAX_INPUTS } from "./inputs.ts";
import { holding, limitReason, PlacementLimitReached } from "./limits.ts";

export const STATE_KEY = "cellbound.sync.placements.v1";

const Checksum = z.object({
  v: z.number().int(),
  chunks: z.array(z.object({ from: z.number().int(), to: z.number().int(), hash: z.string() })),
  payload: z.string().min(1).max(128).optional(),
});

const Shape = z.object({ rows: z.number().int().min(1), cols: z.number().int().min(1) });
/** Spans a journal's `carried` lists at most (the engine merges them into one span past it). */
export const MAX_CARRIED = 1000;
const RowSpan = z.object({ from: z.number().int().min(0), to: z.number().int().min(0) });
/** An area relative to the placement's anchor (rows/cols offsets), e.g. the rows a shrink leaves. */
const Relative = z.object({
  row: z.number().int().min(0),
  col: z.number().int().min(0),
  rows: z.number().int().min(1),
  cols: z.number().int().min(1),
});
/** A shrink's clear: its area and a hash of what Cellbound's cells there held (contentHash), so that it is only ever cleared again while they still hold it (issue 36, item 2). */
const Clear = Relative.extend({ held: z.string().max(64).optional() });
export type RelativeArea = z.infer<typeof Relative>;

// Records are loose objects (issue 36, item 13): a field this version does not know — written by a newer
// Cellbound, e.g. a co-author's — is kept when a record is rewritten, so an older version never drops it
// (the journal's `partial` was once such a field). The fields known here are validated all the same.

/** The pending write: its fingerprint and shape, and the journal of how far it got. */
const Pending = z.looseObject({
  checksum: Checksum,
  shape: Shape,
  at: z.string(),
  source: z.string().max(64).nullable().optional(),
  /** "writing": cells may be half written; "written": every cell landed, the record is missing. Absent in records of older versions. */
  phase: z.enum(["writing", "written"]).optional(),
  /** Rows (relative to the anchor) of the write call under way: a chunk there may hold neither fingerprint. */
  inFlight: RowSpan.nullable().optional(),
  /**
   * Rows (relative to the anchor) that held an earlier unfinished write of this placement when
   * this write began, and that this write rewrites: until it reaches them they hold neither
   * fingerprint, yet they are Cellbound's (an earlier journal's `inFlight` is replaced by this one).
   */
  carried: z.array(RowSpan).max(MAX_CARRIED).optional(),
  /** Cells the write clears when it shrinks the placement (relative to the anchor). */
  clears: z.array(Clear).max(8).optional(),
  /**
   * A large placement's rows so far (more were coming, issue 20 §2): even when every one landed they are
   * not the whole result, so the write is finished by a refresh, never by recording it as it stands.
   */
  partial: z.boolean().optional(),
  /**
   * Keep my edits: the write left the chunks holding a person's edits as they were, so the cells never equal
   * the fingerprint. Once every cell landed (phase "written") the write is finished as it stands, and the
   * placement stays marked edited.
   */
  kept: z.boolean().optional(),
  /**
   * Keep my edits over rows or columns a person moved inside (issue 30): the area its name keeps covering (from
   * its first cell), larger than `shape`; a record finished by check tracks it too. Absent: `shape`.
   */
  holds: Shape.optional(),
});
export type PendingWrite = z.infer<typeof Pending>;

export const LocalPlacement = z.looseObject({
  /** Local key; also the suffix of the tracking name. */
  key: z.string().regex(/^[0-9A-Za-z]{1,40}$/),
  /** Hidden workbook-scoped name that tracks the placement's area. */
  name: z.string(),
  deploymentId: z.number().int(),
  reportId: z.number().int(),
  publicId: z.string(),
  reportName: z.string().nullable(),
  /** The deployment's name when placed (cards name it); the id is what refresh uses. */
  deploymentName: z.string().max(200).nullable().optional(),
  placementId: z.string().nullable(),
  /**
   * A fork not finished for this placement (issue 36, item 5): the copy has its own workbook id, but
   * the platform has not recorded this placement under it yet. `placementId` is null meanwhile; the
   * original workbook's placement id is kept here with that workbook's id, and is never sent from
   * another workbook (ownPlacementId). The copy's check or refresh connects it anew. Absent: none.
   */
  forkedFrom: z.object({ workbookId: z.string(), placementId: z.string() }).nullable().optional(),
  sheetId: z.string(),
  sheetName: z.string(),
  anchorCell: z.string(),
  shape: Shape,
  committed: Checksum.nullable(),
  /** Source (run-report.ts) of the answer behind `committed`: an equal source means the same grid. */
  source: z.string().max(64).nullable().optional(),
  pending: Pending.nullable(),
  /** "Keep my edits" left edited chunks unwritten: the placement stays marked edited. */
  editsKept: z.boolean(),
  /** Filters whose values come from cells of the workbook (issue 32, inputs.ts). Absent: none. */
  inputs: z.array(InputBinding).max(MAX_INPUTS).optional(),
  /** A hash of the input values the placement was last written with (inputsHash): differs → "Inputs changed". */
  inputsUsed: z.string().max(64).nullable().optional(),
  /** Refresh by itself when its inputs change (the pane's switch). */
  autoRefresh: z.boolean().optional(),
  /** Placed as an Excel table (issue 33, table.ts): its name and the report's columns as last written. Absent: a range. */
  table: TableRecord.optional(),
});
export type LocalPlacement = z.infer<typeof LocalPlacement>;

/** The store: the placements and, kept as they are, any top-level fields of a newer version. */
const Stored = z.looseObject({ v: z.literal(1), placements: z.array(LocalPlacement) });
type Stored = z.infer<typeof Stored>;

/** Read local tracking. Invalid stored data is reported, not silently dropped. */
export async function loadPlacements(port: SheetPort): Promise<LocalPlacement[]> {
  return parseStore(await port.getData(STATE_KEY)).placements;
}

function parseStore(raw: unknown): Stored {
  if (raw === null || raw === undefined) return { v: 1, placements: [] };
  const parsed = Stored.safeParse(typeof raw === "string" ? safeJson(raw) : raw);
  if (!parsed.success)
    throw new Error(`Cellbound's placement data in this workbook is unreadable: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data;
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export async function savePlacements(port: SheetPort, placements: readonly LocalPlacement[]): Promise<void> {
  await port.setData(STATE_KEY, { v: 1, placements });
}

/** A port whose data writes can be re-applied to a fresh read (the engine's Session): read-modify-write in one call. */
export interface ModifiesData {
  /**
   * `change` gets the key's current value and returns the new one (null: no change) and an answer.
   * It may run again, on a co-author's newer value, when the write meets one (DataChangedError).
   */
  modifyData<T>(key: string, change: (current: unknown) => { next: unknown; out: T }): Promise<T>;
}

function modifiesData(port: SheetPort): port is SheetPort & ModifiesData {
  return typeof (port as Partial<ModifiesData>).modifyData === "function";
}

/**
 * Where a placement is: its tracking name's area. Or — for a first placement interrupted before its
 * name landed (a commit sends the journal, then the name; a sync can stop between them) — where its
 * record says. A name that exists but points nowhere (#REF!: its cells or sheet were deleted) is null.
 */
export function placementArea(
  p: LocalPlacement,
  tracked: readonly TrackedArea[],
  sheets: readonly SheetRef[],
): { area: Area; sheet: SheetRef } | null {
  const t = tracked.find((x) => x.name.toLowerCase() === p.name.toLowerCase());
  if (t) return t.area && t.sheet ? { area: t.area, sheet: t.sheet } : null;
  if (p.placementId !== null || p.forkedFrom || p.pending === null) return null;
  const sheet = sheets.find((x) => x.id === p.sheetId);
  if (!sheet) return null;
  const a = parseAddress(p.anchorCell);
  return { area: { sheetId: sheet.id, row: a.row, col: a.col, rows: p.shape.rows, cols: p.shape.cols }, sheet };
}

/** Attempts of one read-modify-write before giving up on a store others keep changing. */
export const MAX_STATE_ATTEMPTS = 5;

/**
 * Read-modify-write of the placements store, safe against other writers (issue 22, item 5): the engine
 * serialises its own writers, but a co-author's Cellbound (Excel on the web) or a second pane writes the
 * same custom XML part. The write goes through only if the store still holds what was read; otherwise
 * the change — which touches only its own placement's record — is applied again to a fresh read.
 */
async function modifyPlacements<T>(
  port: SheetPort,
  change: (all: LocalPlacement[]) => { next: LocalPlacement[] | null; out: T },
): Promise<T> {
  // The store as read with its placements changed: top-level fields of a newer version stay.
  const rewrite = (raw: unknown) => {
    const stored = parseStore(raw);
    const { next, out } = change(stored.placements);
    return { next: next === null ? null : { ...stored, v: 1, placements: next }, out };
  };
  // A session queues the write: the check and the re-apply happen when it is sent (session.ts).
  if (modifiesData(port)) return port.modifyData(STATE_KEY, rewrite);
  for (let attempt = 1; ; attempt++) {
    const raw = await port.getData(STATE_KEY);
    const { next, out } = rewrite(raw);
    if (next === null) return out;
    try {
      await port.setData(STATE_KEY, next, { ifUnchanged: { value: raw } });
      return out;
    } catch (e) {
      if (!(e instanceof DataChangedError) || attempt >= MAX_STATE_ATTEMPTS) throw e;
    }
  }
}

/** Read-modify-write of one placement record; null when there is no such placement. */
export async function updatePlacement(
  port: SheetPort,
  key: string,
  change: (p: LocalPlacement) => LocalPlacement | null,
): Promise<LocalPlacement | null> {
  return modifyPlacements(port, (all) => {
    const i = all.findIndex((p) => p.key === key);
    if (i < 0) return { next: null, out: null };
    const next = change(all[i]!);
    if (next) all[i] = LocalPlacement.parse(next);
    else all.splice(i, 1);
    return { next: all, out: next };
  });
}

/**
 * The placement id to send to the platform for `p` from the workbook `workbookId`: a placement id is
 * only ever used with the workbook it was recorded under. null when there is none yet, or when it is
 * the original's, set aside by a fork that has not finished for it (issue 36, item 5).
 */
export function ownPlacementId(p: LocalPlacement, workbookId: string): string | null {
  const aside = p.forkedFrom;
  if (aside && aside.placementId === p.placementId && aside.workbookId !== workbookId) return null;
  return p.placementId;
}

/**
 * A fork's first step, before the copy gets its new id (one store write): every placement id is set
 * aside as the original workbook's (`forkedFrom`), so that no interruption leaves the copy holding
 * another workbook's placement id. Returns the keys set aside (with those set aside by an earlier fork).
 */
export async function setAsideForFork(port: SheetPort, workbookId: string): Promise<string[]> {
  return modifyPlacements(port, (all) => {
    const next = all.map((p) =>
      p.placementId === null
        ? p
        : LocalPlacement.parse({ ...p, placementId: null, forkedFrom: { workbookId, placementId: p.placementId } }),
    );
    const keys = next.filter((p) => p.placementId === null && p.forkedFrom).map((p) => p.key);
    return { next: all.some((p) => p.placementId !== null) ? next : null, out: keys };
  });
}

/**
 * Record a new placement — the first thing a placement writes. Refused (PlacementLimitReached, nothing
 * written) when the records read show the workbook at one of the platform's limits (limits.ts, issue
 * 36 item 6): decided once, on the records the caller read (a session's snapshot: no round trip); a
 * co-author's record merged in later does not undo a placement already under way.
 */
export async function addPlacement(port: SheetPort, p: LocalPlacement): Promise<void> {
  const record = LocalPlacement.parse(p);
  let refused: string | null | undefined;
  await modifyPlacements(port, (all) => {
    refused ??= all.some((x) => x.key === p.key) ? null : limitReason(holding(all), { ...record, name: record.reportName });
    if (refused) return { next: null, out: undefined };
    return { next: [...all.filter((x) => x.key !== p.key), record], out: undefined };
  });
  if (refused) throw new PlacementLimitReached(refused);
}

// ---------------------------------------------------------------- classification

export type CellState =
  /** The cells hold exactly what was recorded. */
  | { kind: "clean" }
  /** The cells hold the pending write in full: the record step did not happen. */
  | { kind: "unrecorded" }
  /** Every chunk is Cellbound's (old or new): a write was interrupted midway. */
  | { kind: "interrupted"; staleChunks: number[] }
  /** Some chunks match neither fingerprint: edited by hand. */
  | { kind: "edited"; editedChunks: number[] };

/**
 * Classify current per-chunk hashes against the committed and pending fingerprints.
 * `current` and `currentForPending` are the fingerprints of the cells read in the committed
 * shape and in the pending shape (they differ only when the pending write resized the area).
 */
export function classify(
  current: ResultChecksum,
  committed: ResultChecksum | null,
  pending: ResultChecksum | null,
  currentForPending: ResultChecksum = current,
  journal: {
    /** Fingerprint of an empty grid in the pending shape: rows a write grows into were empty before it. */
    emptyPending?: ResultChecksum | null;
    /** Chunk i (of the pending shape) was being written when the write stopped. */
    inFlight?: (i: number) => boolean;
  } = {},
): CellState {
  // Pending first: a write that landed in full but was not recorded may also leave the old
  // shape's cells unchanged (a result that only grew).
  if (pending && sameGrid(currentForPending, pending)) return { kind: "unrecorded" };
  if (committed && sameGrid(current, committed)) return { kind: "clean" };
  if (!committed && !pending) return { kind: "clean" };
  const n = Math.max(current.chunks.length, currentForPending.chunks.length);
  const edited: number[] = [];
  const stale: number[] = [];
  for (let i = 0; i < n; i++) {
    const ours = committed ? current.chunks[i]?.hash === committed.chunks[i]?.hash && committed.chunks[i] !== undefined : false;
    const theirs = pending ? currentForPending.chunks[i]?.hash === pending.chunks[i]?.hash && pending.chunks[i] !== undefined : false;
    // Beyond the committed rows: the pending write grew into cells it found empty; still empty = not reached yet.
    const grownEmpty =
      !ours &&
      committed !== null &&
      committed.chunks[i] === undefined &&
      journal.emptyPending?.chunks[i] !== undefined &&
      currentForPending.chunks[i]?.hash === journal.emptyPending.chunks[i]!.hash;
    if (ours || grownEmpty) {
      if (pending && !theirs) stale.push(i);
    } else if (!theirs) {
      // A chunk the interrupted call was writing may be half old, half new: ours, not a hand edit.
      if (pending && journal.inFlight?.(i)) stale.push(i);
      else edited.push(i);
    }
  }
  if (edited.length === 0) return { kind: "interrupted", staleChunks: stale };
  return { kind: "edited", editedChunks: edited };
}

/** Same cells: same chunk hashes and, when both carry one, the same whole-grid payload. */
export function sameGrid(a: ResultChecksum, b: ResultChecksum): boolean {
  if (a.chunks.length !== b.chunks.length) return false;
  if (a.payload !== undefined && b.payload !== undefined) return a.payload === b.payload;
  return a.chunks.every((c, i) => c.hash === b.chunks[i]!.hash && c.from === b.chunks[i]!.from && c.to === b.chunks[i]!.to);
}
