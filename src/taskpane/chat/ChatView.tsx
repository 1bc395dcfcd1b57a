// The chat pane: shown only when app-config allows it (else why not); the conversations list and
// the open thread; each answer with its steps, streamed markdown, result table, chart, Place in
// sheet and token usage; the question box with Stop. Loaded on demand (app/App.tsx).
import type { RefObject } from "preact";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { PaneStore } from "../state/store";
import { NoticeBox, ProgressLine } from "../ui/Notice";
import { turnsOf, type SqlToolResult, type Turn } from "./live-conversation";
import { Markdown } from "./Markdown";
import { ChartPart, ResultTable, Thinking, ToolStep, UsageLine } from "./parts";
import { ChatModel, type ChatModelOptions } from "./state";
import { splitPrompt } from "./ask-selection";
import { CHAT_CSS } from "./styles";
import { SchedulesModel } from "./schedules";
import { SchedulesView, localTime } from "./SchedulesView";

/** The last complete svcSqlApi result of a turn: what the chart, table and Place in sheet use. */
function resultOf(t: Turn): SqlToolResult | null {
  for (let i = t.steps.length - 1; i >= 0; i--) {
    const r = t.steps[i]!.toolCall?.sqlResult;
    if (r) return r;
  }
  return null;
}

/** The last question of the thread (what Ask again re-sends). */
const lastQuestion = (turns: Turn[]) => [...turns].reverse().find((t) => t.user)?.user?.content ?? null;

function TurnView({ turn, model }: { turn: Turn; model: ChatModel }) {
  const result = resultOf(turn);
  const answer = turn.answer.map((m) => m.content).join("\n\n");
  const placing = model.placing.value;
  const asked = turn.user ? splitPrompt(turn.user.content) : null;
  const beside = turn.user ? model.besides.value[turn.user.content] : undefined;
  return (
    <li class="cb-chat-turn" data-turn={turn.user?.id}>
      {turn.user && asked && (
        <div class="cb-chat-user" aria-label="Your question">
          {asked.question}
          {asked.context && (
            <details class="cb-chat-context">
              <summary>Context sent with the question</summary>
              <pre class="cb-chat-code">{asked.context}</pre>
            </details>
          )}
        </div>
      )}
      <div class="cb-chat-answer" aria-busy={turn.inProcess}>
        {turn.steps.map((m) => (m.toolCall ? <ToolStep key={m.id} m={m} /> : <Thinking key={m.id} m={m} />))}
        {answer && <Markdown text={answer} />}
        {turn.inProcess && (
          <span class="cb-chat-cursor" aria-hidden="true">
            ▍
          </span>
        )}
        {result && !turn.inProcess && (
          <>
            <ChartPart r={result} />
            <ResultTable r={result} />
            <div class="cb-actions">
              <button
                type="button"
                class="cb-btn cb-primary"
                disabled={placing !== null}
                onClick={() =>
                  void model.place({ sqlQuery: result.sqlQuery, title: result.queryTitle ?? "Chat answer", uuid: result.uuid })
                }
              >
                {placing === result.uuid ? "Placing…" : "Place in sheet"}
              </button>
              {beside && (
                <button
                  type="button"
                  class="cb-btn"
                  disabled={placing !== null}
                  title="In the first free area to the right of the report asked about, or below it; asks before overwriting anything"
                  onClick={() =>
                    void model.placeBeside(
                      {
                        sqlQuery: result.sqlQuery,
                        title: result.queryTitle ?? "Chat answer",
                        uuid: result.uuid,
                        rows: result.totalRows + 1,
                        cols: result.schema.length,
                      },
                      beside,
                    )
                  }
                >
                  Place beside
                </button>
              )}
              <span class="cb-meta">All {result.totalRows.toLocaleString()} rows, at the selected cell</span>
            </div>
          </>
        )}
        {turn.usage && <UsageLine u={turn.usage} />}
      </div>
    </li>
  );
}

function Composer({
  model,
  text,
  setText,
  onSchedule,
}: {
  model: ChatModel;
  text: string;
  setText: (s: string) => void;
  onSchedule?: () => void;
}) {
  const streaming = model.streaming.value;
  const sel = model.selection.value;
  const selectionWhy = !sel ? null : !sel.ok ? sel.reason : !text.trim() ? "Type a question first." : null;
  const submit = (e: Event) => {
    e.preventDefault();
    if (!text.trim() || streaming) return;
    const q = text;
    setText("");
    void model.ask(q);
  };
  return (
    <form class="cb-chat-composer" onSubmit={submit}>
      <label class="cb-field">
        <span>Ask the agent</span>
        <textarea
          class="cb-input"
          rows={2}
          value={text}
          placeholder="e.g. revenue by month"
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) submit(e);
          }}
        />
      </label>
      <div class="cb-actions">
        {streaming ? (
          <button type="button" class="cb-btn" onClick={() => void model.stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" class="cb-btn cb-primary" disabled={!text.trim()}>
            Send
          </button>
        )}
        {sel && !streaming && (
          <button
            type="button"
            class="cb-btn"
            disabled={selectionWhy !== null}
            aria-describedby="cb-ask-selection-why"
            onClick={() => {
              const q = text;
              setText("");
              void model.askAboutSelection(q);
            }}
          >
            Ask about the selection
          </button>
        )}
        {onSchedule && (
          <button type="button" class="cb-btn" onClick={onSchedule} title="Run this question on a schedule, e.g. every Monday at 8:00">
            Schedule…
          </button>
        )}
      </div>
      {sel && (
        <p id="cb-ask-selection-why" class="cb-meta" role="status">
          {sel.ok
            ? `Ask about the selection sends the question with the selected cells of “${sel.reportName ?? "the report"}” (${sel.range}): the report's query, each cell's row and column and its value.`
            : sel.reason}
        </p>
      )}
    </form>
  );
}

function Conversations({ model }: { model: ChatModel }) {
  const threads = model.prefs.value.threads;
  const open = model.chatId.value;
  return (
    <details class="cb-chat-threads">
      <summary>Conversations ({threads.length})</summary>
      <ul class="cb-list">
        {threads.map((t) => (
          <li key={t.chatId}>
            <button
              type="button"
              class="cb-btn cb-small cb-subtle"
              aria-current={t.chatId === open ? "true" : undefined}
              onClick={() => void model.openThread(t.chatId)}
            >
              {t.title}
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

function Settings({ model }: { model: ChatModel }) {
  const [agent, setAgent] = useState(model.prefs.value.agentId ?? "");
  return (
    <details class="cb-chat-settings">
      <summary>Chat settings</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void model.setAgent(agent);
        }}
      >
        <label class="cb-field">
          <span>Agent id (used when this deployment’s token sign-in for chat is off)</span>
          <input class="cb-input" value={agent} onInput={(e) => setAgent((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="cb-btn cb-small">
          Save
        </button>
      </form>
    </details>
  );
}

type Workspace = NonNullable<PaneStore["workspace"]["value"]>;

export function ChatView({ store }: { store: PaneStore }) {
  const ws = store.workspace.value;
  const service = ws?.chat;
  const model = useChatModel(store, ws);
  const schedules = useMemo(() => (service?.schedules ? new SchedulesModel(service.schedules) : null), [service]);
  useEffect(() => () => schedules?.dispose(), [schedules]);
  const [mode, setMode] = useState<"chat" | "schedules">("chat");
  useSelectionPolling(model, mode);
  const [text, setText] = useState("");
  /** What "Schedule the current question" starts from: the composer's text, else the open thread's last question. */
  const [scheduleFrom, setScheduleFrom] = useState<string | null>(null);
  const [autoCreate, setAutoCreate] = useState(false);
  const end = useRef<HTMLDivElement>(null);
  const conv = model?.conversation.value;
  useEffect(() => end.current?.scrollIntoView?.({ block: "end" }), [conv]);

  if (!model)
    return <NoticeBox notice={{ tone: "warning", title: "Chat is not available here", detail: "This connection offers no agent chat." }} />;
  const phase = model.phase.value;
  const why = model.unavailable.value;
  const turns = conv ? turnsOf(conv) : [];
  /** Opens the schedules, starting from the current question; `create` opens the new schedule's form at once. */
  const toSchedules = (create: boolean) => {
    setScheduleFrom(text.trim() || lastQuestion(turns));
    setAutoCreate(create);
    setMode("schedules");
  };
  return (
    <section class="cb-chat" aria-labelledby="cb-chat-title">
      <style>{CHAT_CSS}</style>
      <div class="cb-row">
        <h1 id="cb-chat-title">Chat</h1>
        {phase === "ready" && mode === "chat" && (
          <button type="button" class="cb-btn cb-small" onClick={() => model.newThread()} disabled={model.streaming.value}>
            New conversation
          </button>
        )}
      </div>
      {phase === "ready" && schedules && <ChatModes mode={mode} onChat={() => setMode("chat")} onSchedules={() => toSchedules(false)} />}
      {phase === "ready" && mode === "schedules" && schedules && (
        <SchedulesView
          model={schedules}
          question={scheduleFrom}
          deploymentName={ws?.deployment.name ?? null}
          autoCreate={autoCreate}
          onOpenRun={(run, task) => {
            setMode("chat");
            void model.openRun(run.chatId, `${task.name} · ${localTime(run.startedAt)}`);
          }}
        />
      )}
      {phase === "loading" && <ProgressLine label="Opening the chat…" />}
      {phase === "unavailable" && why && <NoticeBox notice={{ tone: "warning", title: why.title, detail: why.detail, next: why.next }} />}
      {phase === "ready" && mode === "chat" && (
        <ChatThread
          model={model}
          turns={turns}
          end={end}
          text={text}
          setText={setText}
          {...(schedules ? { onSchedule: () => toSchedules(true) } : {})}
        />
      )}
    </section>
  );
}

/** The pane's chat model over the workspace's chat service (null without one), started and disposed with the pane. */
function useChatModel(store: PaneStore, ws: Workspace | null): ChatModel | null {
  const service = ws?.chat;
  const model = useMemo(() => (service && ws ? chatModel(store, ws, service) : null), [service, store]);
  useEffect(() => {
    if (!model) return;
    void model.init();
    return () => model.dispose();
  }, [model]);
  return model;
}

function chatModel(store: PaneStore, ws: Workspace, service: NonNullable<Workspace["chat"]>): ChatModel {
  // The paint benchmark (bench/chat-paint.bench.ts) listens through this global; unset otherwise.
  const onPaint = (globalThis as { cellboundChatPaint?: ChatModelOptions["onPaint"] }).cellboundChatPaint;
  const selection =
    ws.selectionState && ws.selectionContext && ws.besideArea
      ? { state: () => ws.selectionState!(), context: (s?: AbortSignal) => ws.selectionContext!(s), beside: ws.besideArea.bind(ws) }
      : undefined;
  return new ChatModel({
    service,
    place: (id, at) => store.place(id, false, at ? { at } : {}),
    ...(selection ? { selection } : {}),
    ...(onPaint ? { onPaint } : {}),
  });
}

/** Ask about the selection: Office.js gives no selection event here; check every 1.5 s while the conversation shows. */
function useSelectionPolling(model: ChatModel | null, mode: "chat" | "schedules"): void {
  useEffect(() => {
    if (!model || mode !== "chat") return;
    void model.checkSelection();
    const t = setInterval(() => {
      if (document.visibilityState === "visible") void model.checkSelection();
    }, 1500);
    return () => clearInterval(t);
  }, [model, mode]);
}

/** The open conversation: its problems, its turns, the composer and the chat settings. */
function ChatThread(p: {
  model: ChatModel;
  turns: Turn[];
  /** The end of the thread, scrolled into view as the conversation grows. */
  end: RefObject<HTMLDivElement>;
  text: string;
  setText: (s: string) => void;
  onSchedule?: () => void;
}) {
  const { model, turns } = p;
  const conv = model.conversation.value;
  return (
    <>
      <Conversations model={model} />
      <ChatProblems model={model} turns={turns} />
      {turns.length === 0 && !model.streaming.value && (
        <p class="cb-meta">Ask a question about your data, for example “revenue by month”. Answers can be placed in the sheet.</p>
      )}
      <ol class="cb-chat-thread" aria-label="Conversation" aria-live="polite">
        {turns.map((t, i) => (
          <TurnView key={t.user?.id ?? i} turn={t} model={model} />
        ))}
      </ol>
      {conv?.state?.aborted === true && <p class="cb-meta">Stopped.</p>}
      <div ref={p.end} />
      <Composer model={model} text={p.text} setText={p.setText} {...(p.onSchedule ? { onSchedule: p.onSchedule } : {})} />
      <Settings model={model} />
    </>
  );
}

/** Conversation or Schedules. */
function ChatModes({ mode, onChat, onSchedules }: { mode: "chat" | "schedules"; onChat: () => void; onSchedules: () => void }) {
  return (
    <div class="cb-row cb-chat-modes" role="group" aria-label="Chat views">
      <button type="button" class="cb-btn cb-small" aria-pressed={mode === "chat"} onClick={onChat}>
        Conversation
      </button>
      <button type="button" class="cb-btn cb-small" aria-pressed={mode === "schedules"} onClick={onSchedules}>
        Schedules
      </button>
    </div>
  );
}

/** What went wrong with the conversation (a stall, a lost connection, the agent's errors), each with Ask again where it helps. */
function ChatProblems({ model, turns }: { model: ChatModel; turns: Turn[] }) {
  const conv = model.conversation.value;
  return (
    <>
      {model.error.value && (
        <div>
          <NoticeBox notice={model.error.value} onDismiss={() => (model.error.value = null)} />
          {model.stalled.value !== null && !model.streaming.value && (
            <button type="button" class="cb-btn cb-small" onClick={() => void model.askAgain()}>
              Ask again
            </button>
          )}
        </div>
      )}
      {model.reconnecting.value > 0 && <ProgressLine label={`Connection lost; reconnecting (attempt ${model.reconnecting.value})…`} />}
      {conv && conv.errors.length > 0 && !model.streaming.value && (
        <div>
          <NoticeBox
            notice={{
              tone: "error",
              title: "The agent stopped with an error",
              detail: conv.errors.join(" "),
              next: "Ask again; if it keeps failing, start a new conversation.",
            }}
          />
          {lastQuestion(turns) && (
            <button type="button" class="cb-btn cb-small" onClick={() => void model.ask(lastQuestion(turns)!)}>
              Ask again
            </button>
          )}
        </div>
      )}
    </>
  );
}
