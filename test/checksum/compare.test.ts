// compare, planRewrite and the validation of stored checksums (docs/CHECKSUM.md §6).
import { describe, expect, it } from "vitest";
import {
  CHUNK_ROWS,
  ChecksumFormatError,
  chunkRanges,
  compare,
  fingerprint,
  mergeRanges,
  parseChecksum,
  planRewrite,
  type Cell,
} from "../../src/checksum/index.ts";

function grid(rows: number, cols: number, tag = "v"): Cell[][] {
  return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (_, c) => (c === 0 ? r : `${tag}${r}-${c}`)));
}

function edit(g: Cell[][], row: number, col: number, value: Cell): Cell[][] {
  const out = g.map((r) => [...r]);
  out[row]![col] = value;
  return out;
}

describe("chunkRanges", () => {
  it("splits rows into half-open chunks of CHUNK_ROWS from the anchor", () => {
    expect(CHUNK_ROWS).toBe(1000);
    expect(chunkRanges(0)).toEqual([]);
    expect(chunkRanges(1)).toEqual([{ from: 0, to: 1 }]);
    expect(chunkRanges(2002)).toEqual([
      { from: 0, to: 1000 },
      { from: 1000, to: 2000 },
      { from: 2000, to: 2002 },
    ]);
    expect(() => chunkRanges(-1)).toThrow(RangeError);
  });
});

describe("compare", () => {
  it("names the edited chunk and nothing else", async () => {
    const g = grid(2400, 3);
    const stored = await fingerprint(g);
    expect(await compare(edit(g, 1484, 1, "by hand"), stored)).toEqual({
      same: false,
      editedChunks: [{ from: 1000, to: 2000 }],
      shapeChanged: false,
    });
  });
  it("reports a changed shape: rows removed, columns added", async () => {
    const g = grid(1400, 3);
    const stored = await fingerprint(g);
    const shorter = await compare(g.slice(0, 1200), stored);
    expect(shorter).toEqual({ same: false, editedChunks: [{ from: 1000, to: 1400 }], shapeChanged: true });
    const wider = await compare(grid(1400, 4), stored);
    expect(wider.shapeChanged).toBe(true);
    expect(wider.editedChunks).toEqual([
      { from: 0, to: 1000 },
      { from: 1000, to: 1400 },
    ]);
  });
  it("rejects a malformed or unknown-version stored checksum with a clear error", async () => {
    const g = grid(3, 2);
    await expect(compare(g, { v: 2, chunks: [] })).rejects.toThrow(/v=2 is not supported/);
    await expect(compare(g, { v: 1, chunks: [{ from: 1, to: 3, hash: "0123456789abcdef" }] })).rejects.toThrow(ChecksumFormatError);
    await expect(compare(g, { v: 1, chunks: [{ from: 0, to: 3, hash: "xyz" }] })).rejects.toThrow(/16 lowercase hex/);
    await expect(
      compare(g, { v: 1, chunks: [{ from: 0, to: 3, hash: "0123456789abcdef" }], payload: "4x2:0123456789abcdef" }),
    ).rejects.toThrow(/payload says 4 rows/);
  });
  it("accepts a stored checksum without payload (payload is optional in seeds 01 §2.3)", async () => {
    const g = grid(3, 2);
    const { v, chunks } = await fingerprint(g);
    expect(await compare(g, { v, chunks })).toEqual({ same: true, editedChunks: [], shapeChanged: false });
  });
  it("rejects ragged grids and values no cell holds", async () => {
    await expect(fingerprint([[1, 2], [3]])).rejects.toThrow(/row 1 has 1 cells, expected 2/);
    await expect(fingerprint([[NaN]])).rejects.toThrow(/no cell can hold/);
    await expect(fingerprint([[{} as unknown as Cell]])).rejects.toThrow(/not a sheet value/);
  });
});

describe("parseChecksum", () => {
  it("round-trips a fingerprint through JSON", async () => {
    const fp = await fingerprint(grid(1001, 2));
    expect(parseChecksum(JSON.parse(JSON.stringify(fp)))).toEqual(fp);
  });
  it("rejects non-v1 chunking", () => {
    expect(() =>
      parseChecksum({
        v: 1,
        chunks: [
          { from: 0, to: 400, hash: "0123456789abcdef" },
          { from: 400, to: 500, hash: "0123456789abcdef" },
        ],
      }),
    ).toThrow(/chunk 0 ends at 400/);
    expect(() => parseChecksum(null)).toThrow(/not an object/);
  });
});

describe("planRewrite", () => {
  it("writes only the chunks whose data changed", async () => {
    const old = grid(3000, 3);
    const stored = await fingerprint(old);
    const incoming = await fingerprint(edit(old, 2400, 2, "new value"));
    const plan = planRewrite(stored, incoming, stored);
    expect(plan).toEqual({
      write: [{ from: 2000, to: 3000 }],
      skip: [
        { from: 0, to: 1000 },
        { from: 1000, to: 2000 },
      ],
      overwritesEdits: [],
      clear: [],
      shapeChanged: false,
    });
  });
  it("lists hand edits the write would overwrite, and not those it leaves alone", async () => {
    const old = grid(3000, 3);
    const stored = await fingerprint(old);
    const current = await fingerprint(edit(edit(old, 10, 1, "hand"), 2200, 1, "hand"));
    const incoming = await fingerprint(edit(old, 2400, 2, "new value"));
    const plan = planRewrite(stored, incoming, current);
    expect(plan.write).toEqual([
      { from: 0, to: 1000 },
      { from: 2000, to: 3000 },
    ]);
    expect(plan.overwritesEdits).toEqual([
      { from: 0, to: 1000 },
      { from: 2000, to: 3000 },
    ]);
    expect(plan.skip).toEqual([{ from: 1000, to: 2000 }]);
  });
  it("clears what a shrinking result leaves behind, rows and columns", async () => {
    const stored = await fingerprint(grid(2400, 4));
    const incoming = await fingerprint(grid(1200, 3));
    const plan = planRewrite(stored, incoming, stored);
    expect(plan.shapeChanged).toBe(true);
    expect(plan.write).toEqual([
      { from: 0, to: 1000 },
      { from: 1000, to: 1200 },
    ]);
    expect(plan.clear).toEqual([
      { fromRow: 1200, toRow: 2400, fromCol: 0, toCol: 4 },
      { fromRow: 0, toRow: 1200, fromCol: 3, toCol: 4 },
    ]);
  });
  it("writes everything on a first write (no stored checksum) over an empty area", async () => {
    const incoming = await fingerprint(grid(501, 2));
    const plan = planRewrite(null, incoming, await fingerprint([]));
    expect(plan.write).toEqual(chunkRanges(501));
    expect(plan.overwritesEdits).toEqual([]);
    expect(mergeRanges(plan.write)).toEqual([{ from: 0, to: 501 }]);
  });
});
