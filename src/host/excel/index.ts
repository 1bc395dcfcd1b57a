// src/host/excel: the SheetPort over Office.js. Runs unchanged in Excel desktop, Excel on the web and
// on dev/excel (tests, harness): the `Excel` and `Office` namespaces are injected, defaulting to the
// globals. Uses only API in @types/office-js, checks requirement sets at runtime (minimum ExcelApi 1.12).
//
//   write  — row blocks sized to stay under the 5 MB request limit (halved and retried if Excel still
//            refuses), strings written as text (number format "@" set before the values, in the same
//            sync), calculation suspended per block, screen updating once, one undo group on ExcelApi 1.20;
//   read   — row blocks as an async iterable (halved on a payload error);
//   track  — hidden workbook-scoped names, which Excel moves when rows/columns are inserted;
//   identity / data — custom XML parts (+ settings mirror), see storage.ts;
//   events — WorksheetCollection.onChanged/onAdded/onDeleted (+ onNameChanged on ExcelApi 1.17).
//
// Real Excel's sharp edges (issue 22; docs/EXCEL-FIDELITY.md "Sharp edges") live in their own modules:
// cell-edit.ts (every batch with delayForCellEdit), text-format.ts (no number into an "@" cell),
// replace.ts (no delete-then-add), obstacles.ts (merged cells, tables, protection), autofit.ts (fit the
// placed cells, not whole columns), date-system.ts (1904), picture-limit.ts (5 MB on the web),
// probes.ts (the Diagnostics view's checks of Excel itself).

import { areaA1, parseAddress } from "../a1.ts";
import type {
  Area,
  AreaStyle,
  AreaStyleRead,
  ChangeKind,
  HostKind,
  Obstacle,
  ReadOptions,
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
import { DataChangedError } from "../port.ts";
import {
  dataToJson,
  pictureSize,
  PortInputError,
  validateColumnFormats,
  validateStyle,
  validateArea,
  validateDataKey,
  validateGrid,
  validatePlacement,
  validateTrackName,
} from "../validate.ts";
import { HostError, isPayloadTooLarge, officeErrorCode, wrap } from "./errors.ts";
import { clearTextFormat, hasNonText, readNumberFormats } from "./text-format.ts";
import { runInExcel } from "./cell-edit.ts";
import { queueObstacles } from "./obstacles.ts";
import { checkPictureFits } from "./picture-limit.ts";
import { queueDateSystem } from "./date-system.ts";
import { fitColumnsToCells } from "./autofit.ts";
import { PICTURE_PENDING_SUFFIX, pictureNamed, queueReplacePicture, queueTrackName } from "./replace.ts";
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
}

/** Prefix of the hidden names that track placements. */
export const TRACK_PREFIX = "Cellbound_";
export const MIN_EXCEL_API = "1.12";
const DEFAULT_WRITE_BLOCK_BYTES = 4_000_000;
const DEFAULT_READ_BLOCK_CELLS = 100_000;
const MAX_BLOCK_ROWS = 20_000;

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
  }
  return n;
}

/** The largest break row b with from < b <= to (breaks ascending), or -1. */
function lastBreak(breaks: readonly number[], from: number, to: number): number {
  let lo = 0,
    hi = breaks.length - 1,
    found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (breaks[mid]! <= to) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && breaks[found]! > from ? breaks[found]! : -1;
}

export class ExcelPort implements SheetPort {
  readonly host: HostKind;
  private readonly X: typeof Excel;
  private readonly O: typeof Office;
  private readonly writeBlockBytes: number;
  private readonly readBlockCells: number;

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
    this.writeBlockBytes = options.writeBlockBytes ?? DEFAULT_WRITE_BLOCK_BYTES;
    this.readBlockCells = options.readBlockCells ?? DEFAULT_READ_BLOCK_CELLS;
  }

  /** Office.context.requirements.isSetSupported("ExcelApi", version). */
  supports(version: string): boolean {
    return this.O.context.requirements.isSetSupported("ExcelApi", version);
  }

  private run<T>(doing: string, batch: (ctx: Excel.RequestContext) => Promise<T>): Promise<T> {
    return runInExcel(this.X, batch).catch((e: unknown) => wrap(e, doing));
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
      await ctx.sync();
      const xmls = parts.items.map((p) => p.getXml());
      await ctx.sync();
      const fromXml = xmls.map((x) => parseIdentityXml(x.value)).find((x) => x !== null) ?? null;
      const fromSettings = mirror.isNullObject ? null : parseMirror(mirror.value);
      const url = this.documentUrl();
      let stored = fromXml ?? fromSettings;
      if (!stored) stored = { workbookId: crypto.randomUUID(), documentUrl: url };
      else if (stored.documentUrl === null && url !== null) stored = { ...stored, documentUrl: url }; // first save: not a copy
      if (!sameIdentity(fromXml, stored) || parts.items.length !== 1) writeIdentityXml(ctx, parts.items, stored);
      if (!sameIdentity(fromSettings, stored)) wb.settings.add(WORKBOOK_SETTING, JSON.stringify(stored));
      await ctx.sync();
      return describe(stored, url, wb.name);
    });
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
      await ctx.sync();
      const url = this.documentUrl();
      const stored: StoredIdentity = { workbookId, documentUrl: url };
      writeIdentityXml(ctx, parts.items, stored);
      wb.settings.add(WORKBOOK_SETTING, JSON.stringify(stored));
      await ctx.sync();
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
      await ctx.sync();
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
      await ctx.sync().catch((e: unknown) => {
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
      await ctx.sync();
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
    validateColumnFormats(options.columnFormats, shape.cols);
    const stats: WriteStats = { rows: shape.rows, cols: shape.cols, cells: shape.rows * shape.cols, syncs: 0, maxSyncBytes: 0 };
    if (shape.rows === 0 || shape.cols === 0) return stats;
    options.signal?.throwIfAborted();
    // keepFormats: null in a numberFormat array leaves that cell's format as it is (M-NULL).
    const formatOf = (c: number): string | null => (options.keepFormats ? null : (options.columnFormats?.[c] ?? "General"));
    // Strings always get the text format "@" (in the same sync, before the values), so Excel stores
    // them as typed — never a formula, number, date, boolean or error — in every locale.
    const formats = grid.map((row) => row.map((v, c) => (typeof v === "string" && v !== "" ? "@" : formatOf(c))));
    const rowBytes = grid.map((row, r) => utf8Length(JSON.stringify(row)) + utf8Length(JSON.stringify(formats[r])) + 2);
    const runOptions = this.supports("1.20") ? { mergeUndoGroup: true } : null;
    const breaks = (options.breakRows ?? []).filter((r) => r > 0 && r < shape.rows);
    const batch = async (ctx: Excel.RequestContext): Promise<void> => {
      const sheet = ctx.workbook.worksheets.getItem(at.sheetId);
      if (this.supports("1.9")) ctx.application.suspendScreenUpdatingUntilNextSync();
      let budget = this.writeBlockBytes;
      let r0 = 0;
      while (r0 < shape.rows) {
        options.signal?.throwIfAborted();
        let n = 0,
          bytes = 0;
        while (r0 + n < shape.rows && n < MAX_BLOCK_ROWS && (n === 0 || bytes + rowBytes[r0 + n]! <= budget)) bytes += rowBytes[r0 + n++]!;
        // Cut on the last chunk boundary inside the block (when the block stopped short of the end).
        if (r0 + n < shape.rows && breaks.length) {
          const cut = lastBreak(breaks, r0, r0 + n);
          if (cut > r0) {
            for (let r = cut; r < r0 + n; r++) bytes -= rowBytes[r]!;
            n = cut - r0;
          }
        }
        const range = sheet.getRangeByIndexes(at.row + r0, at.col, n, shape.cols);
        // issue 22 (1): under keepFormats, a number must not land in a cell the user or an old string left "@".
        let blockFormats: Array<Array<string | null>> = formats.slice(r0, r0 + n);
        if (options.keepFormats && hasNonText(grid.slice(r0, r0 + n))) {
          const current = await readNumberFormats(ctx, sheet, { row: at.row + r0, col: at.col, rows: n, cols: shape.cols });
          stats.syncs += current.syncs;
          blockFormats = clearTextFormat(
            blockFormats,
            grid.slice(r0, r0 + n),
            current.formats,
            (c) => options.columnFormats?.[c] ?? "General",
          );
        }
        ctx.application.suspendApiCalculationUntilNextSync();
        range.numberFormat = blockFormats as string[][];
        range.values = grid.slice(r0, r0 + n) as SheetValue[][];
        stats.syncs++;
        stats.maxSyncBytes = Math.max(stats.maxSyncBytes, bytes);
        try {
          await ctx.sync();
        } catch (e) {
          if (!isPayloadTooLarge(e) || n === 1) throw e;
          budget = Math.max(1, Math.floor(bytes / 2)); // Excel refused it as a whole: halve and retry
          continue;
        }
        r0 += n;
        options.onProgress?.(r0, shape.rows);
      }
    };
    const where = `writing ${shape.rows}×${shape.cols} cells at ${areaA1({ ...at, ...shape })}`;
    await runInExcel(this.X, batch, runOptions ?? {}).catch((e: unknown) => {
      if ((e as Error)?.name === "AbortError") throw e;
      wrap(e, where);
    });
    return stats;
  }

  async *read(area: Area, options: ReadOptions = {}): AsyncIterable<SheetValue[][]> {
    validateArea(area);
    let blockRows = Math.max(
      1,
      Math.min(area.rows, options.blockRows ?? Math.max(1, Math.floor(this.readBlockCells / area.cols)), MAX_BLOCK_ROWS),
    );
    let r0 = 0;
    while (r0 < area.rows) {
      options.signal?.throwIfAborted();
      const n = Math.min(blockRows, area.rows - r0);
      let values: SheetValue[][];
      try {
        values = await runInExcel(this.X, async (ctx) => {
          const range = ctx.workbook.worksheets.getItem(area.sheetId).getRangeByIndexes(area.row + r0, area.col, n, area.cols);
          range.load("values");
          await ctx.sync();
          return range.values as SheetValue[][];
        });
      } catch (e) {
        if (isPayloadTooLarge(e) && n > 1) {
          blockRows = Math.max(1, Math.floor(n / 2));
          continue;
        }
        wrap(e, `reading ${areaA1({ ...area, row: area.row + r0, rows: n })}`);
      }
      if (!Array.isArray(values) || values.length !== n) {
        throw new HostError(
          "UnexpectedResponse",
          `Excel returned ${Array.isArray(values) ? values.length : "no"} rows for a block of ${n}`,
        );
      }
      r0 += n;
      yield values;
    }
  }

  async clear(area: Area): Promise<void> {
    validateArea(area);
    await this.run(`clearing ${areaA1(area)}`, async (ctx) => {
      ctx.workbook.worksheets.getItem(area.sheetId).getRangeByIndexes(area.row, area.col, area.rows, area.cols).clear("All");
      await ctx.sync();
    });
  }

  // ---- formatting (Range.numberFormat, format.font.bold, format.fill, freezePanes) -----------
  async style(area: Area, style: AreaStyle): Promise<void> {
    validateArea(area);
    validateStyle(style, area.cols);
    await this.run(`formatting ${areaA1(area)}`, async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem(area.sheetId);
      const range = ws.getRangeByIndexes(area.row, area.col, area.rows, area.cols);
      const formats = style.columnFormats;
      if (formats?.some((f) => f !== null)) {
        // One row of formats repeated: null leaves a column as it is.
        const row = Array.from({ length: area.cols }, (_, c) => formats[c] ?? null);
        range.numberFormat = Array.from({ length: area.rows }, () => row) as unknown as string[][];
      }
      if (style.bold !== undefined) range.format.font.bold = style.bold;
      if (style.fill === null) range.format.fill.clear();
      else if (style.fill !== undefined) range.format.fill.color = style.fill;
      await ctx.sync();
      // issue 22 (4): autofitColumns() would fit whole columns; fit the area's own text (autofit.ts).
      if (style.autofit) await fitColumnsToCells(ctx, ws, area);
    });
  }

  async readStyle(area: Area): Promise<AreaStyleRead> {
    validateArea(area);
    return this.run(`reading the formats of ${areaA1(area)}`, async (ctx) => {
      const range = ctx.workbook.worksheets.getItem(area.sheetId).getRangeByIndexes(area.row, area.col, area.rows, area.cols);
      range.load("numberFormat");
      const font = range.format.font.load("bold");
      const fill = range.format.fill.load("color");
      await ctx.sync();
      return { numberFormats: range.numberFormat as string[][], bold: font.bold, fill: fill.color ? fill.color.toUpperCase() : null };
    });
  }

  async freezeRows(sheetId: string, rows: number): Promise<void> {
    if (!Number.isInteger(rows) || rows < 0) throw new PortInputError(`cannot freeze ${rows} rows`);
    await this.run(rows ? `freezing ${rows} rows` : "unfreezing rows", async (ctx) => {
      ctx.workbook.worksheets.getItem(sheetId).freezePanes.freezeRows(rows);
      await ctx.sync();
    });
  }

  async frozenRows(sheetId: string): Promise<number> {
    return this.run("reading the frozen rows", async (ctx) => {
      const at = ctx.workbook.worksheets.getItem(sheetId).freezePanes.getLocationOrNullObject();
      at.load("rowIndex,rowCount");
      await ctx.sync();
      // Frozen rows start at the top: their count is where the frozen range ends.
      return at.isNullObject || at.rowIndex !== 0 ? 0 : at.rowCount;
    });
  }

  /** issue 22 (8): merged cells, tables and sheet protection in an area (obstacles.ts), in one sync. */
  async obstacles(area: Area): Promise<Obstacle[]> {
    validateArea(area);
    return this.run(`checking ${areaA1(area)} for merged cells, tables and protection`, async (ctx) => {
      const ws = ctx.workbook.worksheets.getItem(area.sheetId);
      const found = queueObstacles(ws, ws.getRangeByIndexes(area.row, area.col, area.rows, area.cols), (v) => this.supports(v));
      await ctx.sync();
      return found();
    });
  }

  /** issue 22 (10): 1900 or 1904, from DATE(1904,1,2) evaluated by Excel (date-system.ts). */
  async dateSystem(): Promise<1900 | 1904> {
    return this.run("reading the workbook's date system", async (ctx) => {
      const system = queueDateSystem(ctx);
      await ctx.sync();
      return system();
    });
  }

  // ---- tracking ----------------------------------------------------------------------------
  async track(name: string, area: Area): Promise<void> {
    validateTrackName(name);
    validateArea(area);
    await this.run(`tracking the placement at ${areaA1(area)}`, async (ctx) => {
      const existing = ctx.workbook.names.getItemOrNullObject(TRACK_PREFIX + name);
      existing.load("name");
      const ws = ctx.workbook.worksheets.getItem(area.sheetId).load("name");
      await ctx.sync();
      const range = ws.getRangeByIndexes(area.row, area.col, area.rows, area.cols);
      // issue 22 (3): re-point the name in one command, never delete-then-add (a failing sync keeps a prefix).
      queueTrackName(ctx, existing.isNullObject ? null : existing, TRACK_PREFIX + name, range, ws.name, area);
      await ctx.sync();
    });
  }

  async untrack(name: string): Promise<void> {
    validateTrackName(name);
    await this.run("untracking a placement", async (ctx) => {
      const item = ctx.workbook.names.getItemOrNullObject(TRACK_PREFIX + name);
      item.load("name");
      await ctx.sync();
      if (!item.isNullObject) {
        item.delete();
        await ctx.sync();
      }
    });
  }

  async tracked(): Promise<TrackedArea[]> {
    return this.run("listing tracked placements", async (ctx) => {
      const names = ctx.workbook.names;
      names.load("items/name,items/type");
      const sheets = ctx.workbook.worksheets;
      sheets.load("items/id,items/name");
      await ctx.sync();
      const mine = names.items.filter((n) => n.name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase()));
      const ranges = mine.map((n) => {
        if (n.type === "Error") return null;
        const r = n.getRangeOrNullObject();
        r.load("address,rowIndex,columnIndex,rowCount,columnCount");
        return r;
      });
      await ctx.sync();
      return mine.map((n, i): TrackedArea => {
        const name = n.name.slice(TRACK_PREFIX.length);
        const r = ranges[i];
        if (!r || r.isNullObject) return { name, sheet: null, area: null };
        const sheetName = parseAddress(r.address).sheet;
        const s = sheets.items.find((x) => x.name === sheetName);
        if (!s) return { name, sheet: null, area: null };
        return {
          name,
          sheet: { id: s.id, name: s.name },
          area: { sheetId: s.id, row: r.rowIndex, col: r.columnIndex, rows: r.rowCount, cols: r.columnCount },
        };
      });
    });
  }

  // ---- per-workbook data -------------------------------------------------------------------
  private async dataParts(ctx: Excel.RequestContext): Promise<Array<{ part: Excel.CustomXmlPart; key: string; json: string }>> {
    const parts = ctx.workbook.customXmlParts.getByNamespace(DATA_NS);
    parts.load("items/id");
    await ctx.sync();
    const xmls = parts.items.map((p) => ({ part: p, xml: p.getXml() }));
    await ctx.sync();
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
        await ctx.sync();
        const found = sheets.items.map((ws) => ({
          ws,
          s: ws.shapes.getItemOrNullObject(name).load("id"),
          pending: ws.shapes.getItemOrNullObject(name + PICTURE_PENDING_SUFFIX).load("id"),
        }));
        await ctx.sync();
        sheetId = found.find((f) => !f.s.isNullObject || !f.pending.isNullObject)?.ws.id;
        if (!sheetId) throw new PortInputError(`no picture named ${name} to replace`);
      }
      const ws = ctx.workbook.worksheets.getItem(sheetId);
      const old = ws.shapes.getItemOrNullObject(name).load("left,top");
      const stray = ws.shapes.getItemOrNullObject(name + PICTURE_PENDING_SUFFIX).load("left,top");
      const cell = at ? ws.getRangeByIndexes(at.row, at.col, 1, 1).load("left,top") : null;
      await ctx.sync();
      const where = !old.isNullObject ? old : !stray.isNullObject ? stray : null; // a replacement left half-done counts
      const left = cell ? cell.left : where ? where.left : 0;
      const top = cell ? cell.top : where ? where.top : 0;
      // issue 22 (3): add the new picture, then delete the old one, then rename, in one sync: a failure
      // at any command leaves a picture findable by this name (a sync is not atomic; replace.ts).
      queueReplacePicture(ws, name, base64, { left, top }, old.isNullObject ? null : old, stray.isNullObject ? null : stray);
      await ctx.sync();
      return { sheetId, name };
    });
  }

  async pictures(sheetId: string): Promise<Array<{ name: string; width: number; height: number }>> {
    if (!this.supports("1.9")) return [];
    return this.run("listing pictures", async (ctx) => {
      const shapes = ctx.workbook.worksheets.getItem(sheetId).shapes.load("items/name,items/type,items/width,items/height");
      await ctx.sync();
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
        throw new HostError("CorruptData", `Workbook data ${key} is not valid JSON; it may have been edited outside Cellbound.`);
      }
    });
  }

  async setData(key: string, value: unknown, options: SetDataOptions = {}): Promise<void> {
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
      await ctx.sync();
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
      await ctx.sync();
    } catch (e) {
      wrap(e, "listening for changes");
    }
    let removed = false;
    return async () => {
      if (removed) return;
      removed = true;
      for (const h of handlers) h.remove();
      await ctx.sync().catch((e: unknown) => wrap(e, "removing change listeners"));
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
