// Golden vectors pin format v1: any change to the cell encoding, the chunking or the payload
// fails here. The hex bytes and hashes below are the worked examples of docs/CHECKSUM.md §7.
// A plain second implementation (reference.ts) must agree with src/checksum on random grids too.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fingerprint, ready, type GridCell } from "../../src/checksum/index.ts";
import { ChunkEncoder } from "../../src/checksum/encode.ts";
import { h64Hex } from "../../src/checksum/hash.ts";
import { referenceChunkBytes, referenceFingerprint } from "./reference.ts";

const TINY: GridCell[][] = [
  ["a", 1, true, ""],
  ["é", -0.5, false, null],
];
const TINY_BYTES = "04000000" + "040100000061" + "03000000000000f03f" + "02" + "00" + "0501000000e900" + "03000000000000e0bf" + "01" + "00";

function bigGrid(): GridCell[][] {
  return Array.from({ length: 2401 }, (_, r) => [r, `row ${r}`, r % 3 === 0, r % 7 === 0 ? "" : `Zürich ${r % 11}`]);
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

describe("resultChecksum format v1 golden vectors", () => {
  it("the hash kernel is xxh64 with seed 0", async () => {
    await ready();
    expect(h64Hex(new Uint8Array(0))).toBe("ef46db3751d8e999");
    expect(h64Hex(new TextEncoder().encode("abc"))).toBe("44bc2cf5ad770999");
  });

  it("encodes a tiny grid to the documented bytes", () => {
    const enc = new ChunkEncoder();
    enc.begin(4);
    TINY.forEach((row, i) => enc.row(row, i));
    expect(hex(enc.bytes())).toBe(TINY_BYTES);
    expect(hex(referenceChunkBytes(TINY, 4))).toBe(TINY_BYTES);
  });

  it("fingerprints the tiny grid", async () => {
    expect(await fingerprint(TINY)).toEqual({
      v: 1,
      chunks: [{ from: 0, to: 2, hash: "46e09991b69f922a" }],
      payload: "2x4:43f96d9f3af4f1c2",
    });
  });

  it("fingerprints empty grids", async () => {
    expect(await fingerprint([])).toEqual({ v: 1, chunks: [], payload: "0x0:34c96acdcadb1bbb" });
    expect(await fingerprint([[]])).toEqual({
      v: 1,
      chunks: [{ from: 0, to: 1, hash: "3aefa6fd5cf2deb4" }],
      payload: "1x0:f5692416ad740011",
    });
  });

  it("fingerprints 2,401 rows in three chunks of 1000, 1000 and 401 rows", async () => {
    expect(await fingerprint(bigGrid())).toEqual({
      v: 1,
      chunks: [
        { from: 0, to: 1000, hash: "c0523b668c1a11d4" },
        { from: 1000, to: 2000, hash: "0a4884fb1e409877" },
        { from: 2000, to: 2401, hash: "0ba62fefb4d99a37" },
      ],
      payload: "2401x4:58f863bf99151796",
    });
  });

  it('−0 and +0 encode alike; null and "" encode alike', async () => {
    expect(await fingerprint([[-0, null]])).toEqual(await fingerprint([[0, ""]]));
  });

  it("agrees with the plain reference implementation on random grids", async () => {
    const cell = fc.oneof(
      fc.string({ unit: "binary", maxLength: 6 }),
      fc.string({ maxLength: 6 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
    );
    const grid = fc
      .integer({ min: 0, max: 4 })
      .chain((cols) => fc.array(fc.array(cell, { minLength: cols, maxLength: cols }), { maxLength: 1100 }));
    await fc.assert(
      fc.asyncProperty(grid, async (g) => {
        expect(await fingerprint(g)).toEqual(await referenceFingerprint(g));
      }),
      { numRuns: 200 },
    );
  }, 60_000);
});
