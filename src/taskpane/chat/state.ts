// The chat pane's model: availability, the thread list, the open conversation (written to its
// signal at most once per animation frame while frames stream in), Stop, resume after a reload,
// and Place in sheet. The reducer is the API layer's pure applyFrame (through live-conversation.ts).
import { batch, signal } from "@preact/signals";
import { describeError } from "../errors";
import type { Notice } from "../state/store";
import { applyFrame, EMPTY_CONVERSATION, turnsOf, type ChatFrame, type Conversation } from "./live-conversation";
import type { ChatPrefs, ChatService, ThreadRef } from "./service";
import { selectionPrompt, type SelectionContext, type SelectionRead, type SelectionState } from "./ask-selection";

type Area = SelectionContext["area"];

/** The workbook side of Ask about the selection and Place beside (the live Workspace's functions). */
export interface SelectionAccess {
  state(): Promise<SelectionState>;
  context(signal?: AbortSignal): Promise<SelectionRead>;
  beside(
    beside: Area,
    size: { rows: number; cols: number },
    signal?: AbortSignal,
  ): Promise<{ sheetId: string; row: number; col: number; free: boolean }>;
}

export type ChatPhase = "loading" | "unavailable" | "ready";

export interface ChatModelOptions {
  service: ChatService;
  /** Places a saved report at the selection (or at `at`) through the sync engine (asks before overwriting). */
  place: (reportId: number, at?: { sheetId: string; row: number; col: number }) => Promise<boolean>;
  /** Ask about the selection / Place beside; absent where the workspace has no sheet. */
  selection?: SelectionAccess;
  /** For the paint benchmark: arrival times (performance.now) of the frames one paint showed. */
  onPaint?: (arrivals: number[], paintedAt: number) => void;
  now?: () => string;
}

/** Areas to place beside, by prompt, for this pane session (the chat view's model is rebuilt when the tab is reopened). */
const besideMemory = new Map<string, Area>();

const toNotice = (e: unknown, title?: string): Notice => ({ tone: "error", ...describeError(e), ...(title ? { title } : {}) });

/** The platform went silent mid-answer (the stream's idle deadline, then the reconnects, gave up). */
function isStall(e: unknown): boolean {
  const kind = (e as { kind?: unknown } | null)?.kind;
  return kind === "timeout" || kind === "network";
}

/** What a stalled turn says (issue 25 §2): in words, with Ask again beside it (ChatView). */
export const STALL_NOTICE: Notice = {
  tone: "error",
  title: "The agent stopped answering",
  detail: "Nothing arrived from the platform for a while, so Cellbound stopped waiting for this answer.",
  next: "Ask again: Cellbound first looks for the answer on the platform, and asks anew only if there is none.",
};

/**
 * A turn the stream left unfinished: nothing is "running…" any more and no cursor blinks — the
 * messages still in process end, and a step still running is marked as having had no answer.
 */
export function endUnfinished(conv: Conversation): Conversation {
  if (!conv.messages.some((m) => m.isInProcess || m.toolCall?.state === "running")) return conv;
  return {
    ...conv,
    messages: conv.messages.map((m) =>
      m.isInProcess || m.toolCall?.state === "running"
        ? {
            ...m,
            isInProcess: false,
            toolCall:
              m.toolCall?.state === "running"
                ? { ...m.toolCall, state: "failed", error: "No answer: the agent stopped answering before this step finished." }
                : m.toolCall,
          }
        : m,
    ),
  };
}

export class ChatModel {
  readonly phase = signal<ChatPhase>("loading");
  readonly unavailable = signal<{ title: string; detail: string; next: string } | null>(null);
  readonly prefs = signal<ChatPrefs>({ agentId: null, openThreadId: null, threads: [] });
  readonly chatId = signal<string | null>(null);
  readonly conversation = signal<Conversation>(EMPTY_CONVERSATION);
  readonly streaming = signal(false);
  readonly reconnecting = signal(0);
  readonly error = signal<Notice | null>(null);
  readonly placing = signal<string | null>(null);
  /** Whether the selection can be asked about (polled while the pane shows the conversation). */
  readonly selection = signal<SelectionState | null>(null);
  /** Prompts sent by Ask about the selection → the placement's area their answer can be placed beside. */
  readonly besides = signal<Record<string, Area>>({});
  /** The last prompt Ask about the selection sent (the exact text; docs and the e2e print it). */
  readonly lastSelectionPrompt = signal<string | null>(null);
  /** The question of a turn the platform stopped answering (Ask again re-checks, then re-asks it). */
  readonly stalled = signal<string | null>(null);

  private conv: Conversation = EMPTY_CONVERSATION;
  private arrivals: number[] = [];
  private scheduled = false;
  private reading: AbortController | null = null;
  private disposed = false;

  constructor(private readonly o: ChatModelOptions) {
    this.besides.value = Object.fromEntries(besideMemory);
  }

  /** Open the pane: availability, preferences, then the last open thread (resuming a running answer). */
  async init(): Promise<void> {
    try {
      const a = await this.o.service.open();
      if (!a.ok) {
        batch(() => {
          this.unavailable.value = { title: a.title, detail: a.detail, next: a.next };
          this.phase.value = "unavailable";
        });
        return;
      }
      batch(() => {
        this.prefs.value = a.prefs;
        this.phase.value = "ready";
      });
      if (a.prefs.openThreadId) await this.openThread(a.prefs.openThreadId);
    } catch (e) {
      const h = describeError(e);
      batch(() => {
        this.unavailable.value = {
          title: `Chat could not start: ${h.title}`,
          detail: h.detail ?? "",
          next: h.next ?? "Try again in a moment.",
        };
        this.phase.value = "unavailable";
      });
    }
  }

  /** Stop reading (navigating away, sign out). The platform keeps answering; opening the tab resumes. */
  dispose(): void {
    this.disposed = true;
    this.reading?.abort();
  }

  /** The question being asked: remembered (thread list, open thread) as soon as its chatId is known. */
  private asking: string | null = null;

  private frame = (f: ChatFrame): void => {
    this.conv = applyFrame(this.conv, f);
    if (f.id === "__cutoff__" && this.conv.chatId) {
      if (this.chatId.value !== this.conv.chatId) this.chatId.value = this.conv.chatId;
      // Saved right away, so a reload mid-answer finds the thread and resumes it.
      if (this.asking !== null) void this.remember(this.conv.chatId, this.asking);
      this.asking = null;
    }
    if (this.o.onPaint) this.arrivals.push(performance.now());
    if (this.scheduled) return;
    this.scheduled = true;
    const paint = () => {
      this.scheduled = false;
      this.conversation.value = this.conv;
      if (this.o.onPaint) {
        const arrivals = this.arrivals;
        this.arrivals = [];
        // The DOM is updated synchronously by the signal write; the next frame is the paint.
        requestAnimationFrame(() => this.o.onPaint!(arrivals, performance.now()));
      }
    };
    if (typeof requestAnimationFrame === "function") requestAnimationFrame(paint);
    else setTimeout(paint, 16);
  };

  /** Flush what arrived (at the end of a stream, so the last frames never wait for a frame). */
  private flush(): void {
    this.conversation.value = this.conv;
  }

  private async stream(run: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
    this.reading?.abort();
    const ctrl = new AbortController();
    this.reading = ctrl;
    batch(() => {
      this.streaming.value = true;
      this.error.value = null;
      this.reconnecting.value = 0;
      this.stalled.value = null;
    });
    try {
      await run(ctrl.signal);
    } catch (e) {
      if (!ctrl.signal.aborted) {
        // The turn ends here, in words: no step stays "running…", no cursor stays.
        this.conv = endUnfinished(this.conv);
        if (isStall(e)) {
          const turns = turnsOf(this.conv);
          this.stalled.value = [...turns].reverse().find((t) => t.user)?.user?.content ?? this.asking ?? "";
          this.error.value = STALL_NOTICE;
        } else this.error.value = toNotice(e);
      }
    } finally {
      if (this.reading === ctrl) {
        this.reading = null;
        this.flush();
        batch(() => {
          this.streaming.value = false;
          this.reconnecting.value = 0;
        });
      }
    }
  }

  /** Show a thread: its state; if it is still answering, follow the answer (same messageId: no duplicates). */
  async openThread(chatId: string): Promise<void> {
    this.conv = EMPTY_CONVERSATION;
    batch(() => {
      this.chatId.value = chatId;
      this.conversation.value = EMPTY_CONVERSATION;
    });
    await this.stream(async (signal) => {
      try {
        await this.o.service.send({ chatId, signal, onFrame: this.frame });
      } catch (e) {
        if ((e as { kind?: string }).kind === "not-found") {
          // Gone (an ephemeral thread expired, or another account): forget it.
          await this.forget(chatId);
          throw Object.assign(new Error("This conversation no longer exists on the platform."), { kind: "not-found" });
        }
        throw e;
      }
      const st = this.conv.state;
      if (st?.status === "streaming" && typeof st.activeMessageId === "string") {
        const user = this.conv.messages.find((m) => m.id === st.activeMessageId);
        if (user)
          await this.o.service.send({
            chatId,
            input: user.content,
            messageId: user.id,
            signal,
            onFrame: this.frame,
            onReconnect: (n) => (this.reconnecting.value = n),
          });
      }
    });
    void this.o.service.savePrefs({ openThreadId: chatId }).catch(() => undefined);
  }

  /** Open a scheduled prompt's run: its thread joins the conversations list, then shows (following it if still answering). */
  async openRun(chatId: string, title: string): Promise<void> {
    await this.remember(chatId, title);
    await this.openThread(chatId);
  }

  newThread(): void {
    this.reading?.abort();
    this.conv = EMPTY_CONVERSATION;
    batch(() => {
      this.chatId.value = null;
      this.conversation.value = EMPTY_CONVERSATION;
      this.error.value = null;
    });
    void this.o.service.savePrefs({ openThreadId: null }).catch(() => undefined);
  }

  async ask(question: string): Promise<void> {
    const input = question.trim();
    if (!input || this.streaming.value) return;
    const chatId = this.chatId.value;
    this.asking = input;
    // A new question starts clean: a previous turn's failure is no longer the news.
    if (this.conv.errors.length) this.conv = { ...this.conv, errors: [] };
    await this.stream(async (signal) => {
      await this.o.service.send({
        input,
        ...(chatId ? { chatId } : {}),
        signal,
        onFrame: this.frame,
        onReconnect: (n) => (this.reconnecting.value = n),
        onWarning: (m) => console.warn(`chat: ${m}`),
      });
    });
    this.asking = null;
  }

  /**
   * Ask again after a stall: the platform may have answered meanwhile (or still be answering), so
   * the thread is read first — its answer shown, or followed while it runs; only a turn the
   * platform has no answer for is asked anew. A resumed platform never leaves the pane stale.
   */
  async askAgain(): Promise<void> {
    const question = this.stalled.value;
    const chatId = this.chatId.value ?? this.conv.chatId;
    this.stalled.value = null;
    this.error.value = null;
    if (chatId) {
      await this.openThread(chatId);
      if (this.stalled.value !== null || this.error.value !== null) return; // still silent: said again
      const last = [...turnsOf(this.conv)].reverse().find((t) => t.user);
      const answered = last && last.user?.content === question && (last.answer.length > 0 || last.inProcess);
      if (answered || !question) return;
    }
    if (question) await this.ask(question);
  }

  /** Stop the running answer (on the platform: the stream then ends, marked aborted). */
  async stop(): Promise<void> {
    const chatId = this.chatId.value ?? this.conv.chatId;
    if (!chatId) {
      this.reading?.abort();
      return;
    }
    try {
      await this.o.service.abort(chatId);
    } catch (e) {
      this.error.value = toNotice(e, "Could not stop the answer");
      this.reading?.abort();
    }
  }

  private async remember(chatId: string, question: string): Promise<void> {
    if (this.disposed) return;
    const now = this.o.now?.() ?? new Date().toISOString();
    const rest = this.prefs.value.threads.filter((t) => t.chatId !== chatId);
    const existing = this.prefs.value.threads.find((t) => t.chatId === chatId);
    const threads: ThreadRef[] = [{ chatId, title: existing?.title ?? question.slice(0, 80), at: now }, ...rest].slice(0, 20);
    this.prefs.value = { ...this.prefs.value, threads, openThreadId: chatId };
    await this.o.service.savePrefs({ threads, openThreadId: chatId }).catch(() => undefined);
  }

  private async forget(chatId: string): Promise<void> {
    const threads = this.prefs.value.threads.filter((t) => t.chatId !== chatId);
    batch(() => {
      this.prefs.value = { ...this.prefs.value, threads, openThreadId: null };
      this.chatId.value = null;
    });
    await this.o.service.savePrefs({ threads, openThreadId: null }).catch(() => undefined);
  }

  async setAgent(agentId: string): Promise<void> {
    const v = agentId.trim() || null;
    this.prefs.value = { ...this.prefs.value, agentId: v };
    await this.o.service.savePrefs({ agentId: v }).catch((e) => (this.error.value = toNotice(e, "Could not save the agent")));
  }

  /** Re-check whether the selection is inside a placement the chat can ask about. */
  async checkSelection(): Promise<void> {
    if (!this.o.selection) return;
    try {
      const st = await this.o.selection.state();
      const cur = this.selection.value;
      if (!cur || cur.ok !== st.ok || (st.ok ? cur.ok && cur.range !== st.range : !cur.ok && cur.reason !== st.reason))
        this.selection.value = st;
    } catch {
      /* the next check tries again */
    }
  }

  /** Ask about the selected cells: the question plus their context (query, members, values) in the prompt. */
  async askAboutSelection(question: string): Promise<void> {
    const q = question.trim();
    if (!q || this.streaming.value || !this.o.selection) return;
    let read: SelectionRead;
    try {
      read = await this.o.selection.context();
    } catch (e) {
      this.error.value = toNotice(e, "Could not read the selected cells");
      return;
    }
    if (!read.ok) {
      this.selection.value = { ok: false, reason: read.reason };
      this.error.value = { tone: "warning", title: "Nothing to ask about here", detail: read.reason };
      return;
    }
    const prompt = selectionPrompt(q, read.context);
    besideMemory.set(prompt, read.context.area);
    batch(() => {
      this.besides.value = { ...this.besides.value, [prompt]: read.context.area };
      this.lastSelectionPrompt.value = prompt;
    });
    await this.ask(prompt);
  }

  /** Place beside: save the answer as a report and place it in the first free area beside the placement asked about. */
  async placeBeside(answer: { sqlQuery: string; title: string; uuid: string; rows: number; cols: number }, beside: Area): Promise<void> {
    if (!this.o.selection) return;
    this.placing.value = answer.uuid;
    try {
      const saved = await this.o.service.saveAsReport(answer);
      const at = await this.o.selection.beside(beside, { rows: answer.rows, cols: answer.cols });
      await this.o.place(saved.reportId, { sheetId: at.sheetId, row: at.row, col: at.col });
    } catch (e) {
      this.error.value = toNotice(e, `Could not place “${answer.title}” beside the report`);
    } finally {
      this.placing.value = null;
    }
  }

  /** Place in sheet: save the answer's full SQL as a report, then place it (all rows, via the data API). */
  async place(answer: { sqlQuery: string; title: string; uuid: string }): Promise<void> {
    this.placing.value = answer.uuid;
    try {
      const saved = await this.o.service.saveAsReport(answer);
      await this.o.place(saved.reportId);
    } catch (e) {
      this.error.value = toNotice(e, `Could not place “${answer.title}”`);
    } finally {
      this.placing.value = null;
    }
  }
}
