// Worksheet.charts as dev/excel models it (issue 33: "charts and pivots that read the table follow it"),
// only what a chart over a report needs, per Microsoft's docs (Excel.ChartCollection, Excel.Chart,
// Excel.ChartSeriesCollection, Excel.ChartSeries; docs/EXCEL-FIDELITY.md "Charts"):
//   - charts.add(type, sourceData, seriesBy = "Auto") (ExcelApi 1.1): one series per column ("Columns";
//     "Auto" picks columns when the range has at least as many rows as columns) or per row ("Rows"); a
//     first row (column) of text is the series' names, a first column (row) of text below it the categories
//     (a line is labels when it holds text and no numbers: our reading of Excel's layout, not documented);
//   - Chart: id, name (settable), chartType; series; setData(sourceData, seriesBy) (1.1); delete();
//   - ChartSeries: name; getDimensionValues(dimension) (1.12: the shown values as text);
//     getDimensionDataSourceString(dimension) (1.15: the source as "=Sheet1!$B$2:$B$4");
//   - a series whose cells are exactly a table column's data rows follows the table when its rows change
//     (resize, rows added or deleted, auto-expansion, rows inserted inside or above it): Excel's charts
//     over a table grow and shrink with it (support.microsoft.com "Update the data in an existing chart");
//     a table column inserted or deleted moves the series right of it with their cells (followColumns).
// Only the data a chart reads is modelled: no drawing, axes, formats or events.
import { cellA1 } from "../../src/host/a1.ts";
import { OfficeError } from "./errors.ts";
import type { DevWorkbook, ModelSheet, Rect } from "./model.ts";
import { DevClientObject, DevCollection, DevClientResult, versionAtLeast, type DevRequestContext } from "./proxy.ts";

export interface ModelSeries {
  name: string;
  values: Rect;
  categories: Rect | null;
}
export interface ModelChart {
  id: string;
  name: string;
  chartType: string;
  series: ModelSeries[];
}

const bad = (what: string) =>
  new OfficeError("InvalidArgument", `The argument is invalid or missing or has an incorrect format. (${what})`);
function needs(ctx: DevRequestContext, version: string, what: string): void {
  if (!versionAtLeast(ctx.env.apiVersion, version)) throw bad(`${what} requires ExcelApi ${version}`);
}

/** The series of a chart over `rect`, as Excel lays them out (see the header). */
export function seriesOf(wb: DevWorkbook, sheet: ModelSheet, rect: Rect, seriesBy: string): ModelSeries[] {
  const byCols = seriesBy === "Columns" || (seriesBy !== "Rows" && rect.rows >= rect.cols);
  // Work in "series along columns" terms; for rows, swap the axes.
  const at = (i: number, k: number) =>
    byCols ? wb.readCell(sheet, rect.row + i, rect.col + k) : wb.readCell(sheet, rect.row + k, rect.col + i);
  const length = byCols ? rect.rows : rect.cols; // points per series, header included
  const count = byCols ? rect.cols : rect.rows;
  // A line is labels when it holds text and nothing but text or blanks (a number makes it data).
  const labels = (cells: unknown[]) => cells.some((v) => typeof v === "string" && v !== "") && cells.every((v) => typeof v === "string");
  const named = labels(Array.from({ length: count > 1 ? count - 1 : count }, (_, k) => at(0, count > 1 ? k + 1 : k)));
  const first = named ? 1 : 0;
  const categorised = count > 1 && labels(Array.from({ length: length - first }, (_, i) => at(first + i, 0)));
  const span = (k: number, from: number): Rect =>
    byCols
      ? { row: rect.row + from, col: rect.col + k, rows: length - from, cols: 1 }
      : { row: rect.row + k, col: rect.col + from, rows: 1, cols: length - from };
  const out: ModelSeries[] = [];
  for (let k = categorised ? 1 : 0; k < count; k++)
    out.push({
      name: named ? String(at(0, k)) : `Series${out.length + 1}`,
      values: span(k, first),
      categories: categorised ? span(0, first) : null,
    });
  if (!out.length || length - first < 1) throw bad("chart source data");
  return out;
}

/**
 * A table's rows changed from `old` to `next` (both with the header row): the series whose cells were
 * exactly one of its columns' data rows now read that column's data rows in `next`.
 */
export function followTable(sheet: ModelSheet, old: Rect, next: Rect): void {
  const follow = (r: Rect | null): Rect | null => {
    if (!r || r.cols !== 1 || r.row !== old.row + 1 || r.rows !== old.rows - 1) return r;
    if (r.col < old.col || r.col >= old.col + old.cols) return r;
    const k = r.col - old.col;
    return k < next.cols ? { row: next.row + 1, col: next.col + k, rows: next.rows - 1, cols: 1 } : r;
  };
  for (const chart of sheet.charts ?? [])
    for (const s of chart.series) {
      s.values = follow(s.values)!;
      s.categories = follow(s.categories);
    }
}

/**
 * Cells of rows [row, row + rows) at and right of column `at` moved right by n (left when n < 0), as a table
 * column inserted or deleted moves them: a series inside those rows and right of `at` moves with its cells
 * (Excel's references follow moved cells). A series on a deleted column is left as it is (Excel: #REF!).
 */
export function followColumns(sheet: ModelSheet, row: number, rows: number, at: number, n: number): void {
  const follow = (r: Rect | null): Rect | null => {
    if (!r || r.row < row || r.row + r.rows > row + rows || r.col < at) return r;
    if (n < 0 && r.col < at - n) return r;
    return { ...r, col: r.col + n };
  };
  for (const chart of sheet.charts ?? [])
    for (const s of chart.series) {
      s.values = follow(s.values)!;
      s.categories = follow(s.categories);
    }
}

function sourceArg(ctx: DevRequestContext, arg: unknown, sheet: ModelSheet): Rect {
  // A Range (duck-typed: objects.ts imports this module) or an address on the chart's sheet.
  if (arg && typeof arg === "object" && "rangeTarget" in arg) {
    const t = (arg as { rangeTarget(): { sheet: ModelSheet; rect: Rect } }).rangeTarget();
    if (t.sheet !== sheet) throw new OfficeError("NotImplemented", "dev/excel models charts over their own sheet's cells only.");
    return t.rect;
  }
  if (typeof arg !== "string") throw bad("sourceData");
  const m = /^(?:.*!)?\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/i.exec(arg);
  if (!m) throw bad(`sourceData ${arg}`);
  const col = (s: string) => [...s.toUpperCase()].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
  const r1 = Number(m[2]) - 1,
    c1 = col(m[1]!);
  const r2 = m[4] ? Number(m[4]) - 1 : r1,
    c2 = m[3] ? col(m[3]) : c1;
  void ctx;
  return { row: Math.min(r1, r2), col: Math.min(c1, c2), rows: Math.abs(r2 - r1) + 1, cols: Math.abs(c2 - c1) + 1 };
}

let nextChartId = 1;

export class DevChartCollection extends DevCollection<ModelChart, DevChart> {
  protected readonly _itemScalarProps = ["id", "name", "chartType"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly sheet: () => ModelSheet,
  ) {
    super(ctx);
  }
  protected _list(): ModelChart[] {
    return [...(this.sheet().charts ?? [])];
  }
  protected _proxy(c: ModelChart): DevChart {
    return new DevChart(this.context, () => c, this.sheet);
  }
  protected _readItem(c: ModelChart, prop: string): unknown {
    return readChart(c, prop);
  }
  /** ExcelApi 1.1: a chart of `type` over sourceData (a Range or an address), series by "Auto", "Columns" or "Rows". */
  add(type: string, sourceData: unknown, seriesBy = "Auto"): DevChart {
    let made: ModelChart | null = null;
    this.context.enqueue({ addChart: type, seriesBy }, () => {
      const sheet = this.sheet();
      const rect = sourceArg(this.context, sourceData, sheet);
      const charts = (sheet.charts ??= []);
      const id = `{chart-${nextChartId++}}`;
      made = { id, name: `Chart ${charts.length + 1}`, chartType: type, series: seriesOf(this.context.env.wb, sheet, rect, seriesBy) };
      charts.push(made);
    });
    return new DevChart(this.context, () => made, this.sheet);
  }
  getItem(name: string): DevChart {
    return new DevChart(this.context, () => this._list().find((c) => c.name === name) ?? null, this.sheet);
  }
  getItemAt(index: number): DevChart {
    return new DevChart(this.context, () => this._list()[index] ?? null, this.sheet);
  }
}

function readChart(c: ModelChart, prop: string): unknown {
  if (prop === "id") return c.id;
  if (prop === "name") return c.name;
  if (prop === "chartType") return c.chartType;
  throw bad(`Chart.${prop} is not modelled`);
}

export class DevChart extends DevClientObject<ModelChart> {
  protected readonly _scalarProps = ["id", "name", "chartType"] as const;
  private _series?: DevChartSeriesCollection;
  constructor(
    ctx: DevRequestContext,
    resolve: () => ModelChart | null,
    private readonly sheet: () => ModelSheet,
  ) {
    super(ctx, resolve);
  }
  protected _read(c: ModelChart, prop: string): unknown {
    return readChart(c, prop);
  }
  get id(): string {
    return this._get("id");
  }
  get name(): string {
    return this._get("name");
  }
  set name(v: string) {
    this._do({ chartName: v }, (c) => void (c.name = String(v)));
  }
  get chartType(): string {
    return this._get("chartType");
  }
  get series(): DevChartSeriesCollection {
    return (this._series ??= new DevChartSeriesCollection(this.context, () => this._target(), this.sheet));
  }
  /** ExcelApi 1.1: the chart reads another range (its series are laid out again). */
  setData(sourceData: unknown, seriesBy = "Auto"): void {
    this._do({ setData: seriesBy }, (c) => {
      const sheet = this.sheet();
      c.series = seriesOf(this.context.env.wb, sheet, sourceArg(this.context, sourceData, sheet), seriesBy);
    });
  }
  delete(): void {
    this._do({ deleteChart: 1 }, (c) => {
      const sheet = this.sheet();
      sheet.charts = (sheet.charts ?? []).filter((x) => x !== c);
    });
  }
}

interface SeriesRef {
  chart: ModelChart;
  index: number;
}
export class DevChartSeriesCollection extends DevCollection<SeriesRef, DevChartSeries> {
  protected readonly _itemScalarProps = ["name"] as const;
  constructor(
    ctx: DevRequestContext,
    private readonly chart: () => ModelChart,
    private readonly sheet: () => ModelSheet,
  ) {
    super(ctx);
  }
  protected _list(): SeriesRef[] {
    const chart = this.chart();
    return chart.series.map((_, index) => ({ chart, index }));
  }
  protected _proxy(s: SeriesRef): DevChartSeries {
    return new DevChartSeries(this.context, () => s, this.sheet);
  }
  protected _readItem(s: SeriesRef, prop: string): unknown {
    if (prop === "name") return s.chart.series[s.index]!.name;
    throw bad(`ChartSeries.${prop} is not modelled`);
  }
  getItemAt(index: number): DevChartSeries {
    return new DevChartSeries(
      this.context,
      () => {
        const chart = this.chart();
        return index >= 0 && index < chart.series.length ? { chart, index } : null;
      },
      this.sheet,
    );
  }
}

export class DevChartSeries extends DevClientObject<SeriesRef> {
  protected readonly _scalarProps = ["name"] as const;
  constructor(
    ctx: DevRequestContext,
    resolve: () => SeriesRef | null,
    private readonly sheet: () => ModelSheet,
  ) {
    super(ctx, resolve);
  }
  protected _read(s: SeriesRef, prop: string): unknown {
    if (prop === "name") return s.chart.series[s.index]!.name;
    throw bad(`ChartSeries.${prop} is not modelled`);
  }
  get name(): string {
    return this._get("name");
  }
  private rect(s: SeriesRef, dimension: string): Rect | null {
    const series = s.chart.series[s.index]!;
    if (dimension === "Values") return series.values;
    if (dimension === "Categories") return series.categories;
    throw bad(`dimension ${dimension} is not modelled`);
  }
  /** ExcelApi 1.12: the values of a dimension as text (what the chart shows). */
  getDimensionValues(dimension: string): DevClientResult<string[]> {
    needs(this.context, "1.12", "ChartSeries.getDimensionValues");
    const out = new DevClientResult<string[]>();
    this.context.enqueue({ getDimensionValues: dimension }, (st) => {
      const r = this.rect(this._target(), dimension);
      const wb = this.context.env.wb;
      const sheet = this.sheet();
      const values: string[] = [];
      if (r)
        for (let i = 0; i < r.rows; i++) for (let k = 0; k < r.cols; k++) values.push(String(wb.readCell(sheet, r.row + i, r.col + k)));
      st.responseBytes += JSON.stringify(values).length;
      st.commits.push(() => out.set(values));
    });
    return out;
  }
  /** ExcelApi 1.15: where a dimension's data comes from, e.g. "=Sheet1!$B$2:$B$4" ("" when it has none). */
  getDimensionDataSourceString(dimension: string): DevClientResult<string> {
    needs(this.context, "1.15", "ChartSeries.getDimensionDataSourceString");
    const out = new DevClientResult<string>();
    this.context.enqueue({ getDimensionDataSourceString: dimension }, (st) => {
      const r = this.rect(this._target(), dimension);
      const sheet = this.sheet();
      const abs = (row: number, col: number) => cellA1(row, col).replace(/^([A-Z]+)(\d+)$/, "$$$1$$$2");
      const quoted = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet.name) ? sheet.name : `'${sheet.name.replace(/'/g, "''")}'`;
      const text = r ? `=${quoted}!${abs(r.row, r.col)}:${abs(r.row + r.rows - 1, r.col + r.cols - 1)}` : "";
      st.commits.push(() => out.set(text));
    });
    return out;
  }
}
