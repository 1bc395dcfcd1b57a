// Ask about the selection (issue 23): the question goes to the agent with the placement's context in
// the prompt text (the chat request has no other context field): the deployment, the report's query
// (measures, dimensions, time range, filters), and each selected cell with its row and column
// members and value. Only cells of a placement the user can read, inside that placement, are ever
// included (live-selection.ts reads them); this module only words it. Pure.

export type CellValue = string | number | boolean;

export interface AskedCell {
  /** A1 address on the placement's sheet, e.g. "C5". */
  address: string;
  value: CellValue;
  /** The column: its member key (null when unknown, e.g. a pivot's value column) and its header text. */
  column: { key: string | null; header: string };
  /** The row's members: the row-label columns of the same row (dimension key, header, value). */
  row: { key: string | null; header: string; value: CellValue }[];
}

export interface SelectionContext {
  deployment: { id: number; name: string | null };
  report: { id: number; name: string };
  /** "Sheet1!B2:C38" */
  placementRange: string;
  /** The selected cells inside the placement, e.g. "Sheet1!C5:C6". */
  selectionRange: string;
  query: {
    measures: string[];
    dimensions: string[];
    timeDimensions: { dimension: string; granularity?: string; dateRange?: string | string[] }[];
    /** In words, e.g. "orders.status equals completed". */
    filters: string[];
    /** A SQL report's query, when it has no JSON query. */
    sql?: string;
  };
  cells: AskedCell[];
  /** Selected data cells left out (past the cap). */
  omitted: number;
  /** The placement's area, for Place beside. */
  area: { sheetId: string; row: number; col: number; rows: number; cols: number };
}

/** Whether the selection can be asked about (the button), and why not. */
export type SelectionState = { ok: true; reportName: string | null; range: string } | { ok: false; reason: string };
export type SelectionRead = { ok: true; context: SelectionContext } | { ok: false; reason: string };

/** Where the context starts in the prompt (also how the pane tells the question from its context). */
export const CONTEXT_MARK = "\n\n---\nContext from the spreadsheet (added by Cellbound; the question is about these cells):\n";

/** At most this many cells go into a prompt. */
export const MAX_ASKED_CELLS = 50;

const show = (v: CellValue) => (typeof v === "string" ? (v === "" ? "(empty)" : JSON.stringify(v)) : String(v));
const list = (xs: string[]) => (xs.length ? xs.join(", ") : "none");

function timeLine(t: SelectionContext["query"]["timeDimensions"][number]): string {
  const range =
    t.dateRange === undefined ? "" : Array.isArray(t.dateRange) ? `, from ${t.dateRange[0]} to ${t.dateRange[1]}` : `, ${t.dateRange}`;
  return `${t.dimension}${t.granularity ? ` by ${t.granularity}` : ""}${range}`;
}

/** The prompt: the user's question, then the context block. */
export function selectionPrompt(question: string, c: SelectionContext): string {
  const q = c.query;
  const lines = [
    `- Deployment: ${c.deployment.name ? `${c.deployment.name} (id ${c.deployment.id})` : `id ${c.deployment.id}`}`,
    `- Report: “${c.report.name}” (report ${c.report.id}), placed at ${c.placementRange}`,
  ];
  if (q.sql !== undefined) lines.push(`- Query (SQL): ${q.sql.replace(/\s+/g, " ").trim()}`);
  else {
    lines.push(`- Measures: ${list(q.measures)}`);
    lines.push(`- Dimensions: ${list(q.dimensions)}`);
    lines.push(`- Time: ${q.timeDimensions.length ? q.timeDimensions.map(timeLine).join("; ") : "no time range (all time)"}`);
    lines.push(`- Filters: ${list(q.filters)}`);
  }
  lines.push(`- Selected cells (${c.selectionRange}):`);
  for (const cell of c.cells) {
    const col =
      cell.column.key && cell.column.key !== cell.column.header ? `${cell.column.header} [${cell.column.key}]` : cell.column.header;
    const where = cell.row.map((m) => `${m.key ?? m.header} = ${show(m.value)}`).join(", ");
    lines.push(`  - ${cell.address}: ${col || "(no header)"} = ${show(cell.value)}${where ? ` where ${where}` : ""}`);
  }
  if (c.omitted > 0) lines.push(`  - … and ${c.omitted} more selected cells (left out)`);
  return `${question.trim()}${CONTEXT_MARK}${lines.join("\n")}`;
}

/** A user message as the pane shows it: the question, and the context it carried (null when none). */
export function splitPrompt(content: string): { question: string; context: string | null } {
  const i = content.indexOf(CONTEXT_MARK);
  return i < 0 ? { question: content, context: null } : { question: content.slice(0, i), context: content.slice(i + CONTEXT_MARK.length) };
}

/** A JSON-query filter in words ("orders.status equals completed, shipped"); and/or groups in brackets. */
export function describeFilter(f: unknown): string {
  if (!f || typeof f !== "object") return String(f);
  const o = f as { member?: string; dimension?: string; operator?: string; values?: unknown[]; and?: unknown[]; or?: unknown[] };
  if (Array.isArray(o.and)) return `(${o.and.map(describeFilter).join(" and ")})`;
  if (Array.isArray(o.or)) return `(${o.or.map(describeFilter).join(" or ")})`;
  const member = o.member ?? o.dimension ?? "?";
  const values = (o.values ?? []).map((v) => String(v)).join(", ");
  return `${member} ${o.operator ?? "?"}${values ? ` ${values}` : ""}`;
}
