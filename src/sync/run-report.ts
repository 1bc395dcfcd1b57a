// Runs a report's query through the data API and lays the result out as cells.
//
//   jsonQuery → POST /v1/load (validated with src/api's LoadQuery first). A pivot also runs its
//               total queries (query.ts totalsQuery) in parallel with the main query.
//   sqlQuery  → POST /v1/svcsql; always a flat table (totals cannot be derived from SQL text).
// The filter summary is added when showAppliedFilters resolves to on (filters.ts); titles the
// result does not carry (a date-range-only time dimension, a filter on an unselected member)
// come from /v1/meta.
// A report without a limit gets every row up to MAX_PLACED_ROWS, in pages (fetchMainRows); past
// that the output says it was cut (RowCut).
//
// prepareReport fetches the answers but decodes and lays them out only on demand, and names what
// determines the grid (`source`): the report's query and pivot settings, the resolved filter
// summary flag, the layout and cell-model versions, and each answer's own source (a hash of its
// bytes). Equal sources give equal grids, so a refresh whose source equals the one it last wrote
// knows the incoming fingerprint without laying anything out (docs/SYNC.md "Unchanged data").
import {
  LoadQuery,
  type AnswerRows,
  type DataClient,
  type FetchedLoad,
  type FetchedResult,
  type LoadResult,
  type Report,
} from "../api/index.ts";
import { CHECKSUM_VERSION } from "../checksum/index.ts";
import { h64Hex, ready as hashReady } from "../checksum/hash.ts";
import type { TypedResult } from "../checksum/types.ts";
import type { SheetValue } from "../host/port.ts";
import { answerPrints, layOutChanged, MAX_ROW_PRINTS, type AnswerPrints, type ChunkLayout } from "./answer-chunks.ts";
import type { ResultChecksum } from "../checksum/types.ts";
import { showAppliedFilters, untitledSummaryMembers } from "./filters.ts";
import { settleNumberFormats, withShortTitles } from "./formats.ts";
import {
  flatLayoutInSlices,
  flatTable,
  isPivot,
  layout,
  LAYOUT_VERSION,
  withFilterSummary,
  type DisplayScale,
  type Layout,
  type PivotSettings,
  type PivotTotals,
} from "./layout.ts";
import { groupingKeys, parseJsonQuery, sameMember, totalsQuery, type SemanticQuery } from "./query.ts";

export interface FilterDefaults {
  /** The user's showAppliedFilters setting (null/undefined = not set). */
  user?: boolean | null;
  /** The account's setting. */
  account?: boolean | null;
  /** Most result rows one placement holds (default MAX_PLACED_ROWS; tests pass a small one). */
  maxRows?: number;
  /** Rows asked per page (default PAGE_ROWS; tests pass a small one). */
  pageRows?: number;
  /** A SQL answer at least this large is decoded and written in steps (default SQL_STREAM_BYTES; tests pass a small one). */
  sqlStreamBytes?: number;
}

/**
 * Rows one placement holds at most when its report sets no limit (Excel has 1,048,576 rows; a
 * million rows is also about the most a sheet stays usable with). Past it the placement is cut
 * and says so (RowCut).
 */
export const MAX_PLACED_ROWS = 1_000_000;

/**
 * Rows asked per /v1/load page when a report sets no limit: the data API's maximum per query
 * (Cube's CUBEJS_DB_QUERY_LIMIT default, our stand-in's too; docs/API.md §6). Without a limit the
 * data API would apply its default (10,000) and cut silently (issue 17, finding 2).
 */
export const PAGE_ROWS = 50_000;

/** The main result was cut at `maxRows`: the report returns more rows than a placement holds. */
export interface RowCut {
  /** Rows placed (= maxRows). */
  rows: number;
  maxRows: number;
  /** What the pane shows, as it is. */
  message: string;
}

export type RunnableReport = Pick<Report, "jsonQuery" | "sqlQuery" | "pivotItems"> & {
  /** Members whose filter values came from cells, and those cells (issue 32): the summary names them. */
  inputsFrom?: ReadonlyMap<string, string>;
};

export interface RunOutput {
  layout: Layout;
  result: TypedResult;
  /** Set when the result was cut (only a report without a limit can be); null otherwise. */
  cut: RowCut | null;
  /** A large grid laid out from a SQL answer: what its chunks were laid out from (answer-chunks.ts); kept when it is written. */
  prints?: AnswerPrints | null;
}

export interface PreparedReport {
  /** xxh64 (16 hex) of everything the grid depends on; see the top of this file. */
  source: string;
  /** Known before decoding: the placement will be cut. */
  cut: RowCut | null;
  /** Decodes the answers and lays them out (once; later calls return the same output). */
  build(): RunOutput;
  /**
   * The layout alone (the same as build()'s, made once), where the decoded answer need not be kept
   * with it: a large SQL answer is decoded a slice at a time and its rows let go once laid out, and the
   * answer itself is let go then (build() after it throws).
   */
  layout?(): Layout;
  /**
   * A SQL answer (issue 35 §3, answer-chunks.ts): what the chunks of the grid layout() laid out were laid out
   * from, when it has more than MAX_ROW_PRINTS rows (null otherwise, or before layout()).
   */
  prints?(): AnswerPrints | null;
  /**
   * A SQL answer: only the chunks whose answer rows changed since `was` (the prints of the grid fingerprinted
   * `committed`, of `shape`) laid out; null when that cannot be told. layout() still lays out every row.
   */
  changedChunks?(was: AnswerPrints, committed: ResultChecksum, shape: { rows: number; cols: number }): ChunkLayout | null;
}

/**
 * A SQL report's answer, laid out once; a refresh needs only the layout, laid out a slice at a time and
 * the answer let go once laid out (issue 35 §3: its bytes are as large as the layout): build() after
 * layout() throws.
 */
function preparedSql(answer: FetchedResult, source: string, pivot: Pick<PivotSettings, "displayScale"> | null): PreparedReport {
  let fetched: FetchedResult | null = answer;
  let laid: Layout | null = null;
  let built: RunOutput | null = null;
  let prints: AnswerPrints | null = null;
  const rowsOf = once(() => answer.byRow?.() ?? null); // scanned once, on demand
  const frameOf = (rows: AnswerRows) => sqlFrame(rows, pivot?.displayScale);
  const printed = (l: Layout) => {
    const rows = l.cells.length > MAX_ROW_PRINTS ? rowsOf() : null;
    prints = rows ? answerPrints(rows, frameOf(rows), l) : null;
  };
  return {
    source,
    cut: null,
    build: () => {
      if (built) return built;
      if (!fetched) throw new Error("The report's answer was laid out without keeping it: run the report again to build its result.");
      const result = fetched.result();
      if (!laid) printed((laid = layout({ result, pivot })));
      return (built = { result, cut: null, layout: laid, prints });
    },
    layout: () => {
      if (laid) return laid;
      printed((laid = laidOutInSlices(fetched!, pivot)));
      if (!built) fetched = null; // nothing else reads the answer now
      return laid;
    },
    prints: () => prints,
    changedChunks: (was, committed, shape) => {
      const rows = fetched && shape.rows > MAX_ROW_PRINTS ? rowsOf() : null;
      if (!rows) return null;
      const scale = pivot?.displayScale ?? "model";
      return layOutChanged(rows, frameOf(rows), was, committed, shape, (r) => flatTable(r, scale));
    },
  };
}

/**
 * Everything but its rows a SQL answer's flat table depends on (answer-chunks.ts): the layout and cell versions,
 * the display scale and the answer's other members with the time zone. Not the query's text: the same answer
 * to another query lays out the same.
 */
function sqlFrame(rows: AnswerRows, scale: DisplayScale | undefined): string {
  const text = JSON.stringify({ layout: LAYOUT_VERSION, cells: CHECKSUM_VERSION, scale: scale ?? "model", answer: rows.head });
  return h64Hex(new TextEncoder().encode(text));
}

/** `f`'s value, computed on the first call only. */
function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = f();
      done = true;
    }
    return value;
  };
}

/** Rows decoded per slice of a SQL answer laid out without keeping its decoded rows. */
const SLICE_ROWS = 1000;

/**
 * A SQL answer (always a flat table) decoded and laid out a slice at a time: it is never parsed whole, and
 * each slice's decoded rows go once laid out. An answer the slices cannot read is decoded whole, so it
 * fails as result() fails.
 */
function laidOutInSlices(fetched: FetchedResult, pivot: Pick<PivotSettings, "displayScale"> | null): Layout {
  const whole = () => layout({ result: fetched.result(), pivot });
  if (!fetched.slices) return whole();
  try {
    return flatLayoutInSlices(fetched.slices(SLICE_ROWS), pivot?.displayScale ?? "model") ?? whole();
  } catch {
    return whole();
  }
}

/** `meta` is optional: the filter summary uses it for titles the result does not carry. */
type Data = Pick<DataClient, "fetchLoad" | "fetchSql"> & Partial<Pick<DataClient, "meta">>;
type Load = (q: SemanticQuery) => Promise<FetchedLoad>;

/** Fetch a report's answers; lay them out on demand. */
export async function prepareReport(
  data: Data,
  report: RunnableReport,
  defaults: FilterDefaults = {},
  signal?: AbortSignal,
): Promise<PreparedReport> {
  const pivot: PivotSettings | null = report.pivotItems ?? null;
  const show = showAppliedFilters({ report: pivot?.showAppliedFilters, user: defaults.user, account: defaults.account });
  const key = (sources: Record<string, unknown>) => sourceKey(report, show, sources);
  if (report.jsonQuery) {
    const query = checkedQuery(report.jsonQuery);
    const load: Load = (q) => data.fetchLoad(q as LoadQuery, signal);
    const maxRows = defaults.maxRows ?? MAX_PLACED_ROWS;
    // Totals queries drop the report's limit (query.ts totalsQuery): they are paged like the main one.
    const fetched: Partial<Record<keyof PivotTotals, MainRows>> = {};
    const loadAll = (q: SemanticQuery) => fetchMainRows(load, q, maxRows, defaults.pageRows);
    const mainRows = loadAll(query);
    const needsMeta = show && data.meta !== undefined && untitledSummaryMembers(query).length > 0;
    const metaTitles = needsMeta ? metaTitlesOf(data, signal) : Promise.resolve(null);
    const pending: Promise<unknown>[] = [mainRows, metaTitles];
    if (pivot && isPivot(pivot)) {
      const keys = groupingKeys(query);
      const of = (members: readonly string[]) => keys.filter((k) => members.some((m) => sameMember(k, m)));
      const rowTotals = pivot.showRowTotals === true && (pivot.columns?.length ?? 0) > 0;
      const colTotals = pivot.showColumnTotals === true;
      if (rowTotals) pending.push(loadAll(totalsQuery(query, of(pivot.rows ?? []))).then((r) => (fetched.byRows = r)));
      if (colTotals) pending.push(loadAll(totalsQuery(query, of(pivot.columns ?? []))).then((r) => (fetched.byColumns = r)));
      if (rowTotals && colTotals) pending.push(loadAll(totalsQuery(query, [])).then((r) => (fetched.grand = r)));
    }
    await Promise.all(pending);
    const rows = await mainRows;
    const titlesFromMeta = await metaTitles;
    const cut: RowCut | null = rows.cut ? rowCut(maxRows) : null;
    const source = await key({
      ...mainSources(query, rows.pages, cut ? maxRows : null, titlesFromMeta),
      // In a fixed order, not the order the totals answered in (issue 30 §2: the same answers, the same source).
      ...Object.fromEntries(
        (["byRows", "byColumns", "grand"] as const).flatMap((k) =>
          fetched[k] ? [[k, fetched[k].pages.map((p) => p.source).join(",")]] : [],
        ),
      ),
    });
    return {
      source,
      cut,
      build: once(() => {
        // Column headers use short titles; the filter summary keeps the full ones, like /v1/meta's.
        const full = joinPages(rows.pages, maxRows);
        const result = withShortTitles(full);
        const totals: PivotTotals = {};
        if (fetched.byRows) totals.byRows = joinPages(fetched.byRows.pages, maxRows);
        if (fetched.byColumns) totals.byColumns = joinPages(fetched.byColumns.pages, maxRows);
        if (fetched.grand) totals.grand = joinPages(fetched.grand.pages, maxRows);
        const titles = summaryTitles(full.columns, titlesFromMeta);
        return {
          result,
          cut,
          layout: layout({ result, pivot, totals, filterSummary: show ? { query, titles, ...fromOf(report) } : null }),
        };
      }),
    };
  }
  if (report.sqlQuery) {
    const fetched = await data.fetchSql(report.sqlQuery, {}, signal);
    return preparedSql(fetched, await key({ main: fetched.source }), pivot ? { displayScale: pivot.displayScale } : null);
  }
  throw new Error("The report has neither a jsonQuery nor a sqlQuery to run.");
}

/** The summary's "(from Sheet1!B1)" notes of a report whose filters came from cells. */
function fromOf(report: RunnableReport): { from?: ReadonlyMap<string, string> } {
  return report.inputsFrom?.size ? { from: report.inputsFrom } : {};
}

/** What the grid depends on, hashed (see the top of this file): equal keys give equal grids. */
async function sourceKey(report: RunnableReport, show: boolean, sources: Record<string, unknown>): Promise<string> {
  await hashReady();
  const text = JSON.stringify({
    layout: LAYOUT_VERSION,
    cells: CHECKSUM_VERSION,
    jsonQuery: report.jsonQuery ?? null,
    sqlQuery: report.sqlQuery ?? null,
    pivot: report.pivotItems ?? null,
    show,
    ...(report.inputsFrom?.size ? { inputsFrom: [...report.inputsFrom] } : {}),
    sources,
  });
  return h64Hex(new TextEncoder().encode(text));
}

/** The main query's part of the source: its pages, the cut, and the meta titles the summary uses. */
function mainSources(
  query: SemanticQuery,
  pages: readonly FetchedLoad[],
  cutAt: number | null,
  titlesFromMeta: Map<string, string> | null,
): Record<string, unknown> {
  const usedMeta = titlesFromMeta ? untitledSummaryMembers(query).map((m) => [m, titlesFromMeta.get(m) ?? null]) : null;
  return {
    main: pages.map((p) => p.source).join(","),
    ...(cutAt !== null ? { cut: cutAt } : {}),
    ...(usedMeta ? { meta: usedMeta } : {}),
  };
}

/** Titles for the filter summary: the annotation's for the members the result carries, /v1/meta's for the others. */
function summaryTitles(columns: LoadResult["columns"], titlesFromMeta: Map<string, string> | null): Map<string, string> {
  const titles = new Map<string, string>(titlesFromMeta ?? []);
  for (const c of columns) titles.set(c.key, c.title);
  for (const c of columns) if (c.granularity) titles.set(c.key.slice(0, -(c.granularity.length + 1)), c.title);
  return titles;
}

function checkedQuery(jsonQuery: string): SemanticQuery {
  const checked = LoadQuery.safeParse(parseJsonQuery(jsonQuery));
  if (!checked.success)
    throw new Error(
      `The report's query is not a valid semantic-layer query: ${checked.error.issues[0]?.path.join(".")} ${checked.error.issues[0]?.message}`,
    );
  return checked.data as SemanticQuery;
}

/** Run a report's query and lay the result out. */
export async function runReport(
  data: Data,
  report: RunnableReport,
  defaults: FilterDefaults = {},
  signal?: AbortSignal,
): Promise<RunOutput & { source: string }> {
  const prepared = await prepareReport(data, report, defaults, signal);
  return { ...prepared.build(), source: prepared.source };
}

// ---------------------------------------------------------------- first rows early (issue 20 §2)

/** A flat report's grid as its pages arrive. */
export interface ReportStream {
  /**
   * The rows in so far: the filter summary, the column titles and the first page's rows, with number
   * formats settled on them (a later page may still turn a column's integers into decimals: see finish).
   */
  head: Layout;
  /** More pages follow: the grid's height is not known yet. */
  more: boolean;
  /** The data rows of each further page, laid out like head's (iterate once). */
  rest(): AsyncIterable<SheetValue[][]>;
  /** Number formats settled over the rows in so far (a column's only change: whole numbers, then a fraction). */
  formats(): (string | null)[];
  /** After rest() is done: the whole output, exactly as runReport gives it for the same answers. */
  finish(): Promise<RunOutput & { source: string }>;
}

/**
 * A report's grid page by page, so that a large placement writes its first rows while the rest
 * arrive: a flat table of a semantic query without a limit comes in pages; a SQL answer is decoded a
 * slice at a time. Anything else (a pivot needs every row before its first column is known, a
 * semantic query with a limit is one request) gives null: run it with runReport.
 */
export async function streamReport(
  data: Data,
  report: RunnableReport,
  defaults: FilterDefaults = {},
  signal?: AbortSignal,
): Promise<ReportStream | null> {
  const pivot: PivotSettings | null = report.pivotItems ?? null;
  const show = showAppliedFilters({ report: pivot?.showAppliedFilters, user: defaults.user, account: defaults.account });
  if (!report.jsonQuery && report.sqlQuery) return streamSql(data, report, report.sqlQuery, show, defaults.sqlStreamBytes, signal);
  if (!report.jsonQuery || isPivot(pivot)) return null;
  const query = checkedQuery(report.jsonQuery);
  if (query.limit !== undefined) return null;
  const maxRows = defaults.maxRows ?? MAX_PLACED_ROWS;
  const needsMeta = show && data.meta !== undefined && untitledSummaryMembers(query).length > 0;
  const metaTitles = needsMeta ? metaTitlesOf(data, signal) : Promise.resolve(null);
  const pages = mainPages((q) => data.fetchLoad(q as LoadQuery, signal), query, maxRows, defaults.pageRows);
  const got: MainPage[] = [];
  const first = await pages.next();
  if (first.done) throw new Error("The data API gave no answer.");
  got.push(first.value);
  const titlesFromMeta = await metaTitles;
  const full = first.value.page.result();
  const result = withShortTitles(full);
  const scale = pivot?.displayScale ?? "model";
  const rawRows: LoadResult["rows"][] = [full.rows.slice(0, maxRows)];
  const body = flatTable({ ...result, rows: rawRows[0]! }, scale);
  const unsettled = body.columnFormats;
  const filterSummary = show ? { query, titles: summaryTitles(full.columns, titlesFromMeta), ...fromOf(report) } : null;
  const head = withFilterSummary({ ...body, columnFormats: settleNumberFormats(body.cells, unsettled, body.headerRows) }, filterSummary);
  const cells: SheetValue[][] = [...head.cells];
  let dataRows = rawRows[0]!.length;
  let consumed = first.value.last;
  return {
    head,
    more: !first.value.last,
    async *rest() {
      for await (const p of pages) {
        got.push(p);
        const page = p.page.result();
        if (page.columns.map((c) => c.key).join("\n") !== full.columns.map((c) => c.key).join("\n"))
          throw new Error("The data API answered a page of the report with other columns than its first page; place the report again.");
        const rows = page.rows.slice(0, Math.max(0, maxRows - dataRows));
        dataRows += rows.length;
        rawRows.push(rows);
        const laid = flatTable({ ...result, rows }, scale).cells.slice(1); // the page's rows, without a title row
        cells.push(...laid);
        yield laid;
      }
      consumed = true;
    },
    formats: () => settleNumberFormats(cells, unsettled, head.headerRows),
    async finish() {
      if (!consumed) throw new Error("streamReport: finish() before the last page");
      const cut = got[got.length - 1]!.cut ? rowCut(maxRows) : null;
      const source = await sourceKey(
        report,
        show,
        mainSources(
          query,
          got.map((p) => p.page),
          cut ? maxRows : null,
          titlesFromMeta,
        ),
      );
      const columnFormats = settleNumberFormats(cells, unsettled, head.headerRows);
      return {
        source,
        cut,
        result: { ...result, rows: rawRows.flat() },
        layout: { ...head, cells, columnFormats },
      };
    },
  };
}

/** Rows of a SQL answer decoded before its first rows are written; later ones are handed out PAGE_ROWS at a time. */
export const SQL_FIRST_ROWS = 2_000;
/**
 * A SQL answer smaller than this is decoded whole and written in one step (decoding it takes a few
 * milliseconds; writing it in steps would only add round trips).
 */
export const SQL_STREAM_BYTES = 1_000_000;

/**
 * A SQL answer is one response: its rows are decoded a slice at a time (FetchedResult.slices), so the
 * first SQL_FIRST_ROWS can be written while the others are decoded.
 */
async function streamSql(
  data: Data,
  report: RunnableReport,
  sql: string,
  show: boolean,
  streamBytes = SQL_STREAM_BYTES,
  signal?: AbortSignal,
): Promise<ReportStream> {
  const fetched = await data.fetchSql(sql, {}, signal);
  const large = fetched.slices !== undefined && (fetched.bytes ?? Infinity) >= streamBytes;
  const slices = (large ? fetched.slices!(SQL_FIRST_ROWS) : [fetched.result()])[Symbol.iterator]();
  const first = slices.next();
  if (first.done) throw new Error("The data API gave no answer.");
  const columns = first.value.columns;
  const scale = report.pivotItems?.displayScale ?? "model";
  const body = flatTable(first.value, scale);
  const unsettled = body.columnFormats;
  const head: Layout = { ...body, columnFormats: settleNumberFormats(body.cells, unsettled, body.headerRows) };
  const cells: SheetValue[][] = [...head.cells];
  const raw: TypedResult["rows"][] = [first.value.rows];
  let consumed = !large || first.value.rows.length < SQL_FIRST_ROWS;
  return {
    head,
    more: !consumed,
    async *rest() {
      let pending: SheetValue[][] = [];
      for (let next = slices.next(); !next.done; next = slices.next()) {
        raw.push(next.value.rows);
        const laid = flatTable({ ...next.value, columns }, scale).cells.slice(1);
        cells.push(...laid);
        pending.push(...laid);
        if (pending.length >= PAGE_ROWS) {
          yield pending;
          pending = [];
        }
        await Promise.resolve(); // let a Cancel be seen between slices
        signal?.throwIfAborted();
      }
      if (pending.length) yield pending;
      consumed = true;
    },
    formats: () => settleNumberFormats(cells, unsettled, head.headerRows),
    async finish() {
      if (!consumed) throw new Error("streamReport: finish() before the last rows");
      const layout = { ...head, cells, columnFormats: settleNumberFormats(cells, unsettled, head.headerRows) };
      const rows = cells.length > MAX_ROW_PRINTS ? (fetched.byRow?.() ?? null) : null;
      return {
        source: await sourceKey(report, show, { main: fetched.source }),
        cut: null,
        result: { ...first.value, rows: raw.flat() },
        layout,
        prints: rows ? answerPrints(rows, sqlFrame(rows, report.pivotItems?.displayScale), layout) : null,
      };
    },
  };
}

// ---------------------------------------------------------------- every row (issue 17, finding 2)

interface MainRows {
  /** The answers, in row order. */
  pages: FetchedLoad[];
  /** More rows exist than maxRows: the placement keeps the first maxRows. */
  cut: boolean;
}

/**
 * The main query's rows, always asked under a total order (the report's order, or the semantic
 * layer's default, then every grouping member): rows that tie on the report's order come in the same
 * order every time, and pages neither overlap nor skip rows. A report with a limit gets exactly what
 * it asks (one request). Without one, every row up to `maxRows`: one request of PAGE_ROWS rows
 * answers nearly every report; a full page (as many rows as asked, or as the server's echoed
 * `rowLimit` when it clamped) means there may be more, and the rows are fetched again in pages of
 * limit/offset. One row more than `maxRows` is asked for, to tell "exactly maxRows" from "cut".
 */
export async function fetchMainRows(load: Load, query: SemanticQuery, maxRows: number, pageRows = PAGE_ROWS): Promise<MainRows> {
  const pages: FetchedLoad[] = [];
  let cut = false;
  for await (const p of mainPages(load, query, maxRows, pageRows)) {
    pages.push(p.page);
    cut = p.cut;
  }
  return { pages, cut };
}

/** One answer of the main query, as mainPages hands them out. */
interface MainPage {
  page: FetchedLoad;
  /** No page follows. */
  last: boolean;
  /** Set on the last page: more rows exist than maxRows. */
  cut: boolean;
}

/**
 * The pages of fetchMainRows one at a time (issue 20 §2: a placement writes the first while the rest
 * arrive). The next page is asked for before this one is handed out, so the network works while the
 * caller lays out and writes.
 */
export async function* mainPages(load: Load, query: SemanticQuery, maxRows: number, pageRows = PAGE_ROWS): AsyncGenerator<MainPage> {
  // Every answer under the total order, not only pages (issue 36, item 14): rows that tie on the
  // report's order would otherwise come in the database's order, and move between refreshes.
  const ordered = withTotalOrder(query);
  if (query.limit !== undefined) {
    yield { page: await load(ordered), last: true, cut: false };
    return;
  }
  const want = maxRows + 1;
  const firstLimit = Math.min(pageRows, want);
  const first = await load({ ...ordered, limit: firstLimit });
  const n = rowCount(first);
  if (n >= want || !isFull(first, n, firstLimit)) {
    yield { page: first, last: true, cut: n >= want };
    return;
  }
  const start = query.offset ?? 0;
  const ask = (got: number) => {
    const limit = Math.min(pageRows, want - got);
    const p = load({ ...ordered, limit, ...(start + got > 0 ? { offset: start + got } : {}) });
    p.catch(() => undefined); // a page asked ahead that nobody waits for must not reject unhandled
    return { limit, p };
  };
  let got = 0;
  let next = ask(0);
  for (;;) {
    const page = await next.p;
    const k = rowCount(page);
    got += k;
    const last = got >= want || !isFull(page, k, next.limit);
    if (!last) next = ask(got);
    yield { page, last, cut: last && got > maxRows };
    if (last) return;
  }
}

function rowCount(page: FetchedLoad): number {
  return page.rows ?? page.result().rows.length;
}

/** As many rows as asked, or as the server says it allowed (it may clamp below what was asked). */
function isFull(page: FetchedLoad, rows: number, asked: number): boolean {
  const allowed = page.query?.rowLimit ?? page.query?.limit ?? asked;
  return rows > 0 && rows >= Math.min(asked, allowed);
}

type Direction = "asc" | "desc";

/**
 * The query's order made total: its own order (any accepted form), or Cube's default when it has
 * none (first time dimension with a granularity ascending, else the first measure descending when
 * there are dimensions, else the first dimension ascending), then every grouping member ascending.
 * A grouped result has one row per grouping tuple, so this order has no ties.
 */
export function totalOrder(q: SemanticQuery): Array<[string, Direction]> {
  const pairs: Array<[string, Direction]> = [];
  if (q.order === undefined) {
    const td = (q.timeDimensions ?? []).find((t) => t.granularity);
    if (td) pairs.push([td.dimension, "asc"]);
    else if ((q.measures ?? []).length > 0 && (q.dimensions ?? []).length > 0) pairs.push([q.measures![0]!, "desc"]);
    else if ((q.dimensions ?? []).length > 0) pairs.push([q.dimensions![0]!, "asc"]);
  } else if (Array.isArray(q.order)) {
    for (const o of q.order) pairs.push(Array.isArray(o) ? [o[0], o[1]] : [o.id, o.desc ? "desc" : "asc"]);
  } else {
    for (const [m, d] of Object.entries(q.order)) pairs.push([m, d]);
  }
  const seen = new Set(pairs.map((p) => p[0]));
  const grouping = [...(q.timeDimensions ?? []).filter((t) => t.granularity).map((t) => t.dimension), ...(q.dimensions ?? [])];
  for (const m of grouping) {
    if (seen.has(m)) continue;
    seen.add(m);
    pairs.push([m, "asc"]);
  }
  return pairs;
}

/** The query with its order made total (totalOrder); a query with nothing to order by (a grand total) as it is. */
export function withTotalOrder(q: SemanticQuery): SemanticQuery {
  const order = totalOrder(q);
  return order.length > 0 ? { ...q, order } : q;
}

/** One result from the pages: the first page's columns, every page's rows, at most maxRows. */
function joinPages(pages: FetchedLoad[], maxRows: number): LoadResult {
  const first = pages[0]!.result();
  if (pages.length === 1 && first.rows.length <= maxRows) return first;
  const rows = pages.length === 1 ? first.rows.slice(0, maxRows) : pages.flatMap((p) => p.result().rows).slice(0, maxRows);
  return { ...first, rows };
}

function rowCut(maxRows: number): RowCut {
  const n = maxRows.toLocaleString("en-US");
  return {
    rows: maxRows,
    maxRows,
    message:
      `Only the first ${n} rows were placed: the report returns more, and a placement holds at most ${n} rows. ` +
      `To place a smaller result, add filters or a "limit" to the report's query (edit the report on the platform or in the builder).`,
  };
}

/** Member → title from /v1/meta; null when the metadata cannot be read (the summary then names the member). */
async function metaTitlesOf(data: Data, signal?: AbortSignal): Promise<Map<string, string> | null> {
  try {
    const meta = await data.meta!(signal);
    const titles = new Map<string, string>();
    for (const cube of meta.cubes) for (const m of [...cube.measures, ...cube.dimensions]) titles.set(m.name, m.title);
    return titles;
  } catch (e) {
    if (signal?.aborted) throw e;
    return null; // titles are a nicety: never fail a placement over them
  }
}
