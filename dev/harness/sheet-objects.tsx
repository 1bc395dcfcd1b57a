// Tables and charts on the harness's sheet, drawn as a person sees them in Excel (dev-only):
//   tableLook(tables, r, c)  the classes and accent colour of a cell inside an Excel table: its header row
//                            and banded rows after the table's built-in style (a colour per style, from
//                            Excel's theme accents; the Light, Medium and Dark families each drawn their way,
//                            the page's CSS darkens them in dark mode), a filter button in header cells;
//   SheetCharts / ChartView  a chart as simple SVG from its series' current values: clustered columns, bars
//                            or lines (other types drawn as columns), its title, axis, categories and legend.
import type { BookChart, BookTable } from "./book";

type Box = { left: number; top: number; width: number; height: number };

/** Office's theme accents (accent 1–6); index 0 is the styles' black/grey variant. */
const ACCENTS = ["#595959", "#4472C4", "#ED7D31", "#A5A5A5", "#FFC000", "#5B9BD5", "#70AD47"];
/** Series colours, in Excel's order for a chart's series. */
const SERIES = ACCENTS.slice(1);

export interface TableLook {
  /** Classes for the cell (hx-t-head / hx-t-band and the style family). */
  classes: string;
  accent: string;
  /** A header cell with the table's filter button. */
  filter: boolean;
  table: string;
}

/** How a cell inside a table looks (null outside tables or in a hidden header row). */
export function tableLook(tables: BookTable[], r: number, c: number): TableLook | null {
  const t = tables.find((x) => r >= x.row && r < x.row + x.rows && c >= x.col && c < x.col + x.cols);
  if (!t) return null;
  const m = /^TableStyle(Light|Medium|Dark)(\d+)$/.exec(t.style);
  const family = (m?.[1] ?? "Medium").toLowerCase();
  const accent = ACCENTS[(Number(m?.[2] ?? 2) - 1) % 7]!;
  const base = `hx-t hx-t-${family}`;
  if (r === t.row && t.showHeaders) return { classes: `${base} hx-t-head`, accent, filter: t.showFilterButton, table: t.name };
  // The first data row is banded, then every other one (Excel's "Banded Rows", on by default).
  const band = (r - t.row - (t.showHeaders ? 1 : 0)) % 2 === 0;
  return { classes: `${base}${band ? " hx-t-band" : ""}`, accent, filter: false, table: t.name };
}

/** A round step for about five gridlines over `span`. */
function step(span: number): number {
  if (!(span > 0)) return 1;
  const raw = span / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].find((k) => k * p >= raw) ?? 10) * p;
}

const label = (n: number) =>
  Math.abs(n) >= 1000 ? n.toLocaleString("en-US", { maximumFractionDigits: 0 }) : String(Number(n.toPrecision(6)));

interface Plot {
  box: { x: number; y: number; w: number; h: number };
  bar: boolean;
  /** Pixels per category along the categories' axis. */
  slot: number;
  /** A value's distance from the axis's low end, in pixels. */
  pos(v: number): number;
}

/** The series as columns, bars or lines. */
function seriesShapes(chart: BookChart, p: Plot, line: boolean) {
  const { box, bar, slot, pos } = p;
  return chart.series.flatMap((s, k) => {
    const color = SERIES[k % SERIES.length]!;
    if (line) {
      const pts = s.values.map((v, i) => `${box.x + slot * (i + 0.5)},${box.y + box.h - pos(v)}`);
      return [<polyline key={`l${k}`} class="hx-chart-line" points={pts.join(" ")} fill="none" stroke={color} stroke-width="2" />];
    }
    const width = (slot * 0.7) / chart.series.length; // Excel's default gap width leaves ~30% between groups
    return s.values.map((v, i) => {
      const from = Math.min(pos(0), pos(v));
      const size = Math.abs(pos(v) - pos(0));
      const at = slot * i + slot * 0.15 + width * k;
      return bar ? (
        <rect key={`b${k}-${i}`} class="hx-chart-bar" x={box.x + from} y={box.y + at} width={size} height={width} fill={color} />
      ) : (
        <rect
          key={`b${k}-${i}`}
          class="hx-chart-bar"
          x={box.x + at}
          y={box.y + box.h - from - size}
          width={width}
          height={size}
          fill={color}
        />
      );
    });
  });
}

/** Gridlines with their values, and the categories' labels. */
function axes(chart: BookChart, p: Plot, ticks: number[]) {
  const { box, bar, slot, pos } = p;
  const grid = ticks.map((t) =>
    bar ? (
      <g key={t}>
        <line class="hx-chart-grid" x1={box.x + pos(t)} x2={box.x + pos(t)} y1={box.y} y2={box.y + box.h} />
        <text x={box.x + pos(t)} y={box.y + box.h + 12} text-anchor="middle">
          {label(t)}
        </text>
      </g>
    ) : (
      <g key={t}>
        <line class="hx-chart-grid" x1={box.x} x2={box.x + box.w} y1={box.y + box.h - pos(t)} y2={box.y + box.h - pos(t)} />
        <text x={box.x - 4} y={box.y + box.h - pos(t) + 4} text-anchor="end">
          {label(t)}
        </text>
      </g>
    ),
  );
  const cats = chart.categories.map((c, i) =>
    bar ? (
      <text key={`c${i}`} x={box.x - 4} y={box.y + slot * (i + 0.5) + 4} text-anchor="end">
        {c.slice(0, 12)}
      </text>
    ) : (
      <text key={`c${i}`} x={box.x + slot * (i + 0.5)} y={box.y + box.h + 14} text-anchor="middle">
        {c.slice(0, Math.max(2, Math.floor(slot / 6)))}
      </text>
    ),
  );
  return [...grid, ...cats];
}

function legend(chart: BookChart, w: number, h: number) {
  return chart.series.map((s, k) => {
    const x = w / 2 - (chart.series.length * 90) / 2 + k * 90;
    return (
      <g key={`g${k}`}>
        <rect x={x} y={h - 18} width={9} height={9} fill={SERIES[k % SERIES.length]} />
        <text x={x + 13} y={h - 10}>
          {s.name.slice(0, 12)}
        </text>
      </g>
    );
  });
}

/** A chart drawn at `w` × `h` pixels from its series' current values. */
export function ChartView({ chart, w, h }: { chart: BookChart; w: number; h: number }) {
  const values = chart.series.flatMap((s) => s.values);
  const lo0 = Math.min(0, ...values);
  const hi0 = Math.max(0, ...values);
  const st = step(hi0 - lo0);
  const lo = Math.floor(lo0 / st) * st;
  const hi = Math.max(Math.ceil(hi0 / st) * st, lo + st);
  const ticks: number[] = [];
  for (let v = lo; v <= hi + st / 2; v += st) ticks.push(Number(v.toPrecision(12)));
  const bar = /^Bar/.test(chart.chartType);
  // Room at the left for the longest label there (the values' for columns and lines, the categories' for bars).
  const left = 12 + 6 * Math.max(...(bar ? chart.categories.map((c) => Math.min(12, c.length)) : ticks.map((t) => label(t).length)), 1);
  const box = { x: left, y: 30, w: Math.max(10, w - left - 12), h: Math.max(10, h - 80) };
  const across = bar ? box.w : box.h; // the values' axis
  const plot: Plot = {
    box,
    bar,
    slot: (bar ? box.h : box.w) / Math.max(1, chart.categories.length),
    pos: (v) => ((v - lo) / (hi - lo)) * across,
  };
  // Excel's default title: the series' name when there is one series, else "Chart Title".
  const title = chart.series.length === 1 ? chart.series[0]!.name : "Chart Title";
  return (
    <svg viewBox={`0 0 ${w} ${h}`} width={w} height={h} role="presentation">
      <text x={w / 2} y={18} text-anchor="middle" class="hx-chart-title">
        {title}
      </text>
      {axes(chart, plot, ticks)}
      {seriesShapes(chart, plot, /^Line/.test(chart.chartType))}
      {legend(chart, w, h)}
    </svg>
  );
}

/** The sheet's charts, placed like pictures (`px` turns a chart's points into the grid's pixels). */
export function SheetCharts({ charts, px }: { charts: BookChart[]; px: (at: Box) => Box }) {
  return (
    <>
      {charts.map((ch) => {
        const at = px(ch);
        return (
          <div
            key={ch.name}
            class="hx-chart"
            role="img"
            data-chart={ch.name}
            aria-label={`${ch.name}: ${ch.series.map((s) => s.name).join(", ")} over ${ch.categories.length} categories`}
            style={{ left: `${at.left}px`, top: `${at.top}px`, width: `${at.width}px`, height: `${at.height}px` }}
          >
            <ChartView chart={ch} w={at.width} h={at.height} />
          </div>
        );
      })}
    </>
  );
}
