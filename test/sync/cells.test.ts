// The layout's fast path for plain numbers must give exactly what the checksum's toCell gives.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { toCell } from "../../src/checksum/index.ts";
import { cellFor, isPlainNumber } from "../../src/sync/cells.ts";

describe("cellFor fast path", () => {
  it("equals toCell for random doubles, decimals and edge values", () => {
    const edge = fc.constantFrom(
      0,
      -0,
      0.1,
      1e15,
      1e15 - 1,
      123456789012345.6,
      0.000123,
      1.7976931348623157e308,
      5e-324,
      2 ** 53 + 2,
      -1.5,
      NaN,
      Infinity,
    );
    const decimal = fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 6 })).map(([n, d]) => n / 10 ** d);
    fc.assert(
      fc.property(fc.oneof(fc.double(), decimal, edge, fc.integer()), (x) => {
        expect(Object.is(cellFor(x, "number"), toCell(x, "number")) || (cellFor(x, "number") === 0 && toCell(x, "number") === 0)).toBe(
          true,
        );
      }),
      { numRuns: 20_000 },
    );
  });
  it("takes the fast path only for numbers that need no rounding", () => {
    expect(isPlainNumber(161.16)).toBe(true);
    expect(isPlainNumber(0.1 + 0.2)).toBe(false); // 0.30000000000000004 has 17 digits
    expect(isPlainNumber(2 ** 53 + 2)).toBe(false);
    expect(isPlainNumber(NaN)).toBe(false);
  });
});
