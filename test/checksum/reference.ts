// A second, deliberately plain implementation of format v1, written from docs/CHECKSUM.md only:
// canonical bytes with DataView and no fast paths, xxh64 straight from xxhash-wasm. The golden
// test checks that src/checksum produces the same bytes and hashes.
import xxhash from "xxhash-wasm";
import type { GridCell, ResultChecksum } from "../../src/checksum/index.ts";

const CHUNK = 1000;

export function referenceChunkBytes(rows: GridCell[][], cols: number): Uint8Array {
  const parts: number[] = [];
  const u32 = (x: number) => parts.push(x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff);
  u32(cols);
  for (const row of rows) {
    for (const v of row) {
      if (v === null || v === "") parts.push(0);
      else if (v === false) parts.push(1);
      else if (v === true) parts.push(2);
      else if (typeof v === "number") {
        const dv = new DataView(new ArrayBuffer(8));
        dv.setFloat64(0, Object.is(v, -0) ? 0 : v, true);
        parts.push(3, ...new Uint8Array(dv.buffer));
      } else {
        const codes = Array.from({ length: v.length }, (_, i) => v.charCodeAt(i));
        const ascii = codes.every((c) => c < 0x80);
        parts.push(ascii ? 4 : 5);
        u32(v.length);
        for (const c of codes) {
          if (ascii) parts.push(c);
          else parts.push(c & 0xff, c >>> 8);
        }
      }
    }
  }
  return Uint8Array.from(parts);
}

export async function referenceFingerprint(grid: GridCell[][]): Promise<ResultChecksum> {
  const { h64Raw } = await xxhash();
  const hex = (b: Uint8Array) => h64Raw(b, 0n).toString(16).padStart(16, "0");
  const cols = grid[0]?.length ?? 0;
  const chunks: ResultChecksum["chunks"] = [];
  for (let from = 0; from < grid.length; from += CHUNK) {
    const to = Math.min(from + CHUNK, grid.length);
    chunks.push({ from, to, hash: hex(referenceChunkBytes(grid.slice(from, to), cols)) });
  }
  const head = new DataView(new ArrayBuffer(8 + 8 * chunks.length));
  head.setUint32(0, grid.length, true);
  head.setUint32(4, cols, true);
  chunks.forEach((c, i) => head.setBigUint64(8 + 8 * i, BigInt("0x" + c.hash), false));
  return { v: 1, chunks, payload: `${grid.length}x${cols}:${hex(new Uint8Array(head.buffer))}` };
}
