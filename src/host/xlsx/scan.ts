// A worksheet part scanned as bytes (issue 35 §3: bounded memory). The inflated part is never turned
// into one string: rows are found with Buffer.indexOf, and each cell's attributes and value are read
// from the bytes as they come. The load reads every cell once into the sheet's compact store
// (store.ts); the save finds the rows, copies those Cellbound did not touch byte for byte and hands
// only the touched ones to the string scanner of sheet.ts.
import type { SheetValue } from "../port.ts";
import { fromExcelText, xmlUnescape } from "./xml.ts";

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUOTE = 0x22;
const APOS = 0x27;
const COLON = 0x3a;
const EQ = 0x3d;

/** Where <sheetData> is in a sheet part (byte offsets), and the prefix the part gives SpreadsheetML elements. */
export interface SheetDataSpan {
  /** "x:" when elements are prefixed (the Open XML SDK), else "". */
  p: string;
  start: number;
  /** End of the open tag (== end for <sheetData/>). */
  inner: number;
  /** Start of the close tag (== end for <sheetData/>). */
  innerEnd: number;
  end: number;
}

const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** The end of the tag starting at `lt` (just past its ">"), quotes respected; -1 when it is cut short. */
function tagEnd(buf: Buffer, lt: number): number {
  let quote = 0;
  for (let i = lt + 1; i < buf.length; i++) {
    const b = buf[i]!;
    if (quote) {
      if (b === quote) quote = 0;
    } else if (b === QUOTE || b === APOS) quote = b;
    else if (b === GT) return i + 1;
  }
  return -1;
}

/** <sheetData> of a sheet part, or null when it has none. */
export function sheetDataIn(buf: Buffer): SheetDataSpan | null {
  const open = sheetDataOpen(buf);
  if (!open) return null;
  const { p, start, inner } = open;
  if (inner < 0) return null;
  if (buf[inner - 2] === SLASH) return { p, start, inner, innerEnd: inner, end: inner };
  const close = buf.indexOf(`</${p}sheetData>`, inner);
  if (close < 0) return null;
  return { p, start, inner, innerEnd: close, end: close + `</${p}sheetData>`.length };
}

/** The first <sheetData> open tag ("<sheetData" or "<x:sheetData"); inner -1 when the tag is cut short. */
function sheetDataOpen(buf: Buffer): { p: string; start: number; inner: number } | null {
  for (let at = buf.indexOf("sheetData"); at > 0; at = buf.indexOf("sheetData", at + 9)) {
    let lt = at - 1;
    if (buf[lt] !== LT) {
      if (buf[lt] !== COLON) continue;
      while (lt > 0 && buf[lt] !== LT && !isSpace(buf[lt]!)) lt--;
      if (buf[lt] !== LT) continue;
    }
    const next = buf[at + 9]!;
    if (!(isSpace(next) || next === GT || next === SLASH)) continue;
    return { p: buf.toString("latin1", lt + 1, at), start: lt, inner: tagEnd(buf, lt) };
  }
  return null;
}

/** What PieceScanner read of a sheet part besides its cells. */
export interface ScannedPart {
  /** The part before <sheetData> (its first 64 KiB when it has none). */
  prefix: string;
  /** The part after </sheetData> ("" when it has none). */
  suffix: string;
  /** The dynamic-array anchors and the cells went to the sink: false when the part has no <sheetData>…</sheetData>. */
  cells: boolean;
}

/**
 * A sheet part's cells scanned piece by piece as it inflates (issue 35 §3: the part is never held whole):
 * the same reading as sheetDataIn, rowsIn and scanCells over the whole part. Rows are scanned as soon as
 * a piece completes them; the bytes of a row cut by the piece's end wait for the next piece. `sinkFor`
 * gets the part's beginning (before <sheetData>) when the cells start. When the part turns out to have
 * no closing </sheetData>, `end()` says `cells: false`: what the sink got is not the part's.
 */
export class PieceScanner {
  private carry: Buffer = Buffer.alloc(0);
  private state: "head" | "rows" | "tail" = "head";
  private p = "";
  private rowNo = -1;
  private sink: CellSink | null = null;
  private readonly first: Buffer[] = [];
  private firstBytes = 0;
  private readonly tail: Buffer[] = [];
  private prefix = "";

  constructor(private readonly sinkFor: (prefix: string) => CellSink) {}

  push(piece: Buffer): void {
    if (this.firstBytes < FIRST_BYTES) {
      this.first.push(Buffer.from(piece.subarray(0, FIRST_BYTES - this.firstBytes))); // a copy: the piece goes
      this.firstBytes += Math.min(piece.length, FIRST_BYTES - this.firstBytes);
    }
    if (this.state === "tail") return void this.tail.push(piece);
    if (this.state === "rows") return this.rows(piece);
    const win = this.carry.length ? Buffer.concat([this.carry, piece]) : piece;
    this.carry = win; // until <sheetData> is found: everything so far
    this.head(win);
  }

  private head(win: Buffer): void {
    const open = sheetDataOpen(win);
    if (!open || open.inner < 0) return; // not here yet, or its tag is cut: wait for more
    this.p = open.p;
    this.prefix = win.toString("utf8", 0, open.start);
    this.carry = Buffer.alloc(0);
    if (win[open.inner - 2] === SLASH) {
      this.state = "tail";
      this.tail.push(Buffer.from(win.subarray(open.inner)));
      return;
    }
    this.sink = this.sinkFor(this.prefix);
    this.state = "rows";
    this.rows(win.subarray(open.inner));
  }

  /**
   * The rows of the next piece. The row cut by the last piece's end is finished on a small buffer (its
   * bytes and the piece's first SEAM bytes), and the piece is scanned where it lies: no piece is copied
   * (a row longer than that joins the whole piece).
   */
  private rows(piece: Buffer): void {
    if (this.carry.length) {
      const cut = this.carry.length;
      const seam = Buffer.concat([this.carry, piece.subarray(0, SEAM)]);
      const done = this.scan(seam);
      if (done < 0) {
        if (piece.length > SEAM) this.tail.push(Buffer.from(piece.subarray(SEAM)));
        return;
      }
      if (done <= cut) {
        const win = Buffer.concat([this.carry, piece]);
        const rest = this.scan(win);
        this.carry = rest < 0 ? Buffer.alloc(0) : win.subarray(rest);
        return;
      }
      piece = piece.subarray(done - cut);
    }
    const rest = this.scan(piece);
    this.carry = rest < 0 ? Buffer.alloc(0) : Buffer.from(piece.subarray(rest)); // a copy: the piece goes
  }

  /** Scans the complete rows of `win`: where its unscanned bytes start, or -1 at </sheetData> (what follows goes to the tail). */
  private scan(win: Buffer): number {
    const close = Buffer.from(`</${this.p}sheetData>`);
    const closeAt = win.indexOf(close);
    const innerEnd = closeAt >= 0 ? closeAt : win.length;
    const span: SheetDataSpan = { p: this.p, start: 0, inner: 0, innerEnd, end: innerEnd };
    let done = 0;
    for (const row of rowsIn(win, span, 0, this.rowNo)) {
      scanCells(win, row, this.sink!, this.p);
      this.rowNo = row.row;
      done = row.end;
    }
    if (closeAt < 0) return done;
    this.state = "tail";
    this.carry = Buffer.alloc(0);
    this.tail.push(Buffer.from(win.subarray(closeAt + close.length)));
    return -1;
  }

  end(): ScannedPart {
    if (this.state === "tail") return { prefix: this.prefix, suffix: Buffer.concat(this.tail).toString("utf8"), cells: true };
    // No <sheetData>, or it never closes: no cells, as sheetDataIn says of the whole part.
    return { prefix: Buffer.concat(this.first).toString("utf8"), suffix: "", cells: false };
  }
}
const FIRST_BYTES = 65_536;
/** Bytes of the next piece a cut row is finished with (rows are rarely longer). */
const SEAM = 65_536;

/** A row of sheetData: its number (0-based) and byte offsets. */
export interface RowRef {
  row: number;
  start: number;
  /** End of the open tag (== end for <row/>). */
  openEnd: number;
  /** Start of </row> (== end for <row/>). */
  closeStart: number;
  end: number;
}

/** The value of attribute `name` (ASCII) in the tag buf[start, end), as latin1 text; null when absent. */
export function attrIn(buf: Buffer, start: number, end: number, name: string): string | null {
  let i = start + 1;
  while (i < end && !isSpace(buf[i]!) && buf[i] !== GT && buf[i] !== SLASH) i++; // the element's name
  while (i < end) {
    while (i < end && isSpace(buf[i]!)) i++;
    const nameStart = i;
    while (i < end && buf[i] !== EQ && !isSpace(buf[i]!) && buf[i] !== GT && buf[i] !== SLASH) i++;
    const nameEnd = i;
    while (i < end && isSpace(buf[i]!)) i++;
    if (buf[i] !== EQ) {
      if (i === nameStart) i++;
      continue;
    }
    i++;
    while (i < end && isSpace(buf[i]!)) i++;
    const q = buf[i]!;
    if (q !== QUOTE && q !== APOS) return null;
    const close = buf.indexOf(q, i + 1);
    if (close < 0 || close >= end) return null;
    if (nameEnd - nameStart === name.length && buf.toString("latin1", nameStart, nameEnd) === name) {
      const raw = buf.toString("utf8", i + 1, close);
      return raw.includes("&") ? xmlUnescape(raw) : raw;
    }
    i = close + 1;
  }
  return null;
}

/**
 * Where the rows from number `row` on start: a binary search over the bytes, reading the r= of the
 * first row after each probe (Excel writes rows in ascending order, each with its r=). Returns the
 * offset to scan from and the number of the row before it; the start of sheetData when a probed row
 * has no r=.
 */
export function seekRow(buf: Buffer, span: SheetDataSpan, row: number): { from: number; before: number } {
  const open = Buffer.from(`<${span.p}row `);
  let [lo, hi] = [span.inner, span.innerEnd];
  let best = { from: span.inner, before: -1 };
  while (hi - lo > 65_536) {
    const mid = lo + ((hi - lo) >> 1);
    const at = buf.indexOf(open, mid);
    if (at < 0 || at >= hi) {
      hi = mid;
      continue;
    }
    const end = tagEnd(buf, at);
    const r = end < 0 ? null : attrIn(buf, at, end, "r");
    const n = r === null ? NaN : Number(r) - 1;
    if (!Number.isInteger(n)) return { from: span.inner, before: -1 };
    if (n < row) {
      best = { from: at, before: n - 1 };
      lo = at + 1;
    } else hi = mid;
  }
  return best;
}

/** Every row of sheetData in document order (from `from`, after row number `before`), without reading its cells. */
export function* rowsIn(buf: Buffer, span: SheetDataSpan, from = span.inner, before = -1): Generator<RowRef> {
  const open = Buffer.from(`<${span.p}row`);
  const close = Buffer.from(`</${span.p}row>`);
  let rowNo = before;
  for (let at = buf.indexOf(open, from); at >= 0 && at < span.innerEnd;) {
    const after = buf[at + open.length]!;
    if (!(isSpace(after) || after === GT || after === SLASH)) {
      at = buf.indexOf(open, at + open.length);
      continue;
    }
    const openEnd = tagEnd(buf, at);
    if (openEnd < 0) return;
    const r = attrIn(buf, at, openEnd, "r");
    rowNo = r !== null ? Number(r) - 1 : rowNo + 1;
    if (buf[openEnd - 2] === SLASH) {
      yield { row: rowNo, start: at, openEnd, closeStart: openEnd, end: openEnd };
      at = buf.indexOf(open, openEnd);
      continue;
    }
    const closeStart = buf.indexOf(close, openEnd);
    if (closeStart < 0) return;
    const end = closeStart + close.length;
    yield { row: rowNo, start: at, openEnd, closeStart, end };
    at = buf.indexOf(open, end);
  }
}

/** How a scanned cell's value is held. */
export const Kind = {
  /** A number (<v>, no t or t="n"). */
  Number: 1,
  /** A shared string: num is its index in sharedStrings.xml. */
  Shared: 2,
  /** Text (t="inlineStr", "str" or "e"). */
  Text: 3,
  Bool: 4,
  /** t="d": num is already a 1900-system serial (never converted for a 1904 workbook). */
  Iso: 5,
  /** No value (a styled empty cell). */
  Empty: 6,
} as const;
export type Kind = (typeof Kind)[keyof typeof Kind];

export interface CellSink {
  cell(row: number, col: number, style: number, kind: Kind, num: number, text: string | null, formula: boolean): void;
  /** A dynamic-array formula's anchor (cm= and <f t="array" ref>): the range it spills into. */
  spill?(row: number, col: number, ref: string): void;
}

/** The column of a reference such as "AB12" in buf[start, end) (fallback + 1 when it is not one). */
function refColumn(buf: Buffer, start: number, end: number, fallback: number): number {
  let col = 0;
  let i = start;
  for (; i < end; i++) {
    const c = buf[i]! & ~0x20;
    if (c < 0x41 || c > 0x5a) break;
    col = col * 26 + (c - 0x40);
  }
  return i === start || i - start > 3 ? fallback + 1 : col - 1;
}

/** The local name of the tag at `lt` (after "<" or "</" and any prefix) as [start, end). */
function localName(buf: Buffer, lt: number): [number, number] {
  let i = lt + 1;
  if (buf[i] === SLASH) i++;
  let start = i;
  for (; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === COLON) start = i + 1;
    else if (isSpace(b) || b === GT || b === SLASH) break;
  }
  return [start, i];
}
const nameIs = (buf: Buffer, [s, e]: [number, number], name: string) =>
  e - s === name.length && (name.length === 1 ? buf[s] === name.charCodeAt(0) : buf.toString("latin1", s, e) === name);

interface CellAttrs {
  ref: [number, number] | null;
  s: number;
  t: string | null;
  cm: boolean;
}
/** r, s, t and cm of a <c> tag whose name ends at `nameEnd` and the tag at `end`. */
function cellAttrs(buf: Buffer, nameEnd: number, end: number): CellAttrs {
  const out: CellAttrs = { ref: null, s: 0, t: null, cm: false };
  let i = nameEnd;
  while (i < end) {
    while (i < end && (isSpace(buf[i]!) || buf[i] === SLASH || buf[i] === GT)) i++;
    const nameStart = i;
    while (i < end && buf[i] !== EQ && !isSpace(buf[i]!)) i++;
    const nameEnd = i;
    while (i < end && buf[i] !== QUOTE && buf[i] !== APOS) i++;
    if (i >= end) break;
    const close = buf.indexOf(buf[i]!, i + 1);
    if (close < 0 || close >= end) break;
    const len = nameEnd - nameStart;
    const n0 = buf[nameStart];
    if (len === 1 && n0 === 0x72 /* r */) out.ref = [i + 1, close];
    else if (len === 1 && n0 === 0x73 /* s */) out.s = Number(buf.toString("latin1", i + 1, close)) || 0;
    else if (len === 1 && n0 === 0x74 /* t */) out.t = buf.toString("latin1", i + 1, close);
    else if (len === 2 && n0 === 0x63 && buf[nameStart + 1] === 0x6d /* cm */) out.cm = true;
    i = close + 1;
  }
  return out;
}

const text = (buf: Buffer, a: number, b: number) => {
  const raw = buf.toString("utf8", a, b);
  return raw.includes("&") ? xmlUnescape(raw) : raw;
};

/**
 * The cells of one row, in order, to `sink` (the same reading as sheet.ts scanRows: a formula's cached
 * value, rich text runs joined, phonetic runs skipped, Excel's _xHHHH_ escapes decoded).
 */
export function scanCells(buf: Buffer, row: RowRef, sink: CellSink, p = ""): void {
  let col = -1;
  let at = buf.indexOf(LT, row.openEnd);
  while (at >= 0 && at < row.closeStart) {
    // The common shapes (no prefix; a number, shared string, boolean, inline string or formula) are read
    // in one pass over the bytes; anything else is read by the general reader below.
    const fast = p === "" ? fastCell(buf, at, row, col, sink) : -1;
    if (fast >= 0) {
      col = lastCol;
      at = fast;
      continue;
    }
    const name = localName(buf, at);
    const end = tagEnd(buf, at);
    if (end < 0) return;
    if (buf[at + 1] === SLASH || !nameIs(buf, name, "c")) {
      at = buf.indexOf(LT, end);
      continue;
    }
    const a = cellAttrs(buf, name[1], end);
    col = a.ref ? refColumn(buf, a.ref[0], a.ref[1], col) : col + 1;
    if (buf[end - 2] === SLASH) {
      sink.cell(row.row, col, a.s, Kind.Empty, 0, null, false);
      at = buf.indexOf(LT, end);
      continue;
    }
    at = cellBody(buf, row, end, a, col, sink);
  }
}

// ---- the fast path -------------------------------------------------------------------------

/** The column of the cell fastCell read last. */
let lastCol = -1;

/** The next "<" at or after i (-1 past `to`). */
function nextLt(buf: Buffer, i: number, to: number): number {
  while (i < to && buf[i] !== LT) i++;
  return i < to ? i : -1;
}

/** t= of a cell, as a code: 0 none/"n", 1 "s", 2 "b", 3 "inlineStr", 4 another ("str", "e", "d"). */
function typeCode(buf: Buffer, a: number, b: number): number {
  const len = b - a;
  const c = buf[a];
  if (len === 1) return c === 0x73 ? 1 : c === 0x62 ? 2 : c === 0x6e ? 0 : 4;
  return len === 9 && c === 0x69 && buf[a + 6] === 0x53 ? 3 : 4;
}

/** A decimal number of at most 15 digits without exponent, exactly as Number() reads it; NaN otherwise. */
function fastNumber(buf: Buffer, a: number, b: number): number {
  let i = a;
  let neg = false;
  if (buf[i] === 0x2d) {
    neg = true;
    i++;
  }
  let n = 0;
  let digits = 0;
  let scale = -1;
  for (; i < b; i++) {
    const d = buf[i]! - 0x30;
    if (d >= 0 && d <= 9) {
      n = n * 10 + d;
      digits++;
      if (scale >= 0) scale++;
    } else if (d === -2 /* . */ && scale < 0) scale = 0;
    else return NaN;
  }
  if (digits === 0 || digits > 15) return NaN;
  const v = scale > 0 ? n / POW10[scale]! : n; // an exact integer over an exact power of ten: correctly rounded
  return neg ? -v : v;
}
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** What fastAttrs read of a <c>: its column, style, type code and whether it has cm=. */
const attrs = { col: 0, style: 0, type: 0, cm: false };

/** The attributes of the <c> whose name ends at `i` into `attrs`; returns where its ">" or "/>" is, -1 when unusual. */
function fastAttrs(buf: Buffer, i: number, row: RowRef, prevCol: number): number {
  attrs.col = prevCol + 1;
  attrs.style = 0;
  attrs.type = 0;
  attrs.cm = false;
  for (;;) {
    while (isSpace(buf[i]!)) i++;
    const b = buf[i]!;
    if (b === GT || b === SLASH) return i;
    const nameStart = i;
    while (buf[i] !== EQ) if (++i >= row.closeStart) return -1;
    let nameEnd = i;
    while (isSpace(buf[nameEnd - 1]!)) nameEnd--;
    const nameLen = nameEnd - nameStart;
    i++;
    while (isSpace(buf[i]!)) i++;
    const q = buf[i]!;
    if (q !== QUOTE && q !== APOS) return -1;
    const vStart = ++i;
    while (buf[i] !== q) if (++i >= row.closeStart) return -1;
    const n0 = buf[nameStart];
    if (nameLen === 1 && n0 === 0x72) attrs.col = refColumn(buf, vStart, i, prevCol);
    else if (nameLen === 1 && n0 === 0x73) for (let k = vStart; k < i; k++) attrs.style = attrs.style * 10 + (buf[k]! - 0x30);
    else if (nameLen === 1 && n0 === 0x74) attrs.type = typeCode(buf, vStart, i);
    else if (nameLen === 2 && n0 === 0x63 && buf[nameStart + 1] === 0x6d) attrs.cm = true;
    i++;
  }
}

/**
 * One cell at `lt` in the common shapes Excel and the port write, or -1 to leave it to the general
 * reader: <c r s t> with <v>, <is><t>…</t></is> or <f>…</f><v>…</v>. Returns where the next tag starts.
 */
function fastCell(buf: Buffer, lt: number, row: RowRef, prevCol: number, sink: CellSink): number {
  if (buf[lt + 1] !== 0x63 /* c */) return -1;
  if (!isSpace(buf[lt + 2]!) && buf[lt + 2] !== GT && buf[lt + 2] !== SLASH) return -1;
  let i = fastAttrs(buf, lt + 2, row, prevCol);
  const { col, style, type, cm } = attrs;
  if (i < 0) return -1;
  if (type === 4 || cm) return -1;
  lastCol = col;
  if (buf[i] === SLASH) {
    sink.cell(row.row, col, style, Kind.Empty, 0, null, false);
    return nextLt(buf, i, row.closeStart + 1);
  }
  i++; // past ">"
  let formula = false;
  let v0 = -1;
  let v1 = -1;
  let inline: string | null = null;
  for (let at = nextLt(buf, i, row.closeStart); ;) {
    if (at < 0) return -1;
    const c1 = buf[at + 1];
    if (c1 === SLASH) {
      if (buf[at + 2] !== 0x63 || buf[at + 3] !== GT) return -1; // only </c> closes here
      emitFast(buf, row.row, col, style, type, v0, v1, inline, formula, sink);
      return nextLt(buf, at + 4, row.closeStart + 1);
    }
    if (c1 === 0x76 /* v */ && buf[at + 2] === GT) {
      v0 = at + 3;
      v1 = nextLt(buf, v0, row.closeStart);
      if (v1 < 0 || buf[v1 + 1] !== SLASH || buf[v1 + 2] !== 0x76) return -1;
      at = nextLt(buf, v1 + 4, row.closeStart);
    } else if (c1 === 0x66 /* f */ && (isSpace(buf[at + 2]!) || buf[at + 2] === GT || buf[at + 2] === SLASH)) {
      formula = true;
      const end = tagEnd(buf, at);
      if (end < 0) return -1;
      if (buf[end - 2] === SLASH) at = nextLt(buf, end, row.closeStart);
      else {
        const close = nextLt(buf, end, row.closeStart); // formula text holds no "<"
        if (close < 0 || buf[close + 1] !== SLASH || buf[close + 2] !== 0x66) return -1;
        at = nextLt(buf, close + 4, row.closeStart);
      }
    } else if (c1 === 0x69 && buf[at + 2] === 0x73 && buf[at + 3] === GT && type === 3) {
      // <is><t …>text</t></is>: one plain run.
      const t = at + 4;
      if (buf[t] !== LT || buf[t + 1] !== 0x74 || !(buf[t + 2] === GT || isSpace(buf[t + 2]!))) return -1;
      const t1 = tagEnd(buf, t);
      if (t1 < 0 || buf[t1 - 2] === SLASH) return -1;
      const close = nextLt(buf, t1, row.closeStart);
      if (close < 0 || buf[close + 1] !== SLASH || buf[close + 2] !== 0x74 || buf[close + 3] !== GT) return -1;
      const after = close + 4;
      if (buf[after] !== LT || buf[after + 1] !== SLASH || buf[after + 2] !== 0x69 || buf[after + 3] !== 0x73) return -1;
      inline = text(buf, t1, close);
      at = nextLt(buf, after + 5, row.closeStart);
    } else return -1;
  }
}

function emitFast(
  buf: Buffer,
  row: number,
  col: number,
  style: number,
  type: number,
  v0: number,
  v1: number,
  inline: string | null,
  formula: boolean,
  sink: CellSink,
): void {
  if (type === 3) return sink.cell(row, col, style, Kind.Text, 0, fromExcelText(inline ?? ""), formula);
  if (type === 2) {
    const one = v1 - v0 === 1 && buf[v0] === 0x31;
    const yes = one || (v1 - v0 === 4 && buf.toString("latin1", v0, v1) === "true");
    return sink.cell(row, col, style, Kind.Bool, v0 >= 0 && yes ? 1 : 0, null, formula);
  }
  // No <v>: no value. An empty <v/> of a shared string reads as string 0, as Number("") is 0.
  if (v0 < 0 || (v0 === v1 && type !== 1)) return sink.cell(row, col, style, Kind.Empty, 0, null, formula);
  let n = fastNumber(buf, v0, v1);
  if (Number.isNaN(n)) n = Number(buf.toString("latin1", v0, v1));
  return sink.cell(row, col, style, type === 1 ? Kind.Shared : Kind.Number, n, null, formula);
}

/** The body of a <c> from `from` to its </c>; returns where the next tag starts. */
function cellBody(buf: Buffer, row: RowRef, from: number, a: CellAttrs, col: number, sink: CellSink): number {
  let v: [number, number] | null = null;
  let inline = "";
  let phonetic = 0;
  let formula = false;
  let at = buf.indexOf(LT, from);
  while (at >= 0 && at < row.closeStart) {
    const name = localName(buf, at);
    const end = tagEnd(buf, at);
    if (end < 0) return -1;
    const closing = buf[at + 1] === SLASH;
    const self = buf[end - 2] === SLASH;
    if (closing && nameIs(buf, name, "c")) {
      emit(buf, row.row, col, a, v, inline, formula, sink);
      return buf.indexOf(LT, end);
    }
    if (nameIs(buf, name, "rPh")) phonetic += closing ? -1 : self ? 0 : 1;
    else if (!closing && nameIs(buf, name, "f")) {
      formula = true;
      if (a.cm && sink.spill && attrIn(buf, at, end, "t") === "array") {
        const ref = attrIn(buf, at, end, "ref");
        if (ref) sink.spill(row.row, col, ref);
      }
    } else if (!closing && !self && (nameIs(buf, name, "v") || (phonetic === 0 && nameIs(buf, name, "t")))) {
      const close = buf.indexOf(LT, end);
      if (nameIs(buf, name, "v")) v = [end, close];
      else inline += text(buf, end, close);
      at = close;
      continue;
    }
    at = buf.indexOf(LT, end);
  }
  return -1;
}

function emit(
  buf: Buffer,
  row: number,
  col: number,
  a: CellAttrs,
  v: [number, number] | null,
  inline: string,
  formula: boolean,
  sink: CellSink,
): void {
  const t = a.t;
  if (t === "inlineStr") return sink.cell(row, col, a.s, Kind.Text, 0, fromExcelText(inline), formula);
  if (t === "b") {
    const raw = v === null ? "" : buf.toString("latin1", v[0], v[1]);
    return sink.cell(row, col, a.s, Kind.Bool, raw === "1" || raw === "true" ? 1 : 0, null, formula);
  }
  if (v === null) return sink.cell(row, col, a.s, Kind.Empty, 0, null, formula);
  if (t === null || t === "n") {
    const raw = buf.toString("latin1", v[0], v[1]);
    return raw === ""
      ? sink.cell(row, col, a.s, Kind.Empty, 0, null, formula)
      : sink.cell(row, col, a.s, Kind.Number, Number(raw), null, formula);
  }
  if (t === "s") return sink.cell(row, col, a.s, Kind.Shared, Number(buf.toString("latin1", v[0], v[1])), null, formula);
  if (t === "d") return sink.cell(row, col, a.s, Kind.Iso, isoToSerial(buf.toString("latin1", v[0], v[1])), null, formula);
  return sink.cell(row, col, a.s, Kind.Text, 0, fromExcelText(text(buf, v[0], v[1])), formula); // str, e
}

/** An ISO 8601 date (t="d") as a 1900-system serial number. */
export function isoToSerial(iso: string): number {
  const ms = Date.parse(/[zZ]|[+-]\d\d:\d\d$/.test(iso) || !iso.includes("T") ? iso : `${iso}Z`);
  return Number.isNaN(ms) ? 0 : ms / 86_400_000 + 25_569;
}

/** A scanned value as the model reads it (before the 1904 conversion and the style). */
export function valueOf(kind: Kind, num: number, str: string | null, sst: readonly string[]): SheetValue {
  switch (kind) {
    case Kind.Number:
    case Kind.Iso:
      return num;
    case Kind.Shared:
      return sst[num] ?? "";
    case Kind.Bool:
      return num !== 0;
    case Kind.Text:
      return str ?? "";
    default:
      return "";
  }
}
