// Issue 35 §3: a large input (a query's answer) is hashed a piece at a time, so the hash kernel's memory
// does not grow to the input's size — and the hash is exactly the one-shot xxh64's.
import { describe, expect, it } from "vitest";
import xxhash from "xxhash-wasm";
import { h64Hex, ready } from "../../src/checksum/hash.ts";

describe("h64Hex in pieces", () => {
  it("issue 35 §3: inputs over a piece hash as xxh64 of the whole input", async () => {
    await ready();
    const one = await xxhash();
    for (const n of [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3_000_017]) {
      const b = new Uint8Array(n);
      for (let i = 0; i < n; i++) b[i] = (i * 2654435761) >>> 24;
      expect(h64Hex(b)).toBe(one.h64Raw(b, 0n).toString(16).padStart(16, "0"));
    }
  });
});
