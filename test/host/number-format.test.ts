// How Excel shows a value under a number format (en-US): the renderer behind dev/excel's Range.text,
// the harness grid and the builder preview.
import { formatValue, isDateFormat } from "../../src/host/number-format.ts";

describe("formatValue", () => {
  it.each([
    [150465588.16, "$#,##0.00", "$150,465,588.16"],
    [12.5, '0.00"%"', "12.50%"],
    [0.125, "0.00%", "12.50%"],
    [1234, "#,##0", "1,234"],
    [1234.5, "#,##0.00", "1,234.50"],
    [-1234.5, "#,##0.00", "-1,234.50"],
    [-5, "$#,##0.00;($#,##0.00)", "($5.00)"],
    [3, "[$€-407]#,##0.00", "€3.00"],
    [0.1 + 0.2, "General", "0.3"],
    [45292, "yyyy-mm-dd", "2024-01-01"],
    [45292, "mmm yyyy", "Jan 2024"],
    [45292, "yyyy", "2024"],
    [45292.5, "yyyy-mm-dd hh:mm:ss", "2024-01-01 12:00:00"],
    [45292.75, "m/d/yyyy h:mm AM/PM", "1/1/2024 6:00 PM"],
    [59, "yyyy-mm-dd", "1900-02-28"],
    [61, "yyyy-mm-dd", "1900-03-01"], // after Excel's fictitious 29 Feb 1900
  ])("%s as %s → %s", (v, f, shown) => {
    expect(formatValue(v, f)).toBe(shown);
  });
  it("text stays text; booleans show as Excel does", () => {
    expect(formatValue("=1+1", "@")).toBe("=1+1");
    expect(formatValue("abc", "$#,##0.00")).toBe("abc");
    expect(formatValue(true, "General")).toBe("TRUE");
    expect(formatValue(42, "@")).toBe("42");
  });
  it("tells date formats from number formats (quoted text and escapes do not count)", () => {
    expect(isDateFormat("mmm yyyy")).toBe(true);
    expect(isDateFormat("hh:mm")).toBe(true);
    expect(isDateFormat('0.00"%"')).toBe(false);
    expect(isDateFormat('#,##0 "days"')).toBe(false);
    expect(isDateFormat("$#,##0.00")).toBe(false);
  });
});
