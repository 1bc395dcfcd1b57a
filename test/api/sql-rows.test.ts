// splitSqlBody (issue 20 §2): a SQL answer's rows a slice at a time must be exactly what JSON.parse of
// the whole body holds, for any rows and any formatting; a body it does not expect is never read wrong.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitSqlBody } from "../../src/api/sql-rows.ts";

const rowsArb = fc.array(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }), { maxLength: 40 });
const tricky = fc.constantFrom('"', "\\", '\\"', "[", "]", "{", "}", ",", "\u2028", "é", "\\\\", '"]}', "\n");
const stringy = fc.array(fc.array(fc.string(), { maxLength: 4 }), { maxLength: 20 });

function all(text: string, per: number) {
  const split = splitSqlBody(text);
  if (!split) return null;
  const rows: unknown[][] = [];
  const sizes: number[] = [];
  for (const s of split.slices(per)) {
    sizes.push(s.length);
    rows.push(...s);
  }
  return { head: split.head, rows, sizes };
}

describe("splitSqlBody", () => {
  it("gives JSON.parse's rows and members, in slices of the size asked, however the body is spaced", () => {
    fc.assert(
      fc.property(
        fc.oneof(rowsArb, stringy),
        fc.array(tricky, { maxLength: 6 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(undefined, 1, "\t"),
        fc.boolean(),
        (rows, bits, per, indent, extra) => {
          const data = [...rows, bits.map((b) => b + b)];
          const body = {
            schema: [{ name: bits.join(""), type: "string" }],
            ...(extra ? { note: bits } : {}),
            data,
            ...(extra ? { after: [bits] } : {}),
          };
          const text = JSON.stringify(body, null, indent);
          const got = all(text, per)!;
          expect(got).not.toBeNull();
          const whole = JSON.parse(text) as { data: unknown[][] };
          expect(got.rows).toEqual(whole.data);
          expect(got.head.schema).toEqual(body.schema);
          expect(got.sizes.every((n, i) => n === per || i === got.sizes.length - 1)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("a cut or broken body never yields fewer rows quietly: it throws", () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 5 }), fc.nat(), (rows, per, cutAt) => {
        const text = JSON.stringify({ schema: [], data: [...rows, [1]] });
        const cut = text.slice(0, cutAt % text.length);
        let ok = true;
        try {
          const got = all(cut, per);
          if (got !== null) ok = false; // a truncated body must not read as complete
        } catch {
          /* thrown: as it should */
        }
        expect(ok).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("not the expected shape: null (the caller parses the body whole)", () => {
    expect(splitSqlBody('{"data":[[1]],"schema":[]}')).toBeNull(); // data before schema
    expect(splitSqlBody("[1,2]")).toBeNull();
    expect(splitSqlBody('{"schema":[]}')).toBeNull();
    expect(splitSqlBody('{"schema":[],"data":{}}')).toBeNull();
  });

  it("a second schema or data after the rows throws (JSON.parse would keep the later one)", () => {
    expect(() => all('{"schema":[],"data":[[1]],"schema":[1]}', 1)).toThrow(/second "schema"/);
    expect(() => all('{"schema":[],"data":[[1]]} x', 1)).toThrow(/unexpected text/);
  });

  it("an own __proto__ member stays data, as in JSON.parse", () => {
    const got = splitSqlBody('{"__proto__":{"polluted":1},"schema":[],"data":[]}')!;
    expect(Object.getPrototypeOf(got.head)).toBe(Object.prototype);
    expect((got.head as Record<string, unknown>)["__proto__"]).toEqual({ polluted: 1 });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("issue 35 §3: scans the bytes as received — characters of any width, bytes that are not UTF-8 and a byte-order mark read as a whole decode reads them", () => {
    const rows = [
      ["é", "日本", "😀", "\u2028"],
      ['"]}', "\\"],
    ];
    const body = new TextEncoder().encode(JSON.stringify({ schema: [], data: rows }));
    // A lone continuation byte inside a string: the whole decode makes it U+FFFD; so must every slice.
    const broken = Uint8Array.from([
      ...new TextEncoder().encode('{"schema":[],"data":[["a'),
      0x80,
      ...new TextEncoder().encode('b"],["c"]]}'),
    ]);
    for (const [bytes, per] of [
      [body, 1],
      [body, 5],
      [broken, 1],
    ] as const) {
      const whole = JSON.parse(new TextDecoder().decode(bytes)) as { data: unknown[][] };
      const got: unknown[][] = [];
      for (const s of splitSqlBody(bytes)!.slices(per)) got.push(...s);
      expect(got).toEqual(whole.data);
    }
    expect(splitSqlBody(Uint8Array.from([0xef, 0xbb, 0xbf, ...body]))).toBeNull(); // a BOM: the caller's whole parse reads it
  });

  it("issue 35 §3: its row index finds every row's bytes without parsing them; any run of rows parses as JSON.parse of the whole holds them", () => {
    fc.assert(
      fc.property(
        fc.oneof(rowsArb, stringy),
        fc.array(tricky, { maxLength: 6 }),
        fc.constantFrom(undefined, 1, "\t"),
        fc.nat(),
        fc.nat(),
        (rows, bits, indent, a, b) => {
          const data = [...rows, bits.map((x) => x + x)];
          const text = JSON.stringify({ schema: [], data, after: bits }, null, indent);
          const index = splitSqlBody(text)!.index();
          expect(index.count).toBe(data.length);
          const from = a % (data.length + 1);
          const to = from + (b % (data.length - from + 1));
          expect(index.parse(from, to)).toEqual(data.slice(from, to));
          const bytes = new TextDecoder().decode(index.bytes(from, to));
          expect(JSON.parse(`[${bytes}]`)).toEqual(data.slice(from, to)); // the rows' own bytes, nothing around them
          expect(() => index.parse(to, from - 1)).toThrow(RangeError);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("issue 35 §3: a body whose rows or end are broken fails its index, not later", () => {
    expect(() => splitSqlBody('{"schema":[],"data":[[1],[2}')!.index()).toThrow(SyntaxError);
    expect(() => splitSqlBody('{"schema":[],"data":[[1],[2]] x')!.index()).toThrow(SyntaxError);
    expect(() => splitSqlBody('{"schema":[],"data":[[1] [2]]}')!.index()).toThrow(SyntaxError);
    // A row the scan finds whole but JSON.parse refuses fails when it is parsed.
    const index = splitSqlBody('{"schema":[],"data":[[1],[01],[3]]}')!.index();
    expect(index.count).toBe(3);
    expect(index.parse(0, 1)).toEqual([[1]]);
    expect(() => index.parse(1, 2)).toThrow(SyntaxError);
  });
});
