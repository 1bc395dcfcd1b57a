// Runs a report's query through the data API and lays the result out as cells.
//
//   jsonQuery → POST /v1/load (validated with src/api's LoadQuery first). A pivot also runs its
//               total queries (query.ts totalsQuery) in parallel with the main query.
//   sqlQuery  → POST /v1/svcsql; always a flat table (totals cannot be derived from SQL text).
// The filter summary is added when showAppliedFilters resolves to on (filters.ts).
//
// prepareReport fetches the answers but decodes and lays them out only on demand, and names what
// determines the grid (`source`): the report's query and pivot settings, the resolved filter
// summary flag, the layout and cell-model versions, and each answer's own source (a hash of its
// bytes). Equal sources give equal grids, so a refresh whose source equals the one it last wrote
// knows the incoming fingerprint without laying anything out (docs/SYNC.md "Unchanged data").
import { LoadQuery, type DataClient, type FetchedResult, type LoadResult, type Report } from "../api/index.ts";
import { CHECKSUM_VERSION } from "../checksum/index.ts";
import { h64Hex, ready as hashReady } from "../checksum/hash.ts";
import type { TypedResult } from "../checksum/types.ts";
import { showAppliedFilters } from "./filters.ts";
import { withShortTitles } from "./formats.ts";
import { isPivot, layout, LAYOUT_VERSION, type Layout, type PivotSettings, type PivotTotals } from "./layout.ts";
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

export interface PreparedReport {
  /** xxh64 (16 hex) of everything the grid depends on; see the top of this file. */
  source: string;
  /** Decodes the answers and lays them out (once; later calls return the same output). */
  build(): RunOutput;
}

type Data = Pick<DataClient, "fetchLoad" | "fetchSql">;

/** Fetch a report's answers; lay them out on demand. */
export async function prepareReport(data: Data, report: RunnableReport, defaults: FilterDefaults = {}, signal?: AbortSignal): Promise<PreparedReport> {
  const pivot: PivotSettings | null = report.pivotItems ?? null;
  const show = showAppliedFilters({ report: pivot?.showAppliedFilters, user: defaults.user, account: defaults.account });
  const key = async (sources: Record<string, string>) => {
    await hashReady();
    const text = JSON.stringify({ layout: LAYOUT_VERSION, cells: CHECKSUM_VERSION, jsonQuery: report.jsonQuery ?? null, sqlQuery: report.sqlQuery ?? null, pivot, show, sources });
    return h64Hex(new TextEncoder().encode(text));
  };
  const once = (f: () => RunOutput): (() => RunOutput) => {
    let out: RunOutput | null = null;
    return () => (out ??= f());
  };
  if (report.jsonQuery) {
    const parsed = parseJsonQuery(report.jsonQuery);
    const checked = LoadQuery.safeParse(parsed);
    if (!checked.success) throw new Error(`The report's query is not a valid semantic-layer query: ${checked.error.issues[0]?.path.join(".")} ${checked.error.issues[0]?.message}`);
    const query = checked.data as SemanticQuery;
    const load = (q: SemanticQuery) => data.fetchLoad(q as LoadQuery, signal);
    const fetched: Partial<Record<"main" | keyof PivotTotals, FetchedResult<LoadResult>>> = {};
    const pending: Promise<unknown>[] = [];
    pending.push(load(query).then((r) => (fetched.main = r)));
    if (pivot && isPivot(pivot)) {
      const keys = groupingKeys(query);
      const of = (members: readonly string[]) => keys.filter((k) => members.some((m) => sameMember(k, m)));
      const rowTotals = pivot.showRowTotals === true && (pivot.columns?.length ?? 0) > 0;
      const colTotals = pivot.showColumnTotals === true;
      if (rowTotals) pending.push(load(totalsQuery(query, of(pivot.rows ?? []))).then((r) => (fetched.byRows = r)));
      if (colTotals) pending.push(load(totalsQuery(query, of(pivot.columns ?? []))).then((r) => (fetched.byColumns = r)));
      if (rowTotals && colTotals) pending.push(load(totalsQuery(query, [])).then((r) => (fetched.grand = r)));
    }
    await Promise.all(pending);
    const source = await key(Object.fromEntries(Object.entries(fetched).map(([k, f]) => [k, f.source])));
    return {
      source,
      build: once(() => {
        const result = withShortTitles(fetched.main!.result());
        const totals: PivotTotals = {};
        if (fetched.byRows) totals.byRows = fetched.byRows.result();
        if (fetched.byColumns) totals.byColumns = fetched.byColumns.result();
        if (fetched.grand) totals.grand = fetched.grand.result();
        const titles = new Map(result.columns.map((c) => [c.key, c.title] as const));
        for (const c of result.columns) if (c.granularity) titles.set(c.key.slice(0, -(c.granularity.length + 1)), c.title);
        return { result, layout: layout({ result, pivot, totals, filterSummary: show ? { query, titles } : null }) };
      }),
    };
  }
  if (report.sqlQuery) {
    const fetched = await data.fetchSql(report.sqlQuery, {}, signal);
    return {
      source: await key({ main: fetched.source }),
      build: once(() => {
        const result = fetched.result();
        return { result, layout: layout({ result, pivot: pivot ? { displayScale: pivot.displayScale } : null }) };
      }),
    };
  }
  throw new Error("The report has neither a jsonQuery nor a sqlQuery to run.");
}

/** Run a report's query and lay the result out. */
export async function runReport(data: Data, report: RunnableReport, defaults: FilterDefaults = {}, signal?: AbortSignal): Promise<RunOutput & { source: string }> {
  const prepared = await prepareReport(data, report, defaults, signal);
  return { ...prepared.build(), source: prepared.source };
}
