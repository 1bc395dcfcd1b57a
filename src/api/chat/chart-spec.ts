// The Vega-Lite subset the pane draws (issue #26): an allow-list, not a deny-list. An agent's chart
// spec is untrusted input (prompt injection, a compromised AI endpoint): anything outside this
// subset refuses the chart, and the answer names what was refused. In the subset: single-view or
// layered charts of the answer's own rows; the marks below; position, colour, size, shape, text,
// tooltip and order channels bound to a field or a constant; scales, axes, legends and titles with
// their presentation properties; filter (field predicates), aggregate, bin, timeUnit and fold
// transforms; a small config of axis, legend, title, view and mark styling.
// Not in it, by design: `usermeta` (vega-embed merges usermeta.embedOptions over the caller's
// options: actions menu, sourceHeader HTML, loaders), `data`/`datasets` (only the answer's rows are
// drawn), `params` (selections and DOM-bound inputs), expressions (calculate, filter strings,
// conditions), `href`/`url`/`image` (links, remote images), tooltip content "data" (every field of
// the row, whatever it holds), facet/repeat/concat, projections and any key this file does not name.
import { z } from "zod";

const num = z.number().finite();
const str = z.string().max(500);
/** A CSS colour as text: a name, #hex, rgb()/hsl(). Never url(…) or anything that could refer elsewhere. */
const color = z.string().regex(/^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,30}|(rgb|rgba|hsl|hsla)\([0-9.,%\s]+\))$/);
const text = z.union([str, z.array(str).max(10)]);
/** d3-format / d3-time-format patterns; formatType only the built-in two (custom names are expression functions). */
const format = { format: str.optional(), formatType: z.enum(["number", "time", "utc"]).optional() };
const primitive = z.union([num, str, z.boolean(), z.null()]);

const MARK_TYPES = ["arc", "area", "bar", "circle", "line", "point", "rect", "rule", "square", "text", "tick", "trail"] as const;

const fontWeight = z.union([z.enum(["normal", "bold", "lighter", "bolder"]), num]);

/** Presentation properties shared by a mark definition and config's mark sections. */
const markStyle = {
  color: color.optional(),
  fill: color.optional(),
  stroke: color.optional(),
  opacity: num.optional(),
  fillOpacity: num.optional(),
  strokeOpacity: num.optional(),
  strokeWidth: num.optional(),
  strokeDash: z.array(num).max(10).optional(),
  size: num.optional(),
  filled: z.boolean().optional(),
  interpolate: z
    .enum(["linear", "linear-closed", "step", "step-before", "step-after", "basis", "cardinal", "monotone", "natural"])
    .optional(),
  orient: z.enum(["horizontal", "vertical"]).optional(),
  cornerRadius: num.optional(),
  cornerRadiusEnd: num.optional(),
  innerRadius: num.optional(),
  outerRadius: num.optional(),
  padAngle: num.optional(),
  thickness: num.optional(),
  binSpacing: num.optional(),
  align: z.enum(["left", "center", "right"]).optional(),
  baseline: z.enum(["top", "middle", "bottom", "alphabetic"]).optional(),
  dx: num.optional(),
  dy: num.optional(),
  angle: num.optional(),
  fontSize: num.optional(),
  fontWeight: fontWeight.optional(),
  limit: num.optional(),
  shape: z.enum(["circle", "square", "cross", "diamond", "triangle-up", "triangle-down", "triangle-right", "triangle-left"]).optional(),
};

/** The tooltip a mark may ask for: the encoded fields only (never content "data": every field of the row). */
const markTooltip = z.union([z.boolean(), z.null(), z.strictObject({ content: z.literal("encoding") })]);
const overlay = z.union([z.boolean(), z.literal("transparent"), z.strictObject(markStyle)]);

const markDef = z.strictObject({
  type: z.enum(MARK_TYPES),
  ...markStyle,
  tooltip: markTooltip.optional(),
  point: overlay.optional(),
  line: overlay.optional(),
  clip: z.boolean().optional(),
});
const mark = z.union([z.enum(MARK_TYPES), markDef]);

const scale = z.strictObject({
  type: z.enum(["linear", "log", "pow", "sqrt", "symlog", "time", "utc", "ordinal", "band", "point"]).optional(),
  domain: z.array(primitive).max(1000).optional(),
  range: z
    .array(z.union([num, color]))
    .max(100)
    .optional(),
  scheme: z.union([str, z.strictObject({ name: str, extent: z.array(num).max(2).optional(), count: num.optional() })]).optional(),
  zero: z.boolean().optional(),
  nice: z.union([z.boolean(), num]).optional(),
  reverse: z.boolean().optional(),
  clamp: z.boolean().optional(),
  padding: num.optional(),
  paddingInner: num.optional(),
  paddingOuter: num.optional(),
  exponent: num.optional(),
  base: num.optional(),
});

const axisStyle = {
  ...format,
  grid: z.boolean().optional(),
  labels: z.boolean().optional(),
  ticks: z.boolean().optional(),
  domain: z.boolean().optional(),
  labelAngle: num.optional(),
  labelOverlap: z.union([z.boolean(), z.enum(["parity", "greedy"])]).optional(),
  labelLimit: num.optional(),
  labelFontSize: num.optional(),
  labelColor: color.optional(),
  titleFontSize: num.optional(),
  titleColor: color.optional(),
  tickCount: num.optional(),
  gridColor: color.optional(),
  gridOpacity: num.optional(),
  domainColor: color.optional(),
  tickColor: color.optional(),
};
const axis = z.strictObject({
  ...axisStyle,
  title: text.nullable().optional(),
  orient: z.enum(["top", "bottom", "left", "right"]).optional(),
  values: z.array(primitive).max(100).optional(),
});

const legendStyle = {
  ...format,
  orient: z.enum(["left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right", "none"]).optional(),
  direction: z.enum(["horizontal", "vertical"]).optional(),
  columns: num.optional(),
  labelLimit: num.optional(),
  labelFontSize: num.optional(),
  titleFontSize: num.optional(),
  symbolType: str.optional(),
  symbolSize: num.optional(),
};
const legend = z.strictObject({ ...legendStyle, title: text.nullable().optional(), values: z.array(primitive).max(100).optional() });

const AGGREGATES = [
  "count",
  "valid",
  "missing",
  "distinct",
  "sum",
  "mean",
  "average",
  "median",
  "min",
  "max",
  "q1",
  "q3",
  "stdev",
  "variance",
] as const;
const aggregateOp = z.enum(AGGREGATES);
/** Vega-Lite time units: year, quarter, month, …, optionally utc-prefixed and combined (yearmonth, monthdate…). */
const timeUnit = z.string().regex(/^(utc)?(year|quarter|month|week|day|dayofyear|date|hours|minutes|seconds|milliseconds)+$/);
const bin = z.union([
  z.boolean(),
  z.literal("binned"),
  z.strictObject({ maxbins: num.optional(), step: num.optional(), nice: z.boolean().optional(), extent: z.array(num).max(2).optional() }),
]);
const sortOrder = z.enum(["ascending", "descending"]);
const sort = z.union([
  sortOrder,
  z.null(),
  z.enum(["x", "-x", "y", "-y", "color", "-color", "size", "-size", "text", "-text", "theta", "-theta", "radius", "-radius"]),
  z.array(primitive).max(1000),
  z.strictObject({ field: str.optional(), op: aggregateOp.optional(), order: sortOrder.nullable().optional() }),
  z.strictObject({ encoding: z.enum(["x", "y", "color", "size", "text", "theta"]), order: sortOrder.nullable().optional() }),
]);
const FIELD_TYPES = ["quantitative", "temporal", "ordinal", "nominal"] as const;

/** A channel bound to a field of the answer's rows (or an aggregate count), or to a constant. */
const fieldDef = z.strictObject({
  field: str.optional(),
  type: z.enum(FIELD_TYPES).optional(),
  aggregate: aggregateOp.optional(),
  bin: bin.optional(),
  timeUnit: timeUnit.optional(),
  title: text.nullable().optional(),
  sort: sort.optional(),
  stack: z.union([z.boolean(), z.null(), z.enum(["zero", "normalize", "center"])]).optional(),
  scale: scale.nullable().optional(),
  axis: axis.nullable().optional(),
  legend: legend.nullable().optional(),
  bandPosition: num.optional(),
  ...format,
});
const valueDef = z.strictObject({ value: z.union([num, color, z.null()]) });
const datumDef = z.strictObject({ datum: primitive, type: z.enum(FIELD_TYPES).optional() });
const channel = z.union([fieldDef, valueDef, datumDef]);
/** text: a field or a constant string (vega draws it as SVG text, never markup). */
const textChannel = z.union([fieldDef, z.strictObject({ value: text }), datumDef]);

const CHANNELS = [
  "x",
  "y",
  "x2",
  "y2",
  "xOffset",
  "yOffset",
  "theta",
  "theta2",
  "radius",
  "radius2",
  "color",
  "fill",
  "stroke",
  "opacity",
  "fillOpacity",
  "strokeOpacity",
  "strokeWidth",
  "strokeDash",
  "size",
  "angle",
  "shape",
  "detail",
  "order",
] as const;

const encoding = z.strictObject({
  ...(Object.fromEntries(CHANNELS.map((c) => [c, channel.optional()])) as Record<(typeof CHANNELS)[number], z.ZodOptional<typeof channel>>),
  text: textChannel.optional(),
  /** Explicit fields only; shown as text by the pane's own tooltip (render-chart.ts). */
  tooltip: z.union([fieldDef, z.array(fieldDef).max(20), z.null()]).optional(),
});

const range = z.array(z.union([num, str, z.null()])).max(2);
const predicate = z.strictObject({
  field: str,
  timeUnit: timeUnit.optional(),
  equal: primitive.optional(),
  lt: z.union([num, str]).optional(),
  lte: z.union([num, str]).optional(),
  gt: z.union([num, str]).optional(),
  gte: z.union([num, str]).optional(),
  range: range.optional(),
  oneOf: z.array(primitive).max(1000).optional(),
  valid: z.boolean().optional(),
});
const transform = z.union([
  z.strictObject({ filter: predicate }),
  z.strictObject({
    aggregate: z.array(z.strictObject({ op: aggregateOp, field: str.optional(), as: str })).max(20),
    groupby: z.array(str).max(20).optional(),
  }),
  z.strictObject({ bin: bin, field: str, as: z.union([str, z.array(str).max(2)]) }),
  z.strictObject({ timeUnit: timeUnit, field: str, as: str }),
  z.strictObject({ fold: z.array(str).max(50), as: z.tuple([str, str]).optional() }),
]);

const title = z.union([
  text,
  z.strictObject({
    text,
    subtitle: text.optional(),
    anchor: z.enum(["start", "middle", "end"]).optional(),
    orient: z.enum(["top", "bottom", "left", "right"]).optional(),
    fontSize: num.optional(),
    subtitleFontSize: num.optional(),
    fontWeight: fontWeight.optional(),
    color: color.optional(),
  }),
]);
const size = z.union([num, z.literal("container")]);

const config = z.strictObject({
  axis: z.strictObject(axisStyle).optional(),
  axisX: z.strictObject(axisStyle).optional(),
  axisY: z.strictObject(axisStyle).optional(),
  legend: z.strictObject(legendStyle).optional(),
  title: z
    .strictObject({ fontSize: num.optional(), anchor: z.enum(["start", "middle", "end"]).optional(), color: color.optional() })
    .optional(),
  view: z.strictObject({ stroke: color.nullable().optional(), strokeWidth: num.optional(), fill: color.nullable().optional() }).optional(),
  ...(Object.fromEntries(["mark", ...MARK_TYPES].map((m) => [m, z.strictObject(markStyle).optional()])) as Record<
    string,
    z.ZodOptional<z.ZodObject>
  >),
});

const common = {
  title: title.optional(),
  description: str.optional(),
  name: str.optional(),
  width: size.optional(),
  height: size.optional(),
  transform: z.array(transform).max(20).optional(),
  encoding: encoding.optional(),
};
const unit = z.strictObject({ ...common, mark });
const layer = z.array(unit).min(1).max(10);

/** The top level: a unit chart (mark) or a layered one (layer), Vega-Lite v5. */
export const ChartSpecSubset = z
  .strictObject({
    $schema: z.string().regex(/^https:\/\/vega\.github\.io\/schema\/vega-lite\/v5(\.\d+)*(\.\d+)?\.json$/),
    ...common,
    mark: mark.optional(),
    layer: layer.optional(),
    background: color.optional(),
    padding: num.optional(),
    autosize: z
      .union([
        z.enum(["pad", "fit", "fit-x", "fit-y", "none"]),
        z.strictObject({
          type: z.enum(["pad", "fit", "fit-x", "fit-y", "none"]).optional(),
          contains: z.enum(["content", "padding"]).optional(),
        }),
      ])
      .optional(),
    config: config.optional(),
  })
  .refine((s) => (s.mark === undefined) !== (s.layer === undefined), { message: "a chart has either a mark or a layer", path: ["mark"] });

export type ChartSpecSubset = z.infer<typeof ChartSpecSubset>;

/**
 * Where a spec leaves the subset: the first few paths of what it used (e.g. "usermeta",
 * "mark.tooltip", "encoding.href"), for the answer to name. Empty when it is inside.
 */
export function outsideSubset(spec: unknown): string[] {
  const r = ChartSpecSubset.safeParse(spec);
  if (r.success) return [];
  const out: string[] = [];
  const add = (p: readonly PropertyKey[]) => {
    const s = p.map(String).join(".") || "the spec";
    if (!out.includes(s)) out.push(s);
  };
  const walk = (issues: readonly Issue[], prefix: readonly PropertyKey[]) => {
    for (const issue of issues) {
      const at = [...prefix, ...issue.path];
      if (issue.code === "unrecognized_keys") for (const k of issue.keys) add([...at, k]);
      else if (issue.code === "invalid_union" && issue.errors.length > 0) {
        // The branch the value was meant for is the one whose required keys it has; when it has none's
        // (a transform no branch knows), name the keys no branch recognises.
        const meant = issue.errors.filter((b) => !b.some((i) => isMissing(spec, [...at, ...i.path])));
        if (meant.length > 0) walk(deepest(meant), at);
        else {
          const unknown = issue.errors.map((b) => new Set(b.flatMap((i) => (i.code === "unrecognized_keys" ? i.keys : []))));
          const common = [...unknown[0]!].filter((k) => unknown.every((u) => u.has(k)));
          if (common.length > 0) for (const k of common) add([...at, k]);
          else add(at);
        }
      } else add(at);
    }
  };
  walk(r.error.issues, []);
  return out.slice(0, 3);
}

type Issue = z.core.$ZodIssue;

/** Is nothing at this path of the value (a required key left out, rather than a wrong value)? */
function isMissing(value: unknown, path: readonly PropertyKey[]): boolean {
  let v = value;
  for (const k of path) {
    if (v === null || typeof v !== "object") return true;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v === undefined;
}

/** Of a union's failed branches, the one that got furthest into the value (its issues name the real culprit). */
function deepest(branches: readonly (readonly Issue[])[]): readonly Issue[] {
  const depth = (b: readonly Issue[]) => Math.max(...b.map((i) => i.path.length + (i.code === "unrecognized_keys" ? 1 : 0)));
  return branches.reduce((best, b) => (depth(b) > depth(best) ? b : best));
}
