// Issue 35 §3 (bounded memory): a refresh lays a SQL answer out without keeping its decoded rows — the
// answer is decoded a slice at a time and only the layout stays; the layout is build()'s, and an answer
// the slices cannot read fails as a whole decode fails.
import { describe, expect, it } from "vitest";
import type { FetchedResult } from "../../src/api/index.ts";
import type { TypedResult } from "../../src/checksum/types.ts";
import { prepareReport } from "../../src/sync/run-report.ts";

const columns: TypedResult["columns"] = [
  { key: "id", title: "id", shortTitle: "id", type: "number", kind: "dimension" },
  { key: "status", title: "status", shortTitle: "status", type: "string", kind: "dimension" },
];
const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => [i + 1, i % 3 ? "shipped" : "returned"]);

/** A SQL answer of `n` rows: `result()` decodes it whole (counted), `slices` a slice at a time (unless left out). */
function answer(n: number, o: { slices?: boolean; failAt?: number } = {}) {
  const calls = { whole: 0 };
  const all = rowsOf(n);
  const fetched: FetchedResult = {
    source: `answer-${n}`,
    bytes: n * 20,
    result: () => {
      calls.whole++;
      if (o.failAt !== undefined) throw new Error(`row ${o.failAt} cannot be read`);
      return { columns, rows: all, total: null, timezone: "UTC" };
    },
    ...(o.slices === false
      ? {}
      : {
          *slices(size: number) {
            for (let r = 0; r < all.length || r === 0; r += size) {
              if (o.failAt !== undefined && o.failAt < r + size) throw new Error("sliced badly");
              yield { columns, rows: all.slice(r, r + size), total: null, timezone: "UTC" };
            }
          },
        }),
  };
  const data = { fetchSql: async () => fetched, fetchLoad: () => Promise.reject(new Error("no load")) } as never;
  return { data, calls };
}

describe("issue 35 §3: a SQL answer laid out without keeping its decoded rows", () => {
  it("issue 35 §3: layout() decodes in slices (never the whole answer) and equals build()'s layout", async () => {
    const sliced = answer(12_345);
    const prepared = await prepareReport(sliced.data, { sqlQuery: "SELECT id, status FROM orders" });
    const laid = prepared.layout!();
    expect(sliced.calls.whole).toBe(0);
    expect(laid.cells.length).toBe(12_346);
    const whole = await prepareReport(answer(12_345, { slices: false }).data, { sqlQuery: "SELECT id, status FROM orders" });
    expect(laid).toEqual(whole.build().layout);
    expect(prepared.layout!()).toBe(laid); // made once
    expect(() => prepared.build()).toThrow(/laid out without keeping it/); // the answer was let go
    const built = await prepareReport(answer(20).data, { sqlQuery: "SELECT id, status FROM orders" });
    const b = built.build();
    expect(built.layout!()).toBe(b.layout); // built first: the layout is build()'s
  });

  it("issue 35 §3: an answer of no rows and an answer the slices cannot read are laid out or fail as a whole decode does", async () => {
    const empty = await prepareReport(answer(0).data, { sqlQuery: "SELECT 1" });
    expect(empty.layout!().cells).toEqual([["id", "status"]]);
    const bad = answer(9_000, { failAt: 7_000 });
    const prepared = await prepareReport(bad.data, { sqlQuery: "SELECT 1" });
    expect(() => prepared.layout!()).toThrow("row 7000 cannot be read");
    expect(bad.calls.whole).toBe(1);
  });
});
