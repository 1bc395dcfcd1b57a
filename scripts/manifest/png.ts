// Reads a PNG's pixel size from its header (signature + IHDR), without decoding it.
import { openSync, readSync, closeSync } from "node:fs";

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export type PngSize = { ok: true; width: number; height: number } | { ok: false; reason: string };

/** Width and height from the first 24 bytes of a PNG (8 signature + 4 length + "IHDR" + 4 + 4). */
export function pngSizeFromHeader(head: Buffer): PngSize {
  if (head.length < 24 || !head.subarray(0, 8).equals(SIGNATURE)) return { ok: false, reason: "not a PNG file" };
  if (head.toString("latin1", 12, 16) !== "IHDR") return { ok: false, reason: "PNG has no IHDR chunk first" };
  return { ok: true, width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

export function readPngSize(file: string): PngSize {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return { ok: false, reason: "file not found" };
  }
  try {
    const head = Buffer.alloc(24);
    const read = readSync(fd, head, 0, 24, 0);
    return pngSizeFromHeader(head.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}
