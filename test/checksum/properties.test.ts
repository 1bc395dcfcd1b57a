// Property tests of resultChecksum v1 (issue 4): no false "edited" after Excel's round trip,
// a change flips exactly the chunks it touches (and the payload), streaming = whole grid.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CHUNK_ROWS,
  columnNumberFormat,
  compare,
  fingerprint,
  toCell,
  type Cell,
  type ColumnType,
  type Grid,
  type ResultChecksum,
} from "../../src/checksum/index.ts";
import { rawTableArb, rawValueArb, type RawTable } from "./arbitraries.ts";
import { READ_BACKS } from "./excel-model.ts";

function project(table: RawTable): Cell[][] {
  return table.rows.map((row) => row.map((v, c) => toCell(v, table.types[c]!, { timezone: table.timezone })));
}

/** Deterministic PRNG for expanding a few rows into a grid of up to 1,600 rows cheaply. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

interface BigGrid {
  types: ColumnType[];
  grid: Cell[][];
  seed: number;
}

/** Grids of 0–1,600 rows (chunk boundaries included) built from a pool of projected edge-value rows. */
const bigGridArb: fc.Arbitrary<BigGrid> = fc
  .record({
    table: rawTableArb(6, false).filter((t) => t.rows.length > 0),
    rows: fc.oneof(fc.integer({ min: 0, max: 2400 }), fc.constantFrom(1, 999, 1000, 1001, 1999, 2000, 2001)),
    seed: fc.integer(),
  })
  .map(({ table, rows, seed }) => {
    const pool = project(table);
    const next = prng(seed);
    const grid = Array.from({ length: rows }, () => [...pool[next() % pool.length]!]);
    return { types: table.types, grid, seed };
  });

function sameCell(a: Cell, b: Cell): boolean {
  return a === b;
}

/** Reference, independent of hashing: the chunk indexes whose rows differ between two grids. */
function chunksThatDiffer(a: Cell[][], b: Cell[][]): number[] {
  const out: number[] = [];
  const n = Math.ceil(Math.max(a.length, b.length) / CHUNK_ROWS);
  for (let i = 0; i < n; i++) {
    const x = a.slice(i * CHUNK_ROWS, (i + 1) * CHUNK_ROWS);
    const y = b.slice(i * CHUNK_ROWS, (i + 1) * CHUNK_ROWS);
    const differ = x.length !== y.length || x.some((row, r) => row.some((cell, c) => !sameCell(cell, y[r]![c]!)));
    if (differ) out.push(i);
  }
  return out;
}

/** The chunk indexes whose hash flipped between two fingerprints (present on one side only counts). */
function flipped(a: ResultChecksum, b: ResultChecksum): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.max(a.chunks.length, b.chunks.length); i++) {
    if (a.chunks[i]?.hash !== b.chunks[i]?.hash || a.chunks[i]?.to !== b.chunks[i]?.to) out.push(i);
  }
  return out;
}

async function* inBlocks(grid: Grid, seed: number): AsyncIterable<Grid> {
  const next = prng(seed);
  for (let i = 0; i < grid.length;) {
    const size = 1 + (next() % 700);
    yield grid.slice(i, i + size);
    i += size;
  }
}

describe("resultChecksum v1 properties", () => {
  for (const readBack of READ_BACKS) {
    it(`toCell then Excel's round trip (${readBack.name}) gives the same fingerprint: no false "edited" (10,000 grids)`, async () => {
      await fc.assert(
        fc.asyncProperty(rawTableArb(30), async (table) => {
          const written = project(table);
          const notCells = written
            .flat()
            .filter((cell) => typeof cell !== "string" && typeof cell !== "number" && typeof cell !== "boolean");
          expect(notCells).toEqual([]);
          const formats = table.types.map((t) => columnNumberFormat(t));
          const read = await readBack.roundTrip(written, formats);
          const stored = await fingerprint(written);
          expect(await fingerprint(read)).toEqual(stored);
          const verdict = await compare(read, stored);
          expect(verdict).toEqual({ same: true, editedChunks: [], shapeChanged: false });
        }),
        { numRuns: 10_000 },
      );
    }, 300_000);
  }

  it("changing any single cell flips exactly its chunk and the payload", async () => {
    await fc.assert(
      fc.asyncProperty(
        bigGridArb.filter((g) => g.grid.length > 0),
        fc.nat(),
        fc.nat(),
        fc.integer(),
        async ({ types, grid }, rowPick, colPick, valueSeed) => {
          const r = rowPick % grid.length;
          const c = colPick % types.length;
          const raw = fc.sample(rawValueArb(types[c]!, false), { numRuns: 1, seed: valueSeed })[0]!;
          const edited = grid.map((row) => [...row]);
          edited[r]![c] = toCell(raw, types[c]!);
          const before = await fingerprint(grid);
          const after = await fingerprint(edited);
          const expected = chunksThatDiffer(grid, edited);
          expect(expected.length <= 1).toBe(true);
          expect(flipped(before, after)).toEqual(expected);
          if (expected.length === 1) expect(expected[0]).toBe(Math.floor(r / CHUNK_ROWS));
          expect(after.payload !== before.payload).toBe(expected.length > 0);
          const verdict = await compare(edited, before);
          expect(verdict.editedChunks.map((e) => e.from / CHUNK_ROWS)).toEqual(expected);
          expect(verdict.same).toBe(expected.length === 0);
          expect(verdict.shapeChanged).toBe(false);
        },
      ),
      { numRuns: 2_000 },
    );
  }, 300_000);

  it("inserting or deleting a row flips exactly the chunks whose rows changed, and the payload", async () => {
    await fc.assert(
      fc.asyncProperty(bigGridArb, fc.boolean(), fc.nat(), fc.nat(), async ({ grid }, insert, at, pick) => {
        if (!insert && grid.length === 0) return;
        const changed = grid.map((row) => [...row]);
        if (insert && grid.length > 0) changed.splice(at % (grid.length + 1), 0, [...grid[pick % grid.length]!]);
        else if (insert) return;
        else changed.splice(at % grid.length, 1);
        const before = await fingerprint(grid);
        const after = await fingerprint(changed);
        const expected = chunksThatDiffer(grid, changed);
        expect(expected.length).toBeGreaterThan(0); // the last chunk at least changes size
        expect(flipped(before, after)).toEqual(expected);
        expect(after.payload).not.toBe(before.payload);
        const verdict = await compare(changed, before);
        expect(verdict.shapeChanged).toBe(true);
        expect(verdict.same).toBe(false);
        expect(verdict.editedChunks.map((e) => e.from / CHUNK_ROWS)).toEqual(expected);
      }),
      { numRuns: 2_000 },
    );
  }, 300_000);

  it("streaming in row blocks gives the same result as the whole grid", async () => {
    await fc.assert(
      fc.asyncProperty(bigGridArb, async ({ grid, seed }) => {
        expect(await fingerprint(inBlocks(grid, seed))).toEqual(await fingerprint(grid));
      }),
      { numRuns: 2_000 },
    );
  }, 300_000);
});
