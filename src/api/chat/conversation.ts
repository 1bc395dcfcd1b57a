// Frames → conversation (seed 03 §2.2, §2.3): a pure `applyFrame(state, frame)` over immutable
// messages. Frames with the same id are merged (a delta appends, a full frame replaces), messages
// are kept in `sort` order, sentinels update the thread's chatId/state/usage and never become
// messages, tool-call strings are parsed into explicit states, and the final answer is picked by the
// seed's rule. A Vega-Lite spec stays JSON data: it is checked here against the subset the pane
// draws (chart-spec.ts) and never evaluated.
import { ChartSpecSubset, outsideSubset } from "./chart-spec";
import {
  FailedToolResult,
  SqlToolInput,
  SqlToolResult,
  SENTINELS,
  type ChatFrame,
  type SqlToolResult as SqlResult,
  type Usage,
} from "./schemas";

export type ToolState = "running" | "done" | "failed";

export interface ToolPart {
  name: string;
  state: ToolState;
  /** The parsed input JSON (null when absent or not JSON: see inputText). */
  input: unknown;
  inputText: string | null;
  /** The parsed result JSON, once complete. */
  result: unknown;
  /** Why the call failed (the result's `error`, or a result that is not JSON). */
  error: string | null;
  /** The SQL the step ran (svcSqlApi input or result). */
  sql: string | null;
  /** A complete svcSqlApi result, validated. */
  sqlResult: SqlResult | null;
}

export interface ChatMessage {
  id: string;
  role: "user" | "assistant";
  content: string;
  thinking: string;
  toolCall: ToolPart | null;
  graphPath: readonly string[];
  isInProcess: boolean;
  sort: number;
  /** Arrival order, the tie-breaker for equal `sort`. */
  seq: number;
}

export interface Conversation {
  chatId: string | null;
  /** Messages in `sort` order (ties in arrival order). */
  messages: readonly ChatMessage[];
  /** The last __state__ frame's state. */
  state: Readonly<Record<string, unknown>> | null;
  /** Usage frames, by the id of the user message of their turn. */
  usage: Readonly<Record<string, Usage>>;
  /** Mid-stream failures (error lines), in arrival order. */
  errors: readonly string[];
  nextSeq: number;
}

export const EMPTY_CONVERSATION: Conversation = { chatId: null, messages: [], state: null, usage: {}, errors: [], nextSeq: 0 };

/** §2.2: keep frames with role assistant, graphPath[0] === "final" and graphPath length ≤ 2. */
export function isFinalAnswer(m: Pick<ChatMessage, "role" | "graphPath">): boolean {
  return m.role === "assistant" && m.graphPath[0] === "final" && m.graphPath.length <= 2;
}

export function isSentinelId(id: string | undefined): boolean {
  return id === SENTINELS.cutoff || id === SENTINELS.state || id === SENTINELS.usage;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A toolCall object of a frame → its part with an explicit state. */
export function toolPart(call: NonNullable<ChatFrame["toolCall"]>): ToolPart {
  const input = call.input === undefined ? null : parseJson(call.input);
  const part: ToolPart = {
    name: call.name,
    state: "running",
    input: input?.ok ? input.value : null,
    inputText: call.input ?? null,
    result: null,
    error: null,
    sql: null,
    sqlResult: null,
  };
  if (call.name === "svcSqlApi" && input?.ok) {
    const i = SqlToolInput.safeParse(input.value);
    if (i.success) part.sql = i.data.sqlQuery;
  }
  if (call.result === undefined) return part;
  const result = parseJson(call.result);
  if (!result.ok) return { ...part, state: "failed", error: "The tool's result is not valid JSON." };
  part.result = result.value;
  const failed = FailedToolResult.safeParse(result.value);
  if (failed.success) {
    const e = failed.data.error;
    return { ...part, state: "failed", error: typeof e === "string" ? e : JSON.stringify(e) };
  }
  if (call.name === "svcSqlApi") {
    const r = SqlToolResult.safeParse(result.value);
    if (!r.success) return { ...part, state: "failed", error: "The SQL step's result has an unexpected shape." };
    return { ...part, state: "done", sql: r.data.sqlQuery, sqlResult: r.data };
  }
  return { ...part, state: "done" };
}

function insertSorted(list: readonly ChatMessage[], m: ChatMessage): ChatMessage[] {
  const out = list.slice();
  let i = out.length;
  while (i > 0 && (out[i - 1]!.sort > m.sort || (out[i - 1]!.sort === m.sort && out[i - 1]!.seq > m.seq))) i--;
  out.splice(i, 0, m);
  return out;
}

/** The id of the last user message (the turn a usage frame belongs to). */
function currentTurn(messages: readonly ChatMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return messages[i]!.id;
  return null;
}

export function applyFrame(conv: Conversation, f: ChatFrame): Conversation {
  if (f.error !== undefined && f.id === undefined) return { ...conv, errors: [...conv.errors, f.error] };
  if (f.id === SENTINELS.cutoff) {
    const chatId = typeof f.state?.chatId === "string" ? f.state.chatId : conv.chatId;
    return { ...conv, chatId };
  }
  if (f.id === SENTINELS.state) {
    const chatId = typeof f.state?.chatId === "string" ? f.state.chatId : conv.chatId;
    return { ...conv, chatId, state: f.state ?? null };
  }
  if (f.type === "usage" || f.id === SENTINELS.usage) {
    if (!f.usage) return conv;
    const turn = currentTurn(conv.messages) ?? "";
    return { ...conv, usage: { ...conv.usage, [turn]: f.usage } };
  }
  if (f.id === undefined || f.role === undefined) return conv; // nothing to render (kept loose: §2.2 may grow)

  const at = conv.messages.findIndex((m) => m.id === f.id);
  const prev = at >= 0 ? conv.messages[at]! : null;
  const delta = f.isDelta === true && prev !== null;
  const next: ChatMessage = {
    id: f.id,
    role: f.role,
    content: f.content === undefined ? (prev?.content ?? "") : delta ? prev.content + f.content : f.content,
    thinking: f.thinking === undefined ? (prev?.thinking ?? "") : delta ? prev.thinking + f.thinking : f.thinking,
    toolCall: f.toolCall ? toolPart(f.toolCall) : (prev?.toolCall ?? null),
    graphPath: f.graphPath ?? prev?.graphPath ?? [],
    isInProcess: f.isInProcess ?? prev?.isInProcess ?? false,
    sort: f.sort ?? prev?.sort ?? Number.MAX_SAFE_INTEGER,
    seq: prev?.seq ?? conv.nextSeq,
  };
  if (prev && prev.sort === next.sort) {
    const messages = conv.messages.slice();
    messages[at] = next;
    return { ...conv, messages };
  }
  const without = prev ? conv.messages.filter((_, i) => i !== at) : conv.messages;
  return { ...conv, messages: insertSorted(without, next), nextSeq: prev ? conv.nextSeq : conv.nextSeq + 1 };
}

/** One question and what answered it. */
export interface Turn {
  user: ChatMessage | null;
  /** Thinking and tool-call steps (assistant messages that are not the final answer). */
  steps: ChatMessage[];
  /** The final answer's messages (usually one). */
  answer: ChatMessage[];
  usage: Usage | null;
  /** Still streaming (some message of the turn is in process). */
  inProcess: boolean;
}

export function turnsOf(conv: Conversation): Turn[] {
  const turns: Turn[] = [];
  let cur: Turn | null = null;
  for (const m of conv.messages) {
    if (m.role === "user" || !cur) {
      cur = {
        user: m.role === "user" ? m : null,
        steps: [],
        answer: [],
        usage: m.role === "user" ? (conv.usage[m.id] ?? null) : null,
        inProcess: false,
      };
      turns.push(cur);
      if (m.role === "user") continue;
    }
    (isFinalAnswer(m) ? cur.answer : cur.steps).push(m);
    if (m.isInProcess) cur.inProcess = true;
  }
  return turns;
}

// ---- charts -------------------------------------------------------------------------------

export type ChartSpec = { ok: true; spec: Record<string, unknown> } | { ok: false; reason: string };

/**
 * The chart of a svcSqlApi result as a Vega-Lite v5 spec with the result's rows inlined as
 * `data.values` (§2.3: the spec carries no data). Accepted only inside the subset the pane draws
 * (chart-spec.ts, an allow-list): anything else (usermeta, its own or remote data, links, images,
 * params, expressions, tooltips of every field…) refuses the chart and the reason names what it used.
 */
export function chartSpec(r: Pick<SqlResult, "vegaSpec" | "schema" | "data">): ChartSpec | null {
  if (r.vegaSpec === undefined) return null;
  const parsed = parseJson(r.vegaSpec);
  if (!parsed.ok || !parsed.value || typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    return { ok: false, reason: "The chart specification is not a JSON object." };
  }
  const schema = (parsed.value as Record<string, unknown>).$schema;
  if (typeof schema !== "string" || !/vega-lite\/v5(\.|\/|\.json|$)/.test(schema)) {
    return { ok: false, reason: "The chart is not a Vega-Lite v5 specification." };
  }
  const checked = ChartSpecSubset.safeParse(parsed.value);
  if (!checked.success) {
    const used = outsideSubset(parsed.value).join(", ");
    return { ok: false, reason: `The agent's chart used features the pane does not draw (${used}); here is the table.` };
  }
  const names = r.schema.map((c) => c.name);
  const values = r.data.map((row) => Object.fromEntries(names.map((n, i) => [n, row[i] ?? null])));
  return { ok: true, spec: { ...checked.data, data: { values } } };
}
