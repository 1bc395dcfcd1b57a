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
    let pos = this.pos;
    for (let c = 0; c < n; c++) {
      const v = cells[c];
      if (typeof v === "string") {
        const len = v.length;
        if (pos + 5 + 2 * len > buf.length) {
          this.pos = pos;
          buf = this.reserve(5 + 2 * len);
        }
        if (len === 0) {
          buf[pos++] = TAG_EMPTY;
          continue;
        }
        const start = pos;
        let p = start + 5;
        let seen = 0; // OR of all code units: ≥ 0x80 when the text is not ASCII
        for (let i = 0; i < len; i++) {
          const ch = v.charCodeAt(i);
          seen |= ch;
          buf[p++] = ch;
        }
        if (seen < 0x80) {
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
        if (v - v !== 0) throw new TypeError(`checksum: cell (${rowIndex}, ${c}) is ${v}, which no cell can hold (project values with toCell)`);
        if (pos + 9 > buf.length) {
          this.pos = pos;
          buf = this.reserve(9);
        }
        buf[pos] = TAG_NUMBER;
        F64[0] = v === 0 ? 0 : v; // −0 is written as +0
        buf[pos + 1] = F64_BYTES[LE0]!;
        buf[pos + 2] = F64_BYTES[LE0 ^ 1]!;
        buf[pos + 3] = F64_BYTES[LE0 ^ 2]!;
        buf[pos + 4] = F64_BYTES[LE0 ^ 3]!;
        buf[pos + 5] = F64_BYTES[LE0 ^ 4]!;
        buf[pos + 6] = F64_BYTES[LE0 ^ 5]!;
        buf[pos + 7] = F64_BYTES[LE0 ^ 6]!;
        buf[pos + 8] = F64_BYTES[LE0 ^ 7]!;
        pos += 9;
      } else {
        if (pos + 1 > buf.length) {
          this.pos = pos;
          buf = this.reserve(1);
        }
        if (v === true) buf[pos++] = TAG_TRUE;
        else if (v === false) buf[pos++] = TAG_FALSE;
        else if (v === null) buf[pos++] = TAG_EMPTY;
        else throw new TypeError(`checksum: cell (${rowIndex}, ${c}) is ${describe(v)}, not a sheet value (string, number, boolean or null)`);
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
    return next;
  }
}

/** Scratch for a number's bytes; LE0 = index of its least significant byte on this platform (0 on little-endian). */
const F64 = new Float64Array(1);
const F64_BYTES = new Uint8Array(F64.buffer);
const LE0 = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 7;

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
