// fast-check generators for the checksum properties: data-API values drawn from the edge
// cases issue 4 lists (numbers at Excel's precision limits, −0, NaN, ±Infinity, big ids,
// long text, formula- and number-looking text, timestamps with and without zones, errors).
import fc from "fast-check";
import type { ColumnType, RawValue } from "../../src/checksum/index.ts";

const LONG_TEXTS = [
  "x".repeat(32767),
  "y".repeat(32768),
  "z".repeat(32766) + "😀", // a surrogate pair across the limit
  "é".repeat(40000),
];

const numberValue: fc.Arbitrary<RawValue> = fc.oneof(
  fc.double(), // includes NaN, ±Infinity, −0, subnormals, ±MAX_VALUE
  fc.integer(),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((b) => Number(b)), // integers beyond 2^53
  fc.bigInt({ min: 10n ** 15n, max: 10n ** 25n }).map((b) => String(b)), // ids with more than 15 digits
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map((b) => `${b}.${String(b).slice(-2).replace("-", "0")}`), // decimal strings
  fc.constantFrom(
    0,
    -0,
    1e15,
    2 ** 53,
    2 ** 53 + 2,
    9.99999999999999e307,
    1e308,
    1.7976931348623157e308,
    5e-324,
    0.1 + 0.2,
    123456789012345680000,
  ),
  fc.constantFrom("NaN", "Infinity", "-Infinity", "1e400", "0012", "-0", "abc", "1.5e16", "9007199254740993"),
);

const shortTextValue: fc.Arbitrary<RawValue> = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }), // any code point
  fc.array(fc.integer({ min: 0xd800, max: 0xdfff }), { maxLength: 3 }).map((u) => String.fromCharCode(...u)), // lone surrogates
  fc.constantFrom("", " ", "=SUM(A1:A3)", "+1", "-1", "@name", "00123", "1e5", "Jan 2026", "2024-01-01", "TRUE", "#N/A", "#DIV/0!", "NaN"),
);
const textValue: fc.Arbitrary<RawValue> = fc.oneof(
  { arbitrary: shortTextValue, weight: 40 },
  { arbitrary: fc.constantFrom(...LONG_TEXTS), weight: 1 },
);

const booleanValue: fc.Arbitrary<RawValue> = fc.oneof(fc.boolean(), fc.constantFrom("true", "false", "1", "0", 1, 0, "yes"));

const pad = (n: number, w: number) => String(n).padStart(w, "0");
const timeValue: fc.Arbitrary<RawValue> = fc.oneof(
  fc
    .record({
      y: fc.integer({ min: 1890, max: 10000 }),
      mo: fc.integer({ min: 1, max: 12 }),
      d: fc.integer({ min: 1, max: 31 }),
      h: fc.integer({ min: 0, max: 23 }),
      mi: fc.integer({ min: 0, max: 59 }),
      s: fc.integer({ min: 0, max: 59 }),
      ms: fc.integer({ min: 0, max: 999 }),
      zone: fc.constantFrom("", "", "", "Z", "+05:30", "-08:00", "+0100"),
      dateOnly: fc.boolean(),
    })
    .map(({ y, mo, d, h, mi, s, ms, zone, dateOnly }) =>
      dateOnly
        ? `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`
        : `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(ms, 3)}${zone}`,
    ),
  fc.constantFrom(
    "1900-02-28T00:00:00.000",
    "1900-02-29T00:00:00.000",
    "1900-03-01T00:00:00.000",
    "1899-12-31T23:59:59.999",
    "9999-12-31T23:59:59.999",
    "not a date",
  ),
);

const BY_TYPE: Record<ColumnType, fc.Arbitrary<RawValue>> = {
  number: numberValue,
  string: textValue,
  boolean: booleanValue,
  time: timeValue,
};
/** Without texts of 32k+ characters: for grids of up to 2,400 rows that repeat their rows. */
const BY_TYPE_SHORT: Record<ColumnType, fc.Arbitrary<RawValue>> = { ...BY_TYPE, string: shortTextValue };

export const columnTypeArb: fc.Arbitrary<ColumnType> = fc.constantFrom("string", "number", "boolean", "time");

/** A value of a column of `type`: mostly typed edge values, sometimes null. */
export function rawValueArb(type: ColumnType, longTexts = true): fc.Arbitrary<RawValue> {
  return fc.oneof({ arbitrary: (longTexts ? BY_TYPE : BY_TYPE_SHORT)[type], weight: 9 }, { arbitrary: fc.constant(null), weight: 1 });
}

export interface RawTable {
  types: ColumnType[];
  rows: RawValue[][];
  timezone: string;
}

/** A small typed result: 1–5 columns, 0–maxRows rows. */
export function rawTableArb(maxRows: number, longTexts = true): fc.Arbitrary<RawTable> {
  return fc.array(columnTypeArb, { minLength: 1, maxLength: 5 }).chain((types) =>
    fc.record({
      types: fc.constant(types),
      rows: fc.array(fc.tuple(...types.map((t) => rawValueArb(t, longTexts))), { maxLength: maxRows }),
      timezone: fc.constantFrom("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"),
    }),
  );
}
