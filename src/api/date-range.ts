// Date ranges of a time dimension (seed 02's /v1/load `dateRange`): a pair [from, to], a single date,
// or a relative range in words, as Cube documents them ("today", "yesterday", "this week|month|quarter|year",
// "last week|month|quarter|year", "last N days|weeks|months|quarters|years", "from N days ago to now").
// One grammar for the pane (checks what the user typed, beside the field) and the stand-in (resolves
// it against today). Pure.

const UNITS = "day|week|month|quarter|year";
const RELATIVE = new RegExp(
  `^(?:today|yesterday|(?:this|last) (?:${UNITS})|last \\d{1,4} (?:${UNITS})s?|from \\d{1,4} (?:${UNITS})s? ago to now)$`,
);
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?$/i;

/** A relative range in words the data API understands (case and spaces forgiven by `normalizeRange`). */
export function isRelativeRange(s: string): boolean {
  return RELATIVE.test(s);
}

export function isRangeDate(s: string): boolean {
  return DATE.test(s) && !Number.isNaN(Date.parse(s.slice(0, 10)));
}

/** Lower case, single spaces, trimmed. */
export function normalizeRange(s: string): string {
  return s.trim().toLowerCase().replace(/\s+/g, " ");
}

export type ParsedRange = { ok: true; value: string | [string, string] } | { ok: false; error: string };

/**
 * What the user typed → the query's dateRange: "last 12 months" (relative, sent as words),
 * "2025-01-31" (one day), "2025-01-01 to 2025-06-30" or "2025-01-01 – 2025-06-30" (a pair, from ≤ to).
 */
export function parseDateRange(text: string): ParsedRange {
  const s = normalizeRange(text);
  if (isRelativeRange(s)) return { ok: true, value: s };
  if (isRangeDate(s)) return { ok: true, value: s.toUpperCase().replace(" ", "T") };
  const pair = /^(\S+)\s*(?:to|–|—|-|\.\.)\s*(\S+)$/.exec(s.replace(/^(\d{4}-\d{2}-\d{2})-(\d{4}-\d{2}-\d{2})$/, "$1 to $2"));
  if (pair && isRangeDate(pair[1]!) && isRangeDate(pair[2]!)) {
    if (pair[1]! > pair[2]!) return { ok: false, error: `The range ends (${pair[2]}) before it starts (${pair[1]}).` };
    return { ok: true, value: [pair[1]!, pair[2]!] };
  }
  return {
    ok: false,
    error: `“${text.trim()}” is not a date range Cellbound understands. Type a date (2025-01-31), two dates (2025-01-01 to 2025-06-30), or a relative range such as “last 12 months”, “this year” or “last week”.`,
  };
}

const iso = (d: Date) => d.toISOString().slice(0, 10);
const day = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));

/** The first day of the period of `unit` holding `t` (weeks start on Monday, as Cube's do). */
function periodStart(t: Date, unit: string): Date {
  const y = t.getUTCFullYear(),
    m = t.getUTCMonth(),
    d = t.getUTCDate();
  switch (unit) {
    case "day":
      return day(y, m, d);
    case "week":
      return day(y, m, d - ((t.getUTCDay() + 6) % 7));
    case "month":
      return day(y, m, 1);
    case "quarter":
      return day(y, m - (m % 3), 1);
    default:
      return day(y, 0, 1);
  }
}

function shift(t: Date, unit: string, n: number): Date {
  const y = t.getUTCFullYear(),
    m = t.getUTCMonth(),
    d = t.getUTCDate();
  switch (unit) {
    case "day":
      return day(y, m, d + n);
    case "week":
      return day(y, m, d + 7 * n);
    case "month":
      return day(y, m + n, d);
    case "quarter":
      return day(y, m + 3 * n, d);
    default:
      return day(y + n, m, d);
  }
}

/**
 * A relative range → [from, to] as dates (inclusive), against `now` (UTC days). "last N units" is the
 * N whole units before the current one (Cube: "last 12 months" in November ends with October);
 * "from N units ago to now" runs to today.
 */
export function resolveRelativeRange(text: string, now: Date): [string, string] | null {
  const s = normalizeRange(text);
  if (!isRelativeRange(s)) return null;
  const today = periodStart(now, "day");
  if (s === "today") return [iso(today), iso(today)];
  if (s === "yesterday") return [iso(shift(today, "day", -1)), iso(shift(today, "day", -1))];
  let m = /^this (\w+)$/.exec(s);
  if (m) return [iso(periodStart(now, m[1]!)), iso(shift(shift(periodStart(now, m[1]!), m[1]!, 1), "day", -1))];
  m = /^last (?:(\d+) )?(\w+?)s?$/.exec(s);
  if (m) {
    const n = Number(m[1] ?? 1);
    const start = periodStart(now, m[2]!);
    return [iso(shift(start, m[2]!, -n)), iso(shift(start, "day", -1))];
  }
  m = /^from (\d+) (\w+?)s? ago to now$/.exec(s);
  if (m) return [iso(shift(today, m[2]!, -Number(m[1]))), iso(today)];
  return null;
}
