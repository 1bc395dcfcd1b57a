// Worksheet XML as text, never as a tree, one row at a time (the part itself is scanned as bytes:
// scan.ts; the save's plan: rewrite.ts).
//   scanRows / scanRowsIn: each <row> with its cells' offsets and values.
//   rewriteRow: a row of the file with the model's cells — it replaces only the cells whose value or
//             shown format changed (the row loses only its "spans" hint) and inserts new cells in order;
//             newRowXml: a row the file does not have.
//   withDimension / withFrozenRows / frozenRowsOf: the part's text before <sheetData>.
//   toModel / toFile: a 1904 workbook's dates, converted where the file is read and written.
import { cellA1, parseAddress } from "../a1.ts";
import type { SheetValue } from "../port.ts";
import { to15Digits } from "../validate.ts";
import type { Styles } from "./styles.ts";
import {
  attrOf,
  excelText,
  findElement,
  fromExcelText,
  nextTag,
  removeAttr,
  setAttr,
  tagAttrs,
  withPrefix,
  xmlEscape,
  xmlUnescape,
} from "./xml.ts";

export interface ScannedCell {
  start: number;
  end: number;
  col: number;
  /** Style index (0 when absent). */
  s: number;
  value: SheetValue;
  formula: boolean;
  /** An ISO 8601 date (t="d"): its value is already a 1900-system serial. */
  iso?: boolean;
  /** A dynamic-array formula (cm= on the cell, <f t="array" ref>): the range its results spill into. */
  spill?: string;
}
export interface ScannedRow {
  start: number;
  /** End of the open tag (== end for <row/>). */
  openEnd: number;
  /** Start of the </row> tag (== end for <row/>). */
  closeStart: number;
  end: number;
  row: number;
  cells: ScannedCell[];
}

/** Offsets of <sheetData>'s content in a sheet part. */
export function sheetDataSpan(xml: string): { start: number; end: number; inner: number; innerEnd: number } | null {
  return findElement(xml, "sheetData");
}

/** The column of a cell reference such as "AB12" (`fallback + 1` when it is not one). */
function refColumn(ref: string, fallback: number): number {
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) & ~0x20; // upper case
    if (c < 0x41 || c > 0x5a) break;
    col = col * 26 + (c - 0x40);
  }
  return i === 0 || i > 3 ? fallback + 1 : col - 1;
}

/** Every row of sheetData, in document order. */
export function* scanRows(xml: string, sst: readonly string[]): Generator<ScannedRow> {
  const span = sheetDataSpan(xml);
  if (span) yield* scanRowsIn(xml, span.inner, span.innerEnd, sst, -1);
}

/** The rows of xml[from, to) (`rowNo`: the number of the row before them, for rows without r=). */
export function* scanRowsIn(xml: string, from: number, to: number, sst: readonly string[], rowNo: number): Generator<ScannedRow> {
  const span = { inner: from, innerEnd: to };
  let t = nextTag(xml, span.inner);
  while (t && t.start < span.innerEnd) {
    if (t.name !== "row" || t.closing) {
      t = nextTag(xml, t.end);
      continue;
    }
    const rAttr = attrOf(xml, t.start, t.end, "r");
    rowNo = rAttr !== undefined ? Number(rAttr) - 1 : rowNo + 1;
    const row: ScannedRow = { start: t.start, openEnd: t.end, closeStart: t.end, end: t.end, row: rowNo, cells: [] };
    if (t.selfClosing) {
      yield row;
      t = nextTag(xml, t.end);
      continue;
    }
    let col = -1;
    let u = nextTag(xml, t.end);
    while (u && !(u.name === "row" && u.closing)) {
      if (u.name === "c" && !u.closing) {
        const ref = attrOf(xml, u.start, u.end, "r");
        col = ref ? refColumn(ref, col) : col + 1;
        const sAttr = attrOf(xml, u.start, u.end, "s");
        const cell: ScannedCell = {
          start: u.start,
          end: u.end,
          col,
          s: sAttr === undefined ? 0 : Number(sAttr),
          value: "",
          formula: false,
        };
        if (!u.selfClosing) {
          let v: string | null = null;
          let inline = "";
          let inPhonetic = false;
          let w = nextTag(xml, u.end);
          while (w && !(w.name === "c" && w.closing)) {
            if (w.name === "f" && !w.closing) {
              const spill = spillRef(xml, u.start, u.end, w.start, w.end);
              if (spill) cell.spill = spill;
            }
            if (!w.closing && !w.selfClosing) {
              if (w.name === "f") cell.formula = true;
              else if (w.name === "rPh") inPhonetic = true;
              else if (w.name === "v" || (w.name === "t" && !inPhonetic)) {
                const close = xml.indexOf("<", w.end);
                const raw = xml.slice(w.end, close);
                const text = raw.includes("&") ? xmlUnescape(raw) : raw;
                if (w.name === "v") v = text;
                else inline += text;
              }
            } else if (w.closing && w.name === "rPh") inPhonetic = false;
            else if (w.selfClosing && w.name === "f") cell.formula = true;
            w = nextTag(xml, w.end);
          }
          if (!w) break;
          cell.end = w.end;
          const t = attrOf(xml, u.start, u.end, "t");
          cell.value = cellValue(t, v, inline, sst);
          if (t === "d") cell.iso = true;
        }
        row.cells.push(cell);
        u = nextTag(xml, cell.end);
        continue;
      }
      u = nextTag(xml, u.end);
    }
    if (!u) return;
    row.closeStart = u.start;
    row.end = u.end;
    yield row;
    t = nextTag(xml, u.end);
  }
}

/** The spill range of a dynamic-array formula: the cell has cm= (cell metadata) and its <f t="array" ref>. */
function spillRef(xml: string, cStart: number, cEnd: number, fStart: number, fEnd: number): string | undefined {
  if (!/\scm\s*=/.test(xml.slice(cStart, cEnd))) return undefined;
  const f = tagAttrs(xml.slice(fStart, fEnd));
  return f.t === "array" && f.ref ? f.ref : undefined;
}

function cellValue(t: string | undefined, v: string | null, inline: string, sst: readonly string[]): SheetValue {
  switch (t) {
    case "s":
      return v === null ? "" : (sst[Number(v)] ?? "");
    case "inlineStr":
      return fromExcelText(inline);
    case "b":
      return v === "1" || v === "true";
    case "str":
    case "e":
      return v === null ? "" : fromExcelText(v);
    case "d":
      return v === null ? "" : isoToSerial(v);
    default:
      return v === null || v === "" ? "" : Number(v);
  }
}

/** An ISO 8601 date (t="d") as a 1900-system serial number. */
function isoToSerial(iso: string): number {
  const ms = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(iso) || !iso.includes("T") ? iso : `${iso}Z`);
  return Number.isNaN(ms) ? 0 : ms / 86_400_000 + 25_569;
}

// ---------------------------------------------------------------- the 1904 date system

/** Days from the 1900 system's serial 0 to the 1904 system's (1904-01-01 is 1462 in the 1900 system). */
export const DAYS_1904 = 1462;

const datePart = new Map<string, boolean>();
/** Whether a number format shows a date (year, month or day), not only a time of day or a duration. */
export function showsDate(format: string | null): boolean {
  if (format === null) return false;
  let hit = datePart.get(format);
  if (hit === undefined) {
    const f = format
      .replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "")
      .replace(/AM\/PM|A\/P/gi, "")
      .replace(/h+[^a-z]*m+/gi, "h") // minutes after hours
      .replace(/m+([^a-z]*s)/gi, "$1"); // minutes before seconds
    hit = /[ydm]/i.test(f);
    datePart.set(format, hit);
  }
  return hit;
}

/**
 * The serials the port exchanges are 1900-system in every workbook (issue 35 §4): in a 1904 workbook a
 * number under a date format is converted at the file's boundary, both ways. `toModel` reads a file's
 * number, `toFile` writes the model's. to15Digits keeps the round trip exact for the engine's fingerprints.
 */
export function toModel(v: SheetValue, nf: string | null, date1904: boolean): SheetValue {
  return date1904 && typeof v === "number" && showsDate(nf) ? to15Digits(v + DAYS_1904) : v;
}
export function toFile(v: SheetValue, nf: string | null, date1904: boolean): SheetValue {
  return date1904 && typeof v === "number" && showsDate(nf) ? to15Digits(v - DAYS_1904) : v;
}

/** What the port keeps per cell (the memory model's cell). */
export interface ModelCell {
  v: SheetValue;
  nf: string | null;
  b?: boolean;
  fill?: string;
}
export type ModelCells = Map<number, Map<number, ModelCell>>;

/** The XML of one cell showing `cell`, with style `s` (and formula `f`: its value is the cached result); "" for a cell with nothing to keep. */
function cellXml(row: number, col: number, cell: ModelCell | undefined, s: number, f?: string): string {
  const r = cellA1(row, col);
  const sa = s > 0 ? ` s="${s}"` : "";
  if (f !== undefined) {
    const fx = `<f>${xmlEscape(f)}</f>`;
    const v = cell?.v ?? "";
    if (typeof v === "number") return `<c r="${r}"${sa}>${fx}<v>${numberText(v)}</v></c>`;
    if (typeof v === "boolean") return `<c r="${r}"${sa} t="b">${fx}<v>${v ? 1 : 0}</v></c>`;
    return v === "" ? `<c r="${r}"${sa}>${fx}</c>` : `<c r="${r}"${sa} t="str">${fx}<v>${excelText(v)}</v></c>`;
  }
  if (!cell || cell.v === "") return s > 0 ? `<c r="${r}"${sa}/>` : "";
  if (typeof cell.v === "number") return `<c r="${r}"${sa}><v>${numberText(cell.v)}</v></c>`;
  if (typeof cell.v === "boolean") return `<c r="${r}"${sa} t="b"><v>${cell.v ? 1 : 0}</v></c>`;
  const space = /^\s|\s$/.test(cell.v) ? ' xml:space="preserve"' : "";
  return `<c r="${r}"${sa} t="inlineStr"><is><t${space}>${excelText(cell.v)}</t></is></c>`;
}

function numberText(n: number): string {
  return String(n).replace("e", "E");
}

const sameValue = (a: SheetValue, b: SheetValue) => a === b || (typeof a === "number" && typeof b === "number" && Object.is(a + 0, b + 0));

/** What the save needs to write cells: the shared strings, the styles and the date system. */
export interface CellContext {
  sst: readonly string[];
  styles: Styles;
  date1904: boolean;
  /**
   * Per row: cells that hold a formula (a table's calculated column, issue 33), as the file writes it; ""
   * for a cell that held one and no longer does (it shows the model's cell, without a formula).
   */
  formulas?: (row: number) => ReadonlyMap<number, string> | undefined;
}

/** The text of a cell's own <f> element (undefined when it has none, or a shared formula's reference). */
function formulaText(cellXml: string): string | undefined {
  const m = /<(?:\w+:)?f(?:\s[^>]*)?>([^<]*)<\/(?:\w+:)?f>/.exec(cellXml);
  return m ? xmlUnescape(m[1]!) : undefined;
}

/** A model cell as the file holds it (a 1904 workbook's dates converted). */
const inFile = (cell: ModelCell | undefined, date1904: boolean): ModelCell | undefined =>
  cell && date1904 ? { ...cell, v: toFile(cell.v, cell.nf, true) } : cell;

/** The XML of the model's cells of a row in columns [from, to), in order; and how many. */
function newCells(row: number, cells: Map<number, ModelCell> | undefined, from: number, to: number, ctx: CellContext, p: string) {
  let xml = "";
  let n = 0;
  const formulas = ctx.formulas?.(row);
  if (!cells && !formulas) return { xml, n };
  const cols = new Set([...(cells?.keys() ?? []), ...(formulas?.keys() ?? [])]);
  for (const col of [...cols].filter((c) => c >= from && c < to).sort((a, b) => a - b)) {
    const cell = cells?.get(col);
    const style = cell ? ctx.styles.derive(0, styleOf(cell)) : 0;
    const x = withPrefix(cellXml(row, col, inFile(cell, ctx.date1904), style, formulas?.get(col) || undefined), p);
    if (x) {
      xml += x;
      n++;
    }
  }
  return { xml, n };
}

/** A row the file does not have, holding the model's cells ("" when it has none to show). */
export function newRowXml(
  row: number,
  cells: Map<number, ModelCell> | undefined,
  ctx: CellContext,
  p: string,
): { xml: string; cellsWritten: number } {
  const inner = newCells(row, cells, 0, Infinity, ctx, p);
  return { xml: inner.xml ? `${withPrefix(`<row r="${row + 1}">`, p)}${inner.xml}${withPrefix("</row>", p)}` : "", cellsWritten: inner.n };
}

/**
 * A row of the file (`xml`: its <row> element) with the model's cells of it: cells that show the same
 * value and format keep their bytes, others are replaced, the model's new cells inserted in order, and
 * the row loses only its "spans" hint. null when nothing in it changes.
 */
export function rewriteRow(
  xml: string,
  rowNo: number,
  cells: Map<number, ModelCell> | undefined,
  ctx: CellContext,
  p: string,
): { xml: string; cellsWritten: number; formulaReplaced: boolean } | null {
  const r = scanRowsIn(xml, 0, xml.length, ctx.sst, rowNo - 1).next().value;
  if (!r) return null;
  const { styles, date1904 } = ctx;
  let parts: string[] | null = null;
  let at = r.openEnd;
  let prevCol = -1;
  let cellsWritten = 0;
  let formulaReplaced = false;
  const formulas = ctx.formulas?.(rowNo);
  for (const c of r.cells) {
    const want = cells?.get(c.col);
    const have = styles.style(c.s);
    const inserted = newCells(rowNo, cells, prevCol + 1, c.col, ctx, p);
    prevCol = c.col;
    const wanted = formulas?.get(c.col);
    const f = wanted || undefined;
    const same =
      wanted === "" && c.formula
        ? false
        : f !== undefined
          ? formulaText(xml.slice(c.start, c.end)) === f && (want === undefined || sameStyle(styleOf(want), have))
          : want !== undefined
            ? sameValue(want.v, c.iso ? c.value : toModel(c.value, have.nf, date1904)) && sameStyle(styleOf(want), have)
            : c.value === "" && have.nf === null && !have.bold && have.fill === undefined;
    if (!inserted.xml && same) continue;
    parts ??= [];
    parts.push(xml.slice(at, c.start), inserted.xml);
    cellsWritten += inserted.n;
    if (same) parts.push(xml.slice(c.start, c.end));
    else {
      if (c.formula || wanted !== undefined) formulaReplaced = true;
      const keep =
        f !== undefined && !want ? { nf: have.nf, bold: have.bold, fill: have.fill } : { nf: null, bold: false, fill: undefined };
      const style = styles.derive(c.s, want ? styleOf(want) : keep);
      parts.push(withPrefix(cellXml(rowNo, c.col, inFile(want, date1904), style, f), p));
      cellsWritten++;
    }
    at = c.end;
  }
  const tail = newCells(rowNo, cells, prevCol + 1, Infinity, ctx, p);
  if (tail.xml) {
    parts ??= [];
    parts.push(xml.slice(at, r.closeStart), tail.xml);
    cellsWritten += tail.n;
    at = r.closeStart;
  }
  if (!parts) return null;
  let open = removeAttr(xml.slice(r.start, r.openEnd), "spans");
  if (r.end === r.openEnd) open = open.replace(/\s*\/>$/, ">");
  const close = r.end === r.openEnd ? withPrefix("</row>", p) : xml.slice(at, r.end);
  return { xml: open + parts.join("") + close, cellsWritten, formulaReplaced };
}

function styleOf(c: ModelCell) {
  return { nf: c.nf, bold: c.b === true, fill: c.fill };
}
function sameStyle(a: { nf: string | null; bold: boolean; fill: string | undefined }, b: typeof a): boolean {
  return a.nf === b.nf && a.bold === b.bold && a.fill === b.fill;
}

/** <dimension ref> grown to cover the model's cells (`bounds`: the rows and columns they span). */
export function withDimension(prefix: string, bounds: { r0: number; r1: number; c0: number; c1: number } | null, p: string): string {
  const el = findElement(prefix, "dimension");
  if (!bounds) return prefix;
  let { r0, r1, c0, c1 } = bounds;
  if (el) {
    try {
      const old = parseAddress(tagAttrs(prefix.slice(el.start, el.end)).ref ?? "A1");
      if (!(old.rows === 1 && old.cols === 1 && old.row === 0 && old.col === 0)) {
        r0 = Math.min(r0, old.row);
        c0 = Math.min(c0, old.col);
        r1 = Math.max(r1, old.row + old.rows - 1);
        c1 = Math.max(c1, old.col + old.cols - 1);
      }
    } catch {
      // an unreadable ref is replaced
    }
  }
  const ref = r0 === r1 && c0 === c1 ? cellA1(r0, c0) : `${cellA1(r0, c0)}:${cellA1(r1, c1)}`;
  if (el) return prefix.slice(0, el.start) + setAttr(prefix.slice(el.start, el.end), "ref", ref) + prefix.slice(el.end);
  const ws = nextTagNamed(prefix, "worksheet");
  const pr = findElement(prefix, "sheetPr");
  const at = pr ? pr.end : ws;
  return `${prefix.slice(0, at)}${withPrefix(`<dimension ref="${ref}"/>`, p)}${prefix.slice(at)}`;
}

function nextTagNamed(s: string, name: string): number {
  for (let t = nextTag(s, 0); t; t = nextTag(s, t.end)) if (t.name === name && !t.closing) return t.end;
  throw new Error(`no <${name}>`);
}

/** The first sheet view's pane set to freeze `rows` top rows (0 removes a frozen pane). */
export function withFrozenRows(prefix: string, rows: number, p: string): string {
  const pane = withPrefix(
    rows > 0
      ? `<pane ySplit="${rows}" topLeftCell="${cellA1(rows, 0)}" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/>`
      : "",
    p,
  );
  const view = findElement(prefix, "sheetView");
  if (!view) {
    if (rows === 0) return prefix;
    const views = `${withPrefix('<sheetViews><sheetView workbookViewId="0">', p)}${pane}${withPrefix("</sheetView></sheetViews>", p)}`;
    const dim = findElement(prefix, "dimension");
    const pr = findElement(prefix, "sheetPr");
    const at = dim ? dim.end : pr ? pr.end : nextTagNamed(prefix, "worksheet");
    return prefix.slice(0, at) + views + prefix.slice(at);
  }
  let inner = view.inner === view.end ? "" : prefix.slice(view.inner, view.innerEnd);
  // The old pane and the selections that belong to panes go; other children (e.g. extLst) stay.
  inner = inner.replace(/<(?:\w+:)?pane\b[^>]*\/>/g, "").replace(/<(?:\w+:)?selection\b[^>]*\bpane="[^"]*"[^>]*\/>/g, "");
  const open = prefix.slice(view.start, view.inner === view.end ? view.end : view.inner).replace(/\s*\/>$/, ">");
  return `${prefix.slice(0, view.start)}${open}${pane}${inner}${withPrefix("</sheetView>", p)}${prefix.slice(view.end)}`;
}

/** Frozen top rows of a sheet part (0 when none), from the first sheet view's pane. */
export function frozenRowsOf(xml: string): number {
  const span = sheetDataSpan(xml);
  const view = findElement(xml, "sheetView", 0, span?.start ?? xml.length);
  if (!view) return 0;
  const pane = findElement(xml, "pane", view.inner, view.innerEnd);
  if (!pane) return 0;
  const a = tagAttrs(xml.slice(pane.start, pane.end));
  return (a.state === "frozen" || a.state === "frozenSplit") && a.ySplit ? Math.max(0, Math.round(Number(a.ySplit))) : 0;
}
