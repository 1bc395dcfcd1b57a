// The small semantic model over the sample dataset (views orders, customers, products,
// with count / sum / avg / count-distinct measures and string, number, boolean and time
// dimensions), and the compiler from a /v1/load JSON query to DuckDB SQL.
// Grouping happens on raw values in an inner query; formatting (numbers as strings, as a
// Postgres-backed platform sends them; times as naive "YYYY-MM-DDTHH:mm:ss.sss" in the
// query's timezone) happens in the outer query, on the grouped rows only.
import type { DuckDBValue } from "@duckdb/node-api";
import type { Filter, LoadQuery, MemberFilter } from "../../src/api/schemas/data";
import { isIanaTimeZone } from "../../src/api/timezone";
import { resolveRelativeRange } from "../../src/api/date-range";

export class QueryError extends Error {}

type DimType = "string" | "number" | "boolean" | "time";
/** Display formats as the semantic layer's model sets them (`format:`), carried by /v1/meta and annotations. */
type MemberFormat = "currency" | "percent" | "number" | "id";
interface DimensionDef {
  sql: string;
  type: DimType;
  title: string;
  format?: MemberFormat;
}
interface MeasureDef {
  sql: string;
  aggType: "count" | "sum" | "avg" | "countDistinct" | "number";
  title: string;
  decimals: number;
  format?: MemberFormat;
}
interface ViewDef {
  name: string;
  title: string;
  table: string;
  alias: string;
  /** How the view joins the orders fact table (absent for orders itself). */
  joinOn?: string;
  measures: Record<string, MeasureDef>;
  dimensions: Record<string, DimensionDef>;
}

export const VIEWS: ViewDef[] = [
  {
    name: "orders",
    title: "Orders",
    table: "sample.orders",
    alias: "o",
    measures: {
      count: { sql: "count(*)", aggType: "count", title: "Count", decimals: 0 },
      total_amount: { sql: "sum(o.amount)", aggType: "sum", title: "Total Amount", decimals: 2, format: "currency" },
      avg_amount: { sql: "avg(o.amount)", aggType: "avg", title: "Avg Amount", decimals: 6, format: "currency" },
      // A percentage as the semantic layer models one: already ×100 (Cube's `{a} / {b} * 100.0, format: percent`).
      return_rate: {
        sql: "100.0 * avg(CASE WHEN o.is_returned THEN 1 ELSE 0 END)",
        aggType: "number",
        title: "Return Rate",
        decimals: 2,
        format: "percent",
      },
      total_quantity: { sql: "sum(o.quantity)", aggType: "sum", title: "Total Quantity", decimals: 0 },
      customers_count: { sql: "count(DISTINCT o.customer_id)", aggType: "countDistinct", title: "Customers Count", decimals: 0 },
    },
    dimensions: {
      id: { sql: "o.id", type: "number", title: "Id", format: "id" },
      external_ref: { sql: "o.external_ref", type: "number", title: "External Ref" },
      status: { sql: "o.status", type: "string", title: "Status" },
      created_at: { sql: "o.created_at", type: "time", title: "Created at" },
      quantity: { sql: "o.quantity", type: "number", title: "Quantity" },
      amount: { sql: "o.amount", type: "number", title: "Amount", format: "currency" },
      is_returned: { sql: "o.is_returned", type: "boolean", title: "Is Returned" },
    },
  },
  {
    name: "customers",
    title: "Customers",
    table: "sample.customers",
    alias: "c",
    joinOn: "c.id = o.customer_id",
    measures: { count: { sql: "count(DISTINCT c.id)", aggType: "countDistinct", title: "Count", decimals: 0 } },
    dimensions: {
      id: { sql: "c.id", type: "number", title: "Id" },
      name: { sql: "c.name", type: "string", title: "Name" },
      country: { sql: "c.country", type: "string", title: "Country" },
      segment: { sql: "c.segment", type: "string", title: "Segment" },
      is_vip: { sql: "c.is_vip", type: "boolean", title: "Is Vip" },
      signed_up_at: { sql: "c.signed_up_at", type: "time", title: "Signed up at" },
    },
  },
  {
    name: "products",
    title: "Products",
    table: "sample.products",
    alias: "p",
    joinOn: "p.id = o.product_id",
    measures: { count: { sql: "count(DISTINCT p.id)", aggType: "countDistinct", title: "Count", decimals: 0 } },
    dimensions: {
      id: { sql: "p.id", type: "number", title: "Id" },
      name: { sql: "p.name", type: "string", title: "Name" },
      category: { sql: "p.category", type: "string", title: "Category" },
      price: { sql: "p.price", type: "number", title: "Price", format: "currency" },
    },
  },
];

const viewByName = new Map(VIEWS.map((v) => [v.name, v]));

function resolve(member: string): { view: ViewDef; name: string } {
  const [viewName, name] = member.split(".");
  const view = viewName ? viewByName.get(viewName) : undefined;
  if (!view || !name) throw new QueryError(`'${viewName}' not found for path '${member}'`);
  return { view, name };
}
function dimension(member: string): { view: ViewDef; def: DimensionDef } {
  const { view, name } = resolve(member);
  const def = view.dimensions[name];
  if (!def) throw new QueryError(`'${name}' not found for path '${member}'`);
  return { view, def };
}
function measure(member: string): { view: ViewDef; def: MeasureDef } {
  const { view, name } = resolve(member);
  const def = view.measures[name];
  if (!def) throw new QueryError(`'${name}' not found for path '${member}'`);
  return { view, def };
}

/** GET /v1/meta body, in the recorded semantic-layer shape. */
/**
 * A member's title as people read it ("orders.status" → "Status", "orders.created_at.month" →
 * "Created At (month)"); the key itself when the model has no such member. For the embed's axes and
 * filter line, and the dashboard pictures.
 */
export function memberTitle(key: string): string {
  const [view, member, granularity] = key.split(".");
  const v = VIEWS.find((x) => x.name === view);
  const def = v && member ? (v.measures[member] ?? v.dimensions[member]) : undefined;
  if (!def) return key;
  return granularity ? `${def.title} (${granularity})` : def.title;
}

/**
 * The label of a widget's total: "Total Count", but "Total Amount" for a measure whose title already
 * says total (not "Total Total Amount", issue 31 item 5).
 */
export function totalLabel(measureTitle: string): string {
  return /^total\b/i.test(measureTitle.trim()) ? measureTitle : `Total ${measureTitle}`;
}

export function metaBody() {
  return {
    cubes: VIEWS.map((v) => ({
      public: true,
      name: v.name,
      type: "view",
      title: v.title,
      measures: Object.entries(v.measures).map(([n, m]) => ({
        name: `${v.name}.${n}`,
        title: `${v.title} ${m.title}`,
        shortTitle: m.title,
        cumulativeTotal: false,
        cumulative: false,
        type: "number",
        aggType: m.aggType,
        ...(m.format ? { format: m.format } : {}),
        drillMembers: [],
        drillMembersGrouped: { measures: [], dimensions: [] },
        isVisible: true,
      })),
      dimensions: Object.entries(v.dimensions).map(([n, d]) => ({
        name: `${v.name}.${n}`,
        title: `${v.title} ${d.title}`,
        type: d.type,
        shortTitle: d.title,
        ...(d.format ? { format: d.format } : {}),
        suggestFilterValues: true,
        isVisible: true,
      })),
      segments: [],
    })),
  };
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

function rangeBound(v: string, end: boolean): string {
  if (DATE_ONLY.test(v)) return `${v}T${end ? "23:59:59.999" : "00:00:00.000"}`;
  if (DATE_TIME.test(v)) {
    const [d, t] = v.replace(" ", "T").split("T") as [string, string];
    const [hms, ms = ""] = t.split(".");
    return `${d}T${hms!.length === 5 ? hms + ":00" : hms}.${(ms + "000").slice(0, 3)}`;
  }
  throw new QueryError(
    `Unsupported date range value: '${v}' (use YYYY-MM-DD, YYYY-MM-DDTHH:mm:ss or a relative range such as 'last 12 months')`,
  );
}

export interface CompiledQuery {
  /** The result rows: one column per member, values already in their wire form (VARCHAR or BOOLEAN). */
  sql: string;
  /**
   * The same rows rendered by DuckDB as the text of the response's `data` array (without the
   * brackets), one JSON object per row in result order, time members repeated under their plain
   * name. One value crosses into JS instead of one per cell.
   */
  jsonSql: string;
  countSql: string | null;
  params: DuckDBValue[];
  normalized: Record<string, unknown>;
  annotation: {
    measures: Record<string, unknown>;
    dimensions: Record<string, unknown>;
    segments: Record<string, unknown>;
    timeDimensions: Record<string, unknown>;
  };
  /** [granular key, plain key] pairs: each row repeats the time value under the plain member name. */
  timeAliases: Array<[string, string]>;
}

const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

/**
 * Cube's row limits (CUBEJS_DB_QUERY_DEFAULT_LIMIT, CUBEJS_DB_QUERY_LIMIT): a query without a
 * limit gets 10,000 rows, silently; a limit over 50,000 is refused ("The query limit has been
 * exceeded."). Measured against Cube 0.33.65 (test/cube), see docs/API.md "What we learnt from real Cube".
 */
export const ROW_LIMITS = { default: 10_000, max: 50_000 } as const;

export function compileLoad(query: LoadQuery, options: { pushdown?: boolean } = {}): CompiledQuery {
  const timezone = query.timezone ?? "UTC";
  // Every current IANA name (Asia/Kathmandu too): Intl.supportedValuesOf lists only ICU's older ones.
  if (!isIanaTimeZone(timezone)) throw new QueryError(`Unknown timezone: '${timezone}'`);
  const measures = query.measures ?? [];
  const dimensions = query.dimensions ?? [];
  const timeDimensions = query.timeDimensions ?? [];
  if (measures.length + dimensions.length + timeDimensions.length === 0)
    throw new QueryError("Query should contain either measures, dimensions or timeDimensions");
  // Cube checks this before anything else in the query (api-gateway normalizeQuery). Requests
  // reach here through the LoadQuery schema, which already refuses it; the check stays for
  // in-process callers.
  if (query.limit !== undefined && query.limit > ROW_LIMITS.max) throw new QueryError("The query limit has been exceeded.");
  const limit = query.limit ?? ROW_LIMITS.default;
  const params: DuckDBValue[] = [];
  const param = (v: DuckDBValue) => {
    params.push(v);
    return `$${params.length}`;
  };
  const used = new Set<string>();
  const timeExpr = (col: string) => (timezone === "UTC" ? col : `timezone('${timezone}', timezone('UTC', ${col}))`);

  const pd = options.pushdown === false ? null : pushdownPlan(query);
  const rollup = pd ? rollupFor(query) : null;
  /** A dimension's column: on a rollup, the joined view's columns are copied in as o.<prefix>_<name>. */
  const colOf = (view: ViewDef, sql: string) =>
    rollup && view.name === rollup.view ? sql.replace(/^\w+\.(\w+)$/, `o.${rollup.prefix}_$1`) : sql;
  const preCols = new Set<string>();
  const preWhere: string[] = [];
  const preAggs = new Map<string, string>();

  const annotation: CompiledQuery["annotation"] = { measures: {}, dimensions: {}, segments: {}, timeDimensions: {} };
  const inner: string[] = [];
  const outer: string[] = [];
  /** [member key, JSON text of its value] per output column, in output order. */
  const jsonCols: Array<[string, string]> = [];
  const groupAliases: string[] = [];
  const groupCount = { n: 0 };
  const orderable = new Map<string, string>(); // member id → inner alias
  const timeAliases: Array<[string, string]> = [];
  const where: string[] = [];
  const having: string[] = [];

  const fmtDim = (alias: string, type: DimType) =>
    type === "time" ? `strftime(${alias}, '%Y-%m-%dT%H:%M:%S.%g')` : type === "boolean" ? alias : `CAST(${alias} AS VARCHAR)`;
  const jsonDim = (alias: string, type: DimType) =>
    type === "string"
      ? `to_json(CAST(${alias} AS VARCHAR))::VARCHAR`
      : type === "boolean"
        ? `CASE WHEN ${alias} THEN 'true' WHEN NOT ${alias} THEN 'false' END`
        : `'"' || ${fmtDim(alias, type)} || '"'`; // numbers and times: no character needs escaping

  dimensions.forEach((m, i) => {
    const { view, def } = dimension(m);
    used.add(view.name);
    const alias = `d${i}`;
    const expr = def.type === "time" ? timeExpr(colOf(view, def.sql)) : colOf(view, def.sql);
    if (pd && view.name === "orders") preCols.add(`${def.sql} AS ${def.sql.slice(2)}`);
    inner.push(`${expr} AS ${alias}`);
    groupCount.n++;
    groupAliases.push(alias);
    outer.push(`${fmtDim(alias, def.type)} AS ${q(m)}`);
    jsonCols.push([m, jsonDim(alias, def.type)]);
    orderable.set(m, alias);
    annotation.dimensions[m] = {
      title: `${view.title} ${def.title}`,
      shortTitle: def.title,
      type: def.type,
      ...(def.format ? { format: def.format } : {}),
    };
  });

  const normalizedTds = timeDimensions.map((td, i) => {
    const { view, def } = dimension(td.dimension);
    if (def.type !== "time") throw new QueryError(`Dimension '${td.dimension}' is not a time dimension`);
    used.add(view.name);
    const expr = timeExpr(colOf(view, def.sql));
    const pushed = pd !== null && view.name === "orders";
    let dateRange: [string, string] | undefined;
    if (td.dateRange !== undefined) {
      // A string is one date, or a relative range in words resolved against today (src/api/date-range.ts).
      const relative = typeof td.dateRange === "string" ? resolveRelativeRange(td.dateRange, new Date()) : null;
      const [from, to] = relative ?? (typeof td.dateRange === "string" ? [td.dateRange, td.dateRange] : td.dateRange);
      dateRange = [rangeBound(from, false), rangeBound(to, true)];
      (pushed ? preWhere : where).push(
        `${expr} BETWEEN CAST(${param(dateRange[0])} AS TIMESTAMP) AND CAST(${param(dateRange[1])} AS TIMESTAMP)`,
      );
    }
    if (td.granularity) {
      const alias = `t${i}`;
      const key = `${td.dimension}.${td.granularity}`;
      if (pushed) {
        // Truncated (and converted) inside the pre-aggregation; the outer level groups on it as is.
        preCols.add(`date_trunc('${td.granularity}', ${expr}) AS ${def.sql.slice(2)}`);
        inner.push(`${def.sql} AS ${alias}`);
      } else {
        inner.push(`date_trunc('${td.granularity}', ${expr}) AS ${alias}`);
      }
      groupCount.n++;
      groupAliases.push(alias);
      outer.push(`${fmtDim(alias, "time")} AS ${q(key)}`);
      jsonCols.push([key, jsonDim(alias, "time")]);
      orderable.set(td.dimension, alias);
      orderable.set(key, alias);
      timeAliases.push([key, td.dimension]);
      const entry = { title: `${view.title} ${def.title}`, shortTitle: def.title, type: "time" };
      annotation.timeDimensions[key] = entry;
      annotation.timeDimensions[td.dimension] = entry;
    }
    return { dimension: td.dimension, ...(td.granularity ? { granularity: td.granularity } : {}), ...(dateRange ? { dateRange } : {}) };
  });

  measures.forEach((m, i) => {
    const { view, def } = measure(m);
    used.add(view.name);
    const alias = `m${i}`;
    inner.push(`${pd ? pd.measure(def, preAggs) : def.sql} AS ${alias}`);
    const num = def.aggType === "avg" || def.aggType === "number" ? `CAST(${alias} AS DECIMAL(38,${def.decimals}))` : alias;
    outer.push(`CAST(${num} AS VARCHAR) AS ${q(m)}`);
    jsonCols.push([m, `'"' || CAST(${num} AS VARCHAR) || '"'`]);
    orderable.set(m, alias);
    annotation.measures[m] = {
      title: `${view.title} ${def.title}`,
      shortTitle: def.title,
      type: "number",
      ...(def.format ? { format: def.format } : {}),
      drillMembers: [],
      drillMembersGrouped: { measures: [], dimensions: [] },
    };
  });

  const filterSql = (f: Filter): { sql: string; aggregate: boolean } => {
    if ("and" in f || "or" in f) {
      const parts = ("and" in f ? f.and : f.or).map(filterSql);
      if (parts.length === 0) return { sql: "TRUE", aggregate: false };
      const aggregate = parts.some((p) => p.aggregate);
      if (aggregate && parts.some((p) => !p.aggregate)) throw new QueryError("A logical filter cannot mix measures and dimensions");
      return { sql: `(${parts.map((p) => p.sql).join("and" in f ? " AND " : " OR ")})`, aggregate };
    }
    return memberFilterSql(f);
  };
  const memberFilterSql = (f: MemberFilter): { sql: string; aggregate: boolean } => {
    const { view, name } = resolve(f.member);
    used.add(view.name);
    const md = view.measures[name];
    const dd = view.dimensions[name];
    if (!md && !dd) throw new QueryError(`'${name}' not found for path '${f.member}'`);
    const type: DimType = md ? "number" : dd!.type;
    const col = md ? md.sql : type === "time" ? timeExpr(colOf(view, dd!.sql)) : colOf(view, dd!.sql);
    const values = f.values ?? [];
    const typed = (v: string): string => {
      if (type === "number") {
        if (!/^[+-]?\d+(\.\d+)?$/.test(v)) throw new QueryError(`Filter value '${v}' of ${f.member} is not a number`);
        return `CAST(${param(v)} AS DOUBLE)`;
      }
      if (type === "time") return `CAST(${param(rangeBound(v, false))} AS TIMESTAMP)`;
      if (type === "boolean") return param(v === "true");
      return param(v);
    };
    const need = (n: number) => {
      if (values.length < n) throw new QueryError(`Filter ${f.operator} on ${f.member} needs ${n} value(s)`);
    };
    let sql: string;
    switch (f.operator) {
      case "equals":
        need(1);
        sql = `${col} IN (${values.map(typed).join(", ")})`;
        break;
      case "notEquals":
        need(1);
        sql = `(${col} NOT IN (${values.map(typed).join(", ")}) OR ${col} IS NULL)`;
        break;
      case "contains":
      case "notContains":
      case "startsWith":
      case "endsWith": {
        need(1);
        const pat = (v: string) =>
          f.operator === "startsWith"
            ? `${param(v)} || '%'`
            : f.operator === "endsWith"
              ? `'%' || ${param(v)}`
              : `'%' || ${param(v)} || '%'`;
        const any = values.map((v) => `CAST(${col} AS VARCHAR) ILIKE ${pat(v)}`).join(" OR ");
        sql = f.operator === "notContains" ? `NOT (${any})` : `(${any})`;
        break;
      }
      case "gt":
        need(1);
        sql = `${col} > ${typed(values[0]!)}`;
        break;
      case "gte":
        need(1);
        sql = `${col} >= ${typed(values[0]!)}`;
        break;
      case "lt":
        need(1);
        sql = `${col} < ${typed(values[0]!)}`;
        break;
      case "lte":
        need(1);
        sql = `${col} <= ${typed(values[0]!)}`;
        break;
      case "set":
        sql = `${col} IS NOT NULL`;
        break;
      case "notSet":
        sql = `${col} IS NULL`;
        break;
      case "inDateRange":
      case "notInDateRange": {
        need(2);
        const between = `${col} BETWEEN CAST(${param(rangeBound(values[0]!, false))} AS TIMESTAMP) AND CAST(${param(rangeBound(values[1]!, true))} AS TIMESTAMP)`;
        sql = f.operator === "inDateRange" ? between : `NOT (${between})`;
        break;
      }
      case "beforeDate":
        need(1);
        sql = `${col} < CAST(${param(rangeBound(values[0]!, false))} AS TIMESTAMP)`;
        break;
      case "afterDate":
        need(1);
        sql = `${col} > CAST(${param(rangeBound(values[0]!, true))} AS TIMESTAMP)`;
        break;
    }
    return { sql, aggregate: Boolean(md) };
  };
  for (const f of query.filters ?? []) {
    const c = filterSql(f);
    const ordersOnly = pd !== null && membersOf(f).every((m) => m.startsWith("orders."));
    (c.aggregate ? having : ordersOnly ? preWhere : where).push(c.sql);
  }

  // FROM: one view alone, or the orders fact table with the other views joined.
  let from: string;
  if (used.size === 1) {
    const v = viewByName.get([...used][0]!)!;
    from = `${v.table} ${v.alias}`;
  } else {
    const fact = rollup
      ? `(SELECT * FROM sample.${rollup.table} o${preWhere.length ? ` WHERE ${preWhere.join(" AND ")}` : ""}) o`
      : pd
        ? `(SELECT ${[...VIEWS.filter((v) => v.joinOn && used.has(v.name)).map((v) => /o\.\w+/.exec(v.joinOn!)![0]), ...preCols].join(", ")}, ${[...preAggs].map(([a, e]) => `${e} AS ${a}`).join(", ")} FROM sample.orders o${preWhere.length ? ` WHERE ${preWhere.join(" AND ")}` : ""} GROUP BY ALL) o`
        : "sample.orders o";
    from =
      fact +
      (rollup
        ? ""
        : VIEWS.filter((v) => v.joinOn && used.has(v.name))
            .map((v) => ` JOIN ${v.table} ${v.alias} ON ${v.joinOn}`)
            .join(""));
  }

  let order: Array<{ id: string; desc: boolean }>;
  const given = query.order;
  if (given === undefined) order = [];
  else if (Array.isArray(given)) {
    // Cube accepts a map or [member, direction] pairs only; the {id, desc} form it echoes back is
    // refused with this 400 (measured on Cube 0.33.65, test/cube).
    const bad = given.findIndex((o) => !Array.isArray(o));
    if (bad >= 0) throw new QueryError(`Invalid query format: "order[${bad}]" must be an array`);
    order = (given as Array<[string, "asc" | "desc"]>).map((o) => ({ id: o[0], desc: o[1] === "desc" }));
  } else order = Object.entries(given).map(([id, d]) => ({ id, desc: d === "desc" }));
  for (const o of order) if (!orderable.has(o.id)) throw new QueryError(`Order member '${o.id}' is not part of the query`);
  // Default order (as the semantic layer does): first time dimension, else first measure desc, else first dimension.
  const effective =
    order.length > 0
      ? order
      : timeAliases.length > 0
        ? [{ id: timeAliases[0]![1], desc: false }]
        : measures.length > 0
          ? [{ id: measures[0]!, desc: true }]
          : dimensions.length > 0
            ? [{ id: dimensions[0]!, desc: false }]
            : [];
  const orderSql = effective.map((o) => `${orderable.get(o.id)} ${o.desc ? "DESC" : "ASC"} NULLS LAST`);
  // Tie-break on every grouping column so pages are stable.
  const tie = groupAliases;

  const groupBy = groupCount.n > 0 ? ` GROUP BY ${[...Array(groupCount.n).keys()].map((k) => k + 1).join(", ")}` : "";
  const innerSql = `SELECT ${inner.join(", ")} FROM ${from}${where.length ? ` WHERE ${where.join(" AND ")}` : ""}${groupBy}${having.length ? ` HAVING ${having.join(" AND ")}` : ""}`;
  const orderBy = [...orderSql, ...tie.map((t) => `${t} ASC`)];
  const innerOrdered = `${innerSql}${orderBy.length ? ` ORDER BY ${orderBy.join(", ")}` : ""} LIMIT ${limit}${query.offset ? ` OFFSET ${query.offset}` : ""}`;
  const sql = `SELECT ${outer.join(", ")} FROM (${innerOrdered}) r`;
  const sqlText = (t: string) => `'${t.replaceAll("'", "''")}'`;
  const rowCols = [
    ...jsonCols,
    ...timeAliases.map(([granular, plain]): [string, string] => [plain, jsonCols.find(([k]) => k === granular)![1]]),
  ];
  const rowJson = rowCols.length
    ? `${rowCols.map(([k, v], i) => `${sqlText(`${i ? "," : "{"}${JSON.stringify(k)}:`)} || coalesce(${v}, 'null')`).join(" || ")} || '}'`
    : `'{}'`;
  const jsonSql = `SELECT coalesce(string_agg(${rowJson}, ','${orderBy.length ? ` ORDER BY ${orderBy.join(", ")}` : ""}), '') AS j FROM (${innerOrdered}) r`;
  const countSql = query.total ? `SELECT CAST(count(*) AS INTEGER) AS n FROM (${innerSql}) r` : null;

  const normalized: Record<string, unknown> = {
    measures,
    dimensions,
    timeDimensions: normalizedTds,
    filters: query.filters ?? [],
    order,
    limit,
    timezone,
    rowLimit: limit,
    ...(query.offset !== undefined ? { offset: query.offset } : {}),
    ...(query.total !== undefined ? { total: query.total } : {}),
  };
  return { sql, jsonSql, countSql, params, normalized, annotation, timeAliases };
}

function membersOf(f: Filter): string[] {
  return "and" in f ? f.and.flatMap(membersOf) : "or" in f ? f.or.flatMap(membersOf) : [f.member];
}

/**
 * Aggregate pushdown: when orders is joined to other views and every measure is an
 * additive orders measure (count, sum, avg), the fact table is first grouped by its
 * foreign keys and the orders members the query uses, and the join runs on those far
 * fewer rows (count → sum of counts, sum → sum of sums, avg → sum of sums / sum of counts).
 * Returns null when the query does not qualify; the plain join is then used.
 */
/** Types of the pre-aggregated partial sums (they must hold 1.2M rows of the column). */
const PARTIAL_SUM_TYPE: Record<string, string> = { amount: "DECIMAL(18,2)", quantity: "BIGINT" };

function pushdownPlan(query: LoadQuery): { measure(def: MeasureDef, aggs: Map<string, string>): string } | null {
  const members = [
    ...(query.measures ?? []),
    ...(query.dimensions ?? []),
    ...(query.timeDimensions ?? []).map((t) => t.dimension),
    ...(query.filters ?? []).flatMap(membersOf),
  ];
  const views = new Set(members.map((m) => m.split(".")[0]));
  if (!views.has("orders") || views.size < 2) return null;
  for (const m of query.measures ?? []) {
    const { view, name } = resolve(m);
    const def = view.measures[name];
    if (view.name !== "orders" || !def || !["count", "sum", "avg"].includes(def.aggType)) return null;
  }
  for (const f of query.filters ?? []) {
    const ms = membersOf(f);
    if (
      ms.some((m) => {
        const { view, name } = resolve(m);
        return Boolean(view.measures[name]);
      })
    )
      return null;
    const fv = new Set(ms.map((m) => m.split(".")[0]));
    if (fv.has("orders") && fv.size > 1) return null;
  }
  for (const d of query.dimensions ?? []) if (d.startsWith("orders.") && dimension(d).def.type === "time") return null;
  const grans = new Map<string, string>();
  for (const td of query.timeDimensions ?? []) {
    if (!td.dimension.startsWith("orders.") || !td.granularity) continue;
    if (grans.has(td.dimension) && grans.get(td.dimension) !== td.granularity) return null;
    grans.set(td.dimension, td.granularity);
  }
  return {
    measure(def, aggs) {
      aggs.set("__n", "count(*)");
      if (def.aggType === "count") return "sum(o.__n)";
      const col = /^(?:sum|avg)\(o\.(\w+)\)$/.exec(def.sql)?.[1];
      if (!col) throw new Error(`no pushdown form for ${def.sql}`);
      // 64-bit partial sums: re-summing 128-bit decimals is many times slower.
      aggs.set(`__sum_${col}`, `CAST(sum(o.${col}) AS ${PARTIAL_SUM_TYPE[col] ?? "DOUBLE"})`);
      return def.aggType === "sum" ? `sum(o.__sum_${col})` : `sum(o.__sum_${col}) / sum(o.__n)`;
    },
  };
}

/**
 * A rollup that answers a pushed-down query: only customers (or only products) joined, and
 * no orders member other than `status` outside the measures. The rollup by customer (product)
 * alone when status is not used either, else the one by customer (product) × status.
 */
function rollupFor(query: LoadQuery): { table: string; view: string; prefix: string } | null {
  const members = [
    ...(query.measures ?? []),
    ...(query.dimensions ?? []),
    ...(query.timeDimensions ?? []).map((t) => t.dimension),
    ...(query.filters ?? []).flatMap(membersOf),
  ];
  const joined = [...new Set(members.map((m) => m.split(".")[0]!))].filter((v) => v !== "orders");
  if (joined.length !== 1) return null;
  const ordersMembers = members.filter((m) => m.startsWith("orders.") && !(query.measures ?? []).includes(m));
  if (ordersMembers.some((m) => m !== "orders.status")) return null;
  const byStatus = ordersMembers.length > 0;
  if (joined[0] === "customers") return { table: byStatus ? "rollup_customer_status" : "rollup_customer", view: "customers", prefix: "c" };
  if (joined[0] === "products") return { table: byStatus ? "rollup_product_status" : "rollup_product", view: "products", prefix: "p" };
  return null;
}

/** Base views svcsql may read, with plain column names. */
export const SQL_VIEWS_DDL = VIEWS.map(
  (v) =>
    `CREATE OR REPLACE VIEW ${v.name} AS SELECT ${Object.entries(v.dimensions)
      .map(([n, d]) => `${d.sql.replace(/^\w+\./, "")} AS ${n}`)
      .join(", ")}${v.name === "orders" ? ", customer_id, product_id" : ""} FROM ${v.table}`,
);
export const SQL_VIEW_NAMES = new Set(VIEWS.map((v) => v.name));
