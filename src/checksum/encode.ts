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
  private buf: Uint8Array = new Uint8Array(1 << 20);
  private view = new DataView(this.buf.buffer);
  private pos = 0;

  /** Start a new chunk of a grid `cols` wide. */
  begin(cols: number): void {
    this.pos = 0;
    this.reserve(4);
    writeU32(this.buf, 0, cols);
    this.pos = 4;
  }

  /** The chunk's canonical bytes so far (a view into the encoder's buffer: copy it to keep it). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /**
   * Append one row; `rowIndex` is only used in error messages. One tight loop with locals: this
   * is the hot path of fingerprinting (see bench/checksum.bench.ts).
   */
  row(cells: ReadonlyArray<GridCell>, rowIndex: number): void {
    const n = cells.length;
    let buf = this.buf;
    let view = this.view;
    let pos = this.pos;
    for (let c = 0; c < n; c++) {
      const v = cells[c];
      if (typeof v === "string") {
        const len = v.length;
        if (pos + 5 + 2 * len > buf.length) {
          this.pos = pos;
          buf = this.reserve(5 + 2 * len);
          view = this.view;
        }
        if (len === 0) {
          buf[pos++] = TAG_EMPTY;
          continue;
        }
        const start = pos;
        let p = start + 5;
        let i = 0;
        for (; i < len; i++) {
          const ch = v.charCodeAt(i);
          if (ch >= 0x80) break;
          buf[p++] = ch;
        }
        if (i === len) {
          buf[start] = TAG_ASCII;
        } else {
          buf[start] = TAG_UTF16;
          p = start + 5;
          for (let j = 0; j < len; j++) {
            const ch = v.charCodeAt(j);
            buf[p] = ch & 0xff;
            buf[p + 1] = ch >>> 8;
            p += 2;
          }
        }
        writeU32(buf, start + 1, len);
        pos = p;
      } else if (typeof v === "number") {
        if (v - v !== 0)
          throw new TypeError(`checksum: cell (${rowIndex}, ${c}) is ${v}, which no cell can hold (project values with toCell)`);
        if (pos + 9 > buf.length) {
          this.pos = pos;
          buf = this.reserve(9);
          view = this.view;
        }
        buf[pos] = TAG_NUMBER;
        view.setFloat64(pos + 1, v === 0 ? 0 : v, true); // −0 is written as +0
        pos += 9;
      } else {
        if (pos + 1 > buf.length) {
          this.pos = pos;
          buf = this.reserve(1);
        }
        if (v === true) buf[pos++] = TAG_TRUE;
        else if (v === false) buf[pos++] = TAG_FALSE;
        else if (v === null) buf[pos++] = TAG_EMPTY;
        else
          throw new TypeError(`checksum: cell (${rowIndex}, ${c}) is ${describe(v)}, not a sheet value (string, number, boolean or null)`);
      }
    }
    this.pos = pos;
  }

  /** Make room for `need` more bytes after this.pos; returns the (possibly new) buffer. */
  private reserve(need: number): Uint8Array {
    if (this.pos + need <= this.buf.length) return this.buf;
    let size = this.buf.length * 2;
    while (size < this.pos + need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
    return next;
  }
}

function writeU32(buf: Uint8Array, at: number, x: number): void {
  buf[at] = x & 0xff;
  buf[at + 1] = (x >>> 8) & 0xff;
  buf[at + 2] = (x >>> 16) & 0xff;
  buf[at + 3] = x >>> 24;
}

function describe(v: unknown): string {
  if (v === undefined) return "missing (undefined)";
  return typeof v;
}
