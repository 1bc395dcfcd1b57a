// The applied-filters summary written above a table (pure).
//
// Whether it shows: the report's pivotItems.showAppliedFilters wins; when it is omitted the
// user's setting applies, then the account's; with none of them set it is off.
// What it shows: one row per applied filter (dimension and measure filters, and the date
// range of time dimensions), as a single text cell "Applied filter: <Title> <operator> <values>".
// Member titles come from the result annotation or metadata when known, else the member name.
import { excelText } from "../checksum/index.ts";
import type { SheetValue } from "../host/port.ts";
import { filterMembers, isMemberFilter, type Filter, type SemanticQuery } from "./query.ts";

export interface FilterSettings {
  report?: boolean | null;
  user?: boolean | null;
  account?: boolean | null;
}

/** seeds 01 §2.4: the per-report value wins; otherwise the user, then the account setting. */
export function showAppliedFilters(s: FilterSettings): boolean {
  return s.report ?? s.user ?? s.account ?? false;
}

export interface FilterSummaryInput {
  query: SemanticQuery;
  /** Member → human title (annotation or /v1/meta). */
  titles?: ReadonlyMap<string, string>;
  /** Member → the cells its values came from (issue 32): "Region is West (from Sheet1!B1)". */
  from?: ReadonlyMap<string, string>;
}

/** Filter operators in words (the summary rows, the builder's operator menu). */
export const OPERATORS: Readonly<Record<string, string>> = {
  equals: "is",
  notEquals: "is not",
  contains: "contains",
  notContains: "does not contain",
  startsWith: "starts with",
  notStartsWith: "does not start with",
  endsWith: "ends with",
  notEndsWith: "does not end with",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  set: "is set",
  notSet: "is not set",
  inDateRange: "is in",
  notInDateRange: "is not in",
  beforeDate: "is before",
  beforeOrOnDate: "is on or before",
  afterDate: "is after",
  afterOrOnDate: "is on or after",
  measureFilter: "matches",
};

export const FILTER_PREFIX = "Applied filter: ";

/** The sentence for one filter (nested and/or groups are written in brackets). */
export function describeFilter(f: Filter, title: (m: string) => string): string {
  if (isMemberFilter(f)) {
    const op = OPERATORS[f.operator] ?? f.operator;
    const values = f.values ?? [];
    const isRange = f.operator === "inDateRange" || f.operator === "notInDateRange";
    const shown = isRange && values.length === 2 ? `${values[0]} – ${values[1]}` : values.join(", ");
    return shown ? `${title(f.member)} ${op} ${shown}` : `${title(f.member)} ${op}`;
  }
  const [word, parts] = f.and ? ["and", f.and] : ["or", f.or ?? []];
  return `(${parts.map((p) => describeFilter(p, title)).join(` ${word} `)})`;
}

/**
 * Members the summary names that the result's annotation does not title: filters on members the
 * query does not select, and time dimensions used only as a date range (the semantic layer's
 * annotation lists selected members and time dimensions with a granularity only). Their titles
 * come from /v1/meta (run-report.ts).
 */
export function untitledSummaryMembers(query: SemanticQuery): string[] {
  const titled = new Set([
    ...(query.dimensions ?? []),
    ...(query.measures ?? []),
    ...(query.timeDimensions ?? []).filter((t) => t.granularity).map((t) => t.dimension),
  ]);
  const named = [
    ...(query.filters ?? []).flatMap(filterMembers),
    ...(query.timeDimensions ?? []).filter((t) => t.dateRange !== undefined).map((t) => t.dimension),
  ];
  return [...new Set(named.filter((m) => !titled.has(m)))];
}

/**
 * One text row per applied filter; [] when there are none. A line over 32,767 characters (a filter on
 * thousands of values) is cut the way a data value is (excelText, docs/CHECKSUM.md §2.4): 32,766
 * characters and "…", so a cell holds it and shows it was cut.
 */
export function filterSummaryRows(input: FilterSummaryInput): SheetValue[][] {
  const title = (m: string) => input.titles?.get(m) ?? m;
  const from = (member: string) => (input.from?.has(member) ? ` (from ${input.from.get(member)})` : "");
  const lines: string[] = (input.query.filters ?? []).map((f) => describeFilter(f, title) + (isMemberFilter(f) ? from(f.member) : ""));
  for (const td of input.query.timeDimensions ?? []) {
    if (td.dateRange === undefined) continue;
    const range = Array.isArray(td.dateRange) ? `${td.dateRange[0]} – ${td.dateRange[1]}` : td.dateRange;
    lines.push(`${title(td.dimension)} is in ${range}${from(td.dimension)}`);
  }
  return lines.map((l) => [excelText(FILTER_PREFIX + l)]);
}
