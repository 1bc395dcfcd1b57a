// An .xlsx/.xlsm package as the port sees it, and back.
//
//   openBook(file)          → Book: the package (zip), its sheets, styles, shared strings, Cellbound's
//                              tracking names and custom XML parts. Nothing is changed.
//   book.load(model)        → fills a MemoryWorkbook (values, number formats, bold, fill, frozen rows,
//                              tracked areas, per-workbook data, identity).
//   book.render(model)      → the new package bytes, or null when the model shows exactly what the file
//                              holds (a refresh that changes nothing does not rewrite the file). Every
//                              part it does not edit is copied through compressed, byte for byte.
//   saveFile(file, bytes)   → atomic: a temporary file beside it, fsync, rename over, fsync the folder.
//
// The mapping (which part holds what) is documented in docs/XLSX.md.
import { randomUUID } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import path from "node:path";
import { areaA1, cellA1, parseAddress, quoteSheetName } from "../a1.ts";
import type { Area, Obstacle } from "../port.ts";
import { DATA_NS, WORKBOOK_NS, dataXml, identityXml, storedIdentitySchema, type StoredIdentity } from "../excel/storage.ts";
import { TRACK_PREFIX } from "../excel/index.ts";
import type { MemoryWorkbook } from "../memory/index.ts";
import type { MemTable } from "../memory/tables.ts";
import { XlsxError } from "./errors.ts";
import { notesExtra, readNotes, type CellNote, type PartNotes } from "./notes.ts";
import { NO_FACTS, obstaclesIn, sheetFacts, type SheetFacts } from "./obstacles.ts";
import { writePictures, type PartEdits } from "./pictures.ts";
import { deflatePlan, planPieces, planSheet, rewriteGrouped, type SheetEdit, type SheetPlan } from "./rewrite.ts";
import { PieceScanner, rowsIn, scanCells, sheetDataIn } from "./scan.ts";
import { frozenRowsOf } from "./sheet.ts";
import { SheetStore, StoreBuilder, type Base, type Segments, type StoreContext } from "./store.ts";
import { MINIMAL_STYLES, Styles } from "./styles.ts";
import {
  TABLE_CT,
  TABLE_REL,
  bodyRows,
  fileTableOf,
  peekValue,
  readTablePart,
  stateKey,
  tablePartIds,
  tablePartXml,
  tableRead,
  toFileFormula,
  withTableParts,
  type FileTable,
} from "./tables.ts";
import {
  child,
  children,
  findElement,
  fromExcelText,
  mainPrefix,
  nextTag,
  parseTree,
  removeAttr,
  setAttr,
  tagAttrs,
  withPrefix,
  xmlEscape,
  xmlUnescape,
  type El,
} from "./xml.ts";
import { ZipReader, writeZip, type Deflated, type ZipOut } from "./zip.ts";

const NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const REL_TYPE = {
  officeDocument: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument",
  worksheet: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet",
  styles: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles",
  sharedStrings: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings",
  customXml: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXml",
  customXmlProps: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/customXmlProps",
  calcChain: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/calcChain",
};
const CT = {
  worksheet: "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml",
  styles: "application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml",
  customXmlProps: "application/vnd.openxmlformats-officedocument.customXmlProperties+xml",
};

interface SheetInfo {
  /** The port's sheet id: "xlsx-" + the workbook's sheetId attribute (stable across renames). */
  id: string;
  /** The sheetId attribute. */
  no: number;
  name: string;
  rid: string;
  part: string;
}
interface OurPart {
  item: string;
  kind: "workbook" | "data";
  key: string | null;
  /** The stored JSON of a data part. */
  json: string;
  identity: StoredIdentity | null;
}

/** What a render has changed so far. */
interface RenderState {
  /** Parts replaced by new bytes (deflated when the package is written). */
  replaced: Map<string, Buffer>;
  /** Parts replaced by bytes already deflated (large sheet parts). */
  deflated: Map<string, Deflated>;
  added: Array<{ name: string; data: Buffer }>;
  removed: Set<string>;
  wbXml: string;
  rels: string;
  types: string;
  styles: Styles;
  cellsWritten: number;
  formulaReplaced: boolean;
  /** The id the next table the port adds gets (unique in the package). */
  nextTableId: number;
}

/** What a sheet's tables need of its part's save (renderTables). */
interface TablesOut {
  formulas: (row: number) => ReadonlyMap<number, string> | undefined;
  formulaRows: number[];
  /** The part's text after </sheetData> with its new <tableParts> (given the text before and after it), null when it stays. */
  suffix: ((prefix: string, suffix: string) => string) | null;
}

export interface RenderResult {
  bytes: Buffer;
  cellsWritten: number;
  /** Sheets the port added: sheetId attribute → the model's id (pass to the next openBook). */
  addedSheets: Map<number, string>;
  /** Parts replaced, added, or removed ("-name"). */
  partsChanged: string[];
}

export const sheetIdOf = (n: number) => `xlsx-${n}`;

export class Book {
  readonly sheets: SheetInfo[] = [];
  /** Every sheetId attribute of <sheets>, chart sheets' too (a new sheet takes a free one). */
  readonly sheetNos: number[] = [];
  readonly date1904: boolean;
  /** Per sheet id: the frozen rows the part shows (filled by load, else read when needed). */
  private readonly frozen = new Map<string, number>();
  /** Per sheet id: what refuses a write there (filled by load). */
  private readonly facts = new Map<string, SheetFacts>();
  readonly tracked = new Map<string, string>(); // lower-case name without the prefix → the definedName's text, for change detection
  /** The person's workbook-scoped defined names and their text (issue 32: an input bound to a name); read only. */
  readonly definedNames: Array<{ name: string; text: string }> = [];
  private readonly wbPart: string;
  private readonly wbXml: string;
  private readonly wbRels: string;
  private readonly wbRelsPart: string;
  private readonly stylesPart: string | null;
  private readonly sst: string[] = [];
  /** The shared strings part's CRC-32 (null: none): a note on cells holds only while it is the same (notes.ts). */
  private sstCrc: number | null = null;
  private readonly ours: OurPart[] = [];
  /**
   * Sheet ids another host gave the file's sheets, by sheetId attribute (the harness's dev/excel ids),
   * kept in the workbook's identity part so the records written with them stay true in the next run.
   */
  private readonly storedSheetIds = new Map<number, string>();
  /** Parts in Cellbound's namespaces that cannot be read. */
  private readonly unreadable: Array<{ item: string; why: string }> = [];

  constructor(
    readonly file: string,
    readonly zip: ZipReader,
    /** Port ids of sheets by their sheetId attribute, for sheets the port added (their model id stays). */
    private readonly aliases: ReadonlyMap<number, string> = new Map(),
  ) {
    const rels = relsOf(this.zipText("_rels/.rels"), "_rels/.rels", "");
    const main = rels.find((r) => r.type === REL_TYPE.officeDocument || r.type.endsWith("/officeDocument"));
    if (!main || !zip.has(main.target))
      throw new XlsxError(file, "notWorkbook", "it is a zip file but not a workbook (no workbook part); is it a Word or PowerPoint file?");
    this.wbPart = main.target;
    this.wbXml = this.zipText(this.wbPart);
    this.wbRelsPart = relsPartOf(this.wbPart);
    this.wbRels = zip.has(this.wbRelsPart) ? this.zipText(this.wbRelsPart) : emptyRels();
    const wbRels = relsOf(this.wbRels, this.wbRelsPart, dirOf(this.wbPart));
    const wb = this.tree(this.wbXml, this.wbPart);
    if (wb.name !== "workbook") throw new XlsxError(file, "notWorkbook", `its main part is <${wb.name}>, not a spreadsheet workbook`);
    this.findOurParts([...rels, ...wbRels]);
    const pr = child(wb, "workbookPr");
    this.date1904 = pr?.attrs.date1904 === "1" || pr?.attrs.date1904 === "true";
    const sheetsEl = child(wb, "sheets");
    for (const s of sheetsEl ? children(sheetsEl, "sheet") : []) {
      this.sheetNos.push(Number(s.attrs.sheetId) || 0);
      const rid = s.attrs[`r:id`] ?? s.attrs.id ?? "";
      const rel = wbRels.find((r) => r.id === rid);
      if (!rel || rel.type !== REL_TYPE.worksheet) continue; // chart sheets, dialog sheets: not cells
      if (!zip.has(rel.target)) throw new XlsxError(file, "corrupt", `sheet ${s.attrs.name} points to a missing part ${rel.target}`);
      const no = Number(s.attrs.sheetId);
      const id = this.storedSheetIds.get(no) ?? this.aliases.get(no) ?? sheetIdOf(no);
      this.sheets.push({ id, no, name: s.attrs.name ?? "", rid, part: rel.target });
    }
    const styles = wbRels.find((r) => r.type === REL_TYPE.styles);
    this.stylesPart = styles && zip.has(styles.target) ? styles.target : null;
    const sst = wbRels.find((r) => r.type === REL_TYPE.sharedStrings);
    if (sst && zip.has(sst.target)) {
      this.sst = sharedStrings(this.zipText(sst.target));
      this.sstCrc = zip.entry(sst.target)!.crc >>> 0;
    }
    const names = child(wb, "definedNames");
    for (const n of names ? children(names, "definedName") : []) {
      const name = n.attrs.name ?? "";
      if (n.attrs.localSheetId !== undefined) continue; // a sheet's own name: not workbook-scoped
      if (name.toLowerCase().startsWith(TRACK_PREFIX.toLowerCase()))
        this.tracked.set(name.slice(TRACK_PREFIX.length).toLowerCase(), `${name.slice(TRACK_PREFIX.length)}\u0000${n.text.trim()}`);
      else if (name && !name.toLowerCase().startsWith("_xlnm.")) this.definedNames.push({ name, text: n.text.trim() });
    }
  }

  /**
   * Cellbound's custom XML parts wherever a conforming package has them (issue 35 §2): linked from the
   * workbook's relationships (Excel, the port), from the package's own `_rels/.rels` (LibreOffice), or
   * any other part under customXml/ — each known by its root element's namespace. A part in our
   * namespace that cannot be read is kept in `unreadable` (integrity() reports it); others' parts are
   * not ours to judge.
   */
  private findOurParts(links: readonly Rel[]): void {
    const candidates = new Set(links.filter((r) => r.type === REL_TYPE.customXml && !r.external).map((r) => r.target));
    for (const e of this.zip.entries) if (/^customXml\/(?!itemProps)[^/]+\.xml$/i.test(e.name)) candidates.add(e.name);
    for (const item of candidates) {
      if (!this.zip.has(item)) continue;
      const text = decodeXml(this.zip.read(item));
      if (!text.includes("urn:cellbound:")) continue; // someone else's part (another add-in, Power Query…)
      let root: El;
      try {
        root = parseTree(text, item);
      } catch (e) {
        this.unreadable.push({ item, why: (e as Error).message });
        continue;
      }
      if (root.ns === WORKBOOK_NS) {
        const id = storedIdentitySchema.safeParse({
          workbookId: child(root, "workbookId")?.text,
          documentUrl: child(root, "documentUrl")?.text || null,
        });
        if (!id.success) {
          this.unreadable.push({ item, why: "its workbook id is missing or malformed" });
          continue;
        }
        this.ours.push({ item, kind: "workbook", key: null, json: "", identity: id.data });
        for (const sheet of children(child(root, "sheetIds") ?? root, "sheet")) {
          const [no, sheetId] = [Number(sheet.attrs.sheetId), sheet.attrs.id ?? ""];
          if (Number.isInteger(no) && no > 0 && sheetId && sheetId.length <= 200) this.storedSheetIds.set(no, sheetId);
        }
      } else if (root.ns === DATA_NS) {
        const key = root.attrs.key;
        if (key === undefined || !isJson(root.text)) this.unreadable.push({ item, why: "its data is not JSON with a key" });
        else this.ours.push({ item, kind: "data", key, json: root.text, identity: null });
      }
    }
  }

  /**
   * Whether Cellbound's names, data and workbook id in this file agree (issue 35 §2): null when they
   * do (or when the file has none of them), else what is missing or unreadable, in words. A program
   * that drops some of them must not make a workbook read as "no placements".
   */
  integrity(): string | null {
    const fix = "The file was not changed; use a copy saved by Excel or by cellbound, or place the reports again.";
    const bad = this.unreadable[0];
    if (bad) return `Cellbound's data in this workbook cannot be read (${bad.item}: ${bad.why}). ${fix}`;
    const records = this.ours.flatMap((p) => (p.kind === "data" ? (placementRecords(p.json) ?? []) : []));
    const names = this.tracked.size;
    const plural = (n: number) => `${n} placement${n === 1 ? "" : "s"}`;
    if (names > 0 && !this.ours.some((p) => p.kind === "data"))
      return `it has Cellbound's hidden names for ${plural(names)} but not the placements' data (Cellbound's custom XML parts): the program that last saved it dropped them. ${fix}`;
    if (records.length > 0 && !this.storedIdentity())
      return `it has Cellbound's placements but not the workbook's Cellbound id (a custom XML part): the program that last saved it dropped it. ${fix}`;
    if (records.some((r) => r.recorded) && !records.some((r) => this.tracked.has(r.name.toLowerCase())))
      return `its Cellbound data lists ${plural(records.length)}, but their hidden names (which say where each placement is) are gone: the program that last saved it dropped them. ${fix}`;
    return null;
  }

  private zipText(name: string): string {
    if (!this.zip.has(name)) throw new XlsxError(this.file, "notWorkbook", `it has no ${name}; it is not an Office package`);
    return this.zip.text(name);
  }
  private tree(xml: string, part: string): El {
    try {
      return parseTree(xml, part);
    } catch (e) {
      throw new XlsxError(this.file, "corrupt", (e as Error).message);
    }
  }
  private styles(): Styles {
    return new Styles(this.stylesPart ? this.zipText(this.stylesPart) : MINIMAL_STYLES);
  }

  /**
   * Fill an empty MemoryWorkbook with what the file holds. A sheet part is scanned now (a damaged one fails
   * the open), except one that carries notes on its cells (notes.ts, written by this port with the bytes it
   * holds): that one is scanned when its cells are first looked at, so a refresh that finds its placement as
   * its last save left it (XlsxPort.cellsNote) reads no sheet part at all (issue 35 §3).
   */
  load(wb: MemoryWorkbook): void {
    wb.sheets.length = 0;
    const styles = this.styles();
    const ctx = { sst: this.sst, style: (st: number) => styles.style(st), date1904: this.date1904 };
    for (const s of this.sheets) {
      const frozen = this.fileFrozen(s);
      const tables = this.fileTables(s).flatMap((t) => readTablePart(t.xml, t.part, t.rid)?.table ?? []);
      wb.sheets.push({
        id: s.id,
        name: s.name,
        cells: new SheetStore(
          this.notedCells(s.id).length ? (this.segmentsOf(s, ctx) ?? (() => this.scanCells(s, ctx))) : this.scanCells(s, ctx),
          ctx,
        ),
        ...(frozen ? { frozenRows: frozen } : {}),
        ...(tables.length ? { tables } : {}),
      });
    }
    wb.tracks.clear();
    for (const [lower, text] of this.tracked) {
      const [name, ref] = text.split("\u0000") as [string, string];
      wb.tracks.set(lower, { name, ...this.resolve(ref) });
    }
    wb.names.clear();
    for (const { name, text } of this.definedNames) wb.names.set(name.toLowerCase(), { name, ...this.singleArea(text) });
    wb.data.clear();
    for (const p of this.ours) if (p.kind === "data") wb.data.set(p.key!, p.json);
    const id = this.storedIdentity();
    wb.workbookId = id?.workbookId ?? null;
    wb.recordedUrl = id?.documentUrl ?? null;
    // The file port reports the recorded URL as the current one: a scheduled job's path is not a copy.
    wb.url = wb.recordedUrl;
  }

  /**
   * A sheet part's cells, scanned as bytes into a store's arrays while it inflates, a piece at a time: it is
   * never held whole (issue 35 §3). Its merged cells, protection and spills (`facts`) are read on the way.
   */
  private scanCells(s: SheetInfo, ctx: StoreContext): Base {
    let builder: StoreBuilder | null = null;
    const scanner = new PieceScanner((prefix) => (builder = new StoreBuilder(ctx, cellsHint(prefix))));
    for (const piece of this.zip.pieces(s.part)) scanner.push(piece);
    const { prefix, suffix, cells } = scanner.end();
    if (!cells || !builder) builder = new StoreBuilder(ctx, cellsHint(prefix));
    const built: StoreBuilder = builder;
    const spills = built.spills.map((x) => ({ anchor: cellA1(x.row, x.col), ref: parseRect(x.ref) }));
    if (!this.facts.has(s.id)) this.facts.set(s.id, this.factsOf(s, suffix, spills));
    return built.base();
  }

  /** Per sheet id: its table parts (issue 33), found through its relationships. */
  private readonly tablesOf = new Map<string, Array<{ rid: string; part: string; xml: string }>>();

  /** A sheet part's relationships (its rels part's text, null when it has none). */
  private sheetRels(part: string): { text: string | null; rels: Rel[] } {
    const relsPart = relsPartOf(part);
    if (!this.zip.has(relsPart)) return { text: null, rels: [] };
    const text = this.zipText(relsPart);
    try {
      return { text, rels: relsOf(text, relsPart, dirOf(part)) };
    } catch {
      return { text, rels: [] }; // unreadable relationships: no tables read from them
    }
  }

  /** The table parts a sheet links to (a part that is missing is skipped). */
  private fileTables(s: SheetInfo): Array<{ rid: string; part: string; xml: string }> {
    let out = this.tablesOf.get(s.id);
    if (!out) {
      out = this.sheetRels(s.part)
        .rels.filter((x) => x.type === TABLE_REL && !x.external && this.zip.has(x.target))
        .map((x) => ({ rid: x.id, part: x.target, xml: this.zipText(x.target) }));
      this.tablesOf.set(s.id, out);
    }
    return out;
  }

  /** The largest table id in the package (table ids are unique across it). */
  private maxTableId(): number {
    let max = 0;
    for (const e of this.zip.entries) {
      if (!/^xl\/tables\/[^/]+\.xml$/i.test(e.name)) continue;
      const id = /<(?:\w+:)?table\b[^>]*?\sid="(\d+)"/.exec(this.zip.text(e.name))?.[1];
      max = Math.max(max, Number(id ?? 0));
    }
    return max;
  }

  /**
   * After a save (this Book is the saved package): the model's tables take the parts the package now
   * holds as what they were read from, so the next save sees them as unchanged.
   */
  adoptTables(wb: MemoryWorkbook): void {
    for (const s of this.sheets) {
      const ms = wb.sheets.find((x) => x.id === s.id);
      for (const f of this.fileTables(s)) {
        const read = readTablePart(f.xml, f.part, f.rid);
        const t = read && ms?.tables?.find((x) => x.name.toLowerCase() === read.table.name.toLowerCase());
        if (t && read) t.extra = read.table.extra;
      }
    }
  }

  /**
   * A sheet's tables into the package (issue 33): a table the model changed or added gets its part (and,
   * when new, its relationship and content type), a table the model no longer has loses them; the parts
   * of untouched tables stay as they are. Returns the calculated columns' cells and the <tableParts> edit
   * for the sheet part's save; null when the sheet has no tables on either side.
   */
  private renderTables(wb: MemoryWorkbook, sheetId: string, info: SheetInfo | undefined, part: string, r: RenderState): TablesOut | null {
    const ms = wb.sheets.find((x) => x.id === sheetId)!;
    const mine = ms.tables ?? [];
    const file = info ? this.fileTables(info) : [];
    if (!mine.length && !file.length) return null;
    const ts = wb.tableSheet(sheetId);
    const relsPart = relsPartOf(part);
    const relsWas = this.zip.has(relsPart) ? this.zipText(relsPart) : null;
    let rels = relsWas ?? emptyRels();
    const kept = new Set<string>();
    const added: string[] = [];
    const formulaRows = new Set<number>();
    /** Cells that held a calculated column's formula in the file and no longer do: row → columns. */
    const stale = new Map<number, Set<number>>();
    for (const t of mine) {
      const ft = fileTableOf(t);
      const own = ft && file.some((f) => f.rid === ft.rid && f.part === ft.part) ? ft : null;
      const columns = tableRead(sheetId, ms.cells, t).columns;
      const ids = own ? this.columnIds(own, t, columns) : [];
      const changed = !own || stateKey(t, columns, ids) !== own.base;
      if (own) kept.add(own.rid);
      if (!changed) continue;
      // The header cells hold the columns' names as text (Excel's rule for a table's header row).
      columns.forEach((name, c) => peekValue(ms.cells, t.row, t.col + c) !== name && ts.setValue(t.row, t.col + c, name));
      const xml = tablePartXml(t, columns, own && { ...own, ids }, own ? own.id : r.nextTableId++);
      if (own) {
        if (xml !== own.xml) r.replaced.set(own.part, Buffer.from(xml, "utf8"));
      } else {
        const name = freePart(this.zip, r.added, "xl/tables/table", ".xml");
        const rid = freeRid(rels);
        r.added.push({ name, data: Buffer.from(xml, "utf8") });
        rels = addRel(rels, rid, TABLE_REL, relTarget(dirOf(part), name));
        r.types = addOverride(r.types, name, TABLE_CT);
        added.push(rid);
      }
      if (t.formulas.some((f) => f !== null)) {
        const { first, count } = bodyRows(t);
        for (let row = first; row < first + count; row++) formulaRows.add(row);
      }
      if (own)
        for (const [row, cols] of calculatedCells(JSON.parse(own.base) as BaseState)) {
          formulaRows.add(row);
          for (const c of cols) (stale.get(row) ?? stale.set(row, new Set()).get(row)!).add(c);
        }
    }
    for (const f of file) {
      if (kept.has(f.rid)) continue;
      r.removed.add(f.part);
      rels = removeRel(rels, f.rid);
      r.types = removeOverride(r.types, f.part);
    }
    if (rels !== (relsWas ?? emptyRels())) {
      if (relsWas === null) r.added.push({ name: relsPart, data: Buffer.from(rels, "utf8") });
      else r.replaced.set(relsPart, Buffer.from(rels, "utf8"));
    }
    const listChanged = added.length > 0 || kept.size < file.length;
    return {
      formulas: (row) => {
        const now = formulasAt(ms.tables ?? [], row);
        const was = stale.get(row);
        if (!was) return now;
        const out = new Map([...was].map((c) => [c, ""]));
        for (const [c, f] of now ?? []) out.set(c, f);
        return out;
      },
      formulaRows: [...formulaRows].sort((a, b) => a - b),
      suffix: listChanged
        ? (prefix, suffix) =>
            withTableParts(suffix, [...tablePartIds(suffix).filter((x) => kept.has(x)), ...added], relAttr(prefix), mainPrefix(prefix))
        : null,
    };
  }

  /** The ids of a table's current columns: as the port kept them, else matched by name with the part's. */
  private columnIds(own: FileTable, t: { cols: number }, columns: readonly string[]): Array<number | null> {
    if (own.ids.length === t.cols) return own.ids;
    const was = JSON.parse(own.base) as unknown[];
    const names = (was[10] as string[]) ?? [];
    const ids = (was[11] as Array<number | null>) ?? [];
    return columns.map((n) => ids[names.findIndex((x) => x.toLowerCase() === n.toLowerCase())] ?? null);
  }

  /** Merged cells, tables, protection, filter and spills of a sheet part (obstacles.ts). */
  private factsOf(s: SheetInfo, suffix: string, spills: SheetFacts["spills"]): SheetFacts {
    const relsPart = relsPartOf(s.part);
    let rels: Rel[] | null = null;
    const tableXml = (rid: string): string | null => {
      try {
        rels ??= this.zip.has(relsPart) ? relsOf(this.zipText(relsPart), relsPart, dirOf(s.part)) : [];
        const r = rels.find((x) => x.id === rid);
        return r && this.zip.has(r.target) ? this.zipText(r.target) : null;
      } catch {
        return null; // a broken table part is not ours to judge; the write is not refused for it
      }
    };
    return sheetFacts(
      suffix,
      tableXml,
      spills.filter((x) => x.ref.rows > 0),
    );
  }

  /**
   * The model's pictures (set by the harness's Save as .xlsx; the command line never has any) into
   * their sheets' drawings (pictures.ts), through the render's edits; returns the content types.
   */
  private renderPictures(
    wb: MemoryWorkbook,
    partOf: ReadonlyMap<string, string>,
    out: Pick<RenderState, "replaced" | "added" | "removed">,
    types: string,
  ): string {
    const { replaced, added, removed } = out;
    const edits: PartEdits = {
      has: (n) => replaced.has(n) || added.some((a) => a.name === n) || (this.zip.has(n) && !removed.has(n)),
      bytes: (n) => replaced.get(n) ?? added.find((a) => a.name === n)?.data ?? this.zip.read(n),
      text: (n) => edits.bytes(n).toString("utf8"),
      put: (n, data) => {
        const a = added.find((x) => x.name === n);
        if (a) a.data = data;
        else if (this.zip.has(n)) replaced.set(n, data);
        else added.push({ name: n, data });
      },
      free: (prefix, ext) => freePart(this.zip, added, prefix, ext),
      types,
    };
    for (const [sheetId, pictures] of wb.pictures) {
      const part = partOf.get(sheetId);
      if (part && !removed.has(part) && pictures.length) writePictures(edits, part, pictures);
    }
    return edits.types;
  }

  /** A sheet of the file now goes by another id (XlsxPort.adoptSheetId). */
  renameSheetId(from: string, to: string): void {
    const s = this.sheets.find((x) => x.id === from);
    if (!s) return;
    s.id = to;
    const facts = this.facts.get(from);
    if (facts) this.facts.set(to, facts);
  }

  /** The notes on a sheet's cells that the file holds for its part as it is (notes.ts); none for another part. */
  notedCells(sheetId: string): readonly CellNote[] {
    const s = this.sheets.find((x) => x.id === sheetId);
    return s ? this.partNotes(s.part).notes : [];
  }
  /** What a part's central record says of it while it is as written (notes.ts), read once. */
  private partNotes(part: string): PartNotes {
    const e = this.zip.entry(part);
    if (!e) return { notes: [], spills: null };
    let notes = this.notes.get(part); // by part: a sheet's id may change (renameSheetId), its part does not
    if (!notes) {
      notes = readNotes(e.extra, { crc: e.crc >>> 0, size: e.size, sst: this.sstCrc, date1904: this.date1904 });
      this.notes.set(part, notes);
    }
    return notes;
  }
  private readonly notes = new Map<string, PartNotes>();

  /**
   * A noted sheet part read a group at a time (issue 35 §3), when it can be: deflated by this port in groups
   * that start with a row (its first group the part's beginning alone), and its note says its spills, so no
   * group need be scanned for them. null: it is read whole when first looked at.
   */
  private segmentsOf(s: SheetInfo, ctx: StoreContext): Segments | null {
    const e = this.zip.entry(s.part);
    const groups = e?.groups;
    const said = this.partNotes(s.part);
    if (!e || !groups || groups.length < 2 || !said.notes.length || !said.spills || groups[0]!.row !== -1) return null;
    const starts = groups.slice(1).map((g) => g.row);
    if (starts.some((r, k) => r < 0 || (k > 0 && r <= starts[k - 1]!))) return null;
    const prefix = this.zip.group(s.part, 0).toString("utf8");
    if (!/<(?:\w+:)?sheetData\b[^>]*>\s*$/.test(prefix)) return null;
    const p = mainPrefix(prefix);
    return {
      starts,
      read: (k) => {
        const buf = this.zip.group(s.part, k + 1);
        const close = k + 2 === groups.length ? buf.indexOf(`</${p}sheetData>`) : buf.length;
        if (close < 0) throw new XlsxError(this.zip.file, "corrupt", `part ${s.part} has no </sheetData>`);
        const builder = new StoreBuilder(ctx, groups[k + 1]!.size >> 5);
        const span = { p, start: 0, inner: 0, innerEnd: close, end: close };
        for (const row of rowsIn(buf, span, 0, starts[k]! - 1)) scanCells(buf, row, builder, p);
        const b = builder.base();
        // Its rows are the group's (the groups say where each starts): anything else is not the part as written.
        if (b.m > 0 && (b.rowNos[0]! < starts[k]! || (k + 1 < starts.length && b.rowNos[b.m - 1]! >= starts[k + 1]!)))
          throw new XlsxError(this.zip.file, "corrupt", `part ${s.part} holds rows out of their groups`);
        return b;
      },
    };
  }

  /** A segmented part's facts: its spills as its note says, the rest from its last group (after </sheetData>). */
  private segmentedFacts(s: SheetInfo): SheetFacts | null {
    const spills = this.partNotes(s.part).spills;
    const groups = this.zip.entry(s.part)?.groups;
    if (!spills || !groups || groups.length < 2) return null;
    const buf = this.zip.group(s.part, groups.length - 1);
    const close = /<\/(?:\w+:)?sheetData>/.exec(buf.toString("latin1"));
    return close ? this.factsOf(s, buf.toString("utf8", close.index + close[0].length), spills) : null;
  }

  /**
   * The spills of a sheet part as this save writes it, when known (notes.ts): a new part holds none (the port
   * writes values, never a dynamic-array formula); a part read from the file, those its scan or its note found
   * (a formula written over since is still listed: a refusal to write there errs on the safe side). null: unknown.
   */
  private spillsWritten(part: string, sheetId: string): SheetFacts["spills"] | null {
    if (!this.zip.has(part)) return [];
    return this.facts.get(sheetId)?.spills ?? this.partNotes(part).spills;
  }

  /** What would refuse or break a write to `area` (issue 36, item 12); none on a sheet the file does not have yet. */
  obstacles(area: Area): Obstacle[] {
    let facts = this.facts.get(area.sheetId);
    const s = this.sheets.find((x) => x.id === area.sheetId);
    if (!facts && s && (facts = this.segmentedFacts(s) ?? undefined)) this.facts.set(s.id, facts);
    if (!facts && s) {
      // Not loaded from this package (the baseline after a save): scan the part for its spills.
      const buf = this.zip.read(s.part);
      const span = sheetDataIn(buf);
      const spills: SheetFacts["spills"] = [];
      const sink = {
        cell: () => {},
        spill: (row: number, col: number, ref: string) => void spills.push({ anchor: cellA1(row, col), ref: parseRect(ref) }),
      };
      if (span) for (const row of rowsIn(buf, span)) scanCells(buf, row, sink);
      this.facts.set(s.id, (facts = this.factsOf(s, span ? buf.toString("utf8", span.end) : "", spills)));
    }
    return obstaclesIn(facts ?? NO_FACTS, area);
  }

  private storedIdentity(): StoredIdentity | null {
    return this.ours.find((p) => p.identity)?.identity ?? null;
  }

  /**
   * A defined name's text when it is one area of one sheet ("Inputs!$B$1", "'My sheet'!$B$1:$B$5"); a
   * constant, a formula, several areas, another workbook's cells or #REF! cover no area (namedArea: null).
   */
  private singleArea(text: string): { sheetId: string; area: { row: number; col: number; rows: number; cols: number } | null } {
    const m = /^=?(?:'((?:[^']|'')+)'|([^'!,:\s()[\]"]+))!(\$?[A-Za-z]{1,3}\$?\d{1,7}(?::\$?[A-Za-z]{1,3}\$?\d{1,7})?)$/.exec(text);
    const sheetName = m ? (m[1]?.replace(/''/g, "'") ?? m[2]!) : null;
    const s = sheetName === null ? undefined : this.sheets.find((x) => x.name.toLowerCase() === sheetName.toLowerCase());
    if (!m || !s) return { sheetId: "", area: null };
    try {
      const a = parseAddress(m[3]!);
      return { sheetId: s.id, area: { row: a.row, col: a.col, rows: a.rows, cols: a.cols } };
    } catch {
      return { sheetId: "", area: null };
    }
  }

  private resolve(ref: string): { sheetId: string; area: { row: number; col: number; rows: number; cols: number } | null } {
    try {
      const a = parseAddress(ref.replace(/^=/, ""));
      const s = this.sheets.find((x) => x.name === a.sheet);
      if (s) return { sheetId: s.id, area: { row: a.row, col: a.col, rows: a.rows, cols: a.cols } };
    } catch {
      // #REF! and the like
    }
    return { sheetId: "", area: null };
  }

  /** The new package, or null when `wb` shows what the file holds. */
  render(wb: MemoryWorkbook, notes: (sheetId: string) => readonly CellNote[] = () => []): RenderResult | null {
    const r: RenderState = {
      replaced: new Map(),
      deflated: new Map(),
      added: [],
      removed: new Set(),
      wbXml: this.wbXml,
      rels: this.wbRels,
      types: this.zipText("[Content_Types].xml"),
      styles: this.styles(),
      cellsWritten: 0,
      formulaReplaced: false,
      nextTableId: this.maxTableId() + 1,
    };
    this.renderCells(wb, r);
    const { partOf, addedSheets, sheetIds } = this.renderSheetList(wb, r);
    r.types = this.renderPictures(wb, partOf, r, r.types);
    const namesNow = new Map<string, string>();
    for (const [lower, t] of wb.tracks) {
      const s = wb.sheets.find((x) => x.id === t.sheetId);
      const ref = s && t.area ? `${quoteSheetName(s.name)}!${absolute(areaA1(t.area))}` : "#REF!";
      namesNow.set(lower, `${t.name}\u0000${ref}`);
    }
    if (!sameMap(namesNow, this.tracked)) r.wbXml = withTrackingNames(r.wbXml, namesNow);
    this.renderData(wb, sheetIds, r);
    this.renderWorkbookParts(r);
    const { replaced, deflated, added, removed } = r;
    if (replaced.size === 0 && deflated.size === 0 && added.length === 0 && removed.size === 0) return null;
    const parts: ZipOut[] = [];
    // A sheet part written anew carries the notes on its cells that hold now (notes.ts); one copied keeps its own.
    const sheetOf = new Map([...partOf].map(([id, part]) => [part, id]));
    const extra = (part: string) => {
      const id = sheetOf.get(part);
      const held = id !== undefined ? notes(id) : [];
      if (!held.length) return {};
      const spills = this.spillsWritten(part, id!);
      return { extra: (crc: number, size: number) => notesExtra(held, { crc, size, sst: this.sstCrc, date1904: this.date1904 }, spills) };
    };
    for (const e of this.zip.entries) {
      if (removed.has(e.name)) continue;
      const data = replaced.get(e.name);
      const d = deflated.get(e.name);
      parts.push(
        d ? { name: e.name, deflated: d, ...extra(e.name) } : data ? { name: e.name, data, ...extra(e.name) } : { name: e.name, from: e },
      );
    }
    parts.push(...added.map((a) => ({ ...a, ...extra(a.name) })));
    return {
      bytes: writeZip(this.zip.bytes, parts),
      cellsWritten: r.cellsWritten,
      addedSheets,
      partsChanged: [...replaced.keys(), ...deflated.keys(), ...added.map((a) => a.name), ...[...removed].map((x) => `-${x}`)],
    };
  }

  /** The frozen rows a sheet part shows (from its beginning only: the part is not inflated whole). */
  private fileFrozen(s: SheetInfo): number {
    let n = this.frozen.get(s.id);
    if (n === undefined) this.frozen.set(s.id, (n = frozenRowsOf(this.zip.head(s.part, "sheetData"))));
    return n;
  }

  /**
   * The cells of the sheets the file has (the contract's scratch sheets may come and go): a sheet whose
   * store marks no row and whose frozen rows are as they were is not read at all; another is planned
   * (rewrite.ts) and, when it changes, deflated as its pieces come (never held whole).
   */
  private renderCells(wb: MemoryWorkbook, r: RenderState): void {
    const known = new Map(this.sheets.map((s) => [s.id, s]));
    for (const ms of wb.sheets) {
      const info = known.get(ms.id);
      if (!info) continue; // new sheets are added by renderSheetList
      const frozenRows = ms.frozenRows ?? 0;
      const tables = this.renderTables(wb, ms.id, info, info.part, r);
      const untouched = !tables || (tables.formulaRows.length === 0 && !tables.suffix);
      if (ms.cells instanceof SheetStore && ms.cells.dirty.size === 0 && frozenRows === this.fileFrozen(info) && untouched) continue;
      const edit = { sst: this.sst, styles: r.styles, date1904: this.date1904, frozenRows, ...tableEdit(tables) };
      const pictures = (wb.pictures.get(ms.id)?.length ?? 0) > 0; // pictures edit the part next: it is kept whole
      const entry = this.zip.entry(info.part);
      // A part this port deflated in groups: only the groups holding changed rows are redone (not when its <tableParts> change).
      const grouped =
        !pictures && !tables?.suffix && entry?.groups && ms.cells instanceof SheetStore
          ? rewriteGrouped(this.zip, entry, ms.cells, edit)
          : undefined;
      if (grouped === null) continue;
      if (grouped) {
        r.deflated.set(info.part, grouped.deflated);
        r.cellsWritten += grouped.cellsWritten;
        r.formulaReplaced ||= grouped.formulaReplaced || (grouped.cellsWritten > 0 && !untouched);
        continue;
      }
      const plan = withSuffix(planSheet(this.zip.read(info.part), ms.cells, edit), tables);
      if (!plan.changed) continue;
      if (pictures) r.replaced.set(info.part, Buffer.concat(planPieces(plan)));
      else r.deflated.set(info.part, deflatePlan(plan));
      r.cellsWritten += plan.cellsWritten;
      // Formula cells written (a calculated column) are not in the calculation chain: Excel rebuilds it.
      r.formulaReplaced ||= plan.formulaReplaced || (plan.cellsWritten > 0 && !untouched);
    }
  }

  /** Sheets the model removed, renamed or added; the parts of all and the ids to keep beside the workbook's id. */
  private renderSheetList(wb: MemoryWorkbook, r: RenderState) {
    const known = new Map(this.sheets.map((s) => [s.id, s]));
    const partOf = new Map(this.sheets.map((s) => [s.id, s.part]));
    const sheetsNow = new Set(wb.sheets.map((s) => s.id));
    for (const s of this.sheets) {
      if (sheetsNow.has(s.id)) continue;
      r.removed.add(s.part);
      for (const t of this.fileTables(s)) {
        r.removed.add(t.part);
        r.types = removeOverride(r.types, t.part);
      }
      r.wbXml = removeSheetEntry(r.wbXml, s.rid);
      r.rels = removeRel(r.rels, s.rid);
      r.types = removeOverride(r.types, s.part);
    }
    const taken = new Set(this.sheetNos);
    const addedSheets = new Map<number, string>();
    for (const ms of wb.sheets) {
      const info = known.get(ms.id);
      if (info) {
        if (info.name !== ms.name) r.wbXml = renameSheetEntry(r.wbXml, info.rid, ms.name);
        continue;
      }
      // A sheet the port added.
      const part = freePart(this.zip, r.added, "xl/worksheets/sheet", ".xml");
      const rid = freeRid(r.rels);
      const empty = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheetData/></worksheet>`;
      const tables = this.renderTables(wb, ms.id, undefined, part, r);
      const plan = withSuffix(
        planSheet(Buffer.from(empty, "utf8"), ms.cells, {
          sst: [],
          styles: r.styles,
          date1904: this.date1904,
          frozenRows: ms.frozenRows ?? 0,
          ...tableEdit(tables),
        }),
        tables,
      );
      r.cellsWritten += plan.cellsWritten;
      r.added.push({ name: part, data: plan.changed ? Buffer.concat([...planPieces(plan)]) : plan.buf });
      partOf.set(ms.id, part);
      r.rels = addRel(r.rels, rid, REL_TYPE.worksheet, relTarget(dirOf(this.wbPart), part));
      r.types = addOverride(r.types, part, CT.worksheet);
      // The number its id names (the port's model gives a new sheet xlsx-<next free number>), else the next free one.
      const named = Number(/^xlsx-(\d+)$/.exec(ms.id)?.[1]);
      const no = named > 0 && !taken.has(named) ? named : Math.max(0, ...taken) + 1;
      taken.add(no);
      if (ms.id !== sheetIdOf(no)) addedSheets.set(no, ms.id);
      r.wbXml = addSheetEntry(r.wbXml, ms.name, no, rid);
    }
    // Cellbound never moves sheets: added ones are appended. Ids that are not the file's own
    // (xlsx-<sheetId>) are kept beside the workbook's id.
    const sheetIds = new Map<number, string>(addedSheets);
    for (const s of this.sheets) if (sheetsNow.has(s.id) && s.id !== sheetIdOf(s.no)) sheetIds.set(s.no, s.id);
    return { partOf, addedSheets, sheetIds };
  }

  /** Cellbound's custom XML parts: data keys and the identity (with the sheet ids to keep). */
  private renderData(wb: MemoryWorkbook, sheetIds: ReadonlyMap<number, string>, r: RenderState): void {
    const dataNow = new Map(wb.data);
    const partsToWrite: Array<{ item: string | null; text: string }> = [];
    for (const p of this.ours.filter((x) => x.kind === "data")) {
      const json = dataNow.get(p.key!);
      dataNow.delete(p.key!);
      if (json === undefined) continue; // the port never deletes data; keep it
      if (json !== p.json) partsToWrite.push({ item: p.item, text: dataXml(p.key!, json) });
    }
    for (const [key, json] of dataNow) partsToWrite.push({ item: null, text: dataXml(key, json) });
    if (wb.workbookId) {
      const text = withSheetIds(identityXml({ workbookId: wb.workbookId, documentUrl: wb.recordedUrl }), sheetIds);
      const stored = this.storedIdentity();
      const same =
        stored && stored.workbookId === wb.workbookId && stored.documentUrl === wb.recordedUrl && sameIds(sheetIds, this.storedSheetIds);
      if (!same) partsToWrite.push({ item: this.ours.find((p) => p.kind === "workbook")?.item ?? null, text });
    }
    for (const w of partsToWrite) {
      const body = Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n${w.text}`, "utf8");
      if (w.item) r.replaced.set(w.item, body);
      else this.addCustomXml(body, r);
    }
  }

  /** A new custom XML part with its properties part, relationships and content type. */
  private addCustomXml(body: Buffer, r: RenderState): void {
    const item = freePart(this.zip, r.added, "customXml/item", ".xml");
    const n = item.slice("customXml/item".length, -4);
    const props = `customXml/itemProps${n}.xml`;
    r.added.push({ name: item, data: body });
    r.added.push({
      name: props,
      data: Buffer.from(
        `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<ds:datastoreItem ds:itemID="{${randomUUID().toUpperCase()}}" xmlns:ds="http://schemas.openxmlformats.org/officeDocument/2006/customXml"><ds:schemaRefs/></ds:datastoreItem>`,
        "utf8",
      ),
    });
    r.added.push({
      name: `customXml/_rels/item${n}.xml.rels`,
      data: Buffer.from(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_TYPE.customXmlProps}" Target="itemProps${n}.xml"/></Relationships>`,
        "utf8",
      ),
    });
    r.rels = addRel(r.rels, freeRid(r.rels), REL_TYPE.customXml, relTarget(dirOf(this.wbPart), item));
    r.types = addOverride(r.types, props, CT.customXmlProps);
    if (!/<Default\b[^>]*Extension="xml"/i.test(r.types)) r.types = addDefault(r.types, "xml", "application/xml");
  }

  /** Styles the cells needed, recalculation on open, the calculation chain; the workbook's own parts. */
  private renderWorkbookParts(r: RenderState): void {
    if (r.styles.changed) {
      const text = r.styles.serialize();
      if (this.stylesPart) r.replaced.set(this.stylesPart, Buffer.from(text, "utf8"));
      else {
        const part = "xl/styles.xml";
        r.added.push({ name: part, data: Buffer.from(text, "utf8") });
        r.rels = addRel(r.rels, freeRid(r.rels), REL_TYPE.styles, relTarget(dirOf(this.wbPart), part));
        r.types = addOverride(r.types, part, CT.styles);
      }
    }
    // Formulas elsewhere read the placed cells: recalculate everything when the file is next opened.
    if (r.cellsWritten > 0) r.wbXml = withFullCalcOnLoad(r.wbXml);
    // A replaced formula cell would leave the calculation chain pointing at it: Excel rebuilds the chain.
    if (r.formulaReplaced) {
      const chain = relsOf(r.rels, this.wbRelsPart, dirOf(this.wbPart)).find((x) => x.type === REL_TYPE.calcChain);
      if (chain) {
        r.removed.add(chain.target);
        r.rels = removeRel(r.rels, chain.id);
        r.types = removeOverride(r.types, chain.target);
      }
    }
    if (r.wbXml !== this.wbXml) r.replaced.set(this.wbPart, Buffer.from(r.wbXml, "utf8"));
    if (r.rels !== this.wbRels) {
      if (this.zip.has(this.wbRelsPart)) r.replaced.set(this.wbRelsPart, Buffer.from(r.rels, "utf8"));
      else r.added.push({ name: this.wbRelsPart, data: Buffer.from(r.rels, "utf8") });
    }
    if (r.types !== this.zipText("[Content_Types].xml")) r.replaced.set("[Content_Types].xml", Buffer.from(r.types, "utf8"));
  }
}

/** Read and check a workbook file (nothing is changed). */
export function openBook(file: string, aliases?: ReadonlyMap<number, string>): Book {
  let bytes: Buffer;
  try {
    if (statSync(file).isDirectory()) throw new XlsxError(file, "notWorkbook", "it is a folder, not a workbook");
    bytes = readFileSync(file);
  } catch (e) {
    if (e instanceof XlsxError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new XlsxError(file, code === "ENOENT" ? "notFound" : "corrupt", code === "ENOENT" ? "no such file" : (e as Error).message);
  }
  const zip = new ZipReader(file, bytes);
  try {
    return new Book(file, zip, aliases);
  } catch (e) {
    if (e instanceof XlsxError) throw e;
    throw new XlsxError(file, "corrupt", (e as Error).message);
  }
}

/**
 * Replace `file` with `bytes` atomically: a temporary file in the same folder, flushed to disk,
 * renamed over the original (and the folder flushed), so a crash, a kill or a full disk leaves
 * either the old file or the new one, never a mix. The temporary file is removed on failure.
 */
/** `beforeRename`: called once the new file is written and flushed, right before it replaces `file`; throwing stops the save (the temporary file is removed). */
export function saveFile(file: string, bytes: Buffer, beforeRename?: () => void): void {
  const dir = path.dirname(path.resolve(file));
  const tmp = path.join(dir, `.~${path.basename(file)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  let mode = 0o644;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    // a new file
  }
  const fd = openSync(tmp, "wx", mode);
  try {
    for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, Math.min(bytes.length - off, 1 << 24));
    fsyncSync(fd);
    closeSync(fd);
    beforeRename?.();
    renameSync(tmp, file);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
  try {
    const d = openSync(dir, "r");
    try {
      fsyncSync(d);
    } finally {
      closeSync(d);
    }
  } catch {
    // some file systems cannot flush a folder; the rename itself is still atomic
  }
}

// ---------------------------------------------------------------- a new workbook

/** The package of an empty workbook with one sheet (what `cellbound place` starts from). */
export function emptyWorkbook(sheetName: string): Buffer {
  const parts: Array<{ name: string; data: Buffer }> = [
    [
      "[Content_Types].xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="${CT.worksheet}"/><Override PartName="/xl/styles.xml" ContentType="${CT.styles}"/></Types>`,
    ],
    [
      "_rels/.rels",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_TYPE.officeDocument}" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      "xl/workbook.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews><sheets><sheet name="${xmlEscape(sheetName)}" sheetId="1" r:id="rId1"/></sheets><calcPr calcId="191029"/></workbook>`,
    ],
    [
      "xl/_rels/workbook.xml.rels",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL_TYPE.worksheet}" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL_TYPE.styles}" Target="styles.xml"/></Relationships>`,
    ],
    [
      "xl/worksheets/sheet1.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><dimension ref="A1"/><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetData/></worksheet>`,
    ],
    ["xl/styles.xml", MINIMAL_STYLES],
  ].map(([name, text]) => ({ name: name!, data: Buffer.from(text!, "utf8") }));
  return writeZip(Buffer.alloc(0), parts);
}

// ---------------------------------------------------------------- small XML edits

interface Rel {
  id: string;
  type: string;
  /** Package path of the target (resolved against the source part's folder). */
  target: string;
  external: boolean;
}

function relsOf(xml: string, part: string, baseDir: string): Rel[] {
  const root = parseTree(xml, part);
  return children(root, "Relationship").map((r) => ({
    id: r.attrs.Id ?? "",
    type: r.attrs.Type ?? "",
    external: r.attrs.TargetMode === "External",
    target: resolvePart(baseDir, r.attrs.Target ?? ""),
  }));
}

function resolvePart(baseDir: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  // The package root has no parent: LibreOffice links customXml from _rels/.rels as "../customXml/item1.xml".
  return path.posix.normalize(path.posix.join(baseDir, target)).replace(/^(?:\.\.?\/)+/, "");
}
function relTarget(baseDir: string, part: string): string {
  return path.posix.relative(baseDir, part);
}
function dirOf(part: string): string {
  return path.posix.dirname(part) === "." ? "" : path.posix.dirname(part);
}
function relsPartOf(part: string): string {
  return path.posix.join(dirOf(part), "_rels", `${path.posix.basename(part)}.rels`);
}
function emptyRels(): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>`;
}
/**
 * The placements a stored value lists, when it is the engine's store ({placements: [{name, committed}]}):
 * each one's tracking name and whether it was ever recorded complete (a first placement interrupted
 * before its name landed has no committed fingerprint, and no name yet — that is no loss).
 */
function placementRecords(json: string): Array<{ name: string; recorded: boolean }> | null {
  const v = JSON.parse(json) as unknown;
  if (typeof v !== "object" || v === null || !Array.isArray((v as { placements?: unknown }).placements)) return null;
  const list = (v as { placements: unknown[] }).placements.flatMap((p) =>
    typeof p === "object" && p !== null && typeof (p as { name?: unknown }).name === "string"
      ? [{ name: (p as { name: string }).name, recorded: (p as { committed?: unknown }).committed != null }]
      : [],
  );
  return list;
}

/** The identity part with the sheet ids another host gave the file's sheets (none: as identityXml writes it). */
function withSheetIds(xml: string, ids: ReadonlyMap<number, string>): string {
  if (ids.size === 0) return xml;
  const sheets = [...ids]
    .sort(([a], [b]) => a - b)
    .map(([no, id]) => `<sheet sheetId="${no}" id="${xmlEscape(id)}"/>`)
    .join("");
  return xml.replace(/<\/cellbound>$/, `<sheetIds>${sheets}</sheetIds></cellbound>`);
}
function sameIds(a: ReadonlyMap<number, string>, b: ReadonlyMap<number, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/** An XML part's text: UTF-16 when it starts with a byte-order mark (Power Query's parts are), else UTF-8. */
function decodeXml(b: Buffer): string {
  if (b[0] === 0xff && b[1] === 0xfe) return b.subarray(2).toString("utf16le");
  if (b[0] === 0xfe && b[1] === 0xff) return Buffer.from(b.subarray(2)).swap16().toString("utf16le");
  return b.toString("utf8");
}
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function sharedStrings(xml: string): string[] {
  const out: string[] = [];
  const root = findElement(xml, "sst");
  if (!root) return out;
  for (let at = root.inner; at < root.innerEnd;) {
    const si = findElement(xml, "si", at, root.innerEnd);
    if (!si) break;
    let text = "";
    let phonetic = 0;
    for (let t = nextTag(xml, si.inner); t && t.start < si.innerEnd; t = nextTag(xml, t.end)) {
      if (t.name === "rPh") phonetic += t.closing ? -1 : t.selfClosing ? 0 : 1;
      else if (t.name === "t" && !t.closing && !t.selfClosing && phonetic === 0)
        text += xmlUnescapeText(xml.slice(t.end, xml.indexOf("<", t.end)));
    }
    out.push(text);
    at = si.end;
  }
  return out;
}
function xmlUnescapeText(s: string): string {
  return fromExcelText(xmlUnescape(s));
}

function freePart(zip: ZipReader, added: ReadonlyArray<{ name: string }>, prefix: string, ext: string): string {
  for (let n = 1; ; n++) {
    const name = `${prefix}${n}${ext}`;
    if (!zip.has(name) && !added.some((a) => a.name === name)) return name;
  }
}
function freeRid(rels: string): string {
  const ids = new Set([...rels.matchAll(/\bId="([^"]*)"/g)].map((m) => m[1]));
  for (let n = 1; ; n++) if (!ids.has(`rId${n}`)) return `rId${n}`;
}
function addRel(rels: string, id: string, type: string, target: string): string {
  const at = rels.lastIndexOf("</Relationships>");
  const rel = `<Relationship Id="${id}" Type="${type}" Target="${xmlEscape(target)}"/>`;
  if (at < 0) return rels.replace(/<Relationships([^>]*)\/>/, `<Relationships$1>${rel}</Relationships>`);
  return rels.slice(0, at) + rel + rels.slice(at);
}
function removeRel(rels: string, id: string): string {
  return rels.replace(new RegExp(`<Relationship\\b[^>]*\\bId="${id}"[^>]*/>`), "");
}
function addOverride(types: string, part: string, type: string): string {
  const at = types.lastIndexOf("</Types>");
  return `${types.slice(0, at)}<Override PartName="/${part}" ContentType="${type}"/>${types.slice(at)}`;
}
function addDefault(types: string, ext: string, type: string): string {
  const root = findElement(types, "Types")!;
  return `${types.slice(0, root.inner)}<Default Extension="${ext}" ContentType="${type}"/>${types.slice(root.inner)}`;
}
function removeOverride(types: string, part: string): string {
  return types.replace(new RegExp(`<Override\\b[^>]*\\bPartName="/${part.replace(/[.[\]]/g, "\\$&")}"[^>]*/>`), "");
}

function sheetEntries(wbXml: string): Array<{ start: number; end: number; rid: string }> {
  const sheets = findElement(wbXml, "sheets");
  const out: Array<{ start: number; end: number; rid: string }> = [];
  if (!sheets) return out;
  for (let t = nextTag(wbXml, sheets.inner); t && t.start < sheets.innerEnd; t = nextTag(wbXml, t.end)) {
    if (t.name !== "sheet" || t.closing) continue;
    const a = tagAttrs(wbXml.slice(t.start, t.end));
    out.push({ start: t.start, end: t.end, rid: a["r:id"] ?? Object.entries(a).find(([k]) => k.endsWith(":id"))?.[1] ?? "" });
  }
  return out;
}
function removeSheetEntry(wbXml: string, rid: string): string {
  const e = sheetEntries(wbXml).find((x) => x.rid === rid);
  return e ? wbXml.slice(0, e.start) + wbXml.slice(e.end) : wbXml;
}
function renameSheetEntry(wbXml: string, rid: string, name: string): string {
  const e = sheetEntries(wbXml).find((x) => x.rid === rid);
  return e ? wbXml.slice(0, e.start) + setAttr(wbXml.slice(e.start, e.end), "name", name) + wbXml.slice(e.end) : wbXml;
}
function addSheetEntry(wbXml: string, name: string, sheetId: number, rid: string): string {
  const sheets = findElement(wbXml, "sheets")!;
  const prefix = /<(\w+):workbook\b/.exec(wbXml)?.[1];
  const rPrefix = Object.entries(tagAttrs(wbXml.slice(nextTag(wbXml, 0)!.start, nextTag(wbXml, 0)!.end))).find(
    ([k, v]) => k.startsWith("xmlns:") && v === NS_REL,
  )?.[0];
  const r = rPrefix ? rPrefix.slice(6) : "r";
  const ns = rPrefix ? "" : ` xmlns:r="${NS_REL}"`;
  const el = `<${prefix ? `${prefix}:` : ""}sheet name="${xmlEscape(name)}" sheetId="${sheetId}" ${r}:id="${rid}"${ns}/>`;
  return wbXml.slice(0, sheets.innerEnd) + el + wbXml.slice(sheets.innerEnd);
}

/** How many cells a sheet part's <dimension ref> says it spans (to size its store once). */
function cellsHint(prefix: string): number {
  const ref = /<(?:\w+:)?dimension\b[^>]*\bref="([^"]*)"/.exec(prefix)?.[1];
  const r = ref ? parseRect(ref) : null;
  return r && r.rows > 0 ? Math.min(r.rows * r.cols, 1 << 25) : 1024;
}

/** A range reference as a rectangle (rows 0 for one that cannot be read). */
function parseRect(ref: string): { row: number; col: number; rows: number; cols: number } {
  try {
    const a = parseAddress(ref);
    return { row: a.row, col: a.col, rows: a.rows, cols: a.cols };
  } catch {
    return { row: 0, col: 0, rows: 0, cols: 0 };
  }
}

/** $B$2:$E$40 from B2:E40. */
function absolute(a1: string): string {
  return a1.replace(/([A-Z]+)([0-9]+)/g, "$$$1$$$2");
}

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

/** Code-unit order: stored bytes must not depend on the machine's locale (localeCompare's do; issue 36, item 11). */
export function ordinal(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** workbook.xml with Cellbound's names (hidden, workbook-scoped) replaced by `names`; other names untouched. */
function withTrackingNames(wbXml: string, names: Map<string, string>): string {
  const p = mainPrefix(wbXml);
  const mine = [...names.values()]
    .map((t) => t.split("\u0000") as [string, string])
    .sort(([a], [b]) => ordinal(a.toLowerCase(), b.toLowerCase()))
    .map(
      ([name, ref]) =>
        withPrefix(`<definedName name="${xmlEscape(TRACK_PREFIX + name)}" comment="Cellbound placement (do not edit)" hidden="1">`, p) +
        xmlEscape(ref) +
        withPrefix("</definedName>", p),
    )
    .join("");
  const el = findElement(wbXml, "definedNames");
  if (el) {
    let inner = el.inner === el.end ? "" : wbXml.slice(el.inner, el.innerEnd);
    // Drop our old names (workbook-scoped, with the prefix); keep everyone else's bytes.
    let kept = "";
    for (let at = 0; at < inner.length;) {
      const d = findElement(inner, "definedName", at);
      if (!d) {
        kept += inner.slice(at);
        break;
      }
      const a = tagAttrs(inner.slice(d.start, d.inner === d.end ? d.end : d.inner));
      const ours = a.localSheetId === undefined && (a.name ?? "").toLowerCase().startsWith(TRACK_PREFIX.toLowerCase());
      kept += inner.slice(at, d.start) + (ours ? "" : inner.slice(d.start, d.end));
      at = d.end;
    }
    inner = kept + mine;
    if (!inner.trim()) return wbXml.slice(0, el.start) + wbXml.slice(el.end);
    const open = wbXml.slice(el.start, el.inner === el.end ? el.end : el.inner).replace(/\s*\/>$/, ">");
    return `${wbXml.slice(0, el.start)}${open}${inner}${withPrefix("</definedNames>", p)}${wbXml.slice(el.end)}`;
  }
  if (!mine) return wbXml;
  // definedNames comes after sheets, functionGroups and externalReferences.
  const after = findElement(wbXml, "externalReferences") ?? findElement(wbXml, "functionGroups") ?? findElement(wbXml, "sheets")!;
  return `${wbXml.slice(0, after.end)}${withPrefix("<definedNames>", p)}${mine}${withPrefix("</definedNames>", p)}${wbXml.slice(after.end)}`;
}

function withFullCalcOnLoad(wbXml: string): string {
  const calc = findElement(wbXml, "calcPr");
  if (calc) {
    const open = wbXml.slice(calc.start, calc.inner === calc.end ? calc.end : calc.inner);
    const next = setAttr(removeAttr(open, "fullCalcOnLoad"), "fullCalcOnLoad", "1");
    return wbXml.slice(0, calc.start) + next + wbXml.slice(calc.start + open.length);
  }
  const after =
    findElement(wbXml, "definedNames") ??
    findElement(wbXml, "externalReferences") ??
    findElement(wbXml, "functionGroups") ??
    findElement(wbXml, "sheets")!;
  return `${wbXml.slice(0, after.end)}${withPrefix('<calcPr fullCalcOnLoad="1"/>', mainPrefix(wbXml))}${wbXml.slice(after.end)}`;
}

/** The calculated columns' cells of a row: column → the formula as the file writes it. */
function formulasAt(tables: readonly MemTable[], row: number): Map<number, string> | undefined {
  let out: Map<number, string> | undefined;
  for (const t of tables) {
    const { first, count } = bodyRows(t);
    if (row < first || row >= first + count) continue;
    t.formulas.forEach((f, c) => {
      if (f !== null) (out ??= new Map()).set(t.col + c, toFileFormula(f, t.name));
    });
  }
  return out;
}

/** A relationship id attribute as a sheet part can hold it (its prefix for the relationships namespace, else one declared). */
function relAttr(prefix: string): (id: string) => string {
  const root = nextTag(prefix, 0);
  const attrs = root ? tagAttrs(prefix.slice(root.start, root.end)) : {};
  const decl = Object.entries(attrs).find(([k, v]) => k.startsWith("xmlns:") && v === NS_REL)?.[0];
  return decl ? (id) => `${decl.slice(6)}:id="${id}"` : (id) => `r:id="${id}" xmlns:r="${NS_REL}"`;
}

/** The sheet save's part of a sheet's tables: the calculated columns' cells to write. */
function tableEdit(t: TablesOut | null): Pick<SheetEdit, "formulas" | "formulaRows"> {
  return t ? { formulas: t.formulas, formulaRows: t.formulaRows } : {};
}

/** A sheet plan with its <tableParts> edited (the text after </sheetData>), when its tables' list changed. */
function withSuffix(plan: SheetPlan, t: TablesOut | null): SheetPlan {
  if (!t?.suffix) return plan;
  const prefix = plan.buf.toString("utf8", 0, plan.span.inner);
  const was = plan.buf.toString("utf8", plan.span.end);
  const now = t.suffix(prefix, was);
  if (now === was) return plan;
  return { ...plan, edits: [...plan.edits, { start: plan.span.end, end: plan.buf.length, text: now }], changed: true };
}

/** A table's state as stateKey wrote it: [name, row, col, rows, cols, style, formulas, totals, …]. */
type BaseState = [string, number, number, number, number, string, Array<string | null>, boolean, ...unknown[]];

/** The cells of a table's calculated columns (its state as the file had it): row → columns. */
function calculatedCells(base: BaseState): Map<number, number[]> {
  const [, row, col, rows, , , formulas, totals] = base;
  const cols = formulas.flatMap((f, c) => (f === null ? [] : [col + c]));
  const out = new Map<number, number[]>();
  if (cols.length) for (let r = row + 1; r < row + rows - (totals ? 1 : 0); r++) out.set(r, cols);
  return out;
}
