// What the chat pane needs from the outside world (the live adapter is chat/live.ts; tests give a
// scripted one). Frames and the conversation reducer come from the API layer through
// live-conversation.ts, so views never import src/api.
import type { ChatFrame } from "./live-conversation";
import type { SchedulesService } from "./schedules-service";

export interface ThreadRef {
  chatId: string;
  title: string;
  /** ISO time of the last question asked in it. */
  at: string;
}

/** Chat preferences, kept by the platform per user (PATCH /users/me/settings). */
export interface ChatPrefs {
  /** The agent of the agent form (used when the deployment's token form of chat is off). */
  agentId: string | null;
  openThreadId: string | null;
  threads: ThreadRef[];
}

export type ChatAvailability =
  | { ok: true; prefs: ChatPrefs }
  /** Why chat is unavailable, in words for the user. */
  | { ok: false; title: string; detail: string; next: string };

export interface ChatSendInput {
  input?: string;
  chatId?: string;
  messageId?: string;
  signal?: AbortSignal;
  onFrame: (f: ChatFrame) => void;
  onReconnect?: (attempt: number) => void;
  onWarning?: (message: string) => void;
}

export interface ChatService {
  /** app-config says whether chat is offered; then the user's chat preferences. */
  open(signal?: AbortSignal): Promise<ChatAvailability>;
  savePrefs(patch: Partial<ChatPrefs>, signal?: AbortSignal): Promise<void>;
  /** A new question (input) or, without input, the thread's current state. */
  send(o: ChatSendInput): Promise<{ chatId: string | null; messageId: string | null; completed: boolean }>;
  /** Stop the thread's running answer on the platform. */
  abort(chatId: string): Promise<void>;
  /** Save an answer's full SQL as a report of this deployment (then placed like any other). */
  saveAsReport(answer: { sqlQuery: string; title: string }, signal?: AbortSignal): Promise<{ reportId: number; name: string }>;
  /** Scheduled prompts of this deployment (absent where the backend offers none). */
  readonly schedules?: SchedulesService;
}
