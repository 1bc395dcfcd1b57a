// Pure helpers of the report builder: turn the builder's choices into a semantic-layer JSON query
// and the report's pivotItems (seeds 01 §2.4), and check them before saving.
import type { BuilderFilter, BuilderQuery, PivotItems } from "../types";
import { OPERATORS, parseDateRange } from "./live";

/** A filter operator as the builder's menu says it: "is not", "is greater than", "is set" (never the API name). */
export function operatorLabel(op: string): string {
  const words: Record<string, string> = { gt: "is greater than", lt: "is less than", gte: "is at least", lte: "is at most" };
  return words[op] ?? OPERATORS[op] ?? op;
}

/** What is wrong with the date range as typed (shown next to the field), or null. */
export function dateRangeProblem(s: Pick<BuilderState, "timeDimension" | "dateRange" | "dateRangeRef">): string | null {
  if (!s.timeDimension || !s.dateRange.trim() || s.dateRangeRef !== undefined) return null;
  const r = parseDateRange(s.dateRange);
  return r.ok ? null : r.error;
}

export interface BuilderState {
  view: string;
  measures: string[];
  dimensions: string[];
  timeDimension: string | null;
  granularity: string | null;
  dateRange: string;
  /** The two cells (from, to) the time dimension's date range comes from once placed (issue 32), e.g. "Inputs!B1:B2". */
  dateRangeRef?: string | undefined;
  filters: BuilderRowFilter[];
  order: [string, "asc" | "desc"] | null;
  pivot: boolean;
  pivotItems: PivotItems;
}

/** A filter row: typed values, or (issue 32) the cells its values come from once placed ("Sheet1!B1"). */
export type BuilderRowFilter = BuilderFilter & { ref?: string };

/**
 * The filters bound to cells, as the placement's inputs (issue 32). A bound row's typed values, if any,
 * stay the report's own filter (the cells' values replace them in this placement); without, the row is
 * left out of the report's query and the placement adds it.
 */
export function toInputs(s: Pick<BuilderState, "filters" | "timeDimension" | "dateRangeRef">): { member: string; ref: string }[] {
  const rows = s.filters.flatMap((f) => (f.member && f.ref ? [{ member: f.member, ref: f.ref }] : []));
  return s.timeDimension && s.dateRangeRef ? [...rows, { member: s.timeDimension, ref: s.dateRangeRef }] : rows;
}

export const GRANULARITIES = ["day", "week", "month", "quarter", "year"] as const;

export function emptyBuilder(view = ""): BuilderState {
  return {
    view,
    measures: [],
    dimensions: [],
    timeDimension: null,
    granularity: "month",
    dateRange: "",
    filters: [],
    order: null,
    pivot: false,
    pivotItems: {
      rows: [],
      columns: [],
      measures: [],
      filters: [],
      displayScale: "model",
      measuresAxis: "columns",
      measuresPosition: "after",
      showColumnTotals: false,
      showRowTotals: false,
    },
  };
}

export function toQuery(s: BuilderState, limit?: number): BuilderQuery {
  const q: BuilderQuery = {
    measures: [...s.measures],
    dimensions: [...s.dimensions],
    timeDimensions: [],
    filters: s.filters
      .filter((f) => f.member && (f.operator === "set" || f.operator === "notSet" || f.values.length > 0))
      .map(({ member, operator, values }) => ({ member, operator, values })),
    order: s.order ? [s.order] : [],
  };
  if (s.timeDimension) {
    const td: BuilderQuery["timeDimensions"][number] = { dimension: s.timeDimension };
    if (s.granularity) td.granularity = s.granularity;
    const range = s.dateRange.trim() ? parseDateRange(s.dateRange) : null;
    if (range?.ok) td.dateRange = range.value;
    q.timeDimensions.push(td);
  }
  if (limit !== undefined) q.limit = limit;
  return q;
}

/** The member names a pivot zone may hold: the chosen dimensions (time dimension as member.granularity). */
export function pivotDimensionMembers(s: BuilderState): string[] {
  const dims = [...s.dimensions];
  if (s.timeDimension) dims.push(s.granularity ? `${s.timeDimension}.${s.granularity}` : s.timeDimension);
  return dims;
}

/** pivotItems with its measures kept in step with the query's measures. */
export function toPivotItems(s: BuilderState): PivotItems | null {
  if (!s.pivot) return null;
  const allowed = new Set(pivotDimensionMembers(s));
  const keep = (xs: string[]) => xs.filter((x) => allowed.has(x));
  return {
    ...s.pivotItems,
    rows: keep(s.pivotItems.rows),
    columns: keep(s.pivotItems.columns),
    filters: keep(s.pivotItems.filters),
    measures: [...s.measures],
  };
}

/** Problems that must be fixed before preview or save (empty when fine). */
export function problems(s: BuilderState, name: string | null): string[] {
  const out: string[] = [];
  if (s.measures.length === 0 && s.dimensions.length === 0 && !s.timeDimension) out.push("Pick at least one measure or dimension.");
  if (name !== null) {
    if (name.trim() === "") out.push("Give the report a name.");
    if (name.length > 255) out.push("The name can be at most 255 characters.");
  }
  const range = dateRangeProblem(s);
  if (range) out.push(range);
  if (s.pivot) {
    const p = toPivotItems(s)!;
    if (p.rows.length === 0 && p.columns.length === 0) out.push("Put at least one dimension in Rows or Columns of the pivot.");
    if (s.measures.length === 0) out.push("A pivot needs at least one measure.");
  }
  return out;
}
