// The stand-in's agent: deterministic, no model. It maps the question's words to a measure and a
// grouping over the sample data's SQL views (everyday synonyms: "revenue"/"sales" → the amount,
// "by month"/"monthly" → a month granularity, …), writes the SQL, runs it for real on the data API's
// DuckDB connection, and phrases a short markdown answer from the rows. A question it cannot map
// gets a polite answer and no tool call.
import type { DuckDBConnection } from "@duckdb/node-api";
import { SQL_TOOL_ROW_LIMIT, type SqlToolResult } from "../../src/api/chat/schemas";
import { VIEWS } from "./semantic";

interface MeasurePick {
  sql: string;
  alias: string;
  title: string;
  words: RegExp;
  money: boolean;
}
interface GroupPick {
  sql: string;
  alias: string;
  title: string;
  words: RegExp;
  time: boolean;
  join?: "customers" | "products";
}

const MEASURES: MeasurePick[] = [
  {
    sql: "avg(o.amount)",
    alias: "average_order_value",
    title: "Average order value",
    words: /\b(average|avg|mean)\b.*\b(order|sale|revenue|amount)|\baov\b/,
    money: true,
  },
  { sql: "sum(o.amount)", alias: "revenue", title: "Revenue", words: /\b(revenue|sales|turnover|income|amount|takings)\b/, money: true },
  { sql: "sum(o.quantity)", alias: "units", title: "Units sold", words: /\b(units|quantity|quantities|items sold|volume)\b/, money: false },
  {
    sql: "count(DISTINCT o.customer_id)",
    alias: "customers",
    title: "Customers",
    words: /\b(how many customers|number of customers|customer count|buyers)\b/,
    money: false,
  },
  { sql: "count(*)", alias: "orders", title: "Orders", words: /\b(orders|order count|number of orders|how many)\b/, money: false },
];

const GROUPS: GroupPick[] = [
  { sql: "date_trunc('day', o.created_at)", alias: "day", title: "Day", words: /\b(by day|per day|daily|each day)\b/, time: true },
  { sql: "date_trunc('week', o.created_at)", alias: "week", title: "Week", words: /\b(by week|per week|weekly|each week)\b/, time: true },
  {
    sql: "date_trunc('month', o.created_at)",
    alias: "month",
    title: "Month",
    words: /\b(by month|per month|monthly|each month|month by month|over time|trend)\b/,
    time: true,
  },
  {
    sql: "date_trunc('quarter', o.created_at)",
    alias: "quarter",
    title: "Quarter",
    words: /\b(by quarter|per quarter|quarterly)\b/,
    time: true,
  },
  {
    sql: "date_trunc('year', o.created_at)",
    alias: "year",
    title: "Year",
    words: /\b(by year|per year|yearly|annual|annually)\b/,
    time: true,
  },
  {
    sql: "c.country",
    alias: "country",
    title: "Country",
    words: /\b(country|countries|by market|per market)\b/,
    time: false,
    join: "customers",
  },
  { sql: "c.segment", alias: "segment", title: "Segment", words: /\bsegments?\b/, time: false, join: "customers" },
  {
    sql: "c.name",
    alias: "customer",
    title: "Customer",
    words: /\b(by customer|per customer|each customer|top customers)\b/,
    time: false,
    join: "customers",
  },
  { sql: "p.category", alias: "category", title: "Category", words: /\b(categor(y|ies)|product line)\b/, time: false, join: "products" },
  {
    sql: "p.name",
    alias: "product",
    title: "Product",
    words: /\b(by product|per product|each product|top products)\b/,
    time: false,
    join: "products",
  },
  { sql: "o.status", alias: "status", title: "Status", words: /\b(status|statuses)\b/, time: false },
];

export type AgentPlan =
  | {
      kind: "sql";
      searchQuery: string;
      sql: string;
      queryTitle: string;
      description: string;
      measure: MeasurePick;
      group: GroupPick | null;
      vegaSpec: string | undefined;
      thinking: string;
    }
  | { kind: "none"; answer: string; thinking: string };

/** The plan for a question: which view, members and SQL; or a polite "cannot answer". */
export function planAnswer(question: string): AgentPlan {
  const q = question.toLowerCase();
  const group = GROUPS.find((g) => g.words.test(q)) ?? null;
  const measure = MEASURES.find((m) => m.words.test(q)) ?? (group ? MEASURES[1]! : null);
  if (!measure) {
    return {
      kind: "none",
      thinking: "The question names no measure of the data model that I recognise.",
      answer:
        "I could not match that question to the data I can see. I can answer questions about **orders**: revenue (sales), orders, units sold, customers or average order value, " +
        "optionally *by day, week, month, quarter or year*, or by country, segment, customer, category, product or status. For example: “revenue by month”.",
    };
  }
  const joins =
    group?.join === "customers"
      ? "\nJOIN customers AS c ON c.id = o.customer_id"
      : group?.join === "products"
        ? "\nJOIN products AS p ON p.id = o.product_id"
        : "";
  const select = group ? `${group.sql} AS ${group.alias}, ${measure.sql} AS ${measure.alias}` : `${measure.sql} AS ${measure.alias}`;
  const order = group ? (group.time ? "\nGROUP BY 1\nORDER BY 1" : `\nGROUP BY 1\nORDER BY 2 DESC, 1`) : "";
  const sql = `SELECT ${select}\nFROM orders AS o${joins}${order}`;
  const queryTitle = group ? `${measure.title} by ${group.title.toLowerCase()}` : measure.title;
  const view = VIEWS[0]!;
  return {
    kind: "sql",
    searchQuery: [measure.alias, group?.alias].filter(Boolean).join(" "),
    sql,
    queryTitle,
    description: `${measure.title} over the ${view.title.toLowerCase()} view${group ? `, grouped by ${group.title.toLowerCase()}` : ""}.`,
    measure,
    group,
    vegaSpec: group ? JSON.stringify(vegaSpecFor(measure, group)) : undefined,
    thinking:
      `The question asks for ${measure.title.toLowerCase()}${group ? ` by ${group.title.toLowerCase()}` : ""}. ` +
      `That is ${measure.sql} on the orders view${group ? `, grouped by ${group.sql}` : ""}.`,
  };
}

/** A Vega-Lite v5 spec with no data in it (seed 03 §2.3: the client draws result.data). */
function vegaSpecFor(m: MeasurePick, g: GroupPick): Record<string, unknown> {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: `${m.title} by ${g.title.toLowerCase()}`,
    width: "container",
    mark: g.time ? { type: "line", point: true, tooltip: true } : { type: "bar", tooltip: true },
    encoding: {
      x: g.time ? { field: g.alias, type: "temporal", title: g.title } : { field: g.alias, type: "nominal", title: g.title, sort: "-y" },
      y: { field: m.alias, type: "quantitative", title: m.title },
    },
  };
}

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL)/;

/** Runs the plan's SQL: the first 100 rows, the total row count, the columns. */
export async function runSql(
  conn: DuckDBConnection,
  plan: Extract<AgentPlan, { kind: "sql" }>,
  userRequest: string,
  uuid: string,
): Promise<SqlToolResult> {
  const sample = await conn.runAndReadAll(`SELECT * FROM (\n${plan.sql}\n) AS q LIMIT ${SQL_TOOL_ROW_LIMIT}`);
  const count = await conn.runAndReadAll(`SELECT count(*) AS n FROM (\n${plan.sql}\n) AS q`);
  const types = sample.columnTypes().map(String);
  const schema = sample.columnNames().map((name, i) => ({ name, column_type: types[i]! }));
  const data = sample.getRowsJson().map((row) =>
    row.map((v, i) => {
      if (v === null) return null;
      if (NUMERIC.test(types[i]!)) return Number(v);
      if (/^(DATE|TIMESTAMP)/.test(types[i]!)) return String(v).replace(" ", "T");
      return v;
    }),
  );
  return {
    sqlQuery: plan.sql,
    queryTitle: plan.queryTitle,
    description: plan.description,
    userRequest,
    schema,
    data,
    totalRows: Number(count.getRowsJson()[0]![0]),
    uuid,
    ...(plan.vegaSpec ? { vegaSpec: plan.vegaSpec } : {}),
  };
}

const fmt = (v: unknown, money: boolean) =>
  typeof v === "number"
    ? v.toLocaleString("en-US", { maximumFractionDigits: money ? 2 : 0, minimumFractionDigits: money ? 2 : 0 })
    : String(v);
const label = (v: unknown, g: GroupPick | null) =>
  g?.time && typeof v === "string" ? v.slice(0, g.alias === "year" ? 4 : g.alias === "month" || g.alias === "quarter" ? 7 : 10) : String(v);

/** The final answer, in markdown, from the rows (the first 100 of totalRows). */
export function answerFor(plan: Extract<AgentPlan, { kind: "sql" }>, r: SqlToolResult): string {
  const m = plan.measure;
  const g = plan.group;
  if (!g) return `**${plan.queryTitle}** over all orders: **${fmt(r.data[0]?.[0], m.money)}**.`;
  const rows = r.data;
  const best = rows.reduce<unknown[] | null>((a, row) => (a === null || Number(row[1]) > Number(a[1]) ? row : a), null);
  const lines = [
    `Here is **${plan.queryTitle}** over all orders: ${r.totalRows.toLocaleString("en-US")} ${r.totalRows === 1 ? "row" : "rows"}` +
      (r.totalRows > rows.length ? ` (the first ${rows.length} are shown; *Place in sheet* loads them all).` : "."),
    "",
  ];
  if (best) lines.push(`- Highest: **${label(best[0], g)}** with ${fmt(best[1], m.money)}`);
  if (g.time && rows.length > 1) {
    lines.push(`- First: ${label(rows[0]![0], g)} with ${fmt(rows[0]![1], m.money)}`);
    lines.push(`- Last shown: ${label(rows[rows.length - 1]![0], g)} with ${fmt(rows[rows.length - 1]![1], m.money)}`);
  }
  lines.push("", "The chart and the table below show the rows; the SQL is in the step above.");
  return lines.join("\n");
}

/** Splits text into small deltas (a few words each) the way a model streams tokens. */
export function deltas(text: string, wordsPerDelta = 3): string[] {
  const parts = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < parts.length; i += wordsPerDelta) out.push(parts.slice(i, i + wordsPerDelta).join(""));
  return out;
}
