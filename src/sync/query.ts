// Semantic-layer query helpers for the sync engine (pure).
//
// A report's jsonQuery is a semantic-layer query (measures, dimensions, timeDimensions,
// filters, order, limit, offset). This module reads it, names its members the way the data
// client names result columns, and builds the separate *total* queries a pivot needs:
//
//   - a totals query groups by a subset of the pivot's dimensions (row dims only, column
//     dims only, or none for the grand total), so averages and count-distinct total right;
//   - measure filters (HAVING) are dropped from it; dimension filters (WHERE) are kept;
//   - a time dimension that is not grouped keeps its dateRange (as a filter) but loses
//     its granularity;
//   - order entries of members no longer grouped, limit and offset are dropped.
// The structural types below are the minimum the layout needs; src/api validates the full
// query at the boundary.

export interface MemberFilter {
  member: string;
  operator: string;
  values?: string[];
}
export interface LogicalFilter {
  and?: Filter[];
  or?: Filter[];
}
export type Filter = MemberFilter | LogicalFilter;

export interface TimeDimension {
  dimension: string;
  granularity?: string;
  dateRange?: string | [string, string];
}

export interface SemanticQuery {
  measures?: string[];
  dimensions?: string[];
  timeDimensions?: TimeDimension[];
  filters?: Filter[];
  order?: Record<string, "asc" | "desc"> | Array<[string, "asc" | "desc"] | { id: string; desc: boolean }>;
  limit?: number;
  offset?: number;
  total?: boolean;
  timezone?: string;
  [key: string]: unknown;
}

/** Parse a report's jsonQuery string; a clear error when it is not a JSON object. */
export function parseJsonQuery(text: string): SemanticQuery {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`The report's jsonQuery is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("The report's jsonQuery must be a JSON object.");
  }
  const q = value as SemanticQuery;
  for (const key of ["measures", "dimensions", "timeDimensions", "filters"] as const) {
    if (q[key] !== undefined && !Array.isArray(q[key])) throw new Error(`The report's jsonQuery.${key} must be an array.`);
  }
  return q;
}

/** The result-column key of a time dimension: "<member>.<granularity>" or "<member>". */
export function timeKey(td: TimeDimension): string {
  return td.granularity ? `${td.dimension}.${td.granularity}` : td.dimension;
}

/** Every grouping member of a query, named as result columns are (time dims with granularity only). */
export function groupingKeys(q: SemanticQuery): string[] {
  const dims = [...(q.dimensions ?? [])];
  for (const td of q.timeDimensions ?? []) if (td.granularity) dims.push(timeKey(td));
  return dims;
}

/** Does a pivot/result key name this member? ("orders.created_at.month" matches "orders.created_at"). */
export function sameMember(key: string, member: string): boolean {
  return key === member || key.startsWith(member + ".") || member.startsWith(key + ".");
}

export function isMemberFilter(f: Filter): f is MemberFilter {
  return typeof (f as MemberFilter).member === "string";
}

/** Members a filter (possibly nested) refers to. */
export function filterMembers(f: Filter): string[] {
  if (isMemberFilter(f)) return [f.member];
  return [...(f.and ?? []), ...(f.or ?? [])].flatMap(filterMembers);
}

/**
 * Remove measure filters. A logical group that mentions a measure anywhere is dropped whole:
 * removing one branch of an `or` would change which rows the dimension part selects.
 */
export function dropMeasureFilters(filters: Filter[], isMeasure: (member: string) => boolean): Filter[] {
  return filters.filter((f) => !filterMembers(f).some(isMeasure));
}

/**
 * Build a totals query: `base` grouped only by `keep` (result-column keys of dimensions
 * and time dimensions). `measures` are the members considered measures (the query's own
 * measures plus any the caller knows from metadata).
 */
export function totalsQuery(
  base: SemanticQuery,
  keep: readonly string[],
  measures: ReadonlySet<string> = new Set(base.measures ?? []),
): SemanticQuery {
  const isMeasure = (m: string) => measures.has(m) || (base.measures ?? []).includes(m);
  const kept = (key: string) => keep.some((k) => k === key);
  const out: SemanticQuery = { ...base };
  out.measures = [...(base.measures ?? [])];
  out.dimensions = (base.dimensions ?? []).filter(kept);
  out.timeDimensions = (base.timeDimensions ?? []).flatMap((td): TimeDimension[] => {
    if (td.granularity && kept(timeKey(td))) return [td];
    if (td.dateRange !== undefined) return [{ dimension: td.dimension, dateRange: td.dateRange }];
    return [];
  });
  out.filters = dropMeasureFilters(base.filters ?? [], isMeasure);
  const groups = new Set([...out.dimensions, ...out.timeDimensions.filter((t) => t.granularity).map(timeKey)]);
  const keepOrder = (member: string) => out.measures!.includes(member) || [...groups].some((g) => sameMember(g, member));
  if (Array.isArray(base.order)) out.order = base.order.filter((e) => keepOrder(Array.isArray(e) ? e[0] : e.id));
  else if (base.order) out.order = Object.fromEntries(Object.entries(base.order).filter(([m]) => keepOrder(m)));
  delete out.limit;
  delete out.offset;
  delete out.total;
  return out;
}
