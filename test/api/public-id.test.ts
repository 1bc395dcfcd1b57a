// Property tests of publicId generation (uniform over [0-9A-Za-z], rejection sampling) and validation.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { generatePublicId, isPlaceholderPublicId, isValidPublicId, placeholderPublicId, PublicId, PUBLIC_ID_ALPHABET } from "../../src/api";

describe("publicId", () => {
  it("every generated id is 12 characters of [0-9A-Za-z] and never a placeholder", () => {
    for (let i = 0; i < 2000; i++) {
      const id = generatePublicId();
      expect(id).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(isPlaceholderPublicId(id)).toBe(false);
      expect(PublicId.safeParse(id).success).toBe(true);
    }
  });
  it("maps any random bytes to a valid id, using only bytes below 248 (no modulo bias)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 64, maxLength: 64 }), (bytes) => {
        let calls = 0;
        const accepted: number[] = [];
        const id = generatePublicId((buf) => {
          // Replay the property's bytes first, then uniform-ish filler.
          for (let i = 0; i < buf.length; i++) buf[i] = calls === 0 ? bytes[i % bytes.length]! : (i * 37 + calls) % 248;
          calls++;
          return buf;
        });
        expect(isValidPublicId(id)).toBe(true);
        const firstRound = bytes
          .slice(0, 32)
          .filter((b) => b < 248)
          .slice(0, 12);
        accepted.push(...firstRound);
        const expectPrefix = accepted.map((b) => PUBLIC_ID_ALPHABET[b % 62]).join("");
        if (!isPlaceholderPublicId(id)) expect(id.startsWith(expectPrefix)).toBe(true);
      }),
    );
  });
  it("is uniform over the alphabet (chi-square over 24,000 characters)", () => {
    const counts = new Map<string, number>();
    const n = 2000;
    for (let i = 0; i < n; i++) for (const ch of generatePublicId()) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (n * 12) / 62;
    const chi2 = [...counts.values()].reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
    // 61 degrees of freedom: p = 0.0001 critical value ≈ 111.
    expect(chi2).toBeLessThan(111);
  });
  it("validation accepts exactly the 12-character [0-9A-Za-z] strings", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (s) => {
        expect(isValidPublicId(s)).toBe(/^[0-9A-Za-z]{12}$/.test(s));
        expect(PublicId.safeParse(s).success).toBe(/^[0-9A-Za-z]{12}$/.test(s));
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Za-z]{12}$/), (s) => {
        expect(isValidPublicId(s)).toBe(true);
      }),
    );
  });
  it("placeholder ids derive from internal ids and are shared within a bucket", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), (id) => {
        const p = placeholderPublicId(id);
        expect(isValidPublicId(p)).toBe(true);
        expect(isPlaceholderPublicId(p)).toBe(true);
      }),
    );
    expect(placeholderPublicId(1616)).toBe(placeholderPublicId(1617));
    expect(placeholderPublicId(1600)).not.toBe(placeholderPublicId(1616));
  });
});
