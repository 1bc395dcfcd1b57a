// Issue 35 §3 (src/sync/answer-chunks.ts): a SQL answer laid out only in the chunks whose rows changed must give
// what laying the whole answer out gives — the fingerprint, the rows of those chunks, the settled number formats
// and the prints to keep — and must refuse (null) wherever it cannot tell.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDataClient, InvalidResponseError, type AnswerRows } from "../../src/api/index.ts";
import { CHUNK_ROWS, fingerprint } from "../../src/checksum/index.ts";
import { answerPrints, layOutChanged } from "../../src/sync/answer-chunks.ts";
import { flatTable, layout, type Layout } from "../../src/sync/layout.ts";

type Row = [number, number | null, string, string | null];
const SCHEMA = [
  { name: "id", type: "number" },
  { name: "amount", type: "number" },
  { name: "status", type: "string" },
  { name: "at", type: "time" },
];

/** A data client whose SQL answer is `body`. */
const answering = (body: string) =>
  createDataClient({
    dataUrl: "http://data.test",
    token: "t",
    fetch: async () => new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
  });

/** The answer `rows` as the data client hands it out, and the whole answer laid out. */
async function answer(rows: readonly Row[], schema = SCHEMA): Promise<{ byRow: AnswerRows; whole: Layout }> {
  const fetched = await answering(JSON.stringify({ schema, data: rows })).fetchSql("SELECT 1");
  return { byRow: fetched.byRow!()!, whole: layout({ result: fetched.result(), pivot: null }) };
}

const lay = (r: Parameters<typeof flatTable>[0]) => flatTable(r);
const rowArb = fc.tuple(
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.option(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ min: -1000, max: 1000, noNaN: true })), { nil: null }),
  fc.constantFrom("shipped", "returned", 'é"[', ""),
  fc.option(fc.constantFrom("2026-01-02T00:00:00.000", "2026-01-02T10:30:00.000"), { nil: null }),
);
const base = (n: number): Row[] =>
  Array.from({ length: n }, (_, i) => [i, i % 7, i % 3 ? "shipped" : "returned", "2026-03-01T00:00:00.000"] as Row);

describe("a SQL answer laid out only where its rows changed (issue 35 §3)", () => {
  it("gives the whole layout's fingerprint, rows of the changed chunks, number formats and prints", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 * CHUNK_ROWS + 10 }),
        fc.array(fc.tuple(fc.nat(), rowArb), { maxLength: 6 }),
        async (n, changes) => {
          const was = base(n);
          const now = was.map((r) => [...r] as Row);
          for (const [at, row] of changes) now[at % n] = row;
          const before = await answer(was);
          const after = await answer(now);
          const prints = answerPrints(before.byRow, "frame", before.whole);
          const committed = await fingerprint(before.whole.cells);
          const shape = { rows: n + 1, cols: SCHEMA.length };
          const got = layOutChanged(after.byRow, "frame", prints, committed, shape, lay)!;
          expect(got).not.toBeNull();
          expect(got.incoming).toEqual(await fingerprint(after.whole.cells));
          expect(got.columnFormats).toEqual(after.whole.columnFormats);
          expect(got.prints).toEqual(answerPrints(after.byRow, "frame", after.whole));
          // Exactly the chunks whose answer rows changed are laid out (chunk k: grid rows from k × CHUNK_ROWS; row 0 the titles).
          const rowsOf = (rows: Row[], k: number) => JSON.stringify(rows.slice(Math.max(0, k * CHUNK_ROWS - 1), (k + 1) * CHUNK_ROWS - 1));
          const chunks = Math.ceil((n + 1) / CHUNK_ROWS);
          expect(got.laid).toEqual([...Array(chunks).keys()].filter((k) => rowsOf(was, k) !== rowsOf(now, k)));
          for (const k of got.laid)
            for (let r = k * CHUNK_ROWS; r < Math.min(n + 1, (k + 1) * CHUNK_ROWS); r++) expect(got.cells[r]).toEqual(after.whole.cells[r]);
          // Every other row is left out.
          expect(got.cells.filter(Boolean).length).toBe(
            got.laid.reduce((m, k) => m + Math.min(n + 1, (k + 1) * CHUNK_ROWS) - k * CHUNK_ROWS, 0),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a fraction in a chunk not laid out still settles its column's format", async () => {
    const was = base(2500);
    was[10]![1] = 0.5; // chunk 0 holds the only fraction
    const now = was.map((r) => [...r] as Row);
    now[2400]![2] = "changed"; // chunk 2
    const before = await answer(was);
    const after = await answer(now);
    const got = layOutChanged(
      after.byRow,
      "f",
      answerPrints(before.byRow, "f", before.whole),
      await fingerprint(before.whole.cells),
      { rows: 2501, cols: 4 },
      lay,
    )!;
    expect(got.laid).toEqual([2]);
    expect(got.columnFormats).toEqual(after.whole.columnFormats);
    expect(after.whole.columnFormats[1]).not.toEqual((await answer(base(2500))).whole.columnFormats[1]); // the fraction settles it
  });

  it("cannot tell — another frame, shape, row count, schema or fingerprint — answers null", async () => {
    const was = base(2100);
    const before = await answer(was);
    const prints = answerPrints(before.byRow, "f", before.whole);
    const committed = await fingerprint(before.whole.cells);
    const shape = { rows: 2101, cols: 4 };
    const same = await answer(was);
    expect(layOutChanged(same.byRow, "f", prints, committed, shape, lay)?.laid).toEqual([]);
    expect(layOutChanged(same.byRow, "other frame", prints, committed, shape, lay)).toBeNull();
    expect(layOutChanged(same.byRow, "f", prints, committed, { rows: 2101, cols: 5 }, lay)).toBeNull();
    expect(layOutChanged((await answer(was.slice(1))).byRow, "f", prints, committed, { rows: 2100, cols: 4 }, lay)).toBeNull();
    expect(layOutChanged(same.byRow, "f", { ...prints, chunks: prints.chunks.slice(1) }, committed, shape, lay)).toBeNull();
    expect(layOutChanged(same.byRow, "f", prints, { ...committed, v: 2 as 1 }, shape, lay)).toBeNull();
    expect(
      layOutChanged(same.byRow, "f", { ...prints, fractions: prints.fractions.map((f) => f + "0") }, committed, shape, lay),
    ).toBeNull();
  });

  it("a large malformed answer fails as the data API's InvalidResponseError: its rows' bounds when scanned, a row's values when decoded", async () => {
    // Large enough not to be parsed when it arrives (data-client.ts SMALL_BODY): the scanner meets it first.
    const rows = JSON.stringify(base(200)).slice(1, -1);
    const body = (last: string) => `{"schema":${JSON.stringify(SCHEMA)},"data":[${rows},${last}`;
    const cut = await answering(body("[2,3")).fetchSql("SELECT 1");
    expect(() => cut.byRow!()).toThrow(InvalidResponseError);
    const bad = (await answering(body('[2,03,"b",null]]}')).fetchSql("SELECT 1")).byRow!()!;
    expect(bad.count).toBe(201);
    expect(bad.decode(0, 1).rows).toHaveLength(1);
    expect(() => bad.decode(200, 201)).toThrow(InvalidResponseError); // a number JSON does not read
    const wrong = (await answering(body('[2,"x","b",null]]}')).fetchSql("SELECT 1")).byRow!()!;
    expect(() => wrong.decode(200, 201)).toThrow(InvalidResponseError); // a number column holding text
  });
});
