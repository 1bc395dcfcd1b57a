// Turns a data-API answer into the shared TypedResult (src/checksum/types.ts): one typed
// column per requested member (from the annotation), values normalised for the sheet.
//   number:  JS number when the decimal has ≤ 15 significant digits, else the string as received;
//   time:    "YYYY-MM-DDTHH:mm:ss.sss", naive wall-clock in the query's timezone (a value
//            carrying a zone is converted into that timezone);
//   boolean: from true/false, "true"/"false", 1/0 or "1"/"0";  null stays null.
import type { ColumnType, RawValue, ResultColumn, TypedResult } from "../checksum/types";
import type { Annotation, LoadResponse, NormalizedQuery, SqlResponse } from "./schemas/data";

/** Thrown on a value its column type cannot hold; the data client turns it into InvalidResponseError. */
export class ValueDecodeError extends Error {}

export function columnType(annotated: string): ColumnType {
  switch (annotated) {
    case "number":
    case "count":
    case "sum":
    case "avg":
    case "min":
    case "max":
    case "countDistinct":
    case "countDistinctApprox":
    case "runningTotal":
      return "number";
    case "boolean":
      return "boolean";
    case "time":
      return "time";
    default:
      return "string";
  }
}

/** Columns in the order dimensions, timeDimensions (with a granularity), measures. */
export function columnsOf(query: NormalizedQuery, annotation: Annotation): ResultColumn[] {
  const cols: ResultColumn[] = [];
  const add = (key: string, entry: Annotation["measures"][string] | undefined, kind: ResultColumn["kind"], granularity?: string) => {
    if (!entry) throw new ValueDecodeError(`annotation has no entry for ${key}`);
    const col: ResultColumn = { key, title: entry.title, shortTitle: entry.shortTitle, type: columnType(entry.type), kind };
    const format = typeof entry.format === "string" ? entry.format : entry.format?.type;
    if (format) col.format = format;
    if (granularity !== undefined) col.granularity = granularity;
    cols.push(col);
  };
  for (const d of query.dimensions) add(d, annotation.dimensions[d], "dimension");
  for (const td of query.timeDimensions) {
    if (!td.granularity) continue; // a date-range filter only: no column
    const key = `${td.dimension}.${td.granularity}`;
    add(key, annotation.timeDimensions[key] ?? annotation.timeDimensions[td.dimension], "timeDimension", td.granularity);
  }
  for (const m of query.measures) add(m, annotation.measures[m], "measure");
  return cols;
}

const DECIMAL = /^[+-]?(\d+)(?:\.(\d*))?(?:[eE][+-]?\d+)?$|^[+-]?\.(\d+)(?:[eE][+-]?\d+)?$/;

/** Significant digits of a decimal string: leading and trailing zeros do not count. */
export function significantDigits(s: string): number {
  const mantissa = s
    .replace(/^[+-]/, "")
    .replace(/[eE].*$/, "")
    .replace(".", "");
  const trimmed = mantissa.replace(/^0+/, "").replace(/0+$/, "");
  return trimmed.length;
}

export function decodeNumber(v: unknown): number | string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new ValueDecodeError(`not a finite number: ${v}`);
    return v;
  }
  if (typeof v === "string") {
    // Hot path (2M values for a 100k × 20 result): one regex test, and a string of at most
    // 15 characters cannot hold more than 15 significant digits.
    let s = v;
    if (!DECIMAL.test(s)) {
      s = v.trim();
      if (s === v || !DECIMAL.test(s)) throw new ValueDecodeError(`not a number: ${JSON.stringify(v.slice(0, 40))}`);
    }
    return s.length <= 15 || significantDigits(s) <= 15 ? Number(s) : s;
  }
  throw new ValueDecodeError(`not a number: ${typeof v}`);
}

/**
 * Every form real drivers send a boolean in: JSON true/false (Postgres), "true"/"false", and 1/0
 * or "1"/"0" (SQLite and MySQL have no boolean type). Anything else (2, "yes") is an error, not a guess.
 */
export function decodeBoolean(v: unknown): boolean | null {
  if (v === null || v === undefined) return null;
  if (v === true || v === "true" || v === 1 || v === "1") return true;
  if (v === false || v === "false" || v === 0 || v === "0") return false;
  throw new ValueDecodeError(`not a boolean: ${JSON.stringify(v)}`);
}

const NAIVE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const ZONED = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})$/;

const formatters = new Map<string, Intl.DateTimeFormat>();
function wallClockIn(timezone: string, epochMs: number): string {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timezone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(new Date(epochMs)).map((p) => [p.type, p.value]));
  const ms = String(((epochMs % 1000) + 1000) % 1000).padStart(3, "0");
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${ms}`;
}

/** A time value → "YYYY-MM-DDTHH:mm:ss.sss" wall-clock in `timezone`. */
export function decodeTime(v: unknown, timezone: string): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== "string") throw new ValueDecodeError(`not a time: ${JSON.stringify(v)}`);
  const n = NAIVE.exec(v);
  if (n) {
    const [, y, mo, d, h = "00", mi = "00", s = "00", frac = ""] = n;
    return `${y}-${mo}-${d}T${h}:${mi}:${s}.${(frac + "000").slice(0, 3)}`;
  }
  const z = ZONED.exec(v);
  if (z) {
    const zone = z[3] === "Z" ? "Z" : z[3]!.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
    const frac = /\.(\d+)$/.exec(z[2]!)?.[1];
    const hhmmss = z[2]!.replace(/\.\d+$/, "");
    const iso = `${z[1]}T${hhmmss.length === 5 ? hhmmss + ":00" : hhmmss}.${((frac ?? "") + "000").slice(0, 3)}${zone}`;
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) throw new ValueDecodeError(`not a time: ${JSON.stringify(v)}`);
    return wallClockIn(timezone, ms);
  }
  throw new ValueDecodeError(`not a time: ${JSON.stringify(v.slice(0, 40))}`);
}

export function decodeValue(type: ColumnType, v: unknown, timezone: string): RawValue {
  switch (type) {
    case "number":
      return decodeNumber(v);
    case "boolean":
      return decodeBoolean(v);
    case "time":
      return decodeTime(v, timezone);
    case "string":
      if (v === null || v === undefined) return null;
      if (typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "boolean") return String(v);
      throw new ValueDecodeError(`not a string: ${JSON.stringify(v)}`);
  }
}

function decodeRows(columns: ResultColumn[], data: Array<Record<string, unknown>>, timezone: string): RawValue[][] {
  const rows: RawValue[][] = new Array(data.length);
  const keys = columns.map((c) => c.key);
  const types = columns.map((c) => c.type);
  for (let r = 0; r < data.length; r++) {
    const rec = data[r]!;
    const row: RawValue[] = new Array(keys.length);
    for (let c = 0; c < keys.length; c++) {
      try {
        row[c] = decodeValue(types[c]!, rec[keys[c]!], timezone);
      } catch (e) {
        throw new ValueDecodeError(`row ${r}, ${keys[c]}: ${(e as Error).message}`);
      }
    }
    rows[r] = row;
  }
  return rows;
}

export function toTypedResult(res: LoadResponse): TypedResult {
  const timezone = res.query.timezone;
  const columns = columnsOf(res.query, res.annotation);
  return { columns, rows: decodeRows(columns, res.data, timezone), total: res.total ?? null, timezone };
}

/** `firstRow`: the index of res.data's first row in the whole answer (for error messages of a slice). */
export function sqlToTypedResult(res: SqlResponse, timezone: string, firstRow = 0): TypedResult {
  const columns: ResultColumn[] = res.schema.map((s) => ({
    key: s.name,
    title: s.name,
    shortTitle: s.name,
    type: s.type,
    kind: "dimension",
  }));
  return { columns, rows: decodeArrayRows(columns, res.data, timezone, firstRow), total: null, timezone };
}

/** Rows as arrays in column order (svcsql): decoded column by column, each in one tight loop. */
function decodeArrayRows(columns: ResultColumn[], data: unknown[][], timezone: string, firstRow = 0): RawValue[][] {
  const n = columns.length;
  const rows: RawValue[][] = new Array(data.length);
  for (let r = 0; r < data.length; r++) {
    const rec = data[r]!;
    if (rec.length !== n) throw new ValueDecodeError(`row ${firstRow + r} has ${rec.length} values, the schema ${n} columns`);
    rows[r] = new Array(n);
  }
  for (let c = 0; c < n; c++) {
    const type = columns[c]!.type;
    let r = 0;
    try {
      if (type === "number") for (; r < data.length; r++) rows[r]![c] = decodeNumber(data[r]![c]);
      else for (; r < data.length; r++) rows[r]![c] = decodeValue(type, data[r]![c], timezone);
    } catch (e) {
      throw new ValueDecodeError(`row ${firstRow + r}, ${columns[c]!.key}: ${(e as Error).message}`);
    }
  }
  return rows;
}
