// The canonical cell model (toCell): one case per rule of docs/CHECKSUM.md §2.
import { describe, expect, it } from "vitest";
import {
  DATE_FORMAT,
  DATETIME_FORMAT,
  EXCEL_MAX_TEXT,
  NOT_A_NUMBER_TEXT,
  TRUNCATION_MARK,
  columnNumberFormat,
  toCell,
} from "../../src/checksum/index.ts";

describe("toCell: numbers", () => {
  it("keeps 15 significant digits", () => {
    expect(toCell(0.1 + 0.2, "number")).toBe(0.3);
    expect(toCell(2 / 3, "number")).toBe(0.666666666666667);
    expect(toCell(123.45, "number")).toBe(123.45);
    expect(toCell(1e300, "number")).toBe(1e300);
  });
  it("writes −0 as 0", () => {
    expect(Object.is(toCell(-0, "number"), 0)).toBe(true);
    expect(Object.is(toCell("-0", "number"), 0)).toBe(true);
  });
  it("writes NaN, ±Infinity and numbers beyond Excel's largest as the text #NUM!", () => {
    for (const v of [NaN, Infinity, -Infinity, 1e308, -1.7976931348623157e308, "NaN", "Infinity", "-Infinity", "1e400"]) {
      expect(toCell(v, "number")).toBe(NOT_A_NUMBER_TEXT);
    }
    expect(toCell(9.99999999999999e307, "number")).toBe(9.99999999999999e307);
  });
  it("flushes magnitudes below the smallest normal double to 0", () => {
    expect(toCell(5e-324, "number")).toBe(0);
    expect(toCell(2.2250738585072014e-308, "number")).toBe(2.2250738585072e-308);
  });
  it("writes integers that need more than 15 digits as text, every digit kept", () => {
    expect(toCell(2 ** 53 + 2, "number")).toBe("9007199254740994");
    expect(toCell(1234567890123456, "number")).toBe("1234567890123456");
    expect(toCell("12345678901234567890", "number")).toBe("12345678901234567890");
    expect(toCell("-00012345678901234567", "number")).toBe("-00012345678901234567");
  });
  it("keeps integers Excel holds exactly as numbers, however large", () => {
    expect(toCell(1e15, "number")).toBe(1e15);
    expect(toCell(1e20, "number")).toBe(1e20);
    expect(toCell(2 ** 53, "number")).toBe("9007199254740992"); // 16 significant digits
    expect(toCell("100000000000000000000", "number")).toBe(1e20);
    expect(toCell(123456789012345, "number")).toBe(123456789012345);
  });
  it("parses decimal strings, rounding fractions to 15 digits", () => {
    expect(toCell("113829.60", "number")).toBe(113829.6);
    expect(toCell("0.12345678901234567890", "number")).toBe(0.123456789012346);
    expect(toCell("1.5e16", "number")).toBe(1.5e16);
    expect(toCell("0012", "number")).toBe(12);
  });
  it("shows a value that is no number at all as received", () => {
    expect(toCell("n/a", "number")).toBe("n/a");
  });
});

describe("toCell: booleans, nulls, text", () => {
  it("booleans, and the spellings SQL backends send", () => {
    expect(toCell(true, "boolean")).toBe(true);
    expect(toCell("false", "boolean")).toBe(false);
    expect(toCell("TRUE", "boolean")).toBe(true);
    expect(toCell(0, "boolean")).toBe(false);
    expect(toCell("1", "boolean")).toBe(true);
    expect(toCell("maybe", "boolean")).toBe("maybe");
  });
  it('null is an empty cell in every column type, the same as ""', () => {
    for (const t of ["string", "number", "boolean", "time"] as const) expect(toCell(null, t)).toBe("");
    expect(toCell("", "string")).toBe("");
  });
  it("text that looks like a number, a date, a formula or an error stays that exact text", () => {
    for (const s of ["00123", "1e5", "Jan 2026", "2024-01-01", "=SUM(A1:A3)", "+1", "-1", "@name", "#N/A", "TRUE"]) {
      expect(toCell(s, "string")).toBe(s);
    }
  });
  it("text up to 32,767 characters is kept; longer text is cut and ends with …", () => {
    const max = "x".repeat(EXCEL_MAX_TEXT);
    expect(toCell(max, "string")).toBe(max);
    const cut = toCell("y".repeat(EXCEL_MAX_TEXT + 1), "string") as string;
    expect(cut.length).toBe(EXCEL_MAX_TEXT);
    expect(cut.endsWith(TRUNCATION_MARK)).toBe(true);
  });
  it("never cuts a surrogate pair in half", () => {
    const s = "z".repeat(EXCEL_MAX_TEXT - 2) + "😀" + "tail";
    const cut = toCell(s, "string") as string;
    expect(cut).toBe("z".repeat(EXCEL_MAX_TEXT - 2) + TRUNCATION_MARK);
  });
  it("a number or boolean in a string column keeps its type", () => {
    expect(toCell(42, "string")).toBe(42);
    expect(toCell(false, "string")).toBe(false);
  });
});

describe("toCell: timestamps", () => {
  it("writes wall-clock time as an Excel serial number, no zone conversion", () => {
    expect(toCell("2024-01-01T00:00:00.000", "time")).toBe(45292);
    expect(toCell("2024-01-01T12:00:00.000", "time")).toBe(45292.5);
    expect(toCell("2024-01-01", "time")).toBe(45292);
    expect(toCell("2024-01-01T06:00:00.000", "time", { timezone: "Asia/Tokyo" })).toBe(45292.25);
  });
  it("keeps milliseconds within Excel's 15 digits", () => {
    expect(toCell("2024-01-01T00:00:00.001", "time")).toBe(Number((45292 + 1 / 86_400_000).toPrecision(15)));
  });
  it("counts Excel's fictitious 1900-02-29", () => {
    expect(toCell("1900-01-01T00:00:00.000", "time")).toBe(1);
    expect(toCell("1900-02-28T00:00:00.000", "time")).toBe(59);
    expect(toCell("1900-03-01T00:00:00.000", "time")).toBe(61);
    expect(toCell("1900-02-29T00:00:00.000", "time")).toBe("1900-02-29T00:00:00.000"); // no such day
  });
  it("writes dates Excel cannot show (before 1900, after 9999) and non-dates as the text received", () => {
    expect(toCell("1899-12-31T23:59:59.999", "time")).toBe("1899-12-31T23:59:59.999");
    expect(toCell("10000-01-01T00:00:00.000", "time")).toBe("10000-01-01T00:00:00.000");
    expect(toCell("yesterday", "time")).toBe("yesterday");
    expect(toCell("9999-12-31T00:00:00.000", "time")).toBe(2958465);
  });
  it("turns a zoned timestamp into wall-clock time in the query's timezone", () => {
    expect(toCell("2024-01-01T00:00:00.000Z", "time")).toBe(45292);
    expect(toCell("2024-01-01T00:00:00.000Z", "time", { timezone: "Europe/Berlin" })).toBe(Number((45292 + 1 / 24).toPrecision(15)));
    expect(toCell("2024-07-01T12:00:00.000+02:00", "time", { timezone: "America/New_York" })).toBe(
      Number((45474 + 6 / 24).toPrecision(15)),
    );
    expect(() => toCell("2024-01-01T00:00:00Z", "time", { timezone: "Not/AZone" })).toThrow(/unknown timezone/);
  });
  it("time columns get a date or date-time number format", () => {
    expect(columnNumberFormat("time")).toBe(DATETIME_FORMAT);
    expect(columnNumberFormat("time", "hour")).toBe(DATETIME_FORMAT);
    expect(columnNumberFormat("time", "month")).toBe(DATE_FORMAT);
    expect(columnNumberFormat("number")).toBeNull();
    expect(columnNumberFormat("string")).toBeNull();
  });
});
