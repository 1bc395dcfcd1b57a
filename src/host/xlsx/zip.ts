// The zip layer of an .xlsx/.xlsm package: read the central directory, inflate the parts we edit
// (with limits: a zip bomb is refused), and write a new package in which every entry we did not
// edit is copied through byte for byte (local header, compressed data and data descriptor as they
// were; the central record too, with only its offset changed). Only the parts Cellbound edits are
// recompressed. Written here rather than taken from npm: the libraries we tried either recompress
// on save or rebuild every header, and a package must come back exactly as Excel left it.
import { constants, crc32, deflateRawSync, inflateRawSync } from "node:zlib";
import { XlsxError } from "./errors.ts";

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

/** Limits that keep a hostile file from exhausting memory. */
export const ZIP_LIMITS = {
  /** Largest uncompressed part we inflate. */
  maxPartBytes: 1024 * 1024 * 1024,
  /** Largest sum of declared uncompressed sizes. */
  maxTotalBytes: 4 * 1024 * 1024 * 1024,
  /** Largest compression ratio of a part of more than 1 MiB (Excel's XML compresses ~10–30×). */
  maxRatio: 1000,
  maxEntries: 65_000,
};

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  /** Offset of the local header in the source file. */
  offset: number;
  /** End of this entry's bytes in the source file (next entry or the central directory). */
  end: number;
  /** The raw central directory record. */
  central: Buffer;
  /**
   * Restart points of a part this port deflated (its central record's extra field GROUPS_EXTRA), when
   * they add up to the entry: the part's groups, each compressed on its own.
   */
  groups?: Group[];
  /** The central record's extra fields (other than zip64's sizes, which are applied): notes.ts reads its own there. */
  extra: Buffer;
}

/**
 * A group of a part deflated by PartDeflater: compressed on its own (no reference into an earlier
 * group) and ending byte-aligned, so it can be inflated alone and copied into a new part as it is.
 */
export interface Group {
  size: number;
  compressedSize: number;
  crc: number;
  /** The number of the row the group starts with; -1 when it starts with no row (the part's beginning). */
  row: number;
}

/** The extra field ("CB") in which a part's groups are kept: unknown extra fields are skipped by zip readers. */
export const GROUPS_EXTRA = 0x4243;

export class ZipReader {
  readonly entries: ZipEntry[];
  private readonly byName: Map<string, ZipEntry>;

  constructor(
    readonly file: string,
    readonly bytes: Buffer,
  ) {
    this.entries = readCentral(file, bytes);
    this.byName = new Map(this.entries.map((e) => [e.name, e]));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }
  entry(name: string): ZipEntry | undefined {
    return this.byName.get(name);
  }

  /** The compressed bytes of a part (a slice of the package). */
  compressed(e: ZipEntry): Buffer {
    const start = dataStart(this.file, this.bytes, e);
    return this.bytes.subarray(start, start + e.compressedSize);
  }

  /** The uncompressed bytes of a part, checked against its size and CRC. */
  read(name: string): Buffer {
    const e = this.byName.get(name);
    if (!e) throw new XlsxError(this.file, "corrupt", `the package has no part ${name}`);
    const data = this.bytes.subarray(dataStart(this.file, this.bytes, e), dataStart(this.file, this.bytes, e) + e.compressedSize);
    let out: Buffer;
    if (e.method === 0) out = Buffer.from(data);
    else if (e.method === 8) {
      try {
        // One output buffer of the declared size (no 16 KiB pieces to join); a part that inflates past it fails.
        const size = Math.max(1, Math.min(e.size, ZIP_LIMITS.maxPartBytes));
        out = inflateRawSync(data, { maxOutputLength: size, chunkSize: Math.max(64, Math.min(size + 1, 256 << 20)) });
      } catch (err) {
        const msg = (err as Error).message;
        throw new XlsxError(
          this.file,
          /maxOutputLength|buffer/i.test(msg) ? "zipBomb" : "corrupt",
          `part ${name} does not inflate to its declared size (${msg})`,
        );
      }
    } else throw new XlsxError(this.file, "corrupt", `part ${name} uses compression method ${e.method}, which Excel never writes`);
    if (out.length !== e.size) throw new XlsxError(this.file, "corrupt", `part ${name} has ${out.length} bytes, its header says ${e.size}`);
    if (crc32(out) >>> 0 !== e.crc) throw new XlsxError(this.file, "corrupt", `part ${name} fails its CRC check`);
    return out;
  }
  text(name: string): string {
    return this.read(name).toString("utf8");
  }

  /**
   * The uncompressed bytes of a part in pieces, in order (issue 35 §3: a sheet part is scanned as it
   * inflates, never held whole): one piece per group of a part this port deflated in groups (each
   * inflates alone), else the whole part in one. Checked as read() checks them — size and CRC once the
   * last piece is out, so a caller keeps what it made of the pieces only when the loop ends normally.
   */
  *pieces(name: string): Generator<Buffer> {
    const e = this.byName.get(name);
    if (!e?.groups || e.groups.length < 2) return yield this.read(name);
    const data = this.compressed(e);
    const limit = Math.max(1, Math.min(e.size, ZIP_LIMITS.maxPartBytes));
    let [at, length, crc] = [0, 0, 0];
    for (const g of e.groups) {
      let out: Buffer;
      try {
        const chunkSize = Math.max(64, Math.min(g.size + 1, limit + 1));
        out = inflateRawSync(data.subarray(at, at + g.compressedSize), {
          finishFlush: constants.Z_SYNC_FLUSH,
          maxOutputLength: limit,
          chunkSize,
        });
      } catch (err) {
        throw this.inflateError(name, (err as Error).message);
      }
      at += g.compressedSize;
      length += out.length;
      if (length > limit) throw this.inflateError(name, `more than ${limit} bytes`);
      crc = crc32(out, crc);
      yield out;
    }
    if (length !== e.size) throw new XlsxError(this.file, "corrupt", `part ${name} has ${length} bytes, its header says ${e.size}`);
    if (crc >>> 0 !== e.crc) throw new XlsxError(this.file, "corrupt", `part ${name} fails its CRC check`);
  }

  /**
   * Group `i` of a part this port deflated in groups, inflated alone and checked against the group's size
   * and CRC-32 (issue 35 §3: a sheet read a group at a time, SheetStore's segments).
   */
  group(name: string, i: number): Buffer {
    const e = this.byName.get(name);
    const g = e?.groups?.[i];
    if (!e || !g) throw new XlsxError(this.file, "corrupt", `part ${name} has no group ${i}`);
    let at = 0;
    for (let k = 0; k < i; k++) at += e.groups![k]!.compressedSize;
    const data = this.compressed(e).subarray(at, at + g.compressedSize);
    let out: Buffer;
    try {
      const limit = Math.max(1, Math.min(g.size, ZIP_LIMITS.maxPartBytes));
      out = inflateRawSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: limit, chunkSize: Math.max(64, g.size + 1) });
    } catch (err) {
      throw this.inflateError(name, (err as Error).message);
    }
    if (out.length !== g.size || crc32(out) >>> 0 !== g.crc >>> 0)
      throw new XlsxError(this.file, "corrupt", `part ${name} fails its CRC check (group ${i} of ${e.groups!.length})`);
    return out;
  }

  private inflateError(name: string, msg: string): XlsxError {
    return new XlsxError(
      this.file,
      /maxOutputLength|buffer|more than/i.test(msg) ? "zipBomb" : "corrupt",
      `part ${name} does not inflate to its declared size (${msg})`,
    );
  }

  /**
   * The beginning of a part, up to where `marker` first appears (the whole part when it never does),
   * as text: a sheet part's views before its cells, without inflating the cells (a stream cut short
   * inflates to what it holds with a sync flush).
   */
  head(name: string, marker: string): string {
    const e = this.byName.get(name);
    if (!e || e.method !== 8) return this.text(name);
    const start = dataStart(this.file, this.bytes, e);
    for (let take = 16_384; take < e.compressedSize; take *= 4) {
      let out: Buffer;
      try {
        out = inflateRawSync(this.bytes.subarray(start, start + take), { finishFlush: constants.Z_SYNC_FLUSH });
      } catch {
        break; // let read() report what is wrong with it
      }
      const at = out.indexOf(marker);
      if (at >= 0) return out.toString("utf8", 0, at);
    }
    return this.text(name);
  }
}

function dataStart(file: string, bytes: Buffer, e: ZipEntry): number {
  if (e.offset + 30 > bytes.length || bytes.readUInt32LE(e.offset) !== LOCAL)
    throw new XlsxError(file, "truncated", `the local header of ${e.name} is missing`);
  const start = e.offset + 30 + bytes.readUInt16LE(e.offset + 26) + bytes.readUInt16LE(e.offset + 28);
  if (start + e.compressedSize > bytes.length) throw new XlsxError(file, "truncated", `part ${e.name} is cut short`);
  return start;
}

function readCentral(file: string, b: Buffer): ZipEntry[] {
  if (b.length >= 8 && b.subarray(0, 8).equals(OLE))
    throw new XlsxError(
      file,
      "encrypted",
      "it is an encrypted (password-protected) workbook or an old binary .xls, not an .xlsx package; remove the password in Excel and save it as .xlsx",
    );
  if (b.length < 4 || b.readUInt32LE(0) !== LOCAL)
    throw new XlsxError(file, "notZip", "it is not an .xlsx/.xlsm workbook (not a zip package)");
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65_535); i--) {
    if (b.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new XlsxError(file, "truncated", "the zip package is truncated (its central directory is missing)");
  let count = b.readUInt16LE(eocd + 10);
  let size = b.readUInt32LE(eocd + 12);
  let offset = b.readUInt32LE(eocd + 16);
  if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && b.readUInt32LE(eocd - 20) === EOCD64_LOCATOR) {
    const at = Number(b.readBigUInt64LE(eocd - 12));
    if (at + 56 > b.length || b.readUInt32LE(at) !== EOCD64) throw new XlsxError(file, "truncated", "the zip64 directory is missing");
    count = Number(b.readBigUInt64LE(at + 32));
    size = Number(b.readBigUInt64LE(at + 40));
    offset = Number(b.readBigUInt64LE(at + 48));
  }
  if (count > ZIP_LIMITS.maxEntries) throw new XlsxError(file, "zipBomb", `the package holds ${count} parts`);
  if (offset + size > b.length) throw new XlsxError(file, "truncated", "the zip package is truncated (its directory points past the end)");
  const entries: ZipEntry[] = [];
  let p = offset;
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > b.length || b.readUInt32LE(p) !== CENTRAL) throw new XlsxError(file, "corrupt", "the zip directory is damaged");
    const nameLen = b.readUInt16LE(p + 28);
    const extraLen = b.readUInt16LE(p + 30);
    const commentLen = b.readUInt16LE(p + 32);
    const flags = b.readUInt16LE(p + 8);
    const e: ZipEntry = {
      name: b.toString(flags & 0x800 ? "utf8" : "latin1", p + 46, p + 46 + nameLen),
      method: b.readUInt16LE(p + 10),
      flags,
      crc: b.readUInt32LE(p + 16),
      compressedSize: b.readUInt32LE(p + 20),
      size: b.readUInt32LE(p + 24),
      offset: b.readUInt32LE(p + 42),
      end: 0,
      central: b.subarray(p, p + 46 + nameLen + extraLen + commentLen),
      extra: b.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen),
    };
    applyZip64(e, e.extra);
    const groups = readGroups(b.subarray(p + 46 + nameLen, p + 46 + nameLen + extraLen));
    if (groups && e.method === 8 && groupsMatch(groups, e)) e.groups = groups;
    if (flags & 1) throw new XlsxError(file, "encrypted", `part ${e.name} is encrypted`);
    if (e.offset >= offset) throw new XlsxError(file, "corrupt", `part ${e.name} points into the directory`);
    total += e.size;
    if (e.size > ZIP_LIMITS.maxPartBytes || total > ZIP_LIMITS.maxTotalBytes)
      throw new XlsxError(
        file,
        "zipBomb",
        `part ${e.name} would inflate to ${e.size} bytes, past the ${ZIP_LIMITS.maxPartBytes}-byte limit`,
      );
    if (e.size > 1024 * 1024 && e.size / Math.max(1, e.compressedSize) > ZIP_LIMITS.maxRatio)
      throw new XlsxError(file, "zipBomb", `part ${e.name} compresses ${Math.round(e.size / e.compressedSize)}:1, like a zip bomb`);
    entries.push(e);
    p += e.central.length;
  }
  const starts = [...entries].sort((x, y) => x.offset - y.offset);
  starts.forEach((e, i) => (e.end = i + 1 < starts.length ? starts[i + 1]!.offset : offset));
  for (const e of entries) if (e.end > b.length) throw new XlsxError(file, "truncated", `part ${e.name} is cut short`);
  return entries;
}

function readGroups(extra: Buffer): Group[] | null {
  for (let q = 0; q + 4 <= extra.length;) {
    const id = extra.readUInt16LE(q);
    const len = extra.readUInt16LE(q + 2);
    if (id === GROUPS_EXTRA && len >= 5 && q + 4 + len <= extra.length && extra[q + 4] === 1) {
      const n = extra.readUInt32LE(q + 5);
      if (9 + n * 16 > len + 4) return null;
      return Array.from({ length: n }, (_, i) => {
        const at = q + 9 + i * 16;
        return {
          size: extra.readUInt32LE(at),
          compressedSize: extra.readUInt32LE(at + 4),
          crc: extra.readUInt32LE(at + 8),
          row: extra.readInt32LE(at + 12),
        };
      });
    }
    q += 4 + len;
  }
  return null;
}
function groupsMatch(groups: readonly Group[], e: ZipEntry): boolean {
  let [size, compressed, crc] = [0, 0, 0];
  for (const g of groups) {
    size += g.size;
    compressed += g.compressedSize;
    crc = crc32Combine(crc, g.crc, g.size);
  }
  return groups.length > 0 && size === e.size && compressed === e.compressedSize && crc === e.crc;
}
function groupsExtra(groups: readonly Group[]): Buffer {
  const out = Buffer.alloc(4 + 5 + groups.length * 16);
  out.writeUInt16LE(GROUPS_EXTRA, 0);
  out.writeUInt16LE(out.length - 4, 2);
  out[4] = 1;
  out.writeUInt32LE(groups.length, 5);
  groups.forEach((g, i) => {
    const at = 9 + i * 16;
    out.writeUInt32LE(g.size, at);
    out.writeUInt32LE(g.compressedSize, at + 4);
    out.writeUInt32LE(g.crc, at + 8);
    out.writeInt32LE(g.row, at + 12);
  });
  return out;
}

// ---- CRC-32 of two pieces from their CRCs (zlib's crc32_combine) --------------------------------

function gf2Times(mat: Uint32Array, vec: number): number {
  let sum = 0;
  for (let i = 0; vec !== 0; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i]!;
  return sum >>> 0;
}
function gf2Square(square: Uint32Array, mat: Uint32Array): void {
  for (let n = 0; n < 32; n++) square[n] = gf2Times(mat, mat[n]!);
}
/** The CRC-32 of a + b from crc(a), crc(b) and b's length. */
export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  if (len2 <= 0) return crc1 >>> 0;
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row = (row << 1) >>> 0) odd[n] = row;
  gf2Square(even, odd);
  gf2Square(odd, even);
  let crc = crc1 >>> 0;
  for (let len = len2; len > 0;) {
    gf2Square(even, odd);
    if (len % 2) crc = gf2Times(even, crc);
    len = Math.floor(len / 2);
    if (len === 0) break;
    gf2Square(odd, even);
    if (len % 2) crc = gf2Times(odd, crc);
    len = Math.floor(len / 2);
  }
  return (crc ^ crc2) >>> 0;
}

/** Fields a zip64 "extra" (0x0001) holds for the values stored as 0xFFFFFFFF. */
function applyZip64(e: ZipEntry, extra: Buffer): void {
  for (let q = 0; q + 4 <= extra.length;) {
    const id = extra.readUInt16LE(q);
    const len = extra.readUInt16LE(q + 2);
    if (id === 1) {
      let r = q + 4;
      const next = () => {
        const v = Number(extra.readBigUInt64LE(r));
        r += 8;
        return v;
      };
      if (e.size === 0xffffffff) e.size = next();
      if (e.compressedSize === 0xffffffff) e.compressedSize = next();
      if (e.offset === 0xffffffff) e.offset = next();
    }
    q += 4 + len;
  }
}

/** A part deflated as it was produced (PartDeflater): its compressed chunks, CRC and size. */
export interface Deflated {
  chunks: Buffer[];
  crc: number;
  size: number;
  /** Its groups (PartDeflater), kept in the entry for the next save. */
  groups?: Group[];
}

/** One part of the new package: copied through (`from`), new/edited bytes, or already deflated. */
/**
 * A part of a package to write: copied as it is (`from`), or new bytes (`data`, deflated here) or bytes deflated
 * already; `extra`: extra fields for the new part's central record, given its CRC-32 and size (notes.ts).
 */
export type ZipOut =
  { name: string; from: ZipEntry } | { name: string; data: Buffer; extra?: Extra } | { name: string; deflated: Deflated; extra?: Extra };
type Extra = (crc: number, size: number) => Buffer;

/**
 * Deflates a part handed in as pieces (issue 35 §3: a large sheet part is never held whole), in groups
 * of a few MiB that start where a row starts: each group is compressed on its own and ends with a sync
 * flush (an empty stored block, byte-aligned, not final), the last one with the final block, so the
 * concatenation is one deflate stream (a little larger than one pass would make: the dictionary
 * restarts at each group). The groups are kept in the entry (GROUPS_EXTRA): the next save inflates and
 * deflates only the groups holding rows it changes, and copies the others as they are.
 */
export class PartDeflater {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private pendingRow = -1;
  private rowsSeen = 0;
  private readonly out: Required<Deflated> = { chunks: [], crc: 0, size: 0, groups: [] };

  constructor(private readonly groupBytes = 4 << 20) {}

  /** A piece of the part; `row`: the number of the row that starts at its first byte. */
  push(piece: Buffer, row?: number): void {
    if (piece.length === 0) return;
    if (row !== undefined && (this.rowsSeen++ === 0 || this.pendingBytes >= this.groupBytes)) this.flush(false);
    if (this.pending.length === 0 && row !== undefined) this.pendingRow = row;
    this.out.crc = crc32(piece, this.out.crc) >>> 0;
    this.out.size += piece.length;
    this.pending.push(piece);
    this.pendingBytes += piece.length;
  }

  /** A group of an earlier deflate of the part, copied as it is (it must not be the final one unless it ends the part). */
  pushGroup(compressed: Buffer, g: Group): void {
    this.flush(false);
    this.out.chunks.push(compressed);
    this.out.groups.push({ ...g });
    this.out.crc = crc32Combine(this.out.crc, g.crc, g.size);
    this.out.size += g.size;
    this.rowsSeen++;
  }

  private flush(last: boolean): void {
    if (this.pending.length === 0 && !last) return;
    const group = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    const options = { level: 6, chunkSize: Math.max(64, group.length >> 1), ...(last ? {} : { finishFlush: constants.Z_SYNC_FLUSH }) };
    const compressed = deflateRawSync(group, options);
    this.out.chunks.push(compressed);
    this.out.groups.push({ size: group.length, compressedSize: compressed.length, crc: crc32(group) >>> 0, row: this.pendingRow });
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingRow = -1;
  }

  finish(): Deflated {
    this.flush(true);
    return this.out;
  }
}

/** DOS date/time of 1980-01-01 00:00, as Excel stamps every part: the output depends only on the content. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** Build a package. Entries keep the order given; copied ones are byte-identical to the source. */
export function writeZip(source: Buffer, parts: readonly ZipOut[]): Buffer {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let pos = 0;
  for (const part of parts) {
    if ("from" in part) {
      const e = part.from;
      const raw = source.subarray(e.offset, e.end);
      chunks.push(raw);
      central.push(withOffset(e, pos));
      pos += raw.length;
      continue;
    }
    const name = Buffer.from(part.name, "utf8");
    const d = "deflated" in part ? part.deflated : null;
    const data = d ? d.chunks : [deflateRawSync((part as { data: Buffer }).data, { level: 6 })];
    const dataLength = data.reduce((n, c) => n + c.length, 0);
    const size = d ? d.size : (part as { data: Buffer }).data.length;
    const crc = d ? d.crc : crc32((part as { data: Buffer }).data) >>> 0;
    if (pos > 0xfffffffe || dataLength > 0xfffffffe || size > 0xfffffffe)
      throw new Error("the workbook would be larger than 4 GB, which this writer does not support");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(dataLength, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const rec = Buffer.alloc(46);
    rec.writeUInt32LE(CENTRAL, 0);
    rec.writeUInt16LE(20, 4);
    rec.writeUInt16LE(20, 6);
    rec.writeUInt16LE(0x800, 8);
    rec.writeUInt16LE(8, 10);
    rec.writeUInt16LE(0, 12);
    rec.writeUInt16LE(DOS_DATE, 14);
    rec.writeUInt32LE(crc, 16);
    rec.writeUInt32LE(dataLength, 20);
    rec.writeUInt32LE(size, 24);
    rec.writeUInt16LE(name.length, 28);
    rec.writeUInt32LE(pos, 42);
    // A part's groups go in its central record only (the local header stays as plain as Excel's).
    const groups = d?.groups && d.groups.length > 1 && d.groups.length < 4000 ? groupsExtra(d.groups) : Buffer.alloc(0);
    const more = part.extra?.(crc, size) ?? Buffer.alloc(0);
    const extra = groups.length + more.length <= 0xffff ? Buffer.concat([groups, more]) : groups;
    rec.writeUInt16LE(extra.length, 30);
    chunks.push(local, name, ...data);
    central.push(Buffer.concat([rec, name, extra]));
    pos += 30 + name.length + dataLength;
  }
  const dir = Buffer.concat(central);
  if (parts.length > 0xfffe || pos > 0xfffffffe) throw new Error("the workbook would need zip64, which this writer does not support");
  const end = Buffer.alloc(22);
  end.writeUInt32LE(EOCD, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(pos, 16);
  return Buffer.concat([...chunks, dir, end]);
}

/** The source's central record with the local header offset moved to `pos`. */
function withOffset(e: ZipEntry, pos: number): Buffer {
  const rec = Buffer.from(e.central);
  if (rec.readUInt32LE(42) !== 0xffffffff) {
    if (pos > 0xfffffffe) throw new Error("the workbook would need zip64, which this writer does not support");
    rec.writeUInt32LE(pos, 42);
    return rec;
  }
  // The offset lives in the zip64 extra field, after the sizes stored there.
  const nameLen = rec.readUInt16LE(28);
  const extraLen = rec.readUInt16LE(30);
  for (let q = 46 + nameLen; q + 4 <= 46 + nameLen + extraLen;) {
    const id = rec.readUInt16LE(q);
    const len = rec.readUInt16LE(q + 2);
    if (id === 1) {
      let r = q + 4;
      if (rec.readUInt32LE(24) === 0xffffffff) r += 8;
      if (rec.readUInt32LE(20) === 0xffffffff) r += 8;
      rec.writeBigUInt64LE(BigInt(pos), r);
      return rec;
    }
    q += 4 + len;
  }
  throw new Error(`the zip64 record of ${e.name} has no offset`);
}
