// The stand-in's compiler answers like Cube 0.33.65 where both implement something (issue 17;
// measured in test/cube/cube.test.ts, recorded in docs/API.md §8).
import { describe, expect, it } from "vitest";
import { compileLoad, QueryError, ROW_LIMITS } from "../../dev/platform/semantic.ts";

describe("stand-in parity with Cube", () => {
  it("a query without a limit gets Cube's default, echoed as limit and rowLimit", () => {
    expect(compileLoad({ measures: ["orders.count"] }).normalized).toMatchObject({
      limit: ROW_LIMITS.default,
      rowLimit: ROW_LIMITS.default,
    });
  });
  it("a limit over Cube's maximum is refused with Cube's message", () => {
    expect(() => compileLoad({ measures: ["orders.count"], limit: ROW_LIMITS.max + 1 })).toThrow(
      new QueryError("The query limit has been exceeded."),
    );
    expect(compileLoad({ measures: ["orders.count"], limit: ROW_LIMITS.max }).normalized).toMatchObject({ limit: ROW_LIMITS.max });
  });
  it("order as [{id, desc}] is refused as Cube refuses it; a map and pairs are taken", () => {
    const q = { measures: ["orders.count"], dimensions: ["orders.status"] };
    expect(() => compileLoad({ ...q, order: [{ id: "orders.status", desc: true }] })).toThrow(
      'Invalid query format: "order[0]" must be an array',
    );
    expect(compileLoad({ ...q, order: [["orders.status", "desc"]] }).normalized.order).toEqual([{ id: "orders.status", desc: true }]);
    expect(compileLoad({ ...q, order: { "orders.status": "asc" } }).normalized.order).toEqual([{ id: "orders.status", desc: false }]);
  });
});
