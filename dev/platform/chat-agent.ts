// The stand-in's agent: deterministic, no model. It reads the question for the measures and
// dimensions of the semantic layer it names (chat-question.ts: by their titles in /v1/meta, or an
// everyday word such as "revenue" or "monthly"), writes the SQL over the data API's SQL views (the
// views /v1/svcsql reads, so the sqlQuery it returns loads every row there), runs it on the data
// API's DuckDB connection, and phrases a short markdown answer from the rows. A question that names
// no measure, or groups by something the data model does not have, gets a plain answer saying so and
// what it can answer about, and no tool call.
import type { DuckDBConnection } from "@duckdb/node-api";
import { SQL_TOOL_ROW_LIMIT, type SqlToolResult } from "../../src/api/chat/schemas";
import { metaBody, VIEWS } from "./semantic";
import {
  displayTitle,
  GRANULARITIES,
  members,
  readQuestion,
  type Granularity,
  type Member,
  type Named,
  type Reading,
} from "./chat-question";

/** A column of the answer: a member, the title the answer gives it, its SQL name, its time bucket. */
export interface Column {
  member: Member;
  title: string;
  alias: string;
  granularity?: Granularity;
}

/** The svcMeta step's result: the views the query reads, with their members (§2.3). */
interface MetaCube {
  name: string;
  title: string;
  measures: string[];
  dimensions: string[];
}

export type AgentPlan =
  | {
      kind: "sql";
      searchQuery: string;
      cubes: MetaCube[];
      sql: string;
      queryTitle: string;
      description: string;
      /** Group-by columns first (time ones first), then the measures: the order of the SQL's columns. */
      dimensions: Column[];
      measures: Column[];
      /** What the rows are counted over ("orders"). */
      scope: string;
      vegaSpec: string | undefined;
      thinking: string;
    }
  | { kind: "none"; answer: string; thinking: string };

const snake = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "") || "value";
const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const and = (xs: string[], word = "and") => (xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} ${word} ${xs.at(-1)!}`);

/** The plan for a question: the members it names, their SQL; or a plain "cannot answer". */
export function planAnswer(question: string): AgentPlan {
  const all = members();
  const r = readQuestion(question, all);
  if (r.measures.length === 0 || r.unknownDimension !== null) return plainAnswer(r, all);
  return sqlPlan(r, all);
}

/** The time dimension a granularity alone ("by month") groups by: the first one of a view the query reads. */
function defaultTime(all: Member[], views: Set<string>): Member {
  const times = all.filter((m) => m.time);
  return times.find((m) => views.has(m.view)) ?? times.find((m) => m.view === VIEWS[0]!.name) ?? times[0]!;
}

/** The answer's columns: what it groups by (time first), then the measures; each SQL name once. */
function columnsOf(r: Reading, all: Member[]): { dimensions: Column[]; measures: Column[] } {
  const views = new Set([...r.measures, ...r.dimensions].map((n) => n.member.view));
  const times = r.dimensions.filter((n) => n.member.time);
  const granularity = r.granularity ?? (times.length > 0 ? "month" : undefined);
  const timeNamed: Named[] = times.length > 0 || !granularity ? times : [{ member: defaultTime(all, views), title: "", alias: null }];
  const used = new Set<string>();
  const alias = (want: string) => {
    let a = want;
    for (let k = 2; used.has(a); k++) a = `${want}_${k}`;
    used.add(a);
    return a;
  };
  const time = timeNamed.map((n): Column => {
    const implicit = n.title === "" || timeNamed.length === 1;
    const title = n.title === "" ? granularity! : `${lower(n.title)} (${granularity!})`;
    return { member: n.member, title, alias: alias(implicit ? granularity! : `${snake(n.title)}_${granularity!}`), granularity };
  });
  const other = r.dimensions
    .filter((n) => !n.member.time)
    .map((n): Column => ({ member: n.member, title: n.title, alias: alias(n.alias ?? snake(n.title)) }));
  const measures = r.measures.map((n): Column => ({ member: n.member, title: n.title, alias: alias(n.alias ?? snake(n.title)) }));
  return { dimensions: [...time, ...other], measures };
}

/** A column's SQL: the member's, a time bucket truncated to its granularity. */
const expr = (c: Column) => (c.granularity ? `date_trunc('${c.granularity}', ${c.member.sql})` : c.member.sql);

/** SELECT … FROM the views (orders joined to the others it needs) GROUP BY … ORDER BY …. */
function sqlOf(dimensions: Column[], measures: Column[]): string {
  const views = VIEWS.filter((v) => [...dimensions, ...measures].some((c) => c.member.view === v.name));
  const base = views.length === 1 ? views[0]! : VIEWS[0]!;
  const joins = views
    .filter((v) => v !== base)
    .map((v) => `\nJOIN ${v.name} AS ${v.alias} ON ${v.joinOn!}`)
    .join("");
  const select = [...dimensions, ...measures].map((c) => `${expr(c)} AS ${c.alias}`).join(", ");
  const groups = dimensions.map((_, i) => String(i + 1));
  const timeFirst = dimensions[0]?.granularity !== undefined;
  const order = timeFirst ? groups : [`${dimensions.length + 1} DESC`, ...groups];
  const tail = dimensions.length > 0 ? `\nGROUP BY ${groups.join(", ")}\nORDER BY ${order.join(", ")}` : "";
  return `SELECT ${select}\nFROM ${base.name} AS ${base.alias}${joins}${tail}`;
}

function sqlPlan(r: Reading, all: Member[]): Extract<AgentPlan, { kind: "sql" }> {
  const { dimensions, measures } = columnsOf(r, all);
  const sql = sqlOf(dimensions, measures);
  const views = VIEWS.filter((v) => [...dimensions, ...measures].some((c) => c.member.view === v.name));
  const scope = views.some((v) => v.name === "orders") ? "orders" : views[0]!.name;
  const what = and(measures.map((c) => c.title));
  const by = and(dimensions.map((c) => lower(c.title)));
  const queryTitle = dimensions.length > 0 ? `${what} by ${by}` : what;
  const named = (c: Column) => `${c.title} (${c.member.name}${c.granularity ? ` by ${c.granularity}` : ""})`;
  const cubes = metaBody()
    .cubes.filter((c) => views.some((v) => v.name === c.name))
    .map((c) => ({ name: c.name, title: c.title, measures: c.measures.map((m) => m.name), dimensions: c.dimensions.map((d) => d.name) }));
  return {
    kind: "sql",
    searchQuery: [...measures, ...dimensions].map((c) => c.alias).join(" "),
    cubes,
    sql,
    queryTitle,
    description: `${what} over the ${and(views.map((v) => v.title.toLowerCase()))} ${views.length > 1 ? "views" : "view"}${dimensions.length ? `, grouped by ${by}` : ""}.`,
    dimensions,
    measures,
    scope,
    vegaSpec: dimensions.length > 0 ? JSON.stringify(vegaSpecFor(queryTitle, dimensions, measures)) : undefined,
    thinking:
      `The question names ${and(measures.map(named))}${dimensions.length ? `, grouped by ${and(dimensions.map(named))}` : ""}. ` +
      `That is ${and(measures.map((c) => c.member.sql))} on the ${and(views.map((v) => v.name))} ${views.length > 1 ? "views" : "view"}` +
      `${dimensions.length ? `, grouped by ${and(dimensions.map(expr))}` : ""}.`,
  };
}

/** "**Orders**: Count, Total Amount, …; **Customers**: …" — the measures (or dimensions) of each view. */
function catalogue(all: Member[], kind: Member["kind"]): string {
  return VIEWS.map((v) => {
    const ms = all.filter((m) => m.view === v.name && m.kind === kind);
    return ms.length ? `**${v.title}**: ${ms.map((m) => m.shortTitle).join(", ")}` : "";
  })
    .filter(Boolean)
    .join("; ");
}

/** “Total Amount by Status”: a money measure by a dimension of text that its short title names alone. */
function example(all: Member[]): string {
  const m = all.find((x) => x.kind === "measure" && x.format === "currency") ?? all.find((x) => x.kind === "measure")!;
  const d =
    all.find((x) => x.kind === "dimension" && x.type === "string" && displayTitle(x, all) === x.shortTitle) ??
    all.find((x) => x.kind === "dimension")!;
  return `For example: “${displayTitle(m, all)} by ${displayTitle(d, all)}”.`;
}

/** The plain answer when the question names no measure, or groups by something the data model lacks. */
function plainAnswer(r: Reading, all: Member[]): Extract<AgentPlan, { kind: "none" }> {
  const groups = `${catalogue(all, "dimension")}; or by ${and([...GRANULARITIES], "or")}`;
  if (r.measures.length > 0) {
    const name = r.unknownDimension!;
    return {
      kind: "none",
      thinking: `The question groups by “${name}”, which is not a dimension of the data model.`,
      answer: `I could not find a dimension named “${name}” in the data model; I can group by: ${groups}. ${example(all)}`,
    };
  }
  const lead =
    r.notMeasures.length > 0
      ? `I could not find a measure in that question (${and(r.notMeasures.map((n) => `“${n.title}”`))} ${r.notMeasures.length > 1 ? "are dimensions" : "is a dimension"} of the data model: something to group by)`
      : r.unknownMeasure !== null
        ? `I could not find a measure named “${r.unknownMeasure}” in the data model`
        : "I could not match that question to the data model: it names none of its measures";
  return {
    kind: "none",
    thinking: "The question names no measure of the data model.",
    answer: `${lead}; I can answer about: ${catalogue(all, "measure")}. Grouped by: ${groups}. ${example(all)}`,
  };
}

/** A Vega-Lite v5 spec with no data in it (seed 03 §2.3: the client draws result.data). */
function vegaSpecFor(title: string, dimensions: Column[], measures: Column[]): Record<string, unknown> {
  const x = dimensions[0]!;
  const m = measures[0]!;
  const time = x.granularity !== undefined;
  const xTitle = time && x.title === x.granularity ? x.granularity.charAt(0).toUpperCase() + x.granularity.slice(1) : x.title;
  const base = {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title,
    width: "container",
    mark: time ? { type: "line", point: true, tooltip: true } : { type: "bar", tooltip: true },
  };
  const xEnc = time ? { field: x.alias, type: "temporal", title: xTitle } : { field: x.alias, type: "nominal", title: xTitle, sort: "-y" };
  if (time && measures.length > 1) {
    return {
      ...base,
      transform: [{ fold: measures.map((c) => c.alias), as: ["measure", "value"] }],
      encoding: {
        x: xEnc,
        y: { field: "value", type: "quantitative", title: "Value" },
        color: { field: "measure", type: "nominal", title: "Measure" },
      },
    };
  }
  const color = dimensions[1] ? { color: { field: dimensions[1].alias, type: "nominal", title: dimensions[1].title } } : {};
  return { ...base, encoding: { x: xEnc, y: { field: m.alias, type: "quantitative", title: m.title }, ...color } };
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

/** A measure's value as the answer shows it: money and percentages with 2 decimals, others as modelled (at most 2). */
function fmt(v: unknown, c: Column | undefined): string {
  if (typeof v !== "number" || !c) return String(v);
  const money = c.member.format === "currency" || c.member.format === "percent";
  const digits = money ? 2 : Math.min(c.member.decimals, 2);
  const text = v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: money ? 2 : 0 });
  return c.member.format === "percent" ? `${text}%` : text;
}

/** A group's value as the answer names it: a time bucket by its granularity ("2023-01", "Q1 2023", "2023"). */
function label(v: unknown, c: Column): string {
  if (!c.granularity || typeof v !== "string") return String(v);
  if (c.granularity === "year") return v.slice(0, 4);
  if (c.granularity === "quarter") return `Q${Math.floor((Number(v.slice(5, 7)) - 1) / 3) + 1} ${v.slice(0, 4)}`;
  if (c.granularity === "month") return v.slice(0, 7);
  return v.slice(0, 10);
}

/** The final answer, in markdown, from the rows (the first 100 of totalRows). */
export function answerFor(plan: Extract<AgentPlan, { kind: "sql" }>, r: SqlToolResult): string {
  const dims = plan.dimensions;
  const k = dims.length;
  const m = plan.measures[0];
  if (k === 0) {
    const values = plan.measures.map((c, i) => `${plan.measures.length > 1 ? `${c.title} ` : ""}**${fmt(r.data[0]?.[i], c)}**`);
    return `**${plan.queryTitle}** over all ${plan.scope}: ${values.join(", ")}.`;
  }
  const rows = r.data;
  const name = (row: unknown[]) => dims.map((c, i) => label(row[i], c)).join(" · ");
  const best = rows.reduce<unknown[] | null>((a, row) => (a === null || Number(row[k]) > Number(a[k]) ? row : a), null);
  const lines = [
    `Here is **${plan.queryTitle}** over all ${plan.scope}: ${r.totalRows.toLocaleString("en-US")} ${r.totalRows === 1 ? "row" : "rows"}` +
      (r.totalRows > rows.length ? ` (the first ${rows.length} are shown; *Place in sheet* loads them all).` : "."),
    "",
  ];
  if (best) lines.push(`- Highest${plan.measures.length > 1 ? ` ${m!.title}` : ""}: **${name(best)}** with ${fmt(best[k], m)}`);
  if (dims[0]!.granularity && rows.length > 1) {
    lines.push(`- First: ${name(rows[0]!)} with ${fmt(rows[0]![k], m)}`);
    lines.push(`- Last shown: ${name(rows[rows.length - 1]!)} with ${fmt(rows[rows.length - 1]![k], m)}`);
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
