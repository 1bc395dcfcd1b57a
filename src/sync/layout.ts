// Layout (pure): turns a data-API result plus a report's pivot settings into the grid of
// cells Cellbound writes at a placement's anchor.
//
//   [filter summary rows]   only when showAppliedFilters is on (see filters.ts)
//   [header rows]           titles from the result annotation
//   [data rows]             typed cells through the checksum's cell model
//   [total rows]            pivot column totals
//
// A report without pivotItems (or with only rows and measures) is a flat table. Pivot rules
// follow seeds 01 §2.4; the details chosen where the seeds are silent are in docs/SYNC.md.
import type { SheetValue } from "../host/port.ts";
import type { ColumnType, RawValue, ResultColumn, TypedResult } from "../checksum/types.ts";
import { cellFor, formatFor } from "./cells.ts";
import { filterSummaryRows, type FilterSummaryInput } from "./filters.ts";
import { settleNumberFormats } from "./formats.ts";
import { sameMember } from "./query.ts";

export type DisplayScale = "model" | "absolute" | "thousands" | "millions" | "billions";

export interface PivotSettings {
  rows?: string[];
  columns?: string[];
  measures?: string[];
  filters?: string[];
  measuresAxis?: "columns" | "rows";
  measuresPosition?: "before" | "after";
  showAppliedFilters?: boolean;
  showColumnTotals?: boolean;
  showRowTotals?: boolean;
  displayScale?: DisplayScale;
}

/** Results of the separate total queries (see query.ts totalsQuery). */
export interface PivotTotals {
  /** Grouped by the row dimensions only: one trailing total column per row. */
  byRows?: TypedResult;
  /** Grouped by the column dimensions only (no dims when there is no Columns zone): the total row(s). */
  byColumns?: TypedResult;
  /** No grouping at all: the corner where row and column totals meet. */
  grand?: TypedResult;
}

export interface LayoutInput {
  result: TypedResult;
  pivot?: PivotSettings | null;
  totals?: PivotTotals;
  /** Present when the applied filters are to be summarised above the table. */
  filterSummary?: FilterSummaryInput | null;
}

export interface Layout {
  /** Rectangular grid of canonical cells ("" = empty). */
  cells: SheetValue[][];
  /** Number format per column (null = General). */
  columnFormats: (string | null)[];
  /** Rows above the first data row (filter summary + blank separator + headers). */
  headerRows: number;
  /** Of those, the filter summary and its blank separator (0 or absent when there is none). */
  summaryRows?: number;
  /**
   * Columns of quarter buckets (date serials of a quarter's first day): besides the column's format,
   * each of their data cells gets the format that reads "Q1 2025" (formats.ts quarterFormat,
   * applied by styling.ts). Absent when there is none.
   */
  quarterColumns?: number[];
  /** A flat table's columns: their member names (issue 33: a table placement's columns are matched by them). */
  columnKeys?: string[];
}

/**
 * Version of the layout rules. The sync engine skips laying out an answer identical to the one it
 * last wrote (run-report.ts `source`), so a change that lays the same answer out differently
 * must bump this number.
 */
export const LAYOUT_VERSION = 4; // 2: a pivot with columns and 0 rows keeps its headers; 3: short column titles (formats.ts withShortTitles); 4: SQL columns get date and decimal formats from their values

export const TOTAL_LABEL = "Total";
const SCALE: Record<DisplayScale, number> = { model: 1, absolute: 1, thousands: 1e3, millions: 1e6, billions: 1e9 };
const SCALE_NOTE: Partial<Record<DisplayScale, string>> = {
  thousands: "(in thousands)",
  millions: "(in millions)",
  billions: "(in billions)",
};

/** Entry point: flat table or pivot, with the filter summary on top. */
export function layout(input: LayoutInput): Layout {
  const pivot = input.pivot ?? null;
  const body = isPivot(pivot)
    ? { ...pivotTable(input.result, pivot!, input.totals ?? {}), ...pivotQuarters(input.result, pivot!) }
    : flatTable(input.result, pivot?.displayScale ?? "model");
  body.columnFormats = settleNumberFormats(body.cells, body.columnFormats, body.headerRows);
  return withFilterSummary(body, input.filterSummary);
}

/** A table's layout with the filter summary (and a blank row) on top, when there is one. */
export function withFilterSummary(body: Layout, filterSummary: FilterSummaryInput | null | undefined): Layout {
  const summary = filterSummary ? filterSummaryRows(filterSummary) : [];
  if (summary.length === 0) return body;
  const width = body.columnFormats.length;
  const pad = (row: SheetValue[]) => [...row, ...Array<SheetValue>(Math.max(0, width - row.length)).fill("")];
  const top = [...summary.map((r) => pad(r)), pad([])];
  return {
    cells: [...top, ...body.cells],
    columnFormats: body.columnFormats,
    headerRows: top.length + body.headerRows,
    summaryRows: top.length,
    ...(body.quarterColumns ? { quarterColumns: body.quarterColumns } : {}),
    ...(body.columnKeys ? { columnKeys: body.columnKeys } : {}),
  };
}

/** A pivot needs a Columns zone, or measures on the rows axis, or totals. */
export function isPivot(p: PivotSettings | null): boolean {
  if (!p) return false;
  return (p.columns?.length ?? 0) > 0 || p.measuresAxis === "rows" || p.showColumnTotals === true;
}

// ---------------------------------------------------------------- flat table

export function flatTable(result: TypedResult, scale: DisplayScale = "model"): Layout {
  if (result.columns.length === 0) throw new Error("The result has no columns to place.");
  const header = result.columns.map((c) => titleOf(c, scale));
  const cells: SheetValue[][] = [header];
  // One converter per column, chosen once: this loop runs for every cell of large results.
  const convert = result.columns.map((c) =>
    c.kind === "measure" && SCALE[scale] !== 1 ? (v: RawValue) => valueCell(c, v, scale) : (v: RawValue) => cellFor(v, c.type),
  );
  const n = convert.length;
  for (const row of result.rows) {
    const out = new Array<SheetValue>(n);
    for (let i = 0; i < n; i++) out[i] = convert[i]!(row[i] ?? null);
    cells.push(out);
  }
  return {
    cells,
    columnFormats: result.columns.map((c) => formatFor(c)),
    headerRows: 1,
    columnKeys: result.columns.map((c) => c.key),
    ...quarters(result.columns),
  };
}

/**
 * A flat table laid out from its rows a slice at a time (issue 35 §3: a large answer's decoded rows need not
 * all be held while it is laid out); the same as layout() of the slices' rows joined, without a filter
 * summary. Null when there are no slices.
 */
export function flatLayoutInSlices(slices: Iterable<TypedResult>, scale: DisplayScale = "model"): Layout | null {
  let body: Layout | null = null;
  for (const slice of slices) {
    const part = flatTable(slice, scale);
    if (!body) body = part;
    else for (let i = 1; i < part.cells.length; i++) body.cells.push(part.cells[i]!);
  }
  if (body) body.columnFormats = settleNumberFormats(body.cells, body.columnFormats, body.headerRows);
  return body;
}

/** `quarterColumns` for columns in this order (null: a column that is not a result column). */
function quarters(cols: (Pick<ResultColumn, "type" | "granularity"> | null)[]): Pick<Layout, "quarterColumns"> {
  const at = cols.flatMap((c, i) => (c?.type === "time" && c.granularity === "quarter" ? [i] : []));
  return at.length ? { quarterColumns: at } : {};
}

function titleOf(c: ResultColumn, scale: DisplayScale): string {
  const note = c.kind === "measure" && c.type === "number" ? SCALE_NOTE[scale] : undefined;
  return note ? `${c.title} ${note}` : c.title;
}

function valueCell(c: ResultColumn, v: RawValue, scale: DisplayScale): SheetValue {
  return cellFor(c.kind === "measure" ? scaled(v, c.type, scale) : v, c.type);
}

/** Divide a number measure by the display scale (values, not formats: works on both axes). */
function scaled(v: RawValue, type: ColumnType, scale: DisplayScale): RawValue {
  const f = SCALE[scale];
  if (f === 1 || type !== "number" || v === null) return v;
  const n = typeof v === "number" ? v : Number(v);
  return Number.isFinite(n) ? n / f : v;
}

// ---------------------------------------------------------------- pivot

/** A pivot's quarter columns: among its row dimensions (after the "Measure" column when measures lead the rows). */
function pivotQuarters(result: TypedResult, p: PivotSettings): Pick<Layout, "quarterColumns"> {
  const rows = resolve(result, p.rows ?? [], "row").map((r) => r.col);
  const lead = (p.measuresAxis ?? "columns") === "rows" && (p.measuresPosition ?? "after") === "before";
  return quarters(lead ? [null, ...rows] : rows);
}

interface Axis {
  /** Columns of the result that form this axis, in zone order. */
  cols: { index: number; col: ResultColumn }[];
  /** Distinct value tuples in order of first appearance. */
  tuples: RawValue[][];
}

type Tuple = RawValue[] | typeof TOTAL;
const TOTAL: unique symbol = Symbol("total");
/** The column tuple of a Columns zone without values: blank headers, no value anywhere. */
const BLANK: RawValue[] = [];

function resolve(result: TypedResult, members: readonly string[], what: string): { index: number; col: ResultColumn }[] {
  return members.map((m) => {
    const index = result.columns.findIndex((c) => c.key === m);
    const i = index >= 0 ? index : result.columns.findIndex((c) => sameMember(c.key, m));
    if (i < 0) throw new Error(`The pivot's ${what} member "${m}" is not in the query result.`);
    return { index: i, col: result.columns[i]! };
  });
}

const keyOf = (t: readonly RawValue[]) => JSON.stringify(t);

function axis(result: TypedResult, members: readonly string[], what: string): Axis {
  const cols = resolve(result, members, what);
  const seen = new Set<string>();
  const tuples: RawValue[][] = [];
  for (const row of result.rows) {
    const t = cols.map((c) => row[c.index] ?? null);
    const k = keyOf(t);
    if (!seen.has(k)) {
      seen.add(k);
      tuples.push(t);
    }
  }
  return { cols, tuples };
}

/** Index a result by the tuple of the given members → row. */
function lookup(result: TypedResult | undefined, members: readonly string[]): { get(t: readonly RawValue[], measure: string): RawValue } {
  if (!result) return { get: () => null };
  const cols = resolve(result, members, "totals");
  const byKey = new Map<string, RawValue[]>();
  for (const row of result.rows) byKey.set(keyOf(cols.map((c) => row[c.index] ?? null)), row);
  const measureIndex = new Map(result.columns.map((c, i) => [c.key, i] as const));
  return {
    get(t, measure) {
      const row = byKey.get(keyOf(t));
      const i = measureIndex.get(measure);
      return row && i !== undefined ? (row[i] ?? null) : null;
    },
  };
}

function dimLabel(v: RawValue, col: ResultColumn): SheetValue {
  // Headers of column tuples are text labels (a header row holds titles, not dates).
  if (v === null) return "(empty)";
  if (col.type === "time" && typeof v === "string") return timeLabel(v, col.granularity);
  return String(v);
}

/** A readable label for a time value at a granularity, e.g. "2024-03" for month. */
export function timeLabel(v: string, granularity?: string): string {
  const date = v.slice(0, 10);
  switch (granularity) {
    case "year":
      return v.slice(0, 4);
    case "quarter":
      return `${v.slice(0, 4)}-Q${Math.floor((Number(v.slice(5, 7)) - 1) / 3) + 1}`;
    case "month":
      return v.slice(0, 7);
    case "hour":
    case "minute":
    case "second":
      return v.slice(0, granularity === "hour" ? 13 : granularity === "minute" ? 16 : 19).replace("T", " ");
    default:
      return date;
  }
}

/** A pivot ready to lay out: its axes, the tuples down and across (totals included) and how a cell reads. */
interface PivotGrid {
  scale: DisplayScale;
  measures: ResultColumn[];
  R: Axis;
  C: Axis;
  /** Column tuples across (a TOTAL last with row totals); row tuples down (a TOTAL last with column totals). */
  colTuples: Tuple[];
  rowTuples: Tuple[];
  /** Measures before (outside) the dimension tuples, rather than after (inside). */
  before: boolean;
  /** The value at a (row tuple | TOTAL, column tuple | TOTAL, measure). */
  value(rt: Tuple, ct: Tuple, m: ResultColumn): SheetValue;
  rowDimCell(t: Tuple, j: number): SheetValue;
  colHeader(t: Tuple, level: number): SheetValue;
  rowDimFormats: (string | null)[];
}

export function pivotTable(result: TypedResult, p: PivotSettings, totals: PivotTotals): Layout {
  const g = pivotGrid(result, p, totals);
  return (p.measuresAxis ?? "columns") === "columns" ? measuresAcross(g) : measuresDown(g);
}

function pivotGrid(result: TypedResult, p: PivotSettings, totals: PivotTotals): PivotGrid {
  const scale = p.displayScale ?? "model";
  const rowMembers = p.rows ?? [];
  const colMembers = p.columns ?? [];
  const measures = resolve(result, p.measures ?? [], "measure").map((m) => m.col);
  if (measures.length === 0) throw new Error("A pivot needs at least one measure.");
  const R = axis(result, rowMembers, "row");
  const C = axis(result, colMembers, "column");
  const hasColumnsZone = colMembers.length > 0;
  const rowTotals = p.showRowTotals === true && hasColumnsZone; // ignored without a Columns zone (§2.4)
  const colTotals = p.showColumnTotals === true;
  const value = pivotValues(result, rowMembers, colMembers, totals, { rowTotals, colTotals, scale });
  // No column values (a result of 0 rows): one blank column tuple keeps the measure headers,
  // so an empty result still shows its headers above an empty body (issue 17, finding 8).
  const colTuples: Tuple[] = [...(C.tuples.length ? C.tuples : [BLANK]), ...(rowTotals ? [TOTAL as Tuple] : [])];
  const rowTuples: Tuple[] = [...R.tuples, ...(colTotals ? [TOTAL as Tuple] : [])];
  const rowDimCell = (t: Tuple, j: number): SheetValue => {
    if (t === TOTAL) return j === 0 ? TOTAL_LABEL : "";
    const c = R.cols[j]!;
    return cellFor(t[j] ?? null, c.col.type);
  };
  const colHeader = (t: Tuple, level: number): SheetValue => {
    if (t === TOTAL) return level === 0 ? TOTAL_LABEL : "";
    if (t === BLANK) return "";
    const c = C.cols[level]!;
    return dimLabel(t[level] ?? null, c.col);
  };
  const before = (p.measuresPosition ?? "after") === "before";
  const rowDimFormats = R.cols.map((c) => formatFor(c.col));
  return { scale, measures, R, C, colTuples, rowTuples, before, value, rowDimCell, colHeader, rowDimFormats };
}

/** How a pivot's cell reads its value: from the main result, the row or column totals, or the grand total. */
function pivotValues(
  result: TypedResult,
  rowMembers: string[],
  colMembers: string[],
  totals: PivotTotals,
  o: { rowTotals: boolean; colTotals: boolean; scale: DisplayScale },
): PivotGrid["value"] {
  const { rowTotals, colTotals } = o;
  const main = lookup(result, [...rowMembers, ...colMembers]);
  const byRows = lookup(rowTotals ? totals.byRows : undefined, rowMembers);
  const byCols = lookup(colTotals ? totals.byColumns : undefined, colMembers);
  const grand = lookup(rowTotals && colTotals ? totals.grand : undefined, []);
  if (rowTotals && !totals.byRows) throw new Error("Row totals need the by-rows totals result.");
  if (colTotals && !totals.byColumns) throw new Error("Column totals need the by-columns totals result.");
  if (rowTotals && colTotals && !totals.grand) throw new Error("Row and column totals need the grand-total result.");
  return (rt, ct, m) => {
    let v: RawValue;
    if (rt === TOTAL && ct === TOTAL) v = grand.get([], m.key);
    else if (rt === TOTAL) v = byCols.get(ct as RawValue[], m.key);
    else if (ct === TOTAL) v = byRows.get(rt, m.key);
    else v = main.get([...rt, ...ct], m.key);
    return cellFor(scaled(v, m.type, o.scale), m.type);
  };
}

/** measuresAxis = columns: data columns are (column tuple, measure) pairs, measures inside or outside the tuples. */
function measuresAcross(g: PivotGrid): Layout {
  const { R, before, scale } = g;
  const dataCols: { t: Tuple; m: ResultColumn }[] = [];
  if (before) for (const m of g.measures) for (const t of g.colTuples) dataCols.push({ t, m });
  else for (const t of g.colTuples) for (const m of g.measures) dataCols.push({ t, m });
  const levels = g.C.cols.length;
  const header: SheetValue[][] = [];
  const measureRow = () => dataCols.map((d) => titleOf(d.m, scale));
  const levelRow = (l: number) => dataCols.map((d) => g.colHeader(d.t, l));
  const rowsOfHeader = before
    ? [measureRow, ...range(levels).map((l) => () => levelRow(l))]
    : [...range(levels).map((l) => () => levelRow(l)), measureRow];
  rowsOfHeader.forEach((make, i) => {
    const last = i === rowsOfHeader.length - 1;
    header.push([...R.cols.map((c) => (last ? c.col.title : "")), ...make()]);
  });
  const body = g.rowTuples.map((rt) => [...R.cols.map((_, j) => g.rowDimCell(rt, j)), ...dataCols.map((d) => g.value(rt, d.t, d.m))]);
  return {
    cells: [...header, ...body],
    columnFormats: [...g.rowDimFormats, ...dataCols.map((d) => formatFor(d.m))],
    headerRows: header.length,
  };
}

/** measuresAxis = rows: a "Measure" column beside the row dimensions, column tuples across. */
function measuresDown(g: PivotGrid): Layout {
  const { R, C, before, scale, measures } = g;
  const dataCols = g.colTuples;
  const levels = Math.max(1, C.cols.length);
  const leftTitles = before ? ["Measure", ...R.cols.map((c) => c.col.title)] : [...R.cols.map((c) => c.col.title), "Measure"];
  const header: SheetValue[][] = range(levels).map((l) => {
    const last = l === levels - 1;
    const left = leftTitles.map((t) => (last ? t : ""));
    const right = dataCols.map((t) => (C.cols.length === 0 && t !== TOTAL ? "Value" : g.colHeader(t, l)));
    return [...left, ...right];
  });
  const bodyRows: { rt: Tuple; m: ResultColumn }[] = [];
  if (before) for (const m of measures) for (const rt of g.rowTuples) bodyRows.push({ rt, m });
  else for (const rt of g.rowTuples) for (const m of measures) bodyRows.push({ rt, m });
  const body = bodyRows.map(({ rt, m }) => {
    const dims = R.cols.map((_, j) => g.rowDimCell(rt, j));
    const left = before ? [titleOf(m, scale), ...dims] : [...dims, titleOf(m, scale)];
    if (rt === TOTAL && R.cols.length === 0) left[before ? 0 : left.length - 1] = `${TOTAL_LABEL} ${titleOf(m, scale)}`;
    return [...left, ...dataCols.map((ct) => g.value(rt, ct, m))];
  });
  // Measures change per row, so a column cannot carry one measure format: numbers stay General.
  const leftFormats = before ? [null, ...g.rowDimFormats] : [...g.rowDimFormats, null];
  const rightFormat = measures.every((m) => formatFor(m) === formatFor(measures[0]!)) ? formatFor(measures[0]!) : null;
  return { cells: [...header, ...body], columnFormats: [...leftFormats, ...dataCols.map(() => rightFormat)], headerRows: header.length };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
