// Canonical bytes of a chunk of rows (format v1), written in one pass into a reusable buffer.
//
// Layout (docs/CHECKSUM.md §4): u32le column count, then every cell row-major:
//   0x00 empty ("" or null) · 0x01 false · 0x02 true
//   0x03 number: 8 bytes IEEE-754 binary64, little-endian (−0 written as +0)
//   0x04 text whose code units are all < 0x80: u32le length, then one byte per code unit
//   0x05 any other text: u32le length in UTF-16 code units, then each code unit as u16le
// The two text forms make the encoding exact for every JS string (lone surrogates included)
// and keep the common ASCII case at one byte per character with no TextEncoder call.

/** A cell of a grid given to the checksum: what `range.values` returns, null read as empty. */
export type GridCell = string | number | boolean | null;

export const TAG_EMPTY = 0x00;
export const TAG_FALSE = 0x01;
export const TAG_TRUE = 0x02;
export const TAG_NUMBER = 0x03;
export const TAG_ASCII = 0x04;
export const TAG_UTF16 = 0x05;

export class ChunkEncoder {
  private buf = new Uint8Array(1 << 20);
  private view = new DataView(this.buf.buffer);
  private pos = 0;

  /** Start a new chunk of a grid `cols` wide. */
  begin(cols: number): void {
    this.pos = 0;
    this.u32(cols);
  }

  /** The chunk's canonical bytes so far (a view into the encoder's buffer: copy it to keep it). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** Append one row; `rowIndex` is only used in error messages. */
  row(cells: ReadonlyArray<GridCell>, rowIndex: number): void {
    for (let c = 0; c < cells.length; c++) {
      const v = cells[c];
      if (typeof v === "string") this.text(v);
      else if (typeof v === "number") this.number(v, rowIndex, c);
      else if (v === true) this.tag(TAG_TRUE);
      else if (v === false) this.tag(TAG_FALSE);
      else if (v === null) this.tag(TAG_EMPTY);
      else throw new TypeError(`checksum: cell (${rowIndex}, ${c}) is ${describe(v)}, not a sheet value (string, number, boolean or null)`);
    }
  }

  private tag(t: number): void {
    if (this.pos + 1 > this.buf.length) this.grow(1);
    this.buf[this.pos++] = t;
  }

  private number(x: number, row: number, col: number): void {
    if (x - x !== 0) throw new TypeError(`checksum: cell (${row}, ${col}) is ${x}, which no cell can hold (project values with toCell)`);
    if (this.pos + 9 > this.buf.length) this.grow(9);
    this.buf[this.pos] = TAG_NUMBER;
    this.view.setFloat64(this.pos + 1, x === 0 ? 0 : x, true);
    this.pos += 9;
  }

  private text(s: string): void {
    const n = s.length;
    if (n === 0) {
      this.tag(TAG_EMPTY);
      return;
    }
    if (this.pos + 5 + 2 * n > this.buf.length) this.grow(5 + 2 * n);
    const buf = this.buf;
    const start = this.pos;
    let p = start + 5;
    for (let i = 0; i < n; i++) {
      const ch = s.charCodeAt(i);
      if (ch >= 0x80) {
        this.utf16(s, start);
        return;
      }
      buf[p++] = ch;
    }
    buf[start] = TAG_ASCII;
    this.view.setUint32(start + 1, n, true);
    this.pos = p;
  }

  /** Rewrite the text at `start` in the UTF-16 form (room for it was reserved by text()). */
  private utf16(s: string, start: number): void {
    const buf = this.buf;
    const n = s.length;
    buf[start] = TAG_UTF16;
    this.view.setUint32(start + 1, n, true);
    let p = start + 5;
    for (let i = 0; i < n; i++) {
      const ch = s.charCodeAt(i);
      buf[p] = ch & 0xff;
      buf[p + 1] = ch >>> 8;
      p += 2;
    }
    this.pos = p;
  }

  private u32(x: number): void {
    if (this.pos + 4 > this.buf.length) this.grow(4);
    this.view.setUint32(this.pos, x, true);
    this.pos += 4;
  }

  private grow(need: number): void {
    let size = this.buf.length * 2;
    while (size < this.pos + need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
}

function describe(v: unknown): string {
  if (v === undefined) return "missing (undefined)";
  return typeof v;
}
