// Pure planning pieces: area arithmetic for growth and shrink, occupied cells, chunk runs, the
// committed/pending classification, and the refresh-all queue (bounded concurrency, one writer,
// isolated failures, stop).
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Area } from "../../src/host/port.ts";
import { growthAreas, leftoverAreas, mergeRuns, occupiedCells, overlaps, subtract } from "../../src/sync/plan.ts";
import { classify } from "../../src/sync/state.ts";
import { NotRefreshed, runQueue } from "../../src/sync/queue.ts";
import type { ResultChecksum } from "../../src/checksum/types.ts";

const area = (row: number, col: number, rows: number, cols: number): Area => ({ sheetId: "s", row, col, rows, cols });
const cellsOf = (as: Area[]) =>
  new Set(
    as.flatMap((a) => Array.from({ length: a.rows * a.cols }, (_, i) => `${a.row + Math.floor(i / a.cols)},${a.col + (i % a.cols)}`)),
  );

describe("area arithmetic", () => {
  it("subtract covers exactly a minus b, in disjoint pieces", () => {
    const box = fc.record({ row: fc.nat(6), col: fc.nat(6), rows: fc.integer({ min: 1, max: 6 }), cols: fc.integer({ min: 1, max: 6 }) });
    fc.assert(
      fc.property(box, box, (x, y) => {
        const a = area(x.row, x.col, x.rows, x.cols),
          b = area(y.row, y.col, y.rows, y.cols);
        const pieces = subtract(a, b);
        const expected = [...cellsOf([a])].filter((c) => !cellsOf([b]).has(c));
        expect([...cellsOf(pieces)].sort()).toEqual(expected.sort());
        expect(pieces.reduce((n, p) => n + p.rows * p.cols, 0)).toBe(expected.length);
      }),
      { numRuns: 2000 },
    );
  });

  it("growth is the new area beyond the old one; leftovers the old beyond the new", () => {
    const anchor = { sheetId: "s", row: 2, col: 1 };
    expect(cellsOf(growthAreas(anchor, { rows: 2, cols: 2 }, { rows: 3, cols: 3 }))).toEqual(cellsOf([area(4, 1, 1, 3), area(2, 3, 2, 1)]));
    expect(leftoverAreas(anchor, { rows: 3, cols: 2 }, { rows: 1, cols: 2 })).toEqual([area(3, 1, 2, 2)]);
    expect(growthAreas(anchor, null, { rows: 1, cols: 1 })).toEqual([area(2, 1, 1, 1)]);
    expect(overlaps(area(0, 0, 2, 2), { ...area(0, 0, 2, 2), sheetId: "other" })).toBe(false);
  });

  it("occupied cells skip empty and owned cells and name the rest by address", () => {
    const out = occupiedCells(
      area(0, 0, 2, 3),
      [
        ["", "x", 1],
        [false, "", "y"],
      ],
      0,
      [area(1, 2, 1, 1)],
    );
    expect(out).toEqual([
      { address: "B1", value: "x" },
      { address: "C1", value: 1 },
      { address: "A2", value: false },
    ]);
  });

  it("merges chunk ranges into contiguous runs", () => {
    expect(
      mergeRuns([
        { from: 10, to: 19 },
        { from: 0, to: 9 },
        { from: 30, to: 39 },
      ]),
    ).toEqual([
      { from: 0, to: 19 },
      { from: 30, to: 39 },
    ]);
  });
});

describe("classify: committed and pending fingerprints", () => {
  const cs = (...hashes: string[]): ResultChecksum => ({
    v: 1,
    chunks: hashes.map((hash, i) => ({ from: i * 500, to: (i + 1) * 500, hash })),
  });
  it("clean, unrecorded, interrupted, edited", () => {
    expect(classify(cs("a", "b"), cs("a", "b"), null)).toEqual({ kind: "clean" });
    expect(classify(cs("A", "B"), cs("a", "b"), cs("A", "B"))).toEqual({ kind: "unrecorded" });
    expect(classify(cs("A", "b"), cs("a", "b"), cs("A", "B"))).toEqual({ kind: "interrupted", staleChunks: [1] });
    expect(classify(cs("A", "x"), cs("a", "b"), cs("A", "B"))).toEqual({ kind: "edited", editedChunks: [1] });
    expect(classify(cs("x", "b"), cs("a", "b"), null)).toEqual({ kind: "edited", editedChunks: [0] });
  });
});

describe("refresh-all queue", () => {
  it("bounds query concurrency, writes one at a time, isolates failures, reports N of M", async () => {
    let running = 0,
      maxRunning = 0,
      writing = 0,
      maxWriting = 0;
    const seen: string[] = [];
    const job = (key: string, fail?: "query" | "skip") => ({
      key,
      async prepare() {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (fail === "query") throw new Error(`query for ${key} failed`);
        return key;
      },
      async apply(p: string) {
        writing++;
        maxWriting = Math.max(maxWriting, writing);
        await new Promise((r) => setTimeout(r, 3));
        writing--;
        if (fail === "skip") throw new NotRefreshed("Edited by hand");
        return `wrote ${p}`;
      },
    });
    const out = await runQueue([job("a"), job("b", "query"), job("c"), job("d", "skip"), job("e")], {
      concurrency: 2,
      onProgress: (p) => seen.push(`${p.done}/${p.total}`),
    });
    expect(maxRunning).toBe(2);
    expect(maxWriting).toBe(1);
    expect(out.done).toBe(3);
    expect(out.items).toMatchObject({
      a: { state: "done", detail: "wrote a" },
      b: { state: "not-refreshed", reason: "query for b failed" },
      d: { state: "not-refreshed", reason: "Edited by hand" },
    });
    expect(seen[0]).toBe("0/5");
    expect(seen.at(-1)).toBe("3/5");
  });

  it("stops: what has not started ends Not refreshed", async () => {
    const stop = new AbortController();
    const out = await runQueue(
      ["a", "b", "c"].map((key) => ({
        key,
        prepare: async () => {
          stop.abort();
          return key;
        },
        apply: async () => "ok",
      })),
      { concurrency: 1, signal: stop.signal },
    );
    expect(out.items).toEqual({
      a: { state: "not-refreshed", reason: "Stopped before writing." },
      b: { state: "not-refreshed", reason: "Stopped before it started." },
      c: { state: "not-refreshed", reason: "Stopped before it started." },
    });
  });
});

describe("refresh-all queue: Stop acts between placements", () => {
  it("a write under way when Stop is pressed finishes and counts as done; nothing after it starts", async () => {
    const stop = new AbortController();
    const written: string[] = [];
    const out = await runQueue(
      ["a", "b"].map((key) => ({
        key,
        prepare: async () => key,
        apply: async (k: string) => {
          stop.abort(); // Stop pressed while this write runs
          await new Promise((r) => setTimeout(r, 10));
          written.push(k);
          return "written";
        },
      })),
      { concurrency: 1, signal: stop.signal },
    );
    expect(written).toEqual(["a"]);
    expect(out.items).toEqual({
      a: { state: "done", detail: "written" },
      b: { state: "not-refreshed", reason: "Stopped before it started." },
    });
    expect(out.done).toBe(1);
  });
});
