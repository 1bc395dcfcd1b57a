// The live ChatService: app-config and preferences over the management API, the agent chat client
// (src/api/chat) with the deployment's minted token (or the user's API key on the agent form), and
// "save as report" by upsert under a fresh publicId. The pure conversation reducer and chart check
// the pane's model uses come through live-conversation.ts.
import {
  createDeploymentTokenManager,
  createPlatformClient,
  generatePublicId,
  PublicIdInOtherDeploymentError,
  PublicIdTakenError,
  type PlatformClient,
} from "../../api";
import { createChatClient, createChatSettingsClient, type AppConfig, type ChatClient } from "../../api/chat";
import type { ConnectInput } from "../app/model";
import type { Deployment } from "../types";
import type { ChatAvailability, ChatPrefs, ChatService, ThreadRef } from "./service";
import { createSchedulesService } from "./live-schedules";

export const MAX_THREADS = 20;

/** Where the chat API is: app-config's aiUrl (our addition), else <baseUrl>/ai (the stand-in's layout). */
export function chatLocation(config: AppConfig, baseUrl: string): { aiUrl: string; accountName: string } {
  return { aiUrl: config.aiUrl ?? `${baseUrl.replace(/\/+$/, "")}/ai`, accountName: config.accountName ?? "" };
}

export function parseThreads(v: unknown): ThreadRef[] {
  if (typeof v !== "string") return [];
  try {
    const list: unknown = JSON.parse(v);
    if (!Array.isArray(list)) return [];
    return list
      .filter(
        (t): t is ThreadRef =>
          !!t &&
          typeof t === "object" &&
          typeof (t as ThreadRef).chatId === "string" &&
          typeof (t as ThreadRef).title === "string" &&
          typeof (t as ThreadRef).at === "string",
      )
      .slice(0, MAX_THREADS);
  } catch {
    return [];
  }
}

/** Defaults a host gives the chat (the harness: the stand-in's default agent). Real Excel gives none. */
export interface ChatDefaults {
  /** The agent id for the agent form when the user has saved none. */
  defaultAgentId?: string;
  /** How long a stream may stay silent, or take to begin, before it is dropped (default: the request layer's deadlines). */
  idleTimeoutMs?: number;
  /** Reconnects of a dropped stream before the turn ends (default 3). */
  maxReconnects?: number;
}

/** What one live chat service keeps: its clients, what open() learnt, and the chat client of the agent in use. */
interface ChatContext {
  input: ConnectInput;
  deployment: Deployment;
  defaults: ChatDefaults;
  /** The fetch to use, spread into every client's options. */
  f: { fetch?: typeof fetch };
  platform: PlatformClient;
  settings: ReturnType<typeof createChatSettingsClient>;
  tokens: ReturnType<typeof createDeploymentTokenManager>;
  config: AppConfig | null;
  email: string | null;
  client: { agentId: string | null; chat: ChatClient } | null;
  prefs: ChatPrefs;
}

export function createChatService(
  input: ConnectInput,
  deployment: Deployment,
  fetchImpl?: typeof fetch,
  defaults: ChatDefaults = {},
): ChatService {
  const f = fetchImpl ? { fetch: fetchImpl } : {};
  const platform: PlatformClient = createPlatformClient({ baseUrl: input.baseUrl, credential: input.credential, ...f });
  const ctx: ChatContext = {
    input,
    deployment,
    defaults,
    f,
    platform,
    settings: createChatSettingsClient({ baseUrl: input.baseUrl, credential: input.credential, ...f }),
    tokens: createDeploymentTokenManager({ client: platform, deploymentId: deployment.id }),
    config: null,
    email: null,
    client: null,
    prefs: { agentId: null, openThreadId: null, threads: [] },
  };
  return {
    schedules: createSchedulesService(platform, deployment),
    open: (signal) => openChat(ctx, signal),
    async savePrefs(patch, signal) {
      ctx.prefs = { ...ctx.prefs, ...patch };
      const body: Record<string, string | null> = {};
      if ("agentId" in patch) body.chatAgentId = patch.agentId ?? null;
      if ("openThreadId" in patch) body.chatOpenThreadId = patch.openThreadId ?? null;
      if (patch.threads) body.chatThreads = JSON.stringify(patch.threads.slice(0, MAX_THREADS));
      await ctx.settings.updateSheetsSettings(body, signal);
    },
    send: ({ onWarning, ...o }) => chat(ctx).send({ ...o, ...(onWarning ? { onWarning: (e: Error) => onWarning(e.message) } : {}) }),
    abort: (chatId) => chat(ctx).abort(chatId),
    saveAsReport: (answer, signal) => saveAsReport(ctx, answer, signal),
  };
}

/** The chat client for the agent in the preferences (made again when the agent changed). */
function chat(ctx: ChatContext): ChatClient {
  const { config, email, prefs, defaults, deployment, input } = ctx;
  if (!config || !email) throw new Error("chat used before open()");
  if (ctx.client && ctx.client.agentId === prefs.agentId) return ctx.client.chat;
  const where = chatLocation(config, input.baseUrl);
  const chatClient = createChatClient({
    aiUrl: where.aiUrl,
    accountName: where.accountName,
    auth: {
      deployment: { deploymentId: deployment.id, token: ctx.tokens },
      ...(prefs.agentId ? { agent: { agentId: prefs.agentId, apiKey: input.credential, internalId: email } } : {}),
    },
    ...(defaults.idleTimeoutMs !== undefined
      ? { idleTimeoutMs: defaults.idleTimeoutMs, connectTimeoutMs: defaults.idleTimeoutMs, requestTimeoutMs: defaults.idleTimeoutMs }
      : {}),
    ...(defaults.maxReconnects !== undefined ? { maxReconnects: defaults.maxReconnects } : {}),
    ...ctx.f,
  });
  ctx.client = { agentId: prefs.agentId, chat: chatClient };
  return chatClient;
}

/** app-config says whether chat is offered (in words when not); then the user's chat preferences. */
async function openChat(ctx: ChatContext, signal?: AbortSignal): Promise<ChatAvailability> {
  const [c, me] = await Promise.all([ctx.settings.appConfig(signal), ctx.platform.getMe(signal)]);
  ctx.config = c;
  ctx.email = me.email;
  if (c.aiPaywalled) {
    return {
      ok: false,
      title: "AI is not enabled for this account",
      detail: `Your platform account (${ctx.deployment.name}) does not include the AI features, so the agent chat is not offered.`,
      next: "Ask an account admin about enabling AI; the other views work as before.",
    };
  }
  if (!c.sheetsAgentChatEnabled) {
    return {
      ok: false,
      title: "Chat is turned off for spreadsheets",
      detail: "Your platform's settings do not allow the agent chat in the spreadsheet add-in.",
      next: "Ask an admin to enable the agent chat for Sheets, then open this tab again.",
    };
  }
  const s = (me.settings?.sheetsSettings ?? {}) as Record<string, unknown>;
  ctx.prefs = {
    // The user's saved agent wins; else the host's default (dev: the stand-in's), else none.
    agentId: typeof s.chatAgentId === "string" && s.chatAgentId ? s.chatAgentId : (ctx.defaults.defaultAgentId ?? null),
    openThreadId: typeof s.chatOpenThreadId === "string" ? s.chatOpenThreadId : null,
    threads: parseThreads(s.chatThreads),
  };
  return { ok: true, prefs: ctx.prefs };
}

/**
 * Never a silent duplicate in the shared catalogue: the same answer placed again reuses its report,
 * and a new one is named as coming from Chat, with a number when that name is taken.
 */
async function saveAsReport(
  ctx: ChatContext,
  answer: { sqlQuery: string; title: string },
  signal?: AbortSignal,
): Promise<{ reportId: number; name: string }> {
  const { platform, deployment } = ctx;
  const base = `${answer.title.trim().slice(0, 180) || "Chat answer"} (from Chat)`;
  const names = new Set<string>();
  for await (const r of platform.iterateReports(deployment.id, {}, signal)) {
    if (r.sqlQuery === answer.sqlQuery && r.name.endsWith("(from Chat)") && r.canEdit !== false) return { reportId: r.id, name: r.name };
    names.add(r.name);
  }
  let name = base;
  for (let n = 2; names.has(name); n++) name = `${base.slice(0, -")".length)}, ${n})`;
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await platform.upsertReport(deployment.id, generatePublicId(), { name, title: name, sqlQuery: answer.sqlQuery }, signal);
      return { reportId: r.id, name: r.name };
    } catch (e) {
      if (attempt < 2 && (e instanceof PublicIdTakenError || e instanceof PublicIdInOtherDeploymentError)) continue;
      throw e;
    }
  }
}
