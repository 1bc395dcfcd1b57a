// Runs a report's query through the data API and lays the result out as cells.
//
//   jsonQuery → POST /v1/load (validated with src/api's LoadQuery first). A pivot also runs its
//               total queries (query.ts totalsQuery) in parallel with the main query.
//   sqlQuery  → POST /v1/svcsql; always a flat table (totals cannot be derived from SQL text).
// The filter summary is added when showAppliedFilters resolves to on (filters.ts).
import { LoadQuery, type DataClient, type Report } from "../api/index.ts";
import type { TypedResult } from "../checksum/types.ts";
import { showAppliedFilters } from "./filters.ts";
import { isPivot, layout, type Layout, type PivotSettings, type PivotTotals } from "./layout.ts";
import { groupingKeys, parseJsonQuery, sameMember, totalsQuery, type SemanticQuery } from "./query.ts";

export interface FilterDefaults {
  /** The user's showAppliedFilters setting (null/undefined = not set). */
  user?: boolean | null;
  /** The account's setting. */
  account?: boolean | null;
}

export type RunnableReport = Pick<Report, "jsonQuery" | "sqlQuery" | "pivotItems">;

export interface RunOutput {
  layout: Layout;
  result: TypedResult;
}

export async function runReport(data: Pick<DataClient, "load" | "svcsql">, report: RunnableReport, defaults: FilterDefaults = {}, signal?: AbortSignal): Promise<RunOutput> {
  const pivot: PivotSettings | null = report.pivotItems ?? null;
  const show = showAppliedFilters({ report: pivot?.showAppliedFilters, user: defaults.user, account: defaults.account });
  if (report.jsonQuery) {
    const parsed = parseJsonQuery(report.jsonQuery);
    const checked = LoadQuery.safeParse(parsed);
    if (!checked.success) throw new Error(`The report's query is not a valid semantic-layer query: ${checked.error.issues[0]?.path.join(".")} ${checked.error.issues[0]?.message}`);
    const query = checked.data as SemanticQuery;
    const load = (q: SemanticQuery) => data.load(q as LoadQuery, signal);
    const totals: PivotTotals = {};
    const pending: Promise<unknown>[] = [];
    let result!: TypedResult;
    pending.push(load(query).then((r) => (result = r)));
    if (pivot && isPivot(pivot)) {
      const keys = groupingKeys(query);
      const of = (members: readonly string[]) => keys.filter((k) => members.some((m) => sameMember(k, m)));
      const rowTotals = pivot.showRowTotals === true && (pivot.columns?.length ?? 0) > 0;
      const colTotals = pivot.showColumnTotals === true;
      if (rowTotals) pending.push(load(totalsQuery(query, of(pivot.rows ?? []))).then((r) => (totals.byRows = r)));
      if (colTotals) pending.push(load(totalsQuery(query, of(pivot.columns ?? []))).then((r) => (totals.byColumns = r)));
      if (rowTotals && colTotals) pending.push(load(totalsQuery(query, [])).then((r) => (totals.grand = r)));
    }
    await Promise.all(pending);
    const titles = new Map(result.columns.map((c) => [c.key, c.title] as const));
    for (const c of result.columns) if (c.granularity) titles.set(c.key.slice(0, -(c.granularity.length + 1)), c.title);
    return { result, layout: layout({ result, pivot, totals, filterSummary: show ? { query, titles } : null }) };
  }
  if (report.sqlQuery) {
    const result = await data.svcsql(report.sqlQuery, {}, signal);
    return { result, layout: layout({ result, pivot: pivot ? { displayScale: pivot.displayScale } : null }) };
  }
  throw new Error("The report has neither a jsonQuery nor a sqlQuery to run.");
}
