// The Office.js adapter's batched steps (docs/HOST.md "Round trips").
//
//   snapshot — sync 1: identity and data parts (ids), the settings mirror, every name with its formula,
//              the sheets, frozen panes, column widths asked for, the first areas asked for, and the list of
//              tables (issue 33: tables or writeChecks); sync 2: the parts' XML, more values and each table's
//              range, columns, sort and filter (tables.ts); further syncs only while values remain past the response budget. Tracked areas
//              come from the names' formulas ("=Sheet1!$A$1:$C$9"), so their values are asked for in the
//              same sync as the XML: an unchanged refresh reads the workbook in two round trips.
//   commit   — commands in order, packed into syncs up to the request budget; a write is cut into row
//              blocks on chunk boundaries (breakRows); a style's width fit rides in its sync when the
//              text and widths are known (autofit.ts); a sync Excel refuses as too large is split in
//              two and sent again (nothing of it was applied). A data command updates the part the
//              snapshot found (no look-up); without a snapshot the commit looks the parts up first.
import { areaA1, parseAddress } from "../a1.ts";
import { fitColumnsToCells, fitWidths, plannedText } from "./autofit.ts";
import { queueDateSystem } from "./date-system.ts";
import { queueTrackName } from "./replace.ts";
import { clearTextFormat, FORMAT_READ_CELLS, hasNonText } from "./text-format.ts";
import { queueObstacles, queueSpillAnchors } from "./obstacles.ts";
import {
  joiningTables,
  queueTable,
  queueTableColumns,
  queueUntable,
  queueTableDetails,
  queueTableList,
  resizeFallback,
  tableColumnsBytes,
  tableFacts,
  type TableFacts,
} from "./tables.ts";
import type {
  Area,
  Command,
  CommitStats,
  Anchor,
  CellConflict,
  FoundCells,
  Obstacle,
  Recheck,
  RecheckRequest,
  SheetRef,
  SheetValue,
  Snapshot,
  SnapshotRequest,
  TableRead,
  TrackedArea,
  WriteOptions,
} from "../port.ts";
import { dataToJson, validateArea } from "../validate.ts";
import { holdsExpected } from "../batch.ts";
import { HostError, isPayloadTooLarge, officeErrorCode } from "./errors.ts";
import { DATA_NS, dataXml, parseDataXml, storedIs, WORKBOOK_NS } from "./storage.ts";
import { DataChangedError } from "../port.ts";

export const TRACK_PREFIX = "Cellbound_";
/** Rows one range of a read or write holds at most. */
export const MAX_BLOCK_ROWS = 20_000;

/** What a snapshot learnt that a commit based on it may use. */
export interface ExcelBasis {
  /** Data part ids by key (the first is the one to keep; the others are duplicates to delete). */
  parts: Map<string, string[]>;
  /** Lower-case full names (with TRACK_PREFIX) of the tracking names that exist. */
  names: Set<string>;
  /** Sheet names by id (a re-pointed name's formula names its sheet). */
  sheetNames: Map<string, string>;
  /** Column widths in points read by the snapshot (columnWidths), by widthKey; kept true as commits set widths. */
  widths: Map<string, number>;
  /** Ids of every data part seen (any key, readable or not): a part not among them was added since (issue 22, item 5). */
  dataPartIds?: Set<string>;
  /** issue 33: the workbook's tables by lower-case name, when the snapshot read them (req.tables); kept true by commits. */
  tables?: Map<string, TableFacts>;
}

export const widthKey = (sheetId: string, col: number): string => `${sheetId}\u0000${col}`;

export interface BatchLimits {
  /** Request bytes one sync aims for (Excel on the web refuses more than 5 MB). */
  requestBytes: number;
  /** Response bytes one read sync aims for (the same limit on responses). */
  responseBytes: number;
  /** Cells the first read sync asks for, before the bytes per cell are known. */
  firstReadCells: number;
}

type Sync = (ctx: Excel.RequestContext, signal?: AbortSignal) => Promise<void>;

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
  }
  return n;
}

// ---------------------------------------------------------------- snapshot

/** A tracking name's area from its formula, e.g. "=Sheet1!$A$1:$C$9" or "='My Sheet'!$B$2". */
export function trackedFromFormula(name: string, formula: string, sheets: readonly SheetRef[]): TrackedArea {
  const short = name.slice(TRACK_PREFIX.length);
  const ref = formula.replace(/^=/, "");
  if (ref.includes("#REF!")) return { name: short, sheet: null, area: null };
  try {
    const p = parseAddress(ref);
    const s = sheets.find((x) => x.name === p.sheet);
    if (!s) return { name: short, sheet: null, area: null };
    return { name: short, sheet: s, area: { sheetId: s.id, row: p.row, col: p.col, rows: p.rows, cols: p.cols } };
  } catch {
    return { name: short, sheet: null, area: null };
  }
}

export interface RawSnapshot {
  workbookName: string;
  identityXml: string[];
  /** The identity parts found (loaded: their ids), to update without looking them up again. */
  identityParts: Excel.CustomXmlPart[];
  /** The settings mirror's value, when there is one. */
  mirror: unknown;
  sheets: SheetRef[];
  tracked: TrackedArea[];
  data: Map<string, unknown>;
  corrupt: string[];
  values: Snapshot["values"];
  frozenRows: Map<string, number>;
  obstacles?: Array<{ area: Area; found: Obstacle[] }>;
  dateSystem?: 1900 | 1904;
  used?: Snapshot["used"];
  columnWidths?: Snapshot["columnWidths"];
  tables?: TableRead[];
  basis: ExcelBasis;
}

/** A piece of an area to read: rows [from, from+rows) of values[index]. */
interface Piece {
  index: number;
  from: number;
  rows: number;
}

/** What a snapshot's first sync asks for, queued before it. */
interface FirstSync {
  idParts: Excel.CustomXmlPartScopedCollection;
  dataParts: Excel.CustomXmlPartScopedCollection;
  mirror: Excel.Setting;
  names: Excel.NamedItemCollection;
  sheets: Excel.WorksheetCollection;
  frozen: Array<{ id: string; at: Excel.Range }>;
  /** Areas known before anything is read (a placement's target). */
  areas: Area[];
  reader: ValueReader;
  /** Write checks (issue 22): obstacles of each area read, queued in the sync that first knows the area. */
  checks: Array<{ area: Area; found: () => Obstacle[] }>;
  check(a: Area): void;
  used: Array<{ area: Area; found: () => Area | null }>;
  dateSystem: (() => 1900 | 1904) | null;
  widthReads: Array<{ sheetId: string; col: number; format: Excel.RangeFormat }>;
  /** issue 33: the workbook's tables (for Snapshot.tables, and the write checks' joinsTable). */
  tableList: Excel.TableCollection | null;
}

function queueFirstSync(
  ctx: Excel.RequestContext,
  req: SnapshotRequest,
  limits: BatchLimits,
  settingKey: string,
  supports: (version: string) => boolean,
): FirstSync {
  const wb = ctx.workbook;
  wb.load("name");
  const idParts = wb.customXmlParts.getByNamespace(WORKBOOK_NS).load("items/id");
  const dataParts = wb.customXmlParts.getByNamespace(DATA_NS).load("items/id");
  const mirror = wb.settings.getItemOrNullObject(settingKey).load("value");
  const names = wb.names.load("items/name,items/type,items/formula");
  const sheets = wb.worksheets.load("items/id,items/name");
  const frozen = (req.frozenRows ?? []).map((id) => ({
    id,
    at: wb.worksheets.getItem(id).freezePanes.getLocationOrNullObject().load("rowIndex,rowCount"),
  }));
  const areas: Area[] = [...(req.areas ?? [])];
  for (const a of areas) validateArea(a);
  const reader = new ValueReader(ctx, areas, limits);
  reader.queue();
  const checks: FirstSync["checks"] = [];
  const check = (a: Area) => {
    const ws = wb.worksheets.getItem(a.sheetId);
    checks.push({ area: a, found: queueObstacles(ws, a, supports) });
  };
  if (req.writeChecks) for (const a of areas) check(a);
  // Where the areas of usedIn hold anything, without their values (one load each, first sync).
  const used = (req.usedIn ?? []).map((a) => {
    validateArea(a);
    if (req.writeChecks) check(a);
    return { area: a, found: queueUsedArea(wb.worksheets.getItem(a.sheetId), a) };
  });
  const dateSystem = req.writeChecks ? queueDateSystem(ctx) : null;
  // Column widths (for a commit's width fit without a read of its own), one 1×1 range a column.
  const widthReads = (req.columnWidths ?? []).flatMap((a) => {
    validateArea(a);
    const ws = wb.worksheets.getItem(a.sheetId);
    return Array.from({ length: a.cols }, (_, c) => ({
      sheetId: a.sheetId,
      col: a.col + c,
      format: ws.getRangeByIndexes(a.row, a.col + c, 1, 1).format.load("columnWidth"),
    }));
  });
  const tableList = req.tables || req.writeChecks ? queueTableList(wb) : null;
  return { idParts, dataParts, mirror, names, sheets, frozen, areas, reader, checks, check, used, dateSystem, widthReads, tableList };
}

/** After the first sync: the tracking names' areas; those whose values are wanted join the reads (and the checks). */
function trackedAreas(first: FirstSync, req: SnapshotRequest) {
  const sheetRefs = first.sheets.items.map((s) => ({ id: s.id, name: s.name }));
  const ours = first.names.items.filter((n) => n.name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase()));
  const tracked = ours.map((n) =>
    n.type === "Error" ? trackedFromFormula(n.name, "=#REF!", []) : trackedFromFormula(n.name, n.formula, sheetRefs),
  );
  const wanted = req.trackedValues;
  for (const t of tracked) {
    if (!t.area) continue;
    if (wanted === "all" || (wanted ?? []).some((w) => w.toLowerCase() === t.name.toLowerCase())) {
      first.reader.add(t.area);
      if (req.writeChecks) first.check(t.area);
    }
  }
  return { sheetRefs, ours, tracked };
}

/**
 * Syncs until the reader has every value (what else was queued rides in the first of them); more than
 * one only while values remain past the response budget. `mayNeedNone`: when the reader has nothing to
 * ask either, no round trip at all.
 */
async function readValues(
  ctx: Excel.RequestContext,
  sync: Sync,
  reader: ValueReader,
  signal: AbortSignal | undefined,
  mayNeedNone: boolean,
) {
  let first = true;
  while (first || !reader.done()) {
    reader.queue();
    if (first && mayNeedNone && reader.done()) break; // nothing to ask: no round trip
    first = false;
    await sync(ctx, signal).catch((e: unknown) => {
      if (!isPayloadTooLarge(e) || !reader.shrink()) throw e;
    });
    reader.collect();
  }
}

/** The data parts by key: the first part of a key is the one getData reads; the others are duplicates. */
function dataPartsOf(dataXmls: ReadonlyArray<{ id: string; xml: OfficeExtension.ClientResult<string> }>) {
  const data = new Map<string, unknown>();
  const parts = new Map<string, string[]>();
  const corrupt: string[] = [];
  for (const { id, xml } of dataXmls) {
    const d = parseDataXml(xml.value);
    if (!d) continue;
    const ids = parts.get(d.key) ?? [];
    ids.push(id);
    parts.set(d.key, ids);
    if (ids.length > 1) continue;
    try {
      data.set(d.key, JSON.parse(d.json) as unknown);
    } catch {
      corrupt.push(d.key);
    }
  }
  return { data, parts, corrupt };
}

export async function readSnapshot(
  ctx: Excel.RequestContext,
  sync: Sync,
  req: SnapshotRequest,
  limits: BatchLimits,
  settingKey: string,
  /** Called between the first and second sync with what the first found, to queue writes that ride along. */
  between?: (found: { identityParts: number; mirror: boolean }) => boolean,
  supports: (version: string) => boolean = () => true,
): Promise<RawSnapshot> {
  const first = queueFirstSync(ctx, req, limits, settingKey, supports);
  await sync(ctx, req.signal);
  first.reader.collect();
  const { sheetRefs, ours, tracked } = trackedAreas(first, req);
  const { idParts, mirror, frozen, used, dateSystem, widthReads } = first;
  const idXml = idParts.items.map((p) => p.getXml());
  const dataXmls = first.dataParts.items.map((p) => ({ id: p.id, xml: p.getXml() }));
  const queued = between?.({ identityParts: idParts.items.length, mirror: !mirror.isNullObject }) ?? false;
  // issue 33: each table's range (and columns, sort, filter) rides in sync 2.
  const tableDetails = first.tableList ? queueTableDetails(first.tableList, req.tables === true) : null;
  const noTables = (first.tableList?.items.length ?? 0) === 0;
  // Sync 2 carries the XML, what `between` queued, and the values; more syncs only while values remain.
  const noChecksSince = first.checks.length === first.areas.length + used.length;
  await readValues(ctx, sync, first.reader, req.signal, idXml.length + dataXmls.length === 0 && !queued && noChecksSince && noTables);
  const tables = tableDetails?.() ?? [];
  const checked = req.writeChecks ? await nameSpillAnchors(ctx, sync, first.checks, req.signal) : undefined;
  const obstacles = checked?.map((o) => ({ area: o.area, found: [...o.found, ...joiningTables(o.area, tables)] }));
  const { data, parts, corrupt } = dataPartsOf(dataXmls);
  return {
    workbookName: ctx.workbook.name,
    identityXml: idXml.map((x) => x.value),
    identityParts: idParts.items,
    mirror: mirror.isNullObject ? undefined : mirror.value,
    sheets: sheetRefs,
    tracked,
    data,
    corrupt,
    values: first.reader.result(),
    frozenRows: new Map(frozen.map((f) => [f.id, f.at.isNullObject || f.at.rowIndex !== 0 ? 0 : f.at.rowCount])),
    ...(obstacles ? { obstacles } : {}),
    ...(dateSystem ? { dateSystem: dateSystem() } : {}),
    ...(req.usedIn ? { used: used.map((u) => ({ area: u.area, used: u.found() })) } : {}),
    ...(req.columnWidths
      ? { columnWidths: widthReads.map((w) => ({ sheetId: w.sheetId, col: w.col, points: w.format.columnWidth })) }
      : {}),
    ...(req.tables ? { tables } : {}),
    basis: {
      ...(req.tables ? { tables: tableFacts(tables) } : {}),
      parts,
      names: new Set(ours.map((n) => n.name.toLowerCase())),
      sheetNames: new Map(sheetRefs.map((x) => [x.id, x.name])),
      widths: new Map(widthReads.map((w) => [widthKey(w.sheetId, w.col), w.format.columnWidth])),
      dataPartIds: new Set(dataXmls.map((d) => d.id)),
    },
  };
}

/**
 * Queue Range.getUsedRangeOrNullObject(true) (values only: a formatted empty cell is not used) for an
 * area; the returned function gives the used area after the next sync, null when the area is empty.
 */
export function queueUsedArea(ws: Excel.Worksheet, a: Area): () => Area | null {
  const used = ws
    .getRangeByIndexes(a.row, a.col, a.rows, a.cols)
    .getUsedRangeOrNullObject(true)
    .load("rowIndex,columnIndex,rowCount,columnCount");
  return () =>
    used.isNullObject
      ? null
      : { sheetId: a.sheetId, row: used.rowIndex, col: used.columnIndex, rows: used.rowCount, cols: used.columnCount };
}

/**
 * issue 36: the sheets and every tracking name where they are now, and the values (with formats when
 * asked) of a few areas — in one sync when they fit the response budget, as a snapshot's first sync.
 */
export async function readRecheck(ctx: Excel.RequestContext, sync: Sync, req: RecheckRequest, limits: BatchLimits): Promise<Recheck> {
  const wb = ctx.workbook;
  const names = wb.names.load("items/name,items/type,items/formula");
  const sheets = wb.worksheets.load("items/id,items/name");
  const areas = [...(req.areas ?? [])];
  for (const a of areas) validateArea(a);
  const reader = new ValueReader(ctx, areas, limits, req.numberFormats === true);
  await readValues(ctx, sync, reader, req.signal, false);
  const sheetRefs = sheets.items.map((s) => ({ id: s.id, name: s.name }));
  const tracked = names.items
    .filter((n) => n.name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase()))
    .map((n) => (n.type === "Error" ? trackedFromFormula(n.name, "=#REF!", []) : trackedFromFormula(n.name, n.formula, sheetRefs)));
  const formats = reader.formats();
  return { sheets: sheetRefs, tracked, values: reader.result().map((v, i) => ({ ...v, numberFormats: formats[i] ?? null })) };
}

/**
 * The write checks' obstacles; when a spill was found (a target that is refused anyway), one more sync
 * names the formulas it comes from (obstacles.ts queueSpillAnchors). No spill: no sync.
 */
async function nameSpillAnchors(
  ctx: Excel.RequestContext,
  sync: Sync,
  checks: ReadonlyArray<{ area: Area; found: () => Obstacle[] }>,
  signal?: AbortSignal,
): Promise<Array<{ area: Area; found: Obstacle[] }>> {
  const out = checks.map((c) => ({ area: c.area, found: c.found() }));
  const later = out.map((o) => queueSpillAnchors(ctx.workbook.worksheets.getItem(o.area.sheetId), o.area, o.found));
  if (later.every((l) => l === null)) return out;
  await sync(ctx, signal);
  return out.map((o, i) => ({ area: o.area, found: later[i]?.() ?? o.found }));
}

/**
 * Reads areas' values in as few syncs as the response limit allows: each sync asks for pieces (row
 * blocks) up to a cell budget, which adapts to the bytes per cell seen so far.
 */
class ValueReader {
  private readonly areas: Area[] = [];
  private readonly grids: SheetValue[][][] = [];
  /** Number formats per area, when asked for (`withFormats`). */
  private readonly formatGrids: string[][][] = [];
  private pending: Piece[] = [];
  private inFlight: Array<{ piece: Piece; range: Excel.Range }> = [];
  private budget: number;
  constructor(
    private readonly ctx: Excel.RequestContext,
    areas: readonly Area[],
    private readonly limits: BatchLimits,
    private readonly withFormats = false,
  ) {
    this.budget = limits.firstReadCells;
    for (const a of areas) this.add(a);
  }
  add(area: Area): void {
    const index = this.areas.push(area) - 1;
    this.grids.push(new Array<SheetValue[]>(area.rows));
    this.formatGrids.push(new Array<string[]>(area.rows));
    this.pending.push({ index, from: 0, rows: area.rows });
  }
  /** The number formats read per area (null when not asked for). */
  formats(): Array<string[][] | null> {
    return this.formatGrids.map((g) => (this.withFormats ? g : null));
  }
  /** Queue loads for the next pieces, up to the budget (at least one row). */
  queue(): void {
    let cells = 0;
    while (this.pending.length > 0 && cells < this.budget) {
      const p = this.pending[0]!;
      const a = this.areas[p.index]!;
      const fit = Math.max(1, Math.min(p.rows, MAX_BLOCK_ROWS, Math.floor((this.budget - cells) / a.cols)));
      if (fit < p.rows && cells > 0 && fit * a.cols < this.budget / 4) break; // a sliver: leave it to the next sync
      const piece = { index: p.index, from: p.from, rows: fit };
      if (fit === p.rows) this.pending.shift();
      else this.pending[0] = { index: p.index, from: p.from + fit, rows: p.rows - fit };
      const range = this.ctx.workbook.worksheets.getItem(a.sheetId).getRangeByIndexes(a.row + piece.from, a.col, piece.rows, a.cols);
      range.load(this.withFormats ? "values,numberFormat" : "values");
      this.inFlight.push({ piece, range });
      cells += piece.rows * a.cols;
    }
  }
  /** After a sync: take the values read, and fit the budget to their size. */
  collect(): void {
    let cells = 0,
      bytes = 0;
    for (const { piece, range } of this.inFlight) {
      const values = range.values as SheetValue[][] | null;
      if (!Array.isArray(values) || values.length !== piece.rows)
        throw new HostError(
          "UnexpectedResponse",
          `Excel returned ${Array.isArray(values) ? values.length : "no"} rows for a block of ${piece.rows}`,
        );
      const grid = this.grids[piece.index]!;
      for (let r = 0; r < piece.rows; r++) grid[piece.from + r] = values[r]!;
      if (this.withFormats) {
        const formats = range.numberFormat as string[][];
        const into = this.formatGrids[piece.index]!;
        for (let r = 0; r < piece.rows; r++) into[piece.from + r] = formats[r]!;
      }
      cells += piece.rows * (values[0]?.length ?? 0);
      bytes += utf8Length(JSON.stringify(values));
    }
    this.inFlight = [];
    if (cells > 0) this.budget = Math.max(1, Math.floor(this.limits.responseBytes / Math.max(2, bytes / cells)));
  }
  /** Excel refused the last sync as too large: put its pieces back, halve the budget. False when nothing can shrink. */
  shrink(): boolean {
    const total = this.inFlight.reduce((n, f) => n + f.piece.rows, 0);
    if (total <= 1) return false;
    this.pending = [...this.inFlight.map((f) => f.piece), ...this.pending];
    this.inFlight = [];
    this.budget = Math.max(1, Math.floor(this.budget / 2));
    return true;
  }
  done(): boolean {
    return this.pending.length === 0 && this.inFlight.length === 0;
  }
  result(): Snapshot["values"] {
    return this.areas.map((area, i) => ({ area, grid: this.grids[i]! }));
  }
}

// ---------------------------------------------------------------- commit

/** One unit of a sync: queues its Office.js commands; `after` runs once its sync succeeded. */
interface Op {
  bytes: number;
  queue(ctx: Excel.RequestContext, s: SyncScope): void;
  /** A write block cut in two, for when Excel refuses a sync that holds only it (null: one row). */
  split?: () => Op[] | null;
  progress?: () => void;
  cells: number;
  /**
   * A block written under keepFormats that holds numbers or booleans: the formats it must read first,
   * so that no number lands in a cell formatted "@" (text-format.ts), and what to do with them.
   */
  formatsFirst?: { area: Area; anchor?: Anchor; use(current: string[][]): void };
  /** Work that needs what this op's sync did (the width fit after a style with autofit). */
  after?: (ctx: Excel.RequestContext) => Promise<void>;
  /** The op may re-point a name by a formula naming this sheet (by the name the basis knows: issue 36, item 16). */
  repoint?: string;
  /**
   * issue 33 (a table resized without ExcelApi 1.13): what it reads in a sync of its own just before its
   * sync, after every op before it landed (the op starts a sync: the packer ends the one before it).
   */
  readFirst?: (ctx: Excel.RequestContext) => void;
}

/** Facts learnt during one sync that become true only when it succeeds (parts added, names). */
interface SyncScope {
  added: Map<string, Excel.CustomXmlPart>;
  /** Lower-case tracking names added (true) or deleted (false) by this sync. */
  names: Map<string, boolean>;
  /** Column widths set by this sync (widthKey). */
  widths: Map<string, number>;
  /** Guarded data writes of this sync: what their part held just before (read in the same sync). */
  checks: GuardRead[];
  /** Guarded cell writes of this sync: their cells just before (issue 36). */
  cells: CellRead[];
  /** Re-points with `expect` of this sync: where the name was just before (issue 36). */
  moves: NameRead[];
  /** issue 33: tables made or resized by this sync (lower-case name). */
  tables: Map<string, TableFacts>;
}

/** issue 36: a guarded write block's look at its cells, in its own sync just before it writes. */
interface CellRead {
  /** The block's range (loaded: where it landed) and its sheet (loaded: id). */
  range: Excel.Range;
  sheet: Excel.Worksheet;
  /** Its non-empty cells (values only count: a formatted empty cell is not content). */
  used: Excel.Range;
  expect: ReadonlyArray<ReadonlyArray<SheetValue>> | "empty";
}

/** issue 36: where a name was just before it is re-pointed (its formula), and the sheets then. */
interface NameRead {
  name: string;
  expect: Area;
  item: Excel.NamedItem;
  sheets: Excel.WorksheetCollection;
}

/** The conflict a guarded block's read shows, if any. */
function cellConflictOf(c: CellRead): CellConflict | null {
  const area: Area = {
    sheetId: c.sheet.id,
    row: c.range.rowIndex,
    col: c.range.columnIndex,
    rows: c.range.rowCount,
    cols: c.range.columnCount,
  };
  const found: FoundCells | null = c.used.isNullObject
    ? null
    : {
        area: { sheetId: area.sheetId, row: c.used.rowIndex, col: c.used.columnIndex, rows: c.used.rowCount, cols: c.used.columnCount },
        values: c.used.values as SheetValue[][],
        formulas: c.used.formulas as SheetValue[][],
        numberFormats: c.used.numberFormat as string[][],
      };
  return holdsExpected(found, area, c.expect) ? null : { area, found };
}

/** Where a re-pointed name was, when that was not where the caller expected. */
function movedOf(m: NameRead): { name: string; found: Area | null } | null {
  const sheets = m.sheets.items.map((w) => ({ id: w.id, name: w.name }));
  const t = m.item.type === "Error" ? null : trackedFromFormula(TRACK_PREFIX + m.name, m.item.formula, sheets).area;
  const same =
    t &&
    t.sheetId === m.expect.sheetId &&
    t.row === m.expect.row &&
    t.col === m.expect.col &&
    t.rows === m.expect.rows &&
    t.cols === m.expect.cols;
  return same ? null : { name: m.name, found: t };
}

/**
 * issue 22 (5): a data write with ifUnchanged reads, in its own sync and just before writing, its part's
 * XML — or, when the key has no part yet, the data parts' ids (a co-author may have added one).
 */
interface GuardRead {
  key: string;
  expected: unknown;
  xml: OfficeExtension.ClientResult<string> | null;
  ids: Excel.CustomXmlPartScopedCollection | null;
  /** What this write stores. */
  wrote: unknown;
}

/** What a guarded write replaced, when it was not what the caller expected. */
function conflictOf(c: GuardRead, known: ExcelBasis): NonNullable<CommitStats["conflicts"]>[number] | null {
  if (c.xml) {
    const d = parseDataXml(c.xml.value);
    const json = d && d.key === c.key ? d.json : undefined;
    if (storedIs(json, c.expected)) return null;
    let found: { value: unknown } | null = null;
    try {
      found = json === undefined ? null : { value: JSON.parse(json) as unknown };
    } catch {
      found = null;
    }
    return { key: c.key, found };
  }
  // No part of this key when the snapshot was read: a part added since (by anyone else) may be this key's.
  const added = c.ids && known.dataPartIds ? c.ids.items.some((p) => !known.dataPartIds!.has(p.id)) : false;
  return added ? { key: c.key, found: null } : null;
}

/** One commit in progress: its ops and what it keeps true as its syncs succeed. */
interface CommitRun {
  ctx: Excel.RequestContext;
  sync: Sync;
  o: CommitFlags;
  stats: CommitStats;
  /** The basis, kept true as the commit goes (parts added, duplicates deleted, names, widths). */
  known: ExcelBasis;
  /** Parts by key as they are now (after each successful sync). */
  parts: Map<string, Excel.CustomXmlPart>;
  /** Duplicate parts of a key, deleted by the first data op. */
  extras: Excel.CustomXmlPart[];
  extrasDeleted: boolean;
  /** Keys written under a guard in this commit, and what was stored (a later write of the key expects it). */
  guardedKeys: Map<string, { value: unknown }>;
  ops: Op[];
}

function commitRun(
  ctx: Excel.RequestContext,
  sync: Sync,
  commands: readonly Command[],
  known: ExcelBasis,
  limits: BatchLimits,
  o: CommitFlags,
  stats: CommitStats,
): CommitRun {
  const run: CommitRun = {
    ctx,
    sync,
    o,
    stats,
    known,
    parts: new Map(),
    extras: [],
    extrasDeleted: false,
    guardedKeys: new Map(),
    ops: [],
  };
  for (const [key, ids] of known.parts) {
    run.parts.set(key, ctx.workbook.customXmlParts.getItem(ids[0]!));
    for (const id of ids.slice(1)) run.extras.push(ctx.workbook.customXmlParts.getItem(id));
  }
  commands.forEach((c, k) =>
    run.ops.push(
      ...opsOf(c, {
        maxBytes: limits.requestBytes,
        sheetNames: known.sheetNames,
        parts: run.parts,
        names: known.names,
        widths: known.widths,
        tables: () => known.tables,
        resize: o.resize !== false,
        earlier: () => commands.slice(0, k),
        guarded: run.guardedKeys,
        deleteExtras: () => (run.extrasDeleted ? [] : ((run.extrasDeleted = true), run.extras)),
      }),
    ),
  );
  return run;
}

/** The ops [i, j) of the next sync: up to the budget, at least one. */
function pack(ops: readonly Op[], i: number, budget: number): { j: number; bytes: number } {
  let j = i,
    bytes = 0;
  while (j < ops.length && (j === i || (bytes + ops[j]!.bytes <= budget && !ops[j]!.readFirst))) bytes += ops[j++]!.bytes;
  return { j, bytes };
}

/** Queues the ops [i, j) (after the formats some of them must read first) into one sync. */
async function queueOps(run: CommitRun, i: number, j: number, screen: boolean): Promise<SyncScope> {
  const { ctx, ops, o, stats } = run;
  const guarded = ops.slice(i, j).filter((op) => op.formatsFirst);
  if (guarded.length) stats.syncs += await readFormatsFirst(ctx, run.sync, guarded, o.signal);
  const reads = ops.slice(i, j).filter((op) => op.readFirst);
  if (reads.length) {
    for (const op of reads) op.readFirst!(ctx);
    stats.syncs++;
    await run.sync(ctx, o.signal);
  }
  const scope: SyncScope = {
    added: new Map(),
    names: new Map(),
    widths: new Map(),
    checks: [],
    cells: [],
    moves: [],
    tables: new Map(),
  };
  if (screen) ctx.application.suspendScreenUpdatingUntilNextSync();
  if (o.calcSuspend && ops.slice(i, j).some((op) => op.cells > 0)) ctx.application.suspendApiCalculationUntilNextSync();
  for (let k = i; k < j; k++) ops[k]!.queue(ctx, scope);
  return scope;
}

/**
 * A sync of ops [i, j) failed: where to go on from and with what budget, or the failure thrown.
 * Too large, it was refused whole (nothing applied): send less. Otherwise a name re-pointed with its
 * sheet's old name (issue 36, item 16) is sent again from that op, with the sheets' names as they are now.
 */
async function recover(
  run: CommitRun,
  e: unknown,
  scope: SyncScope,
  at: { i: number; j: number; bytes: number; budget: number },
): Promise<{ i: number; budget: number }> {
  const { i, j } = at;
  if (!isPayloadTooLarge(e)) {
    const from = await staleRepoint(run.ctx, run.sync, run.ops, i, j, run.known, run.o.signal);
    if (from === null) {
      // A part a guarded write read was deleted since the snapshot (a co-author's Cellbound removing a duplicate).
      if (scope.checks.some((c) => c.xml) && officeErrorCode(e) === "ItemNotFound") throw new DataChangedError(scope.checks[0]!.key);
      throw e;
    }
    run.stats.syncs++;
    run.stats.sheets = [...run.known.sheetNames].map(([id, name]) => ({ id, name }));
    return { i: from, budget: at.budget };
  }
  if (j - i > 1) return { i, budget: Math.max(1, Math.floor(at.bytes / 2)) };
  const half = run.ops[i]!.split?.() ?? null;
  if (!half) throw e;
  run.ops.splice(i, 1, ...half);
  return { i, budget: at.budget };
}

/** After a sync succeeded: the conflicts its reads show, and the basis made true again. */
function learn(run: CommitRun, scope: SyncScope): void {
  const { stats, known } = run;
  for (const c of scope.cells) {
    const conflict = cellConflictOf(c);
    if (conflict) (stats.cellConflicts ??= []).push(conflict);
  }
  for (const m of scope.moves) {
    const moved = movedOf(m);
    if (moved) (stats.moved ??= []).push(moved);
  }
  for (const c of scope.checks) {
    const conflict = conflictOf(c, known);
    if (conflict) (stats.conflicts ??= []).push(conflict);
    run.guardedKeys.set(c.key, { value: c.wrote }); // a later write of the key in this commit expects this one
  }
  for (const [key, part] of scope.added) {
    known.dataPartIds?.add(part.id);
    run.parts.set(key, part);
    known.parts.set(key, [part.id]);
  }
  if (run.extrasDeleted) for (const [key, ids] of known.parts) known.parts.set(key, ids.slice(0, 1));
  for (const [name, exists] of scope.names) {
    if (exists) known.names.add(name);
    else known.names.delete(name);
  }
  for (const [key, points] of scope.widths) known.widths.set(key, points);
  for (const [name, facts] of scope.tables) (known.tables ??= new Map()).set(name, facts);
}

/** The ops [i, j) landed: count their cells, report progress, run the work that needed their sync. */
async function landed(run: CommitRun, i: number, j: number): Promise<void> {
  for (let k = i; k < j; k++) {
    run.stats.cellsWritten += run.ops[k]!.cells;
    run.ops[k]!.progress?.();
  }
  for (let k = i; k < j; k++) {
    const after = run.ops[k]!.after;
    if (!after) continue;
    await after(run.ctx);
    run.stats.syncs += 2;
  }
}

/** How a commit runs: calculation and screen suspended, and (issue 33) whether Table.resize is there (ExcelApi 1.13; default yes). */
export interface CommitFlags {
  signal?: AbortSignal;
  calcSuspend: boolean;
  screenSuspend: boolean;
  resize?: boolean;
}

export async function runCommit(
  ctx: Excel.RequestContext,
  sync: Sync,
  commands: readonly Command[],
  basis: ExcelBasis | null,
  limits: BatchLimits,
  o: CommitFlags,
): Promise<CommitStats> {
  const stats: CommitStats = { syncs: 0, maxSyncBytes: 0, bytes: 0, cellsWritten: 0 };
  if (commands.length === 0) return stats;
  // The basis is kept true as the commit goes, so the next commit planned on the same snapshot needs no look-up either.
  const known = basis ?? (await lookUp(ctx, sync, commands, o.signal, stats));
  if (!known.tables && commands.some((c) => c.kind === "table" && (c.create || c.reapply)))
    known.tables = await lookUpTables(ctx, sync, o.signal, stats);
  const run = commitRun(ctx, sync, commands, known, limits, o, stats);
  let i = 0;
  let budget = limits.requestBytes;
  let screen = o.screenSuspend;
  while (i < run.ops.length) {
    o.signal?.throwIfAborted();
    const { j, bytes } = pack(run.ops, i, budget);
    const scope = await queueOps(run, i, j, screen);
    // Every round trip counts, a refused one too.
    stats.syncs++;
    stats.bytes += bytes;
    stats.maxSyncBytes = Math.max(stats.maxSyncBytes, bytes);
    try {
      await sync(ctx, o.signal);
    } catch (e) {
      ({ i, budget } = await recover(run, e, scope, { i, j, bytes, budget }));
      continue;
    }
    screen = false;
    learn(run, scope);
    await landed(run, i, j);
    i = j;
    budget = limits.requestBytes;
  }
  return stats;
}

/**
 * After a failed sync of ops [i, j): the index of the first op there that re-points a name with a sheet
 * name that is no longer the sheet's (one sync to look the sheets up; the basis learns their names), or
 * null when none did — then the failure was something else.
 */
async function staleRepoint(
  ctx: Excel.RequestContext,
  sync: Sync,
  ops: readonly Op[],
  i: number,
  j: number,
  known: ExcelBasis,
  signal?: AbortSignal,
): Promise<number | null> {
  const repoints = ops.slice(i, j).flatMap((op, k) => (op.repoint ? [{ k: i + k, sheetId: op.repoint }] : []));
  if (repoints.length === 0) return null;
  const sheets = ctx.workbook.worksheets.load("items/id,items/name");
  await sync(ctx, signal);
  const now = new Map(sheets.items.map((w) => [w.id, w.name] as const));
  const stale = repoints.find((r) => now.has(r.sheetId) && now.get(r.sheetId) !== known.sheetNames.get(r.sheetId));
  if (!stale) return null;
  for (const [id, name] of now) known.sheetNames.set(id, name);
  return stale.k;
}

/**
 * The formats of every block of a sync that gets numbers under keepFormats, read in as few syncs as the
 * answer limit allows (FORMAT_READ_CELLS a sync), then handed to the blocks. Returns the syncs it took.
 */
async function readFormatsFirst(ctx: Excel.RequestContext, sync: Sync, ops: Op[], signal?: AbortSignal): Promise<number> {
  const pieces: Array<{ op: number; range: Excel.Range; cells: number }> = [];
  ops.forEach((op, k) => {
    const a = op.formatsFirst!.area;
    const step = Math.max(1, Math.floor(FORMAT_READ_CELLS / a.cols));
    for (let r = 0; r < a.rows; r += step) {
      const rows = Math.min(step, a.rows - r);
      pieces.push({ op: k, range: rangeAt(ctx, { ...a, row: a.row + r, rows }, op.formatsFirst!.anchor), cells: rows * a.cols });
    }
  });
  let syncs = 0;
  for (let i = 0; i < pieces.length;) {
    let cells = 0,
      j = i;
    while (j < pieces.length && (j === i || cells + pieces[j]!.cells <= FORMAT_READ_CELLS)) cells += pieces[j++]!.cells;
    for (let k = i; k < j; k++) pieces[k]!.range.load("numberFormat");
    syncs++;
    await sync(ctx, signal);
    i = j;
  }
  ops.forEach((op, k) => {
    op.formatsFirst!.use(pieces.filter((p) => p.op === k).flatMap((p) => p.range.numberFormat as string[][]));
    delete op.formatsFirst;
  });
  return syncs;
}

/** Without a snapshot: find the data parts and names the commands touch (one or two syncs). */
async function lookUp(
  ctx: Excel.RequestContext,
  sync: Sync,
  commands: readonly Command[],
  signal: AbortSignal | undefined,
  stats: CommitStats,
): Promise<ExcelBasis> {
  const basis: ExcelBasis = { parts: new Map(), names: new Set(), sheetNames: new Map(), widths: new Map() };
  const wantsData = commands.some((c) => c.kind === "data");
  const wantsNames = commands.some((c) => c.kind === "track" || c.kind === "untrack");
  if (!wantsData && !wantsNames) return basis;
  const dataParts = wantsData ? ctx.workbook.customXmlParts.getByNamespace(DATA_NS).load("items/id") : null;
  const names = wantsNames ? ctx.workbook.names.load("items/name") : null;
  const sheets = wantsNames ? ctx.workbook.worksheets.load("items/id,items/name") : null;
  await sync(ctx, signal);
  stats.syncs++;
  for (const n of names?.items ?? []) basis.names.add(n.name.toLowerCase());
  for (const w of sheets?.items ?? []) basis.sheetNames.set(w.id, w.name);
  if (dataParts && dataParts.items.length > 0) {
    const xmls = dataParts.items.map((p) => ({ id: p.id, xml: p.getXml() }));
    await sync(ctx, signal);
    stats.syncs++;
    for (const { id, xml } of xmls) {
      const d = parseDataXml(xml.value);
      if (d) basis.parts.set(d.key, [...(basis.parts.get(d.key) ?? []), id]);
    }
  }
  return basis;
}

interface OpState {
  maxBytes: number;
  sheetNames: Map<string, string>;
  parts: Map<string, Excel.CustomXmlPart>;
  names: Set<string>;
  /** The basis's column widths (widthKey). */
  widths: Map<string, number>;
  /** issue 33: the tables known (basis), and whether Table.resize is there. */
  tables: () => Map<string, TableFacts> | undefined;
  resize: boolean;
  /** The commands before this one in the commit. */
  earlier(): readonly Command[];
  deleteExtras(): Excel.CustomXmlPart[];
  /** Keys with a guarded write earlier in this commit, and what that write stored (issue 22, item 5). */
  guarded: Map<string, { value: unknown }>;
}

function opsOf(c: Command, st: OpState): Op[] {
  switch (c.kind) {
    case "data":
      return [dataOp(c, st)];
    case "write":
      return writeOps(c, st.maxBytes);
    case "clear":
      return [{ bytes: 128, cells: 0, queue: (ctx) => rangeAt(ctx, c.area, c.anchor).clear("All") }];
    case "style":
      return [styleOp(c, st)];
    case "freeze":
      return [{ bytes: 128, cells: 0, queue: (ctx) => ctx.workbook.worksheets.getItem(c.sheetId).freezePanes.freezeRows(c.rows) }];
    case "track":
      return [trackOp(c, st)];
    case "restore":
      return [restoreOp(c)];
    case "untrack":
      return [untrackOp(c, st)];
    case "tableColumns":
      return [{ bytes: tableColumnsBytes(c), cells: 0, queue: (ctx) => queueTableColumns(ctx, c) }];
    case "table":
      return [tableOp(c, st)];
    case "untable":
      return [{ bytes: 128, cells: 0, queue: (ctx) => queueUntable(ctx, c) }];
  }
}

/**
 * issue 33: make or resize a table and re-apply its sort and filter, in the op's sync (tables.ts). What
 * is known of the table comes from the snapshot (or the commit's look-up) and the syncs before.
 */
function tableOp(c: Extract<Command, { kind: "table" }>, st: OpState): Op {
  const key = c.table.toLowerCase();
  const planned = st.tables()?.get(key);
  // Without Table.resize (ExcelApi 1.13): rows added or deleted after a read of where the table is.
  const fallback = !st.resize && !(c.create && !planned) ? resizeFallback(c, planned, rangeAt) : null;
  return {
    bytes: 512,
    cells: 0,
    queue: (ctx, scope) => {
      const facts = scope.tables.get(key) ?? st.tables()?.get(key);
      scope.tables.set(key, queueTable(ctx, c, facts, rangeAt, fallback ? (x, t) => fallback.resize(x, t) : null));
    },
    ...(fallback ? { readFirst: (ctx: Excel.RequestContext) => fallback.read(ctx) } : {}),
  };
}

/**
 * issue 33: a commit that makes a table or re-applies a sort or filter without a snapshot that read the
 * tables: their names (one sync), and their sort and filter state (one more, when there are tables).
 */
async function lookUpTables(
  ctx: Excel.RequestContext,
  sync: Sync,
  signal: AbortSignal | undefined,
  stats: CommitStats,
): Promise<Map<string, TableFacts>> {
  const list = ctx.workbook.tables.load("items/name");
  await sync(ctx, signal);
  stats.syncs++;
  const facts = new Map<string, TableFacts>();
  if (list.items.length === 0) return facts;
  const per = list.items.map((t) => ({ name: t.name, sort: t.sort.load("fields"), filter: t.autoFilter.load("isDataFiltered") }));
  await sync(ctx, signal);
  stats.syncs++;
  for (const p of per) facts.set(p.name.toLowerCase(), { sort: p.sort.fields.length > 0, filtered: p.filter.isDataFiltered === true });
  return facts;
}

function dataOp(c: Extract<Command, { kind: "data" }>, st: OpState): Op {
  const xml = dataXml(c.key, dataToJson(c.key, c.value));
  return {
    bytes: utf8Length(xml) + 64,
    cells: 0,
    queue: (ctx, scope) => {
      const part = scope.added.get(c.key) ?? st.parts.get(c.key);
      // issue 22 (5): read what is there in the same round trip, just before writing over it.
      const expected = c.ifUnchanged ?? st.guarded.get(c.key);
      if (expected) {
        scope.checks.push({
          key: c.key,
          expected: expected.value,
          xml: part ? part.getXml() : null,
          ids: part ? null : ctx.workbook.customXmlParts.getByNamespace(DATA_NS).load("items/id"),
          wrote: c.value,
        });
      }
      if (part) part.setXml(xml);
      else scope.added.set(c.key, ctx.workbook.customXmlParts.add(xml).load("id"));
      for (const extra of st.deleteExtras()) extra.delete();
    },
  };
}

function styleOp(c: Extract<Command, { kind: "style" }>, st: OpState): Op {
  // autofitColumns() would fit whole columns: fit the area's own text (autofit.ts) — in this sync when
  // the commit writes that text and the snapshot read the widths, else read after this sync.
  const planned = c.style.autofit ? plannedWidths(c.area, st) : null;
  const a = c.area;
  return {
    bytes: styleBytes(a, c.style.columnFormats) + (planned ? 64 * a.cols : 0),
    cells: 0,
    queue: (ctx, scope) => {
      applyStyle(rangeAt(ctx, a, c.anchor), a, { ...c.style, autofit: false });
      planned?.forEach((w, i) => {
        if (w === null) return;
        rangeAt(ctx, { ...a, col: a.col + i, rows: 1, cols: 1 }, c.anchor).format.columnWidth = w;
        scope.widths.set(widthKey(a.sheetId, a.col + i), w);
      });
    },
    ...(c.style.autofit && !planned
      ? {
          after: async (ctx: Excel.RequestContext) => {
            for (let i = 0; i < a.cols; i++) st.widths.delete(widthKey(a.sheetId, a.col + i)); // set by what it reads now
            await fitColumnsToCells(ctx, ctx.workbook.worksheets.getItem(a.sheetId), a);
          },
        }
      : {}),
  };
}

function trackOp(c: Extract<Command, { kind: "track" }>, st: OpState): Op {
  const full = TRACK_PREFIX + c.name;
  return {
    bytes: 256,
    cells: 0,
    ...(st.names.has(full.toLowerCase()) ? { repoint: c.area.sheetId } : {}),
    queue: (ctx, scope) => {
      const key = full.toLowerCase();
      // Re-point an existing name in one command, never delete-then-add (a failing sync keeps a prefix: replace.ts).
      const existing = (scope.names.get(key) ?? st.names.has(key)) ? ctx.workbook.names.getItem(full) : null;
      // issue 36: where the name is just before it is re-pointed, when the caller said where it should be.
      if (existing && c.expect)
        scope.moves.push({
          name: c.name,
          expect: c.expect,
          item: existing.load("type,formula"),
          sheets: ctx.workbook.worksheets.load("items/id,items/name"),
        });
      queueTrackName(ctx, existing, full, range(ctx, c.area), st.sheetNames.get(c.area.sheetId) ?? "", c.area);
      scope.names.set(key, true);
    },
  };
}

function restoreOp(c: Extract<Command, { kind: "restore" }>): Op {
  const a = c.cells.area;
  return {
    bytes: utf8Length(JSON.stringify(c.cells.formulas)) + utf8Length(JSON.stringify(c.cells.numberFormats)) + 128,
    cells: a.rows * a.cols,
    // The formats first: a text cell's text ("@") is put back as text, never read as a formula.
    queue: (ctx) => {
      const r = rangeAt(ctx, a, c.anchor);
      r.numberFormat = c.cells.numberFormats;
      r.formulas = c.cells.formulas as unknown as string[][];
    },
  };
}

function untrackOp(c: Extract<Command, { kind: "untrack" }>, st: OpState): Op {
  const full = TRACK_PREFIX + c.name;
  return {
    bytes: 128,
    cells: 0,
    queue: (ctx, scope) => {
      const key = full.toLowerCase();
      if (!(scope.names.get(key) ?? st.names.has(key))) return;
      ctx.workbook.names.getItem(full).delete();
      scope.names.set(key, false);
    },
  };
}

/** The widths to set for a style's autofit without reading anything (autofit.ts), or null when that is not known. */
function plannedWidths(area: Area, st: OpState): Array<number | null> | null {
  const current = Array.from({ length: area.cols }, (_, i) => st.widths.get(widthKey(area.sheetId, area.col + i)));
  if (current.some((w) => w === undefined)) return null;
  const text = plannedText(area, st.earlier());
  return text ? fitWidths(text, current as number[]) : null;
}

function range(ctx: Excel.RequestContext, a: Area): Excel.Range {
  return ctx.workbook.worksheets.getItem(a.sheetId).getRangeByIndexes(a.row, a.col, a.rows, a.cols);
}

/** The area's range; with an anchor, at the same offset from where the anchor's name is in this sync (issue 36). */
function rangeAt(ctx: Excel.RequestContext, a: Area, anchor?: Anchor): Excel.Range {
  if (!anchor) return range(ctx, a);
  return ctx.workbook.names
    .getItem(TRACK_PREFIX + anchor.name)
    .getRange()
    .getCell(a.row - anchor.area.row, a.col - anchor.area.col)
    .getResizedRange(a.rows - 1, a.cols - 1);
}

function styleBytes(a: Area, formats: ReadonlyArray<string | null> | undefined): number {
  return 128 + (formats ? a.rows * utf8Length(JSON.stringify(formats)) : 0);
}

export function applyStyle(r: Excel.Range, area: Area, style: import("../port.ts").AreaStyle): void {
  const formats = style.columnFormats;
  if (formats?.some((f) => f !== null)) {
    // One row of formats repeated: null leaves a column as it is.
    const row = Array.from({ length: area.cols }, (_, c) => formats[c] ?? null);
    r.numberFormat = Array.from({ length: area.rows }, () => row) as unknown as string[][];
  }
  if (style.bold !== undefined) r.format.font.bold = style.bold;
  if (style.fill === null) r.format.fill.clear();
  else if (style.fill !== undefined) r.format.fill.color = style.fill;
}

/** A write as blocks that end on chunk boundaries (breakRows) and stay under the request budget. */
function writeOps(c: Extract<Command, { kind: "write" }>, maxBytes: number): Op[] {
  const grid = c.grid;
  const options: WriteOptions = c.options ?? {};
  const rows = grid.length;
  const cols = grid[0]?.length ?? 0;
  if (rows === 0 || cols === 0) return [];
  // keepFormats: null in a numberFormat array leaves that cell's format as it is.
  const formatOf = (col: number): string | null => (options.keepFormats ? null : (options.columnFormats?.[col] ?? "General"));
  // Strings always get the text format "@" (before the values, in the same sync), so Excel stores them
  // as typed — never a formula, number, date, boolean or error — in every locale.
  const formats = grid.map((row) => row.map((v, col) => (typeof v === "string" && v !== "" ? "@" : formatOf(col))));
  const rowBytes = grid.map((row, r) => utf8Length(JSON.stringify(row)) + utf8Length(JSON.stringify(formats[r])) + 2);
  const breaks = (options.breakRows ?? []).filter((r) => r > 0 && r < rows);
  // One op per chunk span between break rows (a span over the budget is cut by bytes): the packer puts
  // as many as fit in a sync, so every sync ends on a chunk boundary unless one chunk alone is too large.
  const starts = [0, ...breaks, rows];
  const ops: Op[] = [];
  for (let k = 0; k + 1 < starts.length; k++) {
    let from = starts[k]!;
    while (from < starts[k + 1]!) {
      let count = 0,
        bytes = 0;
      while (from + count < starts[k + 1]! && count < MAX_BLOCK_ROWS && (count === 0 || bytes + rowBytes[from + count]! <= maxBytes))
        bytes += rowBytes[from + count++]!;
      ops.push(blockOp(c, from, count, formats, rowBytes, rows));
      from += count;
    }
  }
  return ops;
}

function blockOp(
  c: Extract<Command, { kind: "write" }>,
  from: number,
  count: number,
  formats: (string | null)[][],
  rowBytes: number[],
  total: number,
): Op {
  const cols = c.grid[0]!.length;
  let bytes = 0;
  for (let r = from; r < from + count; r++) bytes += rowBytes[r]!;
  const onProgress = c.options?.onProgress;
  let blockFormats: Array<Array<string | null>> = formats.slice(from, from + count);
  const rows = c.grid.slice(from, from + count);
  const guard = c.options?.keepFormats && hasNonText(rows);
  const fallback = (col: number) => c.options?.columnFormats?.[col] ?? "General";
  // The formats read with the values that were checked before this write (the engine's re-read): no read of our own.
  const known = guard ? knownFormats(c.options?.currentFormats, c.grid.length, from, count, cols) : null;
  if (known) blockFormats = clearTextFormat(blockFormats, rows, known, fallback);
  return {
    bytes,
    cells: count * cols,
    ...(guard && !known
      ? {
          formatsFirst: {
            area: { sheetId: c.at.sheetId, row: c.at.row + from, col: c.at.col, rows: count, cols },
            ...(c.anchor ? { anchor: c.anchor } : {}),
            use: (current: string[][]) => {
              blockFormats = clearTextFormat(blockFormats, rows, current, fallback);
            },
          },
        }
      : {}),
    queue: (ctx, scope) => {
      const r = rangeAt(ctx, { sheetId: c.at.sheetId, row: c.at.row + from, col: c.at.col, rows: count, cols }, c.anchor);
      // issue 36: a guarded write looks at its cells in its own sync, just before writing over them.
      const guard = c.guard;
      if (guard)
        scope.cells.push({
          range: r.load("rowIndex,columnIndex,rowCount,columnCount"),
          sheet: r.worksheet.load("id"),
          used: r.getUsedRangeOrNullObject(true).load("rowIndex,columnIndex,rowCount,columnCount,values,formulas,numberFormat"),
          expect: guard.expect === "empty" ? "empty" : guard.expect.slice(from, from + count),
        });
      r.numberFormat = blockFormats as string[][];
      r.values = rows as SheetValue[][];
    },
    ...(onProgress ? { progress: () => onProgress(from + count, total) } : {}),
    split: () => {
      if (count <= 1) return null;
      const half = count >> 1;
      return [blockOp(c, from, half, formats, rowBytes, total), blockOp(c, from + half, count - half, formats, rowBytes, total)];
    },
  };
}

/** Rows [from, from+count) of the formats a write was handed, when they have the grid's shape. */
function knownFormats(
  formats: ReadonlyArray<ReadonlyArray<string>> | undefined,
  gridRows: number,
  from: number,
  count: number,
  cols: number,
): ReadonlyArray<ReadonlyArray<string>> | null {
  if (!formats || formats.length !== gridRows) return null;
  const rows = formats.slice(from, from + count);
  return rows.every((r) => r.length === cols) ? rows : null;
}

export function describeCommands(commands: readonly Command[]): string {
  const w = commands.filter((c): c is Extract<Command, { kind: "write" }> => c.kind === "write");
  if (w.length === 1) {
    const c = w[0]!;
    return `writing ${c.grid.length}×${c.grid[0]?.length ?? 0} cells at ${areaA1({ ...c.at, rows: Math.max(1, c.grid.length), cols: Math.max(1, c.grid[0]?.length ?? 1) })}`;
  }
  if (w.length > 1) return `writing ${w.length} blocks of cells`;
  if (commands.some((c) => c.kind === "track")) return "tracking a placement";
  if (commands.some((c) => c.kind === "data")) return "storing Cellbound's workbook data";
  return "updating the sheet";
}
