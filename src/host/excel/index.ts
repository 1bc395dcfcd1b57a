// src/host/excel: the SheetPort over Office.js. Runs unchanged in Excel desktop, Excel on the web and
// on dev/excel (tests, harness): the `Excel` and `Office` namespaces are injected, defaulting to the
// globals. Uses only API in @types/office-js, checks requirement sets at runtime (minimum ExcelApi 1.12).
//
//   snapshot / commit — the batched steps the engine uses (batch.ts): a read step in two syncs, a write
//            step packed into syncs under the 5 MB request limit (split and resent if Excel still
//            refuses), strings written as text (number format "@" set before the values, in the same
//            sync), calculation suspended per sync, screen updating once, one undo group on ExcelApi 1.20;
//            write, clear, style, freezeRows, track, untrack and setData are one-command commits;
//   read   — row blocks as an async iterable (halved on a payload error); with numberFormats, each block's
//            formats in the same sync (a refresh's re-read hands them to its write);
//   every context.sync() has a deadline (syncDeadlineMs): Excel on the web can wait forever on a
//            stalled server; past it the operation ends with ExcelNotAnswering, and Cancel ends it at once;
//   track  — hidden workbook-scoped names, which Excel moves when rows/columns are inserted;
//   identity / data — custom XML parts (+ settings mirror), see storage.ts;
//   events — WorksheetCollection.onChanged/onAdded/onDeleted (+ onNameChanged on ExcelApi 1.17).
//
// Real Excel's sharp edges (issue 22; docs/EXCEL-FIDELITY.md "Sharp edges") live in their own modules:
// cell-edit.ts (every batch with delayForCellEdit), text-format.ts (no number into an "@" cell),
// replace.ts (no delete-then-add), obstacles.ts (merged cells, tables, protection), autofit.ts (fit the
// placed cells, not whole columns), date-system.ts (1904), picture-limit.ts (5 MB on the web),
// probes.ts (the Diagnostics view's checks of Excel itself).

import { areaA1 } from "../a1.ts";
import type {
  Area,
  AreaStyle,
  AreaStyleRead,
  ChangeKind,
  Command,
  CommitOptions,
  CommitStats,
  Snapshot,
  SnapshotRequest,
  HostKind,
  Obstacle,
  ReadOptions,
  Recheck,
  RecheckRequest,
  SheetChange,
  SheetPort,
  SheetRef,
  SheetValue,
  TrackedArea,
  WorkbookIdentity,
  WriteOptions,
  WriteStats,
  SetDataOptions,
} from "../port.ts";
import { pictureSize, PortInputError, validateArea, validateDataKey, validateGrid, validatePlacement } from "../validate.ts";
import {
  describeCommands,
  MAX_BLOCK_ROWS,
  queueUsedArea,
  readRecheck,
  readSnapshot,
  runCommit,
  TRACK_PREFIX,
  trackedFromFormula,
  type BatchLimits,
  type ExcelBasis,
} from "./batch.ts";
import { validateCommands } from "../batch.ts";
import { HostError, isPayloadTooLarge, wrap } from "./errors.ts";
import { DataChangedError } from "../port.ts";
import { dataToJson } from "../validate.ts";
import { officeErrorCode } from "./errors.ts";
import { runInExcel } from "./cell-edit.ts";
import { queueObstacles, queueSpillAnchors } from "./obstacles.ts";
import { joiningTables, queueJoiningRanges, queueJoiningStrips } from "./tables.ts";
import { checkPictureFits } from "./picture-limit.ts";
import { queueDateSystem } from "./date-system.ts";
import { PICTURE_PENDING_SUFFIX, pictureNamed, queueReplacePicture } from "./replace.ts";
import {
  DATA_NS,
  dataXml,
  identityXml,
  parseDataXml,
  parseIdentityXml,
  storedIs,
  storedIdentitySchema,
  WORKBOOK_NS,
  WORKBOOK_SETTING,
  type StoredIdentity,
} from "./storage.ts";

export { HostError } from "./errors.ts";

export interface ExcelPortOptions {
  /** The Excel namespace (default: the global, in real Excel). */
  Excel?: typeof Excel;
  /** The Office namespace (default: the global). */
  Office?: typeof Office;
  /** Request bytes one write sync aims for; Excel on the web refuses more than 5 MB. */
  writeBlockBytes?: number;
  /** Cells one read sync asks for before adapting to payload errors. */
  readBlockCells?: number;
  /** Response bytes one read sync of a snapshot aims for (Excel on the web refuses more than 5 MB). */
  readSyncBytes?: number;
  /** How long one context.sync() may take before the operation ends with ExcelNotAnswering (ms). */
  syncDeadlineMs?: number;
}

/** Prefix of the hidden names that track placements. */
export { TRACK_PREFIX } from "./batch.ts";
export const MIN_EXCEL_API = "1.12";
const DEFAULT_WRITE_BLOCK_BYTES = 4_000_000;
const DEFAULT_READ_BLOCK_CELLS = 100_000;
const DEFAULT_READ_SYNC_BYTES = 4_000_000;
/** A minute: longer than a 4 MB request takes on a slow connection, short enough that nobody waits for nothing. */
export const DEFAULT_SYNC_DEADLINE_MS = 60_000;

export class ExcelPort implements SheetPort {
  readonly host: HostKind;
  private readonly X: typeof Excel;
  private readonly O: typeof Office;
  private readonly limits: BatchLimits;
  private readonly readBlockCells: number;
  private readonly syncDeadlineMs: number;

  constructor(options: ExcelPortOptions = {}) {
    const g = globalThis as { Excel?: typeof Excel; Office?: typeof Office };
    const X = options.Excel ?? g.Excel;
    const O = options.Office ?? g.Office;
    if (!X || !O) throw new HostError("NotInExcel", "Office.js is not loaded: the Excel adapter needs the Excel and Office namespaces.");
    this.X = X;
    this.O = O;
    if (!this.supports(MIN_EXCEL_API))
      throw new HostError("ApiNotSupported", `This Excel does not support ExcelApi ${MIN_EXCEL_API}, which Cellbound needs.`);
    const platform = String(O.context.platform);
    // PC and Mac are Excel desktop; OfficeOnline is Excel on the web. Other platforms (iPad, Android)
    // run the desktop-class client, so they count as desktop.
    this.host = platform === "OfficeOnline" ? "SHEETS_CLOUD" : "SHEETS_DESKTOP";
    this.readBlockCells = options.readBlockCells ?? DEFAULT_READ_BLOCK_CELLS;
    this.limits = {
      requestBytes: options.writeBlockBytes ?? DEFAULT_WRITE_BLOCK_BYTES,
      responseBytes: options.readSyncBytes ?? DEFAULT_READ_SYNC_BYTES,
      firstReadCells: Math.max(1, Math.floor((options.readSyncBytes ?? DEFAULT_READ_SYNC_BYTES) / 16)),
    };
    this.syncDeadlineMs = options.syncDeadlineMs ?? DEFAULT_SYNC_DEADLINE_MS;
  }

  /** Office.context.requirements.isSetSupported("ExcelApi", version). */
  supports(version: string): boolean {
    return this.O.context.requirements.isSetSupported("ExcelApi", version);
  }

  private run<T>(doing: string, batch: (ctx: Excel.RequestContext) => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    // Every batch waits while the user edits a cell (cell-edit.ts); a write is one undo step on ExcelApi 1.20.
    const run = runInExcel(this.X, batch, this.supports("1.20") && doing.startsWith("writing") ? { mergeUndoGroup: true } : {});
    return run.catch((e: unknown) => {
      if ((e as Error)?.name === "AbortError" || (signal?.aborted && e === signal.reason)) throw e;
      return wrap(e, doing);
    });
  }

  /**
   * context.sync() with a deadline and Cancel: Excel on the web can leave a sync unanswered forever
   * when its server stalls. What the sync carried may still land later; the write journal covers that.
   */
  private readonly sync = (ctx: Excel.RequestContext, signal?: AbortSignal): Promise<void> => {
    signal?.throwIfAborted();
    const ms = this.syncDeadlineMs;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => finish(() => reject(new ExcelNotAnswering(ms))), ms);
      const onAbort = () => finish(() => reject(signal!.reason ?? new DOMException("The operation was aborted.", "AbortError")));
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        settle();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      ctx.sync().then(
        () => finish(resolve),
        (e: unknown) => finish(() => reject(e)),
      );
    });
  };

  // ---- batched steps (batch.ts) ------------------------------------------------------------
  async snapshot(req: SnapshotRequest = {}): Promise<Snapshot> {
    return this.run(
      "reading the workbook",
      async (ctx) => {
        // A workbook Cellbound never saw gets its identity in the snapshot's second sync (no extra round trip).
        let created: StoredIdentity | null = null;
        const raw = await readSnapshot(
          ctx,
          this.sync,
          req,
          this.limits,
          WORKBOOK_SETTING,
          (found) => {
            if (found.identityParts > 0 || found.mirror) return false;
            created = { workbookId: crypto.randomUUID(), documentUrl: this.documentUrl() };
            writeIdentityXml(ctx, [], created);
            ctx.workbook.settings.add(WORKBOOK_SETTING, JSON.stringify(created));
            return true;
          },
          (v) => this.supports(v),
        );
        if (raw.corrupt.length) throw corruptData(raw.corrupt[0]!);
        const identity = created
          ? describe(created, this.documentUrl(), raw.workbookName)
          : await this.settleIdentity(ctx, raw.identityXml, raw.mirror, raw.workbookName, req.signal, raw.identityParts);
        return {
          identity,
          sheets: raw.sheets,
          tracked: raw.tracked,
          data: raw.data,
          values: raw.values,
          frozenRows: raw.frozenRows,
          ...(raw.obstacles ? { obstacles: raw.obstacles } : {}),
          ...(raw.dateSystem ? { dateSystem: raw.dateSystem } : {}),
          ...(raw.used ? { used: raw.used } : {}),
          ...(raw.columnWidths ? { columnWidths: raw.columnWidths } : {}),
          ...(raw.tables ? { tables: raw.tables } : {}),
          basis: raw.basis,
        };
      },
      req.signal,
    );
  }

  /** issue 36: where the names and sheets are now, and a few areas' values (and formats): one sync under the response limit. */
  async recheck(req: RecheckRequest = {}): Promise<Recheck> {
    return this.run("reading the workbook", (ctx) => readRecheck(ctx, this.sync, req, this.limits), req.signal);
  }

  async commit(commands: readonly Command[], o: CommitOptions = {}): Promise<CommitStats> {
    validateCommands(commands);
    const basis = (o.basis?.basis as ExcelBasis | undefined) ?? null;
    return this.run(
      describeCommands(commands),
      (ctx) =>
        runCommit(ctx, this.sync, commands, basis, this.limits, {
          ...(o.signal ? { signal: o.signal } : {}),
          calcSuspend: true,
          screenSuspend: this.supports("1.9"),
          resize: this.supports("1.13"),
        }),
      o.signal,
    );
  }

  // ---- workbook and sheets -----------------------------------------------------------------
  private documentUrl(): string | null {
    const url = this.O.context.document?.url;
    return typeof url === "string" && url !== "" ? url : null;
  }

  async identity(): Promise<WorkbookIdentity> {
    return this.run("reading the workbook identity", async (ctx) => {
      const wb = ctx.workbook;
      wb.load("name");
      const parts = wb.customXmlParts.getByNamespace(WORKBOOK_NS);
      parts.load("items/id");
      const mirror = wb.settings.getItemOrNullObject(WORKBOOK_SETTING);
      mirror.load("value");
      await this.sync(ctx);
      const xmls = parts.items.map((p) => p.getXml());
      await this.sync(ctx);
      return this.settleIdentity(
        ctx,
        xmls.map((x) => x.value),
        mirror.isNullObject ? undefined : mirror.value,
        wb.name,
      );
    });
  }

  /**
   * The identity stored in the file (XML part, else the settings mirror), made whole: a new id for a
   * file that has none, the URL recorded on its first save. Writes (one sync) only when that changed it.
   */
  private async settleIdentity(
    ctx: Excel.RequestContext,
    xmls: readonly string[],
    mirrorValue: unknown,
    workbookName: string,
    signal?: AbortSignal,
    /** The identity parts, when already loaded. */
    loaded?: Excel.CustomXmlPart[],
  ): Promise<WorkbookIdentity> {
    const fromXml = xmls.map((x) => parseIdentityXml(x)).find((x) => x !== null) ?? null;
    const fromSettings = mirrorValue === undefined ? null : parseMirror(mirrorValue);
    const url = this.documentUrl();
    let stored = fromXml ?? fromSettings;
    if (!stored) stored = { workbookId: crypto.randomUUID(), documentUrl: url };
    else if (stored.documentUrl === null && url !== null) stored = { ...stored, documentUrl: url }; // first save: not a copy
    const xmlOk = sameIdentity(fromXml, stored) && xmls.length === 1;
    const mirrorOk = sameIdentity(fromSettings, stored);
    if (!xmlOk || !mirrorOk) {
      if (!xmlOk) {
        let parts = loaded;
        if (!parts) {
          const found = ctx.workbook.customXmlParts.getByNamespace(WORKBOOK_NS).load("items/id");
          await this.sync(ctx, signal);
          parts = found.items;
        }
        writeIdentityXml(ctx, parts, stored);
      }
      if (!mirrorOk) ctx.workbook.settings.add(WORKBOOK_SETTING, JSON.stringify(stored));
      await this.sync(ctx, signal);
    }
    return describe(stored, url, workbookName);
  }

  async forkIdentity(): Promise<WorkbookIdentity> {
    return this.recordIdentity("forking the workbook identity", crypto.randomUUID());
  }

  /** Store `workbookId` with the current URL (part + settings mirror). */
  private recordIdentity(doing: string, workbookId: string): Promise<WorkbookIdentity> {
    return this.run(doing, async (ctx) => {
      const wb = ctx.workbook;
      wb.load("name");
      const parts = wb.customXmlParts.getByNamespace(WORKBOOK_NS);
      parts.load("items/id");
      await this.sync(ctx);
      const url = this.documentUrl();
      const stored: StoredIdentity = { workbookId, documentUrl: url };
      writeIdentityXml(ctx, parts.items, stored);
      wb.settings.add(WORKBOOK_SETTING, JSON.stringify(stored));
      await this.sync(ctx);
      return describe(stored, url, wb.name);
    });
  }

  /** issue 22 (7): the person says this is the same file, renamed or moved: keep the id, record the URL. */
  async keepIdentity(): Promise<WorkbookIdentity> {
    const now = await this.identity();
    return now.copied ? this.recordIdentity("recording the workbook's new address", now.workbookId) : now;
  }

  async sheets(): Promise<SheetRef[]> {
    return this.run("listing sheets", async (ctx) => {
      const ws = ctx.workbook.worksheets;
      ws.load("items/id,items/name");
      await this.sync(ctx);
      return ws.items.map((s) => ({ id: s.id, name: s.name }));
    });
  }

  async selection(): Promise<{ sheet: SheetRef; area: Area }> {
    return this.run("reading the selection", async (ctx) => {
      const ws = ctx.workbook.worksheets.getActiveWorksheet();
      ws.load("id,name");
      const r = ctx.workbook.getSelectedRange();
      r.load("rowIndex,columnIndex,rowCount,columnCount");
      // issue 22 (8): getSelectedRange fails when several areas are selected.
      await this.sync(ctx).catch((e: unknown) => {
        if (officeErrorCode(e) === "InvalidSelection")
          throw new HostError(
            "InvalidSelection",
            "Several ranges are selected: select one cell where the report should start, then try again.",
          );
        throw e;
      });
      return {
        sheet: { id: ws.id, name: ws.name },
        area: { sheetId: ws.id, row: r.rowIndex, col: r.columnIndex, rows: r.rowCount, cols: r.columnCount },
      };
    });
  }

  async select(area: Area): Promise<void> {
    validateArea(area);
    await this.run(`selecting ${areaA1(area)}`, async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem(area.sheetId);
      ws.activate();
      ws.getRangeByIndexes(area.row, area.col, area.rows, area.cols).select();
      await this.sync(ctx);
    });
  }

  // ---- values ------------------------------------------------------------------------------
  async write(
    at: Pick<Area, "sheetId" | "row" | "col">,
    grid: ReadonlyArray<ReadonlyArray<SheetValue>>,
    options: WriteOptions = {},
  ): Promise<WriteStats> {
    const shape = validateGrid(grid);
    validatePlacement(at, shape);
    const { signal, ...rest } = options;
    const s = await this.commit([{ kind: "write", at, grid, options: rest }], signal ? { signal } : {});
    return { rows: shape.rows, cols: shape.cols, cells: shape.rows * shape.cols, syncs: s.syncs, maxSyncBytes: s.maxSyncBytes };
  }

  async *read(area: Area, options: ReadOptions = {}): AsyncIterable<SheetValue[][]> {
    validateArea(area);
    const onFormats = options.numberFormats;
    // With the formats the answer is about twice as large: half the cells a block.
    const blockCells = onFormats ? Math.floor(this.readBlockCells / 2) : this.readBlockCells;
    let blockRows = Math.max(1, Math.min(area.rows, options.blockRows ?? Math.max(1, Math.floor(blockCells / area.cols)), MAX_BLOCK_ROWS));
    let r0 = 0;
    while (r0 < area.rows) {
      options.signal?.throwIfAborted();
      const n = Math.min(blockRows, area.rows - r0);
      let values: SheetValue[][];
      let formats: string[][] | null = null;
      try {
        values = await runInExcel(this.X, async (ctx) => {
          const range = ctx.workbook.worksheets.getItem(area.sheetId).getRangeByIndexes(area.row + r0, area.col, n, area.cols);
          range.load(onFormats ? "values,numberFormat" : "values");
          await this.sync(ctx, options.signal);
          if (onFormats) formats = range.numberFormat as string[][];
          return range.values as SheetValue[][];
        });
      } catch (e) {
        if (isPayloadTooLarge(e) && n > 1) {
          blockRows = Math.max(1, Math.floor(n / 2));
          continue;
        }
        if ((e as Error)?.name === "AbortError" || (options.signal?.aborted && e === options.signal.reason)) throw e;
        wrap(e, `reading ${areaA1({ ...area, row: area.row + r0, rows: n })}`);
      }
      if (!Array.isArray(values) || values.length !== n) {
        throw new HostError(
          "UnexpectedResponse",
          `Excel returned ${Array.isArray(values) ? values.length : "no"} rows for a block of ${n}`,
        );
      }
      r0 += n;
      if (onFormats && formats) onFormats(formats);
      yield values;
    }
  }

  async clear(area: Area): Promise<void> {
    await this.commit([{ kind: "clear", area }]);
  }

  // ---- formatting (Range.numberFormat, format.font.bold, format.fill, freezePanes) -----------
  async style(area: Area, style: AreaStyle): Promise<void> {
    await this.commit([{ kind: "style", area, style }]);
  }

  async readStyle(area: Area): Promise<AreaStyleRead> {
    validateArea(area);
    return this.run(`reading the formats of ${areaA1(area)}`, async (ctx) => {
      const range = ctx.workbook.worksheets.getItem(area.sheetId).getRangeByIndexes(area.row, area.col, area.rows, area.cols);
      range.load("numberFormat");
      const font = range.format.font.load("bold");
      const fill = range.format.fill.load("color");
      await this.sync(ctx);
      return { numberFormats: range.numberFormat as string[][], bold: font.bold, fill: fill.color ? fill.color.toUpperCase() : null };
    });
  }

  async freezeRows(sheetId: string, rows: number): Promise<void> {
    if (!Number.isInteger(rows) || rows < 0) throw new PortInputError(`cannot freeze ${rows} rows`);
    await this.commit([{ kind: "freeze", sheetId, rows }]);
  }

  async frozenRows(sheetId: string): Promise<number> {
    return this.run("reading the frozen rows", async (ctx) => {
      const at = ctx.workbook.worksheets.getItem(sheetId).freezePanes.getLocationOrNullObject();
      at.load("rowIndex,rowCount");
      await this.sync(ctx);
      // Frozen rows start at the top: their count is where the frozen range ends.
      return at.isNullObject || at.rowIndex !== 0 ? 0 : at.rowCount;
    });
  }

  /** issue 22 (8): merged cells, tables, protection, spills and filtered rows in an area (obstacles.ts), in one sync (two when a spill is found). */
  async obstacles(area: Area): Promise<Obstacle[]> {
    validateArea(area);
    return this.run(`checking ${areaA1(area)} for merged cells, tables and protection`, async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem(area.sheetId);
      const found = queueObstacles(ws, area, (v) => this.supports(v));
      const strips = queueJoiningStrips(ws, area); // issue 33: tables just above or left (joinsTable)
      await this.sync(ctx);
      const first = found();
      // Tables of the strips that do not reach into the area end there: their ranges in the spill anchors' sync.
      const inside = new Set(first.filter((o) => o.kind === "table").map((o) => o.name?.toLowerCase()));
      const joining = strips().filter((n) => !inside.has(n.toLowerCase()));
      const named = queueSpillAnchors(ws, area, first); // a spill found: name its formulas in one more sync
      if (!named && joining.length === 0) return first;
      const ranges = queueJoiningRanges(ctx, joining);
      await this.sync(ctx);
      return [...(named ? named() : first), ...joiningTables(area, ranges())];
    });
  }

  async usedArea(area: Area): Promise<Area | null> {
    validateArea(area);
    return this.run(`looking for content in ${areaA1(area)}`, async (ctx) => {
      const found = queueUsedArea(ctx.workbook.worksheets.getItem(area.sheetId), area);
      await this.sync(ctx);
      return found();
    });
  }

  /** issue 22 (10): 1900 or 1904, from DATE(1904,1,2) evaluated by Excel (date-system.ts). */
  async dateSystem(): Promise<1900 | 1904> {
    return this.run("reading the workbook's date system", async (ctx) => {
      const system = queueDateSystem(ctx);
      await this.sync(ctx);
      return system();
    });
  }

  // ---- tracking ----------------------------------------------------------------------------
  async track(name: string, area: Area): Promise<void> {
    await this.commit([{ kind: "track", name, area }]);
  }

  async untrack(name: string): Promise<void> {
    await this.commit([{ kind: "untrack", name }]);
  }

  /**
   * A person's workbook-scoped name and its range, from its formula ("=Inputs!$B$1:$B$5"), in one sync
   * (issue 32). Cellbound's own names are not the person's; a constant, formula, several areas or #REF!
   * (type other than "Range", or a formula that is not one range) give null.
   */
  async namedArea(name: string): Promise<{ sheet: SheetRef; area: Area } | null> {
    if (typeof name !== "string") throw new PortInputError("a name must be text");
    if (name === "" || name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase())) return null;
    return this.run(`finding the name ${name}`, async (ctx) => {
      const item = ctx.workbook.names.getItemOrNullObject(name).load("name,type,formula");
      const sheets = ctx.workbook.worksheets.load("items/id,items/name");
      await this.sync(ctx);
      if (item.isNullObject || item.type !== "Range") return null;
      const refs = sheets.items.map((s) => ({ id: s.id, name: s.name }));
      const t = trackedFromFormula(TRACK_PREFIX + item.name, item.formula, refs);
      return t.sheet && t.area ? { sheet: t.sheet, area: t.area } : null;
    });
  }

  /** Tracked areas from the names' formulas (one sync). */
  async tracked(): Promise<TrackedArea[]> {
    return this.run("listing tracked placements", async (ctx) => {
      const names = ctx.workbook.names.load("items/name,items/type,items/formula");
      const sheets = ctx.workbook.worksheets.load("items/id,items/name");
      await this.sync(ctx);
      const refs = sheets.items.map((s) => ({ id: s.id, name: s.name }));
      return names.items
        .filter((n) => n.name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase()))
        .map((n) => trackedFromFormula(n.name, n.type === "Error" ? "=#REF!" : n.formula, refs));
    });
  }

  // ---- per-workbook data -------------------------------------------------------------------
  private async dataParts(ctx: Excel.RequestContext): Promise<Array<{ part: Excel.CustomXmlPart; key: string; json: string }>> {
    const parts = ctx.workbook.customXmlParts.getByNamespace(DATA_NS);
    parts.load("items/id");
    await this.sync(ctx);
    const xmls = parts.items.map((p) => ({ part: p, xml: p.getXml() }));
    await this.sync(ctx);
    return xmls.flatMap(({ part, xml }) => {
      const d = parseDataXml(xml.value);
      return d ? [{ part, ...d }] : [];
    });
  }

  // ---- pictures (ExcelApi 1.9: Worksheet.shapes, Shape.delete; Range.left/top give a cell's place) ----
  async putPicture(name: string, base64: string, at?: Pick<Area, "sheetId" | "row" | "col">): Promise<{ sheetId: string; name: string }> {
    pictureSize(base64);
    checkPictureFits(this.host, base64); // issue 22 (6): one request, 5 MB on Excel on the web
    if (!this.supports("1.14")) throw new Error("Pictures need a newer Excel (ExcelApi 1.14: Microsoft 365 or Excel on the web).");
    return this.run(`putting the picture ${name}`, async (ctx) => {
      let sheetId = at?.sheetId;
      if (!sheetId) {
        const sheets = ctx.workbook.worksheets.load("items/id");
        await this.sync(ctx);
        const found = sheets.items.map((ws) => ({
          ws,
          s: ws.shapes.getItemOrNullObject(name).load("id"),
          pending: ws.shapes.getItemOrNullObject(name + PICTURE_PENDING_SUFFIX).load("id"),
        }));
        await this.sync(ctx);
        sheetId = found.find((f) => !f.s.isNullObject || !f.pending.isNullObject)?.ws.id;
        if (!sheetId) throw new PortInputError(`no picture named ${name} to replace`);
      }
      const ws = ctx.workbook.worksheets.getItem(sheetId);
      const old = ws.shapes.getItemOrNullObject(name).load("left,top");
      const stray = ws.shapes.getItemOrNullObject(name + PICTURE_PENDING_SUFFIX).load("left,top");
      const cell = at ? ws.getRangeByIndexes(at.row, at.col, 1, 1).load("left,top") : null;
      await this.sync(ctx);
      const where = !old.isNullObject ? old : !stray.isNullObject ? stray : null; // a replacement left half-done counts
      const left = cell ? cell.left : where ? where.left : 0;
      const top = cell ? cell.top : where ? where.top : 0;
      // issue 22 (3): add the new picture, then delete the old one, then rename, in one sync: a failure
      // at any command leaves a picture findable by this name (a sync is not atomic; replace.ts).
      queueReplacePicture(ws, name, base64, { left, top }, old.isNullObject ? null : old, stray.isNullObject ? null : stray);
      await this.sync(ctx);
      return { sheetId, name };
    });
  }

  async pictures(sheetId: string): Promise<Array<{ name: string; width: number; height: number }>> {
    if (!this.supports("1.9")) return [];
    return this.run("listing pictures", async (ctx) => {
      const shapes = ctx.workbook.worksheets.getItem(sheetId).shapes.load("items/name,items/type,items/width,items/height");
      await this.sync(ctx);
      const images = shapes.items.filter((s) => s.type === "Image");
      const names = images.map((s) => s.name);
      // A replacement interrupted at its last command left the picture under its temporary name (replace.ts).
      const shown = (n: string) =>
        n.endsWith(PICTURE_PENDING_SUFFIX) && pictureNamed(names, n.slice(0, -PICTURE_PENDING_SUFFIX.length)) === n
          ? n.slice(0, -PICTURE_PENDING_SUFFIX.length)
          : n;
      return images.map((s) => ({ name: shown(s.name), width: s.width, height: s.height }));
    });
  }

  async getData(key: string): Promise<unknown> {
    validateDataKey(key);
    return this.run(`reading data ${key}`, async (ctx) => {
      const hit = (await this.dataParts(ctx)).find((d) => d.key === key);
      if (!hit) return undefined;
      try {
        return JSON.parse(hit.json) as unknown;
      } catch {
        throw corruptData(key);
      }
    });
  }

  async setData(key: string, value: unknown, options: SetDataOptions = {}): Promise<void> {
    if (!options.ifUnchanged) {
      await this.commit([{ kind: "data", key, value }]);
      return;
    }
    validateDataKey(key);
    const json = dataToJson(key, value);
    const stored = await this.run(`storing data ${key}`, async (ctx) => {
      const all = (await this.dataParts(ctx)).filter((d) => d.key === key);
      // issue 22 (5): re-read just before the write; someone else changed it since the caller read it.
      if (options.ifUnchanged && !storedIs(all[0]?.json, options.ifUnchanged.value)) return false;
      const xml = dataXml(key, json);
      if (all[0]) all[0].part.setXml(xml);
      else ctx.workbook.customXmlParts.add(xml);
      for (const extra of all.slice(1)) extra.part.delete();
      await this.sync(ctx);
      return true;
    });
    if (!stored) throw new DataChangedError(key);
  }

  // ---- events ------------------------------------------------------------------------------
  async onChange(listener: (change: SheetChange) => void): Promise<() => Promise<void>> {
    const ctx = new this.X.RequestContext();
    const ws = ctx.workbook.worksheets;
    const canTell = this.supports("1.14");
    const deliver = (c: SheetChange) => {
      try {
        listener(c);
      } catch {
        /* a listener's error is its own */
      }
    };
    const handlers: OfficeExtension.EventHandlerResult<unknown>[] = [];
    handlers.push(
      ws.onChanged.add(async (e) => {
        const kind = CHANGE_KINDS[e.changeType] ?? null;
        if (!kind) return;
        const source: SheetChange["source"] = !canTell ? "Unknown" : e.triggerSource === "ThisLocalAddin" ? "ThisLocalAddin" : "Local";
        deliver({ sheetId: e.worksheetId, address: e.address, kind, source });
      }),
    );
    handlers.push(ws.onAdded.add(async (e) => deliver({ sheetId: e.worksheetId, address: "", kind: "SheetAdded", source: "Unknown" })));
    handlers.push(ws.onDeleted.add(async (e) => deliver({ sheetId: e.worksheetId, address: "", kind: "SheetDeleted", source: "Unknown" })));
    if (this.supports("1.17")) {
      handlers.push(
        ws.onNameChanged.add(async (e) => deliver({ sheetId: e.worksheetId, address: "", kind: "SheetRenamed", source: "Unknown" })),
      );
    }
    try {
      await this.sync(ctx);
    } catch (e) {
      wrap(e, "listening for changes");
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      for (const h of handlers) h.remove();
      await this.sync(ctx).catch((e: unknown) => wrap(e, "removing change listeners"));
    };
  }
}

const CHANGE_KINDS: Record<string, ChangeKind> = {
  RangeEdited: "RangeEdited",
  RowInserted: "RowInserted",
  RowDeleted: "RowDeleted",
  ColumnInserted: "ColumnInserted",
  ColumnDeleted: "ColumnDeleted",
  CellInserted: "CellInserted",
  CellDeleted: "CellDeleted",
};

/** Raised when one context.sync() got no answer within the deadline. */
export class ExcelNotAnswering extends HostError {
  constructor(readonly waitedMs: number) {
    super(
      "ExcelNotAnswering",
      `Excel is not answering: a request got no reply within ${waitedMs < 1000 ? `${waitedMs} ms` : `${Math.round(waitedMs / 1000)} s`}. Check that Excel is not busy (a dialog open, a cell being edited, a lost connection), then try again; an unfinished write is completed by the next refresh.`,
    );
  }
}

function corruptData(key: string): HostError {
  return new HostError("CorruptData", `Workbook data ${key} is not valid JSON; it may have been edited outside Cellbound.`);
}

function parseMirror(value: unknown): StoredIdentity | null {
  try {
    const r = storedIdentitySchema.safeParse(typeof value === "string" ? JSON.parse(value) : value);
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

function sameIdentity(a: StoredIdentity | null, b: StoredIdentity): boolean {
  return a !== null && a.workbookId === b.workbookId && a.documentUrl === b.documentUrl;
}

function writeIdentityXml(ctx: Excel.RequestContext, existing: Excel.CustomXmlPart[], stored: StoredIdentity): void {
  const xml = identityXml(stored);
  if (existing[0]) existing[0].setXml(xml);
  else ctx.workbook.customXmlParts.add(xml);
  for (const extra of existing.slice(1)) extra.delete();
}

function describe(stored: StoredIdentity, url: string | null, name: string): WorkbookIdentity {
  return {
    workbookId: stored.workbookId,
    documentUrl: url,
    recordedUrl: stored.documentUrl,
    copied: stored.documentUrl !== null && url !== null && stored.documentUrl !== url,
    name: name || "Book1",
  };
}

export function createExcelPort(options: ExcelPortOptions = {}): ExcelPort {
  return new ExcelPort(options);
}
