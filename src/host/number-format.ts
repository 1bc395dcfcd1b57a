// How Excel shows a value under a number format (Range.text), for the subset of format codes
// Cellbound writes and a user commonly picks: General, "@", 0 / 0.00 / #,##0.00 with literal
// prefixes and suffixes ("$", [$€-407], "%" and quoted text), percent, date/time codes
// (yyyy yy mmmm mmm mm m dd d hh h mm ss AM/PM), and sections with conditions ([<45658]). Used by dev/excel's Range.text and the
// harness grid, and by the task pane to preview values as the sheet will show them.
// Pure: no Office, no DOM. en-US only, like dev/excel.

import type { SheetValue } from "./port.ts";

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DATE_CODE = /(?:^|[^\\"])[yYdD]|[hHsS]|(?:^|[^\\"])[mM]/;

/** The text a cell holding `value` shows under `format` (Excel's Range.text, en-US). */
export function formatValue(value: SheetValue, format: string | null | undefined): string {
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string") return value;
  const nf = format ?? "General";
  if (nf === "@" || !Number.isFinite(value)) return String(value);
  const sections = splitSections(nf);
  let section = sections[0] ?? "General";
  let v = value;
  const conditional = conditionalSection(sections, v);
  if (conditional !== null) section = conditional;
  else if (v < 0 && sections.length > 1) {
    section = sections[1]!;
    v = -v; // the negative section shows the sign itself (or not)
  } else if (v === 0 && sections.length > 2) {
    section = sections[2]!;
  }
  section = section.replace(/\[(?:Red|Black|Blue|Green|White|Yellow|Cyan|Magenta|Color\d+)\]/gi, "");
  if (/^general$/i.test(section.trim())) return general(v);
  if (isDateFormat(section)) return formatDate(v, section);
  return formatNumber(v, section);
}

const CONDITION = /^\s*(?:\[(?:Red|Black|Blue|Green|White|Yellow|Cyan|Magenta|Color\d+)\])?\[(<=|>=|<>|<|>|=)\s*(-?\d+(?:\.\d+)?)\]/i;

/**
 * With conditions (`[<45658]yyyy-mm-dd;[<45748]"Q1 "yyyy;yyyy-mm-dd`), the section Excel picks, its
 * condition taken out: the first whose condition holds; a second section without one holds for the
 * rest, else the third. Null when the format has no conditions (sections go by sign).
 */
function conditionalSection(sections: string[], v: number): string | null {
  const test = (s: string | undefined) => {
    const m = s === undefined ? null : CONDITION.exec(s);
    if (!m) return null;
    const n = Number(m[2]);
    const ok = { "<": v < n, "<=": v <= n, ">": v > n, ">=": v >= n, "=": v === n, "<>": v !== n }[m[1]!]!;
    return { ok, section: s!.replace(/\[(<=|>=|<>|<|>|=)\s*-?\d+(?:\.\d+)?\]/, "") };
  };
  const first = test(sections[0]);
  if (!first) return null;
  if (first.ok) return first.section;
  const second = test(sections[1]);
  if (!second) return sections[1] ?? first.section;
  return second.ok ? second.section : (sections[2] ?? second.section);
}

export function isDateFormat(format: string): boolean {
  return DATE_CODE.test(stripLiterals(format).replace(/\[\$[^\]]*\]/g, ""));
}

/** Excel's General: up to 11 significant characters, exponent for very large or small numbers. */
function general(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e11 || a < 1e-9)
    return v
      .toExponential(5)
      .replace(/\.?0+e/, "E")
      .replace(/E([+-])(\d)$/, "E$10$2")
      .toUpperCase();
  const s = String(Number(v.toPrecision(a >= 1 ? 11 : 10)));
  return s;
}

function splitSections(f: string): string[] {
  const out: string[] = [];
  let cur = "",
    q = false;
  for (let i = 0; i < f.length; i++) {
    const ch = f[i]!;
    if (ch === '"') q = !q;
    if (ch === "\\" && !q) {
      cur += ch + (f[i + 1] ?? "");
      i++;
      continue;
    }
    if (ch === ";" && !q) {
      out.push(cur);
      cur = "";
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

function stripLiterals(f: string): string {
  return f.replace(/"[^"]*"/g, "").replace(/\\./g, "");
}

/** Literal text of a format part: quoted strings, escapes, [$sym-lcid], and plain symbols. */
function literal(part: string): string {
  return part
    .replace(/\[\$([^\]-]*)(?:-[0-9A-Fa-f]+)?\]/g, "$1")
    .replace(/"([^"]*)"/g, "$1")
    .replace(/\\(.)/g, "$1")
    .replace(/[_*]./g, (m) => (m[0] === "_" ? " " : ""));
}

function formatNumber(value: number, section: string): string {
  // Split into prefix, the digit pattern, suffix (the pattern is the first run of 0 # ? , .).
  const masked = section.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, (m) => "\u0000".repeat(m.length));
  const m = /[0#?][0#?,]*(?:\.[0#?]*)?|\.[0#?]+/.exec(masked);
  if (!m) return literal(section);
  const prefix = section.slice(0, m.index);
  const pattern = section.slice(m.index, m.index + m[0].length);
  const suffix = section.slice(m.index + m[0].length);
  let v = value;
  const percents = (stripLiterals(section).match(/%/g) ?? []).length;
  for (let i = 0; i < percents; i++) v *= 100;
  const [intPat = "", decPat = ""] = pattern.split(".");
  const decimals = decPat.replace(/[^0#?]/g, "").length;
  const minDecimals = decPat.replace(/[^0]/g, "").length;
  const grouped = /[0#?],[0#?]/.test(intPat);
  const minInt = intPat.replace(/[^0]/g, "").length;
  const negative = v < 0;
  let [ip = "0", dp = ""] = Math.abs(v).toFixed(decimals).split(".");
  dp = dp.replace(/0+$/, "");
  while (dp.length < minDecimals) dp += "0";
  ip = ip.replace(/^0+/, "");
  while (ip.length < minInt) ip = "0" + ip;
  if (grouped) ip = ip.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const body = ip + (decimals > 0 && (dp.length > 0 || decPat.length > 0) ? "." + dp : "");
  const text = literal(prefix) + body + literal(suffix);
  return negative && Number(body.replace(/,/g, "")) !== 0 ? "-" + text : text;
}

/** Excel serial (1900 date system) → calendar parts. */
function serialParts(serial: number): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const days = Math.floor(serial);
  const secs = Math.round((serial - days) * 86400);
  // Serial 60 is Excel's fictitious 29 Feb 1900; later serials are one day ahead of the real calendar.
  const ms = Date.UTC(1899, 11, 31) + (days >= 60 ? days - 1 : days) * 86400000 + secs * 1000;
  const dt = new Date(ms);
  return {
    y: dt.getUTCFullYear(),
    mo: dt.getUTCMonth(),
    d: dt.getUTCDate(),
    h: dt.getUTCHours(),
    mi: dt.getUTCMinutes(),
    s: dt.getUTCSeconds(),
  };
}

function formatDate(serial: number, section: string): string {
  if (serial < 0) return "#".repeat(8); // Excel shows ##### for negative dates
  const p = serialParts(serial);
  const ampm = /AM\/PM|A\/P/i.test(section);
  const tokens = section.match(/"[^"]*"|\\.|\[[^\]]*\]|AM\/PM|A\/P|y+|m+|d+|h+|s+|./gi) ?? [];
  let out = "";
  let lastWasHour = false;
  tokens.forEach((t, i) => {
    const lower = t.toLowerCase();
    const pad = (n: number) => String(n).padStart(2, "0");
    if (t.startsWith('"') || t.startsWith("\\") || t.startsWith("[")) {
      out += literal(t);
      return;
    }
    if (lower[0] === "y") out += lower.length <= 2 ? pad(p.y % 100) : String(p.y);
    else if (lower[0] === "d")
      out +=
        lower.length === 1
          ? String(p.d)
          : lower.length === 2
            ? pad(p.d)
            : lower.length === 3
              ? ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][new Date(Date.UTC(p.y, p.mo, p.d)).getUTCDay()]!
              : ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"][
                  new Date(Date.UTC(p.y, p.mo, p.d)).getUTCDay()
                ]!;
    else if (lower[0] === "h") {
      const h = ampm ? ((p.h + 11) % 12) + 1 : p.h;
      out += lower.length === 1 ? String(h) : pad(h);
      lastWasHour = true;
      return;
    } else if (lower[0] === "s") out += lower.length === 1 ? String(p.s) : pad(p.s);
    else if (lower[0] === "m") {
      // "m"/"mm" right after an hour or before a second is minutes, else months.
      const next = tokens.slice(i + 1).find((x) => /^[a-z]/i.test(x) && !/^[:.\s]/.test(x));
      const minutes = lower.length <= 2 && (lastWasHour || (next !== undefined && next.toLowerCase()[0] === "s"));
      if (minutes) out += lower.length === 1 ? String(p.mi) : pad(p.mi);
      else
        out +=
          lower.length === 1
            ? String(p.mo + 1)
            : lower.length === 2
              ? pad(p.mo + 1)
              : lower.length === 3
                ? MONTHS[p.mo]!.slice(0, 3)
                : lower.length === 5
                  ? MONTHS[p.mo]![0]!
                  : MONTHS[p.mo]!;
    } else if (/^am\/pm$/i.test(t)) out += p.h < 12 ? "AM" : "PM";
    else if (/^a\/p$/i.test(t)) out += p.h < 12 ? "A" : "P";
    else out += t;
    if (/^[a-z]/i.test(t)) lastWasHour = false;
  });
  return out;
}
