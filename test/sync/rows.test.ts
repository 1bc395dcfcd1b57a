// Issue 30 §1: row prints and their alignment (src/sync/rows.ts).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignRows, decodeRows, encodeRows, rowPrints, type RowStep } from "../../src/sync/rows.ts";

/** Apply an alignment to `last`, taking inserted and changed rows from `now`: it must give `now`. */
function replay(last: readonly number[], now: readonly number[], steps: readonly RowStep[]): number[] {
  const out: number[] = [];
  let expectLast = 0;
  for (const s of steps) {
    if (s.kind === "same") {
      expect(s.last).toBe(expectLast++);
      expect(last[s.last]).toBe(now[s.now]);
      out.push(last[s.last]!);
    } else if (s.kind === "deleted") expect(s.last).toBe(expectLast++);
    else if (s.kind === "changed") {
      expect(s.last).toBe(expectLast++);
      out.push(now[s.now]!);
    } else out.push(now[s.now]!);
  }
  expect(expectLast).toBe(last.length);
  return out;
}

describe("row prints (issue 30 §1)", () => {
  it("a row's print depends on its cells only, and round-trips through the stored text", async () => {
    const prints = await rowPrints([
      ["a", 1, true],
      ["a", 1, true],
      ["a", 1, false],
      ["", "", ""],
    ]);
    expect(prints[0]).toBe(prints[1]);
    expect(prints[0]).not.toBe(prints[2]);
    expect([...decodeRows(encodeRows(prints))!]).toEqual([...prints]);
    expect(decodeRows("not base64!")).toBeNull();
  });

  it("one row inserted, one deleted, one changed are named as such", () => {
    const last = [1, 2, 3, 4, 5, 6];
    expect(alignRows(last, [1, 2, 99, 3, 4, 5, 6])!.filter((s) => s.kind !== "same")).toEqual([{ kind: "inserted", now: 2 }]);
    expect(alignRows(last, [1, 2, 4, 5, 6])!.filter((s) => s.kind !== "same")).toEqual([{ kind: "deleted", last: 2 }]);
    expect(alignRows(last, [1, 2, 7, 4, 5, 6])!.filter((s) => s.kind !== "same")).toEqual([{ kind: "changed", last: 2, now: 2 }]);
    expect(alignRows(last, last)!.every((s) => s.kind === "same")).toBe(true);
  });

  it("any edits: the alignment replays last into now, and is no longer than the edits made", () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant("ins" as const), at: fc.nat(), v: fc.integer({ min: 1000, max: 2000 }) }),
      fc.record({ op: fc.constant("del" as const), at: fc.nat(), v: fc.constant(0) }),
      fc.record({ op: fc.constant("chg" as const), at: fc.nat(), v: fc.integer({ min: 3000, max: 4000 }) }),
    );
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 60 }), fc.array(edit, { maxLength: 8 }), (last, edits) => {
        const now = [...last];
        for (const e of edits) {
          const at = now.length ? e.at % (now.length + (e.op === "ins" ? 1 : 0)) : 0;
          if (e.op === "ins") now.splice(at, 0, e.v);
          else if (now.length && e.op === "del") now.splice(at, 1);
          else if (now.length) now[at] = e.v;
        }
        const steps = alignRows(last, now)!;
        expect(replay(last, now, steps)).toEqual(now);
        // Shortest: as few row insertions and deletions as the edits made (a changed row is one of each).
        const cost = (k: RowStep["kind"]) => (k === "same" ? 0 : k === "changed" ? 2 : 1);
        const made = edits.reduce((n, e) => n + (e.op === "chg" ? 2 : 1), 0);
        expect(steps.reduce((n, s) => n + cost(s.kind), 0)).toBeLessThanOrEqual(made);
      }),
    );
  });

  it("past its bound it gives up (null) rather than run long", () => {
    expect(alignRows([1, 2, 3], [4, 5, 6], 2)).toBeNull();
  });
});
