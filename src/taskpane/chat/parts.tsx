// The pieces of one answer: thinking (collapsible), tool-call steps (expandable, with their SQL),
// the result table (the agent's first rows), the chart (loaded on demand) and token usage.
import { useEffect, useRef, useState } from "preact/hooks";
import { chartSpec, type ChatMessage, type SqlToolResult, type Usage } from "./live-conversation";

const TOOL_LABEL: Record<string, string> = { svcMeta: "Searched the data model", svcSqlApi: "Ran a SQL query" };
const STATE_LABEL = { running: "running…", done: "done", failed: "failed" } as const;

export function Thinking({ m }: { m: ChatMessage }) {
  if (!m.thinking) return null;
  return (
    <details class="cb-chat-step">
      <summary>{m.isInProcess ? "Thinking…" : "Thinking"}</summary>
      <p class="cb-chat-thinking">{m.thinking}</p>
    </details>
  );
}

export function ToolStep({ m }: { m: ChatMessage }) {
  const t = m.toolCall;
  if (!t) return null;
  const label = TOOL_LABEL[t.name] ?? `Used ${t.name}`;
  return (
    <details class={`cb-chat-step cb-chat-step-${t.state}`} data-tool={t.name}>
      <summary>
        {label}{" "}
        <span class={`cb-badge ${t.state === "failed" ? "cb-badge-danger" : t.state === "done" ? "cb-badge-ok" : "cb-badge-info"}`}>
          {STATE_LABEL[t.state]}
        </span>
      </summary>
      {t.sql && (
        <pre class="cb-chat-code" aria-label="SQL">
          <code>{t.sql}</code>
        </pre>
      )}
      {t.name === "svcMeta" && t.input !== null && typeof t.input === "object" && "searchQuery" in t.input && (
        <p>Search: {String((t.input as { searchQuery: unknown }).searchQuery)}</p>
      )}
      {t.error && (
        <p class="cb-message cb-message-error" role="status">
          The step failed: {t.error}
        </p>
      )}
    </details>
  );
}

/** Decimals a column shows when neither its type nor its values say more (the sheet's "#,##0.00"). */
const DEFAULT_DECIMALS = 2;

/**
 * How many decimals each column's numbers show, the same for every row (issue 31 item 5: 17,105,391.90,
 * not 17,105,391.9): the scale of a DECIMAL(p,s) / NUMERIC(p,s) column — the measure's decimals as
 * the data model casts them, up to 6; else, as a placed measure is formatted in the sheet, 2 when any
 * value of the column has a fraction and none when all are whole. Null: not a number column.
 */
export function columnDecimals(r: Pick<SqlToolResult, "schema" | "data">): (number | null)[] {
  return r.schema.map((c, j) => {
    const values = r.data.map((row) => row[j]).filter((v) => typeof v === "number");
    if (values.length === 0) return null;
    const scale = /^(?:DECIMAL|NUMERIC)\s*\(\s*\d+\s*,\s*(\d+)\s*\)/i.exec(c.column_type);
    if (scale) return Math.min(Number(scale[1]), 6);
    return values.some((v) => !Number.isInteger(v)) ? DEFAULT_DECIMALS : 0;
  });
}

/** A value as text: midnight timestamps as their date, numbers with grouping and the column's decimals, objects as JSON. */
function cell(v: unknown, decimals: number | null): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number")
    return decimals === null
      ? v.toLocaleString(undefined, { maximumFractionDigits: 6 })
      : v.toLocaleString(undefined, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  if (typeof v === "string") return /^\d{4}-\d{2}-\d{2}T00:00:00(\.0+)?$/.test(v) ? v.slice(0, 10) : v;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

export function ResultTable({ r }: { r: SqlToolResult }) {
  const decimals = columnDecimals(r);
  return (
    <div class="cb-table-wrap" tabIndex={0} role="region" aria-label={`${r.queryTitle ?? "Result"}: first rows`}>
      <table class="cb-table">
        <caption class="cb-meta" style={{ textAlign: "left", captionSide: "bottom" }}>
          {r.data.length < r.totalRows
            ? `First ${r.data.length} of ${r.totalRows.toLocaleString()} rows`
            : `${r.totalRows.toLocaleString()} rows`}
        </caption>
        <thead>
          <tr>
            {r.schema.map((c) => (
              <th key={c.name} scope="col">
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {r.data.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <td key={j}>{cell(v, decimals[j] ?? null)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ChartPart({ r }: { r: SqlToolResult }) {
  const ref = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const checked = chartSpec(r);
  const spec = checked?.ok ? checked.spec : null;
  useEffect(() => {
    if (!spec || !ref.current) return;
    let finalize: (() => void) | null = null;
    let live = true;
    const dark = document.documentElement.dataset.theme === "dark";
    import("./render-chart")
      .then((m) => m.renderChart(ref.current!, spec, dark))
      .then(
        (f) => (live ? (finalize = f) : f()),
        (e: Error) => live && setFailed(e.message),
      );
    return () => {
      live = false;
      finalize?.();
    };
    // The spec object is rebuilt per render; the result's uuid identifies the chart.
  }, [r.uuid]);
  if (!checked) return null;
  if (!checked.ok)
    return (
      <p class="cb-message cb-message-warning" role="status">
        Chart not shown: {checked.reason}
      </p>
    );
  if (failed)
    return (
      <p class="cb-message cb-message-warning" role="status">
        The chart could not be drawn: {failed}
      </p>
    );
  return <div class="cb-chat-chart" ref={ref} role="img" aria-label={`Chart: ${r.queryTitle ?? "answer"}`} />;
}

export function UsageLine({ u }: { u: Usage }) {
  return (
    <p class="cb-meta cb-chat-usage">
      Tokens: {u.totalTokens.toLocaleString()} ({u.inputTokens.toLocaleString()} in, {u.outputTokens.toLocaleString()} out
      {u.cacheReadTokens ? `, ${u.cacheReadTokens.toLocaleString()} from cache` : ""}) · {u.llmCalls} model call
      {u.llmCalls === 1 ? "" : "s"}
    </p>
  );
}
