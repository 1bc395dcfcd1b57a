// One dashboard widget as a chart: its query with the dashboard's filters and time zone applied,
// and the Vega-Lite spec of its rows. Shared by the embed page (in the browser, bundled) and the
// dashboard exports (in Node, rendered to SVG then PNG), so both draw the same chart. No Node or
// DOM imports here.
import type { DashboardWidget } from "../../src/api/embed/schemas";
import type { DashboardFilter } from "../../src/api/embed/protocol";
import { memberTitle } from "./semantic";

export interface WidgetRow {
  x: string;
  y: number;
}

export interface ChartLook {
  dark: boolean;
  /** Brand colour of the marks (set-theme primaryColor). */
  color?: string | undefined;
  width?: number;
  height?: number;
}

/** The widget's measure (the one a drilldown drills into) and its grouping member. */
export function widgetMembers(w: DashboardWidget): { measure: string; x: string; temporal: boolean; granularity: string | null } {
  const q = w.query as { measures?: string[]; dimensions?: string[]; timeDimensions?: Array<{ dimension: string; granularity?: string }> };
  const measure = q.measures?.[0] ?? "";
  const td = q.timeDimensions?.find((t) => t.granularity);
  if (td) return { measure, x: `${td.dimension}.${td.granularity}`, temporal: true, granularity: td.granularity ?? null };
  return { measure, x: q.dimensions?.[0] ?? "", temporal: false, granularity: null };
}

/** The widget's query with the dashboard filters (equals; null → notSet) and the time zone. */
export function widgetQuery(w: DashboardWidget, filters: readonly DashboardFilter[], timezone: string | null): Record<string, unknown> {
  const q: Record<string, unknown> = { ...w.query };
  const extra = filters.map((f) => {
    const values = f.values.filter((v) => v !== null).map(String);
    return values.length ? { member: f.member, operator: "equals", values } : { member: f.member, operator: "notSet" };
  });
  if (extra.length) q.filters = [...((w.query as { filters?: unknown[] }).filters ?? []), ...extra];
  if (timezone) q.timezone = timezone;
  return q;
}

/** Rows of a /v1/load answer as chart points. */
export function widgetRows(w: DashboardWidget, data: Array<Record<string, unknown>>): WidgetRow[] {
  const m = widgetMembers(w);
  return data.map((r) => ({ x: String(r[m.x] ?? r[m.x.replace(/\.[a-z]+$/, "")] ?? "∅"), y: Number(r[m.measure] ?? 0) }));
}

export function vegaLiteSpec(w: DashboardWidget, rows: readonly WidgetRow[], look: ChartLook): Record<string, unknown> {
  const m = widgetMembers(w);
  const fg = look.dark ? "#e8e8e8" : "#222222";
  const color = look.color ?? (look.dark ? "#6cb4ff" : "#1f6fd1");
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: w.title, color: fg },
    width: look.width ?? 320,
    height: look.height ?? 180,
    background: look.dark ? "#1e1e1e" : "#ffffff",
    data: { values: rows.map((r) => ({ ...r })) },
    mark: w.chart === "line" ? { type: "line", point: true, color } : { type: "bar", color, cursor: "pointer" },
    encoding: {
      x: m.temporal
        ? { field: "x", type: "temporal", title: memberTitle(m.x), timeUnit: m.granularity === "month" ? "yearmonth" : undefined }
        : { field: "x", type: "nominal", title: memberTitle(m.x), sort: null },
      y: { field: "y", type: "quantitative", title: memberTitle(m.measure) },
      tooltip: [
        { field: "x", title: memberTitle(m.x) },
        { field: "y", title: memberTitle(m.measure) },
      ],
    },
    config: {
      axis: { labelColor: fg, titleColor: fg, gridColor: look.dark ? "#444" : "#ddd", domainColor: fg, tickColor: fg },
      view: { stroke: null },
    },
  };
}
