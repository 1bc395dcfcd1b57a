// A sheet's cells as the file port holds them (issue 35 §3: bounded memory). The cells read from the
// file sit in typed arrays, about 15 bytes a cell (a 100,000 × 20 placement in ~30 MB, where a Map of
// cell objects took ~500 MB); a row the port changes moves into an ordinary Map of cells, which is also
// the whole API: SheetStore is a Map<row, Map<col, ModelCell>> like the memory port's model, so every
// memory port method runs on it unchanged. `get(row)` hands out the live row (moving it into the Map);
// iterating hands out copies of rows still in the arrays, which are read-only. The port's own reads
// (values, number formats, the used area) read the arrays in place (`valueAt`, `readRow`, `usedIn`).
// The save compares only the rows marked `dirty` with the file and copies every other row's bytes.
import type { SheetValue } from "../port.ts";
import { Kind, valueOf, type CellSink } from "./scan.ts";
import { toModel, type ModelCell } from "./sheet.ts";
import type { CellStyle } from "./styles.ts";

const FORMULA = 0x80;

type Row = Map<number, ModelCell>;

/** What the store needs of the workbook: its shared strings, what each style index shows, its date system. */
export interface StoreContext {
  sst: readonly string[];
  style(s: number): CellStyle;
  date1904: boolean;
}

/** Collects the cells a scan reports (in document order) into a SheetStore. */
export class StoreBuilder implements CellSink {
  private n = 0;
  private m = 0;
  private cols: Uint16Array;
  private styles: Uint32Array;
  private kinds: Uint8Array;
  private nums: Float64Array;
  private rowNos: Int32Array;
  private rowStart: Int32Array;
  private readonly strs: string[] = [];
  private readonly strIndex = new Map<string, number>();
  private lastRow = -1;
  readonly spills: Array<{ row: number; col: number; ref: string }> = [];

  constructor(
    private readonly ctx: StoreContext,
    /** Cells the part is expected to hold (its <dimension>), to size the arrays once. */
    hint = 1024,
  ) {
    const n = Math.max(16, Math.min(hint, 1 << 25));
    this.cols = new Uint16Array(n);
    this.styles = new Uint32Array(n);
    this.kinds = new Uint8Array(n);
    this.nums = new Float64Array(n);
    this.rowNos = new Int32Array(256);
    this.rowStart = new Int32Array(257);
  }

  /** Per style index: its number format and whether it shows anything on an empty cell. */
  private readonly looks: Array<{ nf: string | null; shows: boolean } | undefined> = [];

  cell(row: number, col: number, style: number, kind: Kind, num: number, text: string | null, formula: boolean): void {
    let st = this.looks[style];
    if (!st) {
      const s = this.ctx.style(style);
      this.looks[style] = st = { nf: s.nf, shows: s.nf !== null || s.bold || s.fill !== undefined };
    }
    const empty = kind === Kind.Empty || (kind === Kind.Text && text === "") || (kind === Kind.Shared && (this.ctx.sst[num] ?? "") === "");
    if (empty && !st.shows) return; // shows nothing: not a cell of the model
    if (col < 0 || col > 0xffff) return;
    if (this.n === this.cols.length) this.grow();
    if (row !== this.lastRow) this.newRow(row);
    const i = this.n++;
    this.cols[i] = col;
    this.styles[i] = style;
    this.kinds[i] = (empty ? Kind.Empty : kind) | (formula ? FORMULA : 0);
    if (kind === Kind.Text) {
      let k = this.strIndex.get(text ?? "");
      if (k === undefined) {
        k = this.strs.push(text ?? "") - 1;
        this.strIndex.set(text ?? "", k);
      }
      this.nums[i] = k;
    } else if (kind === Kind.Number && this.ctx.date1904) this.nums[i] = toModel(num, st.nf, true) as number;
    else this.nums[i] = num;
  }

  spill(row: number, col: number, ref: string): void {
    this.spills.push({ row, col, ref });
  }

  private newRow(row: number): void {
    if (this.m + 1 >= this.rowNos.length) {
      const nos = new Int32Array(this.rowNos.length * 2);
      nos.set(this.rowNos);
      this.rowNos = nos;
      const start = new Int32Array(this.rowStart.length * 2);
      start.set(this.rowStart);
      this.rowStart = start;
    }
    this.rowNos[this.m] = row;
    this.rowStart[this.m] = this.n;
    this.m++;
    this.lastRow = row;
  }

  private grow(): void {
    const n = this.cols.length * 2;
    const grow = <T extends Uint16Array | Uint32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a as never);
      return b;
    };
    this.cols = grow(this.cols, (k) => new Uint16Array(k));
    this.styles = grow(this.styles, (k) => new Uint32Array(k));
    this.kinds = grow(this.kinds, (k) => new Uint8Array(k));
    this.nums = grow(this.nums, (k) => new Float64Array(k));
  }

  build(): SheetStore {
    return new SheetStore(this.base(), this.ctx);
  }

  /** The arrays collected, rows in ascending order (what a SheetStore holds). */
  base(): Base {
    this.rowStart[this.m] = this.n;
    // The arrays as they are when nearly full (no copy), else trimmed.
    const fit = <T extends Uint16Array | Uint32Array | Uint8Array | Float64Array | Int32Array>(a: T, n: number): T =>
      (n >= a.length * 0.75 ? a.subarray(0, n) : a.slice(0, n)) as T;
    const base: Base = {
      m: this.m,
      rowNos: fit(this.rowNos, this.m),
      rowStart: fit(this.rowStart, this.m + 1),
      cols: fit(this.cols, this.n),
      styles: fit(this.styles, this.n),
      kinds: fit(this.kinds, this.n),
      nums: fit(this.nums, this.n),
      strs: this.strs,
    };
    return sorted(base);
  }
}

/** A store's cells as read from the file: typed arrays, one entry per cell, rows in ascending order. */
export interface Base {
  m: number;
  rowNos: Int32Array;
  rowStart: Int32Array;
  cols: Uint16Array;
  styles: Uint32Array;
  kinds: Uint8Array;
  nums: Float64Array;
  strs: string[];
}

/** The base with its rows in ascending order (Excel writes them so; another writer may not). */
function sorted(b: Base): Base {
  let ok = true;
  for (let i = 1; i < b.m && ok; i++) ok = b.rowNos[i - 1]! < b.rowNos[i]!;
  if (ok) return b;
  const order = Array.from({ length: b.m }, (_, i) => i).sort((x, y) => b.rowNos[x]! - b.rowNos[y]! || x - y);
  const out: Base = { ...b, rowNos: new Int32Array(b.m), rowStart: new Int32Array(b.m + 1) };
  out.cols = new Uint16Array(b.cols.length);
  out.styles = new Uint32Array(b.styles.length);
  out.kinds = new Uint8Array(b.kinds.length);
  out.nums = new Float64Array(b.nums.length);
  let n = 0;
  order.forEach((from, to) => {
    out.rowNos[to] = b.rowNos[from]!;
    out.rowStart[to] = n;
    for (let i = b.rowStart[from]!; i < b.rowStart[from + 1]!; i++, n++) {
      out.cols[n] = b.cols[i]!;
      out.styles[n] = b.styles[i]!;
      out.kinds[n] = b.kinds[i]!;
      out.nums[n] = b.nums[i]!;
    }
  });
  out.rowStart[b.m] = n;
  return out;
}

/**
 * A sheet part read a group at a time (issue 35 §3): a part this port deflated in groups that start with a
 * row (zip.ts) can be read one group alone, so a refresh that reads and writes the last 1 % of a large
 * placement reads the groups holding those rows and no other. Segment k holds the rows from starts[k] up to
 * starts[k + 1] (the first also those above it).
 */
export interface Segments {
  starts: readonly number[];
  read(k: number): Base;
}

const EMPTY: Base = {
  m: 0,
  rowNos: new Int32Array(0),
  rowStart: new Int32Array(1),
  cols: new Uint16Array(0),
  styles: new Uint32Array(0),
  kinds: new Uint8Array(0),
  nums: new Float64Array(0),
  strs: [],
};

/** `b`'s rows put into `a` where they belong: both ascending, `b`'s rows all between two of `a`'s. */
function merged(a: Base, b: Base): Base {
  if (b.m === 0) return a;
  let at = 0; // the first row of `a` below b's
  while (at < a.m && a.rowNos[at]! < b.rowNos[0]!) at++;
  const cut = a.rowStart[at]!;
  const n = a.cols.length + b.cols.length;
  const join = <T extends Uint16Array | Uint32Array | Uint8Array | Float64Array>(x: T, y: T, make: (n: number) => T): T => {
    const out = make(n);
    out.set(x.subarray(0, cut) as never);
    out.set(y as never, cut);
    out.set(x.subarray(cut) as never, cut + y.length);
    return out;
  };
  const nums = join(a.nums, b.nums, (k) => new Float64Array(k));
  // b's text cells point into b's strings: they now follow a's.
  for (let i = 0; i < b.cols.length; i++) if ((b.kinds[i]! & ~FORMULA) === Kind.Text) nums[cut + i] = b.nums[i]! + a.strs.length;
  const rowNos = new Int32Array(a.m + b.m);
  rowNos.set(a.rowNos.subarray(0, at));
  rowNos.set(b.rowNos, at);
  rowNos.set(a.rowNos.subarray(at), at + b.m);
  const rowStart = new Int32Array(a.m + b.m + 1);
  rowStart.set(a.rowStart.subarray(0, at));
  for (let i = 0; i < b.m; i++) rowStart[at + i] = b.rowStart[i]! + cut;
  for (let i = at; i <= a.m; i++) rowStart[b.m + i] = a.rowStart[i]! + b.cols.length;
  return {
    m: a.m + b.m,
    rowNos,
    rowStart,
    cols: join(a.cols, b.cols, (k) => new Uint16Array(k)),
    styles: join(a.styles, b.styles, (k) => new Uint32Array(k)),
    kinds: join(a.kinds, b.kinds, (k) => new Uint8Array(k)),
    nums,
    strs: a.strs.concat(b.strs),
  };
}

export class SheetStore extends Map<number, Row> {
  /** Rows of the arrays that the Map now holds (or that were deleted). */
  private readonly shadow = new Set<number>();
  /** Rows to compare with the file at the next save: every row handed out, set or deleted since. */
  readonly dirty = new Set<number>();
  /** When each row was last handed out, set or deleted (`clock`'s value then): what `changedSince` looks at. */
  private readonly stamps = new Map<number, number>();
  /** Counts the changes; `everything` is the time of the last clear(). */
  private clock = 0;
  private everything = -1;
  private loaded: Base | null;
  private readonly reader: (() => Base) | null;
  /** Read a segment at a time: which are read (null once all are, or for a store read whole). */
  private segs: { src: Segments; read: boolean[] } | null = null;
  /** How many segments were read (tests, the bench). */
  segmentsRead = 0;

  /**
   * `base`: the cells read from the file, or how to read them — a sheet is then scanned the first time its
   * cells are looked at (issue 35 §3: a refresh that finds its placement as it left it reads no sheet) —
   * or its segments, each read the first time one of its rows is looked at.
   */
  constructor(
    base: Base | (() => Base) | Segments,
    private readonly ctx: StoreContext,
  ) {
    super();
    const segmented = typeof base === "object" && "starts" in base;
    this.loaded = typeof base === "function" ? null : segmented ? EMPTY : base;
    this.reader = typeof base === "function" ? base : null;
    if (segmented) this.segs = { src: base, read: base.starts.map(() => false) };
  }

  private get base(): Base {
    return (this.loaded ??= this.reader!());
  }

  /** Whether all of the sheet's cells were read from the file (a lazy store reads them when first looked at). */
  get isLoaded(): boolean {
    return this.loaded !== null && this.segs === null;
  }

  /** Whether it reads its cells a segment at a time, and some are not read yet. */
  get segmented(): boolean {
    return this.segs !== null;
  }

  /** Read the sheet's cells now, if not yet. */
  load(): void {
    void this.base;
    if (this.segs) this.segs.read.forEach((_, k) => this.readSegment(k));
  }

  /** The segments holding rows [row0, row1] are read. */
  private within(row0: number, row1: number): void {
    const g = this.segs;
    if (!g) return;
    const { starts } = g.src;
    for (let k = 0; k < starts.length; k++) {
      const end = k + 1 < starts.length ? starts[k + 1]! - 1 : Infinity;
      if ((k === 0 || starts[k]! <= row1) && end >= row0) this.readSegment(k);
    }
  }

  private readSegment(k: number): void {
    const g = this.segs;
    if (!g || g.read[k]) return;
    this.loaded = merged(this.base, g.src.read(k));
    g.read[k] = true;
    this.segmentsRead++;
    if (g.read.every(Boolean)) this.segs = null;
  }

  /** The store's clock now: pass it to changedSince later. */
  now(): number {
    return this.clock;
  }

  /** Whether any row in [row0, row1] was handed out, set or deleted after time `t` (now()). */
  changedSince(t: number, row0: number, row1: number): boolean {
    if (this.everything > t) return true;
    for (const [r, at] of this.stamps) if (at > t && r >= row0 && r <= row1) return true;
    return false;
  }

  private touch(r: number): void {
    this.dirty.add(r);
    this.stamps.set(r, ++this.clock);
  }

  /** The index of row `r` in the arrays, -1 when they do not have it (or the Map holds it now). */
  private index(r: number): number {
    this.within(r, r);
    let lo = 0;
    let hi = this.base.m - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.base.rowNos[mid]!;
      if (v === r) return this.shadow.has(r) ? -1 : mid;
      if (v < r) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  private value(i: number): SheetValue {
    const kind = (this.base.kinds[i]! & ~FORMULA) as Kind;
    const num = this.base.nums[i]!;
    return kind === Kind.Text ? this.base.strs[num]! : valueOf(kind, num, null, this.ctx.sst);
  }

  private cellAt(i: number): ModelCell {
    const st = this.ctx.style(this.base.styles[i]!);
    const cell: ModelCell = { v: this.value(i), nf: st.nf };
    if (st.bold) cell.b = true;
    if (st.fill !== undefined) cell.fill = st.fill;
    return cell;
  }

  /** A row of the arrays as a Map of cells (a copy). */
  private rowMap(i: number): Row {
    const out: Row = new Map();
    for (let k = this.base.rowStart[i]!; k < this.base.rowStart[i + 1]!; k++) out.set(this.base.cols[k]!, this.cellAt(k));
    return out;
  }

  // ---- reads that leave the arrays as they are --------------------------------------------

  /** The cell at (r, c) without moving its row into the Map; undefined when there is none. */
  peek(r: number, c: number): ModelCell | undefined {
    const own = super.get(r);
    if (own) return own.get(c);
    const i = this.index(r);
    if (i < 0) return undefined;
    for (let k = this.base.rowStart[i]!; k < this.base.rowStart[i + 1]!; k++) if (this.base.cols[k] === c) return this.cellAt(k);
    return undefined;
  }

  /** Values of row `r`, columns [col, col + cols), into `out` ("" where there is none). */
  readRow(r: number, col: number, cols: number, out: SheetValue[], formats?: string[]): void {
    out.length = cols;
    out.fill("");
    formats?.fill("General", 0, cols);
    const own = super.get(r);
    if (own) {
      for (let c = 0; c < cols; c++) {
        const cell = own.get(col + c);
        if (cell) {
          out[c] = cell.v;
          if (formats && cell.nf !== null) formats[c] = cell.nf;
        }
      }
      return;
    }
    const i = this.index(r);
    if (i < 0) return;
    for (let k = this.base.rowStart[i]!; k < this.base.rowStart[i + 1]!; k++) {
      const c = this.base.cols[k]! - col;
      if (c < 0 || c >= cols) continue;
      out[c] = this.value(k);
      if (formats) formats[c] = this.ctx.style(this.base.styles[k]!).nf ?? "General";
    }
  }

  /** The smallest area of [row0, row1] × [col0, col1] holding every non-empty value, null when none. */
  usedIn(row0: number, row1: number, col0: number, col1: number): { row: number; col: number; rows: number; cols: number } | null {
    let [top, bottom, left, right] = [Infinity, -1, Infinity, -1];
    const see = (r: number, c: number, v: SheetValue) => {
      if (c < col0 || c > col1 || v === "") return;
      top = Math.min(top, r);
      bottom = Math.max(bottom, r);
      left = Math.min(left, c);
      right = Math.max(right, c);
    };
    for (const [r, row] of super.entries()) if (r >= row0 && r <= row1) for (const [c, cell] of row) see(r, c, cell.v);
    this.within(row0, row1);
    for (let i = this.lowerBound(row0); i < this.base.m && this.base.rowNos[i]! <= row1; i++) {
      const r = this.base.rowNos[i]!;
      if (this.shadow.has(r)) continue;
      for (let k = this.base.rowStart[i]!; k < this.base.rowStart[i + 1]!; k++) see(r, this.base.cols[k]!, this.value(k));
    }
    return bottom < 0 ? null : { row: top, col: left, rows: bottom - top + 1, cols: right - left + 1 };
  }

  private lowerBound(r: number): number {
    let [lo, hi] = [0, this.base.m];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.base.rowNos[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The rows and columns the model's cells span (for <dimension>); null when it has none. Of a segmented
   * store, the segments read: the cells of the others are as the part holds them, inside its <dimension>,
   * whose extent the save keeps (sheet.ts withDimension).
   */
  bounds(): { r0: number; r1: number; c0: number; c1: number } | null {
    let [r0, r1, c0, c1] = [Infinity, -1, Infinity, -1];
    const see = (r: number, c: number) => {
      r0 = Math.min(r0, r);
      r1 = Math.max(r1, r);
      c0 = Math.min(c0, c);
      c1 = Math.max(c1, c);
    };
    for (const [r, row] of super.entries()) for (const c of row.keys()) see(r, c);
    for (let i = 0; i < this.base.m; i++) {
      if (this.shadow.has(this.base.rowNos[i]!)) continue;
      for (let k = this.base.rowStart[i]!; k < this.base.rowStart[i + 1]!; k++) see(this.base.rowNos[i]!, this.base.cols[k]!);
    }
    return r1 < 0 ? null : { r0, r1, c0, c1 };
  }

  /** The row as the model holds it for the save, without marking it (undefined: no cells). */
  rowForSave(r: number): Row | undefined {
    const own = super.get(r);
    if (own) return own;
    const i = this.index(r);
    return i < 0 ? undefined : this.rowMap(i);
  }

  /** The file now holds what the model shows (after a save). */
  saved(): void {
    this.dirty.clear();
  }

  // ---- the Map ------------------------------------------------------------------------------

  override get(r: number): Row | undefined {
    const own = super.get(r);
    if (own) {
      this.touch(r);
      return own;
    }
    const i = this.index(r);
    if (i < 0) return undefined;
    const row = this.rowMap(i); // the live row from now on
    this.shadow.add(r);
    this.touch(r);
    super.set(r, row);
    return row;
  }
  override set(r: number, row: Row): this {
    if (this.index(r) >= 0) this.shadow.add(r);
    this.touch(r);
    return super.set(r, row);
  }
  override has(r: number): boolean {
    return super.has(r) || this.index(r) >= 0;
  }
  override delete(r: number): boolean {
    const had = this.has(r);
    if (this.index(r) >= 0) this.shadow.add(r);
    if (had) this.touch(r);
    return super.delete(r) || had;
  }
  override clear(): void {
    this.load();
    for (let i = 0; i < this.base.m; i++) {
      this.shadow.add(this.base.rowNos[i]!);
      this.dirty.add(this.base.rowNos[i]!);
    }
    for (const r of super.keys()) this.touch(r);
    super.clear();
  }
  override get size(): number {
    this.load();
    let n = super.size;
    for (let i = 0; i < this.base.m; i++) if (!this.shadow.has(this.base.rowNos[i]!)) n++;
    return n;
  }
  override *entries(): MapIterator<[number, Row]> {
    this.load();
    yield* super.entries();
    for (let i = 0; i < this.base.m; i++) {
      const r = this.base.rowNos[i]!;
      if (!this.shadow.has(r) && !super.has(r)) yield [r, this.rowMap(i)];
    }
  }
  override *keys(): MapIterator<number> {
    this.load();
    yield* super.keys();
    for (let i = 0; i < this.base.m; i++) {
      const r = this.base.rowNos[i]!;
      if (!this.shadow.has(r) && !super.has(r)) yield r;
    }
  }
  override *values(): MapIterator<Row> {
    for (const [, row] of this.entries()) yield row;
  }
  override [Symbol.iterator](): MapIterator<[number, Row]> {
    return this.entries();
  }
  override forEach(f: (row: Row, r: number, map: Map<number, Row>) => void, thisArg?: unknown): void {
    for (const [r, row] of this.entries()) f.call(thisArg, row, r, this);
  }
}
