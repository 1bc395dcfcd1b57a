// How Excel turns a value written through Range.values (or typed by a user) into cell content,
// for the en-US locale. This models EXCEL's documented behaviour, not Cellbound's cell model:
//   - null leaves the cell unchanged, "" clears it;
//   - numbers keep 15 significant digits; NaN/Infinity are refused;
//   - strings over 32,767 characters are refused;
//   - a cell formatted as text ("@") keeps any string as text, and stores a number or boolean as its text;
//   - "=…" becomes a formula; "+…", "-…" and "@…" become one when the rest parses as one;
//   - numeric-, date-, time-, boolean- and error-looking strings are converted;
//   - a leading apostrophe marks text and is not shown.
// Sources are listed in docs/EXCEL-FIDELITY.md.

import { MAX_CELL_CHARS, to15Digits } from "../../src/host/validate.ts";
import { OfficeError } from "./errors.ts";

export type CellKind = "s" | "n" | "b" | "e";
export interface CellContent {
  t: CellKind;
  v: string | number | boolean;
  /** Formula text ("=…") when the cell holds a formula. */
  f?: string;
  /** Number format Excel picks for a converted value (e.g. a date), applied only over "General". */
  autoFormat?: string;
}

export const ERROR_VALUES = [
  "#NULL!",
  "#DIV/0!",
  "#VALUE!",
  "#REF!",
  "#NAME?",
  "#NUM!",
  "#N/A",
  "#GETTING_DATA",
  "#SPILL!",
  "#CALC!",
  "#FIELD!",
  "#BLOCKED!",
  "#UNKNOWN!",
  "#BUSY!",
  "#CONNECT!",
  "#PYTHON!",
  "#EXTERNAL!",
];

/** null → "unchanged"; "" → "clear"; otherwise the new content. Throws OfficeError InvalidArgument. */
export function convertInput(input: unknown, numberFormat: string, where: string): CellContent | "unchanged" | "clear" {
  if (input === null || input === undefined) return "unchanged";
  if (typeof input === "number") {
    if (!Number.isFinite(input))
      throw new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${where}: ${input})`);
    if (Math.abs(input) > 9.99999999999999e307)
      throw new OfficeError(
        "InvalidArgument",
        `The argument is invalid or missing or has an incorrect format. (${where}: number too large)`,
      );
    // A cell formatted as text ("@") stores a number as its text: "numbers stored as text" (SUM skips them).
    if (numberFormat === "@") return { t: "s", v: String(to15Digits(input)).toUpperCase() };
    return { t: "n", v: to15Digits(input) };
  }
  if (typeof input === "boolean") return numberFormat === "@" ? { t: "s", v: input ? "TRUE" : "FALSE" } : { t: "b", v: input };
  if (typeof input !== "string")
    throw new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${where}: ${typeof input})`);
  if (input.length > MAX_CELL_CHARS) {
    throw new OfficeError(
      "InvalidArgument",
      `The argument is invalid or missing or has an incorrect format. (${where}: ${input.length} characters; a cell holds at most 32767)`,
    );
  }
  if (input === "") return "clear";
  if (numberFormat === "@") return { t: "s", v: input };
  return parseTyped(input);
}

function parseTyped(s: string): CellContent {
  const first = s[0]!;
  if (first === "'") return { t: "s", v: s.slice(1) };
  if (first === "=" && s.length > 1) return formula(s);
  const num = parseNumber(s);
  if (num) return num;
  if ((first === "+" || first === "-") && s.length > 1 && looksLikeExpression(s.slice(1))) return formula(`=${s}`);
  if (first === "@" && s.length > 1 && /^[A-Za-z_]/.test(s.slice(1)) && looksLikeExpression(s.slice(1))) return formula(`=${s.slice(1)}`);
  const upper = s.toUpperCase();
  if (upper === "TRUE" || upper === "FALSE") return { t: "b", v: upper === "TRUE" };
  if (ERROR_VALUES.includes(upper)) return { t: "e", v: upper };
  const date = parseDateTime(s);
  if (date) return date;
  return { t: "s", v: s };
}

/** Quotes closed, parentheses balanced, and no blank after the sign: what Excel's parser would accept. */
function looksLikeExpression(rest: string): boolean {
  if (!/^[A-Za-z0-9_(."$'+-]/.test(rest)) return false;
  let depth = 0,
    inStr = false,
    inQuote = false;
  for (const ch of rest) {
    if (inStr) {
      if (ch === '"') inStr = false;
      continue;
    }
    if (inQuote) {
      if (ch === "'") inQuote = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === "'") inQuote = true;
    else if (ch === "(") depth++;
    else if (ch === ")") {
      if (--depth < 0) return false;
    } else if (ch === "\n" || ch === "\r") return false;
  }
  return depth === 0 && !inStr && !inQuote;
}

function formula(f: string): CellContent {
  const value = evaluate(f.slice(1));
  return value === null ? { t: "e", v: "#NAME?", f } : { t: "n", v: to15Digits(value), f };
}

/** Evaluates plain arithmetic (numbers, + - * / ^, parentheses); null for anything else. dev/excel has no formula engine. */
export function evaluate(expr: string): number | null {
  let i = 0;
  const src = expr.replace(/\s+/g, "");
  const peek = () => src[i];
  function primary(): number | null {
    if (peek() === "(") {
      i++;
      const v = sum();
      if (peek() !== ")") return null;
      i++;
      return v;
    }
    if (peek() === "-" || peek() === "+") {
      const sign = src[i++] === "-" ? -1 : 1;
      const v = primary();
      return v === null ? null : sign * v;
    }
    const m = /^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?%?/i.exec(src.slice(i));
    if (!m) return null;
    i += m[0].length;
    const n = Number(m[0].replace("%", ""));
    return m[0].endsWith("%") ? n / 100 : n;
  }
  function power(): number | null {
    let v = primary();
    while (v !== null && peek() === "^") {
      i++;
      const r = primary();
      v = r === null ? null : v ** r;
    }
    return v;
  }
  function product(): number | null {
    let v = power();
    while (v !== null && (peek() === "*" || peek() === "/")) {
      const op = src[i++];
      const r = power();
      if (r === null || (op === "/" && r === 0)) return null;
      v = op === "*" ? v * r : v / r;
    }
    return v;
  }
  function sum(): number | null {
    let v = product();
    while (v !== null && (peek() === "+" || peek() === "-")) {
      const op = src[i++];
      const r = product();
      v = r === null ? null : op === "+" ? v + r : v - r;
    }
    return v;
  }
  const v = sum();
  return v !== null && i === src.length && Number.isFinite(v) ? v : null;
}

function parseNumber(s: string): CellContent | null {
  const t = s.trim();
  let m = /^([+-]?)\$?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?(%?)$/.exec(t);
  let negative = false;
  if (!m) {
    const paren = /^\(\$?((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?)\)$/.exec(t);
    if (!paren) {
      const frac = /^([+-]?)(\d+) (\d+)\/(\d+)$/.exec(t);
      if (frac && Number(frac[4]) !== 0) {
        const v = Number(frac[2]) + Number(frac[3]) / Number(frac[4]);
        return { t: "n", v: to15Digits(frac[1] === "-" ? -v : v), autoFormat: "# ?/?" };
      }
      return null;
    }
    negative = true;
    m = ["", "", paren[1]!, undefined as unknown as string, ""] as unknown as RegExpExecArray;
  }
  const digits = m[2]!.replace(/,/g, "");
  let v = Number(digits) * (m[3] ? 10 ** Number(m[3]) : 1);
  if (m[1] === "-" || negative) v = -v;
  if (!Number.isFinite(v)) return null;
  if (m[4] === "%") return { t: "n", v: to15Digits(v / 100), autoFormat: "0%" };
  return { t: "n", v: to15Digits(v), ...(t.includes("$") ? { autoFormat: "$#,##0.00" } : {}) };
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
function monthIndex(name: string): number {
  const n = name.toLowerCase();
  const i = MONTHS.findIndex((m) => n === m || (n.length > 3 && m === n.slice(0, 3) && fullMonth(m).startsWith(n)));
  return i;
}
function fullMonth(m: string): string {
  return ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"][
    MONTHS.indexOf(m)
  ]!;
}

/** Excel's serial date (1900 system): days since 1899-12-30, which absorbs the 1900 leap-year bug after March 1900. */
export function serialDate(y: number, m: number, d: number): number | null {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1900 || y > 9999) return null;
  const t = Date.UTC(y, m - 1, d);
  const back = new Date(t);
  if (back.getUTCMonth() !== m - 1 || back.getUTCDate() !== d) return null;
  return Math.round((t - Date.UTC(1899, 11, 30)) / 86_400_000);
}

function timeFraction(h: number, mi: number, sec: number, ampm: string | undefined): number | null {
  if (ampm) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (ampm.toUpperCase() === "PM" ? 12 : 0);
  }
  if (h > 23 || mi > 59 || sec > 59) return null;
  return (h * 3600 + mi * 60 + sec) / 86_400;
}

function fullYear(y: string): number {
  const n = Number(y);
  return y.length <= 2 ? (n < 30 ? 2000 + n : 1900 + n) : n;
}

function parseDateTime(s: string): CellContent | null {
  const t = s.trim();
  let m: RegExpExecArray | null;
  const timeRe = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*(AM|PM))?$/i;
  if ((m = timeRe.exec(t))) {
    const f = timeFraction(Number(m[1]), Number(m[2]), Number(m[3] ?? 0), m[4]);
    return f === null ? null : { t: "n", v: to15Digits(f), autoFormat: m[4] ? "h:mm AM/PM" : m[3] ? "h:mm:ss" : "h:mm" };
  }
  // A date, optionally followed by a time.
  const [datePart, ...rest] = t.split(/[ T](?=\d{1,2}:)/);
  let serial: number | null = null;
  const dp = datePart!;
  const year = new Date().getFullYear();
  if ((m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(dp))) serial = serialDate(Number(m[1]), Number(m[2]), Number(m[3]));
  else if ((m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{2}|\d{4})$/.exec(dp))) serial = serialDate(fullYear(m[3]!), Number(m[1]), Number(m[2]));
  else if ((m = /^(\d{1,2})\/(\d{1,2})$/.exec(dp))) serial = serialDate(year, Number(m[1]), Number(m[2]));
  else if ((m = /^(\d{1,2})[- ]([A-Za-z]{3,9})(?:[- ](\d{2}|\d{4}))?$/.exec(dp)) && monthIndex(m[2]!) >= 0)
    serial = serialDate(m[3] ? fullYear(m[3]) : year, monthIndex(m[2]!) + 1, Number(m[1]));
  else if ((m = /^([A-Za-z]{3,9})[- ](\d{4})$/.exec(dp)) && monthIndex(m[1]!) >= 0)
    serial = serialDate(Number(m[2]), monthIndex(m[1]!) + 1, 1);
  else if ((m = /^([A-Za-z]{3,9}) (\d{1,2}),? (\d{4})$/.exec(dp)) && monthIndex(m[1]!) >= 0)
    serial = serialDate(Number(m[3]), monthIndex(m[1]!) + 1, Number(m[2]));
  if (serial === null) return null;
  if (rest.length === 0) return { t: "n", v: serial, autoFormat: "m/d/yyyy" };
  const tm = timeRe.exec(rest.join(" ").replace(/\.\d+$/, ""));
  if (!tm) return null;
  const f = timeFraction(Number(tm[1]), Number(tm[2]), Number(tm[3] ?? 0), tm[4]);
  return f === null ? null : { t: "n", v: to15Digits(serial + f), autoFormat: "m/d/yyyy h:mm" };
}
