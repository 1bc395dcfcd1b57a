// The agent chat API of the stand-in (seed 03), mounted under {aiUrl} = <baseUrl>/ai:
//   POST /api/v1/public/{accountName}/agents/{agentId}/chat/stream-chat-state[/abort]          (agent form)
//   POST /api/v1/public/{accountName}/deployments/{deploymentId}/chat/stream-chat-state[/abort] (deployment form)
// Auth exactly as §5/§4.1 (Api-Key + sessionSettings on the agent form; X-Svc-Auth-Token signed
// with the deployment's apiSecret on either form, the deployment form only when its setting is on);
// authentication failures are JSON-RPC error objects in an HTTP 200. Threads are kept per user
// (finished turns persisted in state_meta); a turn runs detached from the request that started it, so a dropped connection can
// resubscribe with the same messageId and get the messages so far (consolidated) then the live
// deltas: no duplicates. Our choices where the seed says "not shown": docs/API.md §Chat.
import { randomUUID } from "node:crypto";
import { Hono, type Context } from "hono";
import type { DuckDBConnection } from "@duckdb/node-api";
import { AbortChatInput, StreamChatInput, type ChatFrame, type SessionSettings, type Usage } from "../../src/api/chat/schemas";
import { CONTROL_CHARACTER } from "../../src/api/schemas/common";
import { verifyJwt, type Credentials } from "./auth";
import type { Clock } from "./clock";
import type { Store } from "./store";
import { ACCOUNT_NAME, DEPLOYMENTS, USERS, type User } from "./personas";
import { answerFor, deltas, planAnswer, runSql } from "./chat-agent";

export interface ChatOptions {
  /** The agents: id → the deployment it answers for (its "Auto" agent is the first listed). */
  agents: Record<string, number>;
  /** Deployments with "Use authentication for Chat and embedding APIs" on. */
  tokenChatDeploymentIds: number[];
  /** Delay between streamed deltas, ms (default 30: a stream lasts long enough to interrupt). */
  deltaMs: () => number;
  /** Dev-only question markers ([[dev:fail]], [[dev:tool-error]]) are honoured only with --dev-hooks. */
  devHooks: boolean;
  /** Where finished turns are kept (state_meta), so threads and ephemeral users survive a restart. */
  store?: Store;
}

export const DEFAULT_AGENTS: Record<string, number> = { "sales-auto-agent": 1, "finance-auto-agent": 2 };
const ONE_WEEK_S = 7 * 24 * 3600;
export const STREAMING_IN_PROGRESS = "Streaming for thread is in progress";

/** Who is calling, after authentication. `key` identifies the owner of threads. */
interface Caller {
  key: string;
  user: User | null;
  deploymentId: number;
}

/** A message as the thread keeps it: the consolidated frame (full content, never a delta). */
type Stored = ChatFrame & { id: string; role: "user" | "assistant"; sort: number };

interface Turn {
  messageId: string;
  abort: AbortController;
  listeners: Set<(line: string | null) => void>;
  /** Ids of the messages of this turn, in emission order. */
  ids: string[];
}

interface Thread {
  chatId: string;
  owner: string;
  deploymentId: number;
  messages: Map<string, Stored>;
  nextSort: number;
  active: Turn | null;
  /** messageIds of finished turns (a repeat is answered with the thread's state, not run again). */
  done: Set<string>;
}

class Problem extends Error {
  constructor(
    readonly status: 400 | 403 | 404,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}
class AuthFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const RPC = { missing: -32001, invalid: -32002, identity: -32003, scope: -32004 } as const;
const NDJSON = { "Content-Type": "application/x-ndjson; charset=utf-8", "Cache-Control": "no-store" };
const line = (f: ChatFrame) => JSON.stringify(f) + "\n";
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

export function chatRoutes(conn: DuckDBConnection, creds: Credentials, clock: Clock, o: ChatOptions): Hono & { runs: ChatRuns } {
  const app = new Hono();
  const threads = new Map<string, Thread>();
  /** Ephemeral users (by caller key) and when they expire (ms, stand-in clock). */
  const ephemeral = new Map<string, number>();

  // Persistence: one state_meta row per thread (its finished turns) and one for the ephemeral users.
  const THREAD_KEY = "chat.thread.";
  const EPHEMERAL_KEY = "chat.ephemeral";
  for (const [k, v] of o.store?.meta ?? []) {
    if (!k.startsWith(THREAD_KEY) || v === "") continue;
    const t = JSON.parse(v) as {
      chatId: string;
      owner: string;
      deploymentId: number;
      messages: Stored[];
      nextSort: number;
      done: string[];
    };
    threads.set(t.chatId, { ...t, messages: new Map(t.messages.map((m) => [m.id, m])), active: null, done: new Set(t.done) });
  }
  for (const [k, until] of Object.entries(JSON.parse(o.store?.meta.get(EPHEMERAL_KEY) || "{}") as Record<string, number>))
    ephemeral.set(k, until);
  function persist(changed: Thread[], removed: string[] = []): void {
    if (!o.store) return;
    const meta: Record<string, string> = { [EPHEMERAL_KEY]: JSON.stringify(Object.fromEntries(ephemeral)) };
    for (const t of changed) {
      meta[THREAD_KEY + t.chatId] = JSON.stringify({
        chatId: t.chatId,
        owner: t.owner,
        deploymentId: t.deploymentId,
        messages: [...t.messages.values()],
        nextSort: t.nextSort,
        done: [...t.done],
      });
    }
    for (const id of removed) meta[THREAD_KEY + id] = "";
    void o.store.commit({ meta }).catch(() => undefined);
  }

  /** Ephemeral users past their lifetime are removed, with their threads. */
  function expire(): void {
    const now = clock.now();
    const removed: string[] = [];
    for (const [key, until] of ephemeral) {
      if (until > now) continue;
      ephemeral.delete(key);
      for (const [id, t] of threads)
        if (t.owner === key) {
          t.active?.abort.abort();
          threads.delete(id);
          removed.push(id);
        }
    }
    if (removed.length) persist([], removed);
  }

  /**
   * An external user's request: a new one is made ephemeral (unless isEphemeral is false) with its
   * lifetime from now. Seed 03: ephemeral users "never outlive" ephemeralTtlSeconds, so a later
   * request never extends that lifetime: its ephemeralTtlSeconds may only bring the end closer.
   * Users past their lifetime are removed first (expire()), so such a request makes a new user.
   */
  function provision(key: string, s: SessionSettings | undefined): void {
    expire();
    const until = ephemeral.get(key);
    if (s?.isEphemeral === false) ephemeral.delete(key);
    else if (until === undefined) ephemeral.set(key, clock.now() + (s?.ephemeralTtlSeconds ?? ONE_WEEK_S) * 1000);
    else if (s?.ephemeralTtlSeconds !== undefined) ephemeral.set(key, Math.min(until, clock.now() + s.ephemeralTtlSeconds * 1000));
  }

  const userByEmail = (email: string) => USERS.find((u) => u.email.toLowerCase() === email.toLowerCase()) ?? null;

  function needsAccess(u: User, deploymentId: number): void {
    if (!u.roles[deploymentId]) throw new Problem(403, `${u.email} has no access to the agent's deployment`);
  }

  /**
   * §5.2: the deployment's own JWT. A token the platform minted for a console user (`sub` = their
   * email) is that user. Any other token is signed by a customer backend for one of its own end
   * users: its `externalId` (else `sub`), lowercased, names an external user of the deployment, in
   * a namespace of its own, whatever it spells (an internal user's email included).
   */
  function fromToken(token: string, deploymentId: number, s: SessionSettings | undefined): Caller {
    const hasChat = (c: Record<string, unknown>) => Array.isArray(c.scope) && c.scope.includes("chat");
    const minted = creds.verifyMinted(token, deploymentId);
    if (minted) {
      const u = typeof minted.sub === "string" ? USERS.find((x) => x.email === minted.sub) : undefined;
      if (!u) throw new AuthFailure(RPC.identity, "Invalid token: its sub names no user of this platform");
      if (!hasChat(minted)) throw new AuthFailure(RPC.scope, "Invalid token: the scope claim must include chat");
      needsAccess(u, deploymentId);
      return { key: `user:${u.email}`, user: u, deploymentId };
    }
    const claims = verifyJwt(token, creds.apiSecrets[deploymentId]!, clock.nowSec());
    if (!claims) throw new AuthFailure(RPC.invalid, "Invalid token: bad signature, expired, or not signed for this deployment");
    const raw =
      typeof claims.externalId === "string" && claims.externalId
        ? claims.externalId
        : typeof claims.sub === "string" && claims.sub
          ? claims.sub
          : null;
    if (!raw) throw new AuthFailure(RPC.identity, "Invalid token: neither externalId nor sub is set");
    if (raw.length > 255 || CONTROL_CHARACTER.test(raw))
      throw new AuthFailure(RPC.identity, "Invalid token: externalId (or sub) must be at most 255 characters, with no control characters");
    if (!hasChat(claims)) throw new AuthFailure(RPC.scope, "Invalid token: the scope claim must include chat");
    const key = `ext:${deploymentId}:${raw.toLowerCase()}`;
    provision(key, s);
    return { key, user: null, deploymentId };
  }

  /** §5.1 on the agent form: `Authorization: Api-Key <key>` plus sessionSettings. */
  function fromApiKey(key: string, deploymentId: number, s: SessionSettings | undefined): Caller {
    const holder = creds.userForKey(key);
    if (!holder) throw new AuthFailure(RPC.invalid, "Invalid API key");
    if (!s) throw new Problem(400, "sessionSettings is required with Api-Key authentication", "sessionSettings");
    if (s.externalId && s.internalId)
      throw new Problem(400, "sessionSettings: give either externalId or internalId, not both", "sessionSettings");
    if (s.internalId) {
      const clash = (["userAttributes", "groups", "securityContext", "roles"] as const).find(
        (k) => s[k as keyof SessionSettings] !== undefined,
      );
      if (clash) throw new Problem(400, `sessionSettings.${clash} cannot be combined with internalId`, `sessionSettings.${clash}`);
      const u = userByEmail(s.internalId);
      if (!u) throw new Problem(400, "sessionSettings.internalId: no user has this email", "sessionSettings.internalId");
      // A lower role never acts as someone else: only an admin's key may name another user.
      if (u.id !== holder.id && !holder.isAdmin) throw new Problem(403, "Only an admin's API key may act for another user");
      needsAccess(u, deploymentId);
      return { key: `user:${u.email}`, user: u, deploymentId };
    }
    if (!s.externalId) throw new Problem(400, "sessionSettings needs externalId or internalId", "sessionSettings");
    if (!holder.isAdmin) throw new Problem(403, "Creating external users needs an admin's API key");
    const k = `ext:${deploymentId}:${s.externalId.toLowerCase()}`;
    provision(k, s);
    return { key: k, user: null, deploymentId };
  }

  type Form = { kind: "agent"; deploymentId: number } | { kind: "deployment"; deploymentId: number };

  function resolveForm(c: Context): Form {
    if (c.req.param("account") !== ACCOUNT_NAME) throw new Problem(404, `Tenant ${c.req.param("account")} not found`);
    const agentId = c.req.param("agentId");
    if (agentId !== undefined) {
      const d = o.agents[agentId];
      if (d === undefined) throw new Problem(404, `Agent ${agentId} not found`);
      return { kind: "agent", deploymentId: d };
    }
    const raw = c.req.param("deploymentId") ?? "";
    const d = /^\d{1,9}$/.test(raw) ? DEPLOYMENTS.find((x) => x.id === Number(raw)) : undefined;
    if (!d) throw new Problem(404, `Deployment ${raw} not found`);
    return { kind: "deployment", deploymentId: d.id };
  }

  function authenticate(c: Context, form: Form, s: SessionSettings | undefined): Caller {
    const auth = c.req.header("Authorization");
    const token = c.req.header("X-Svc-Auth-Token");
    const apiKey = /^Api-Key (\S+)$/.exec(auth ?? "")?.[1];
    if (form.kind === "deployment") {
      if (apiKey !== undefined) throw new Problem(403, "agentId is required for Api-Key authentication");
      if (!o.tokenChatDeploymentIds.includes(form.deploymentId)) {
        throw new Problem(403, "Token authentication for chat is off for this deployment (Use authentication for Chat and embedding APIs)");
      }
      if (!token) throw new AuthFailure(RPC.missing, "Missing credentials: send X-Svc-Auth-Token");
      return fromToken(token, form.deploymentId, s);
    }
    if (token) return fromToken(token, form.deploymentId, s);
    if (apiKey !== undefined) return fromApiKey(apiKey, form.deploymentId, s);
    throw new AuthFailure(RPC.missing, "Missing credentials: send Authorization: Api-Key <key> or X-Svc-Auth-Token");
  }

  async function parse<T>(
    c: Context,
    schema: {
      safeParse(
        v: unknown,
      ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
    },
  ): Promise<T> {
    let json: unknown;
    try {
      const text = await c.req.text();
      json = text.trim() === "" ? {} : JSON.parse(text);
    } catch {
      throw new Problem(400, "The body is not valid JSON", "(body)");
    }
    const r = schema.safeParse(json);
    if (r.success) return r.data;
    const i = r.error.issues[0]!;
    const field = i.path.join(".") || "(body)";
    throw new Problem(400, `${field}: ${i.message}`, field);
  }

  /** Runs a handler, rendering our two failure kinds (JSON-RPC auth errors in a 200, JSON problems). */
  const handle = (fn: (c: Context) => Promise<Response>) => async (c: Context) => {
    try {
      return await fn(c);
    } catch (e) {
      if (e instanceof AuthFailure) return c.json({ jsonrpc: "2.0", error: { code: e.code, message: e.message }, id: null }, 200);
      if (e instanceof Problem)
        return c.json(
          {
            error: e.message,
            code: e.status === 400 ? "invalid" : e.status === 403 ? "forbidden" : "not_found",
            ...(e.field ? { field: e.field } : {}),
          },
          e.status,
        );
      throw e;
    }
  };

  /** The stored message as a full (non-delta) frame. */
  const full = (m: Stored): ChatFrame => ({ ...m, isDelta: false });
  const stateFrame = (t: Thread): ChatFrame => ({
    id: "__state__",
    state: { chatId: t.chatId, status: t.active ? "streaming" : "idle", ...(t.active ? { activeMessageId: t.active.messageId } : {}) },
  });

  /** An NDJSON response fed by `start(push, end)`; `cancel` runs when the client goes away. */
  function ndjson(start: (push: (s: string) => void, end: () => void) => void, cancel: () => void = () => undefined): Response {
    const enc = new TextEncoder();
    let closed = false;
    const body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        start(
          (s) => {
            if (!closed) ctrl.enqueue(enc.encode(s));
          },
          () => {
            if (!closed) {
              closed = true;
              ctrl.close();
            }
          },
        );
      },
      cancel() {
        closed = true;
        cancel();
      },
    });
    return new Response(body, { status: 200, headers: NDJSON });
  }

  /** Follow a running turn: what it said so far (consolidated), then its live frames. */
  function subscribe(t: Thread, turn: Turn): Response {
    let listener: ((l: string | null) => void) | null = null;
    return ndjson(
      (push, end) => {
        for (const id of turn.ids) {
          const m = t.messages.get(id);
          if (m) push(line(full(m)));
          if (id === turn.messageId) push(line({ id: "__cutoff__", state: { chatId: t.chatId } }));
        }
        listener = (l) => (l === null ? end() : push(l));
        turn.listeners.add(listener);
      },
      () => {
        if (listener) turn.listeners.delete(listener);
      },
    );
  }

  /** The thread's messages and state, then the end (a request without input, §1). */
  function snapshot(t: Thread): Response {
    const msgs = [...t.messages.values()].sort((a, b) => a.sort - b.sort);
    return ndjson((push, end) => {
      push(line({ id: "__cutoff__", state: { chatId: t.chatId } }));
      for (const m of msgs) push(line(full(m)));
      push(line(stateFrame(t)));
      end();
    });
  }

  /** One turn of the agent, detached from any request; true when it answered without failing. */
  async function runTurn(t: Thread, turn: Turn, input: string): Promise<boolean> {
    let failed = false;
    const signal = turn.abort.signal;
    /** Sends a message frame and keeps the consolidated message (deltas appended) for resubscribers. */
    const emit = (f: ChatFrame & { id: string; role: "user" | "assistant" }) => {
      const prev = t.messages.get(f.id);
      if (!prev) turn.ids.push(f.id);
      const sort = prev?.sort ?? t.nextSort++;
      const merged = { ...prev, ...f, sort } as Stored & { isDelta?: boolean };
      for (const k of ["content", "thinking"] as const) {
        const v = f.isDelta && prev ? (prev[k] ?? "") + (f[k] ?? "") : (f[k] ?? prev?.[k]);
        if (v === undefined) delete merged[k];
        else merged[k] = v;
      }
      delete merged.isDelta;
      t.messages.set(f.id, merged);
      const l = line({ ...f, sort });
      for (const fn of turn.listeners) fn(l);
    };
    const send = (f: ChatFrame) => {
      const l = line(f);
      for (const fn of turn.listeners) fn(l);
    };
    const pause = () => sleep(o.deltaMs(), signal);
    const agentPath = ["svc_data_analyst_agent"];
    const toolPath = ["svc_data_analyst_agent", "tools"];
    const finalPath = ["final", "svc_data_analyst_agent"];
    const base = turn.messageId.replace(/-message$/, "");
    const usage: Usage = {
      models: ["svc-deterministic-agent"],
      llmCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheWriteTokens: 0,
      cacheReadTokens: 0,
      totalTokens: 0,
    };
    const count = (inTok: number, outTok: number) => {
      usage.llmCalls++;
      usage.inputTokens += inTok;
      usage.outputTokens += outTok;
      usage.totalTokens = usage.inputTokens + usage.outputTokens;
    };
    const tokens = (s: string) => Math.ceil(s.length / 4);
    let open: string | null = null; // a message still in process (closed on abort)
    try {
      emit({ id: turn.messageId, role: "user", content: input, isInProcess: false });
      send({ id: "__cutoff__", state: { chatId: t.chatId } });
      await pause();
      const plan = planAnswer(input);
      const thinkId = `${base}-thinking`;
      open = thinkId;
      for (const [i, d] of deltas(plan.thinking, 4).entries()) {
        if (signal.aborted) break;
        emit({ id: thinkId, role: "assistant", thinking: d, isDelta: i > 0, isInProcess: true, graphPath: agentPath });
        await pause();
      }
      if (signal.aborted) return false;
      emit({ id: thinkId, role: "assistant", thinking: "", isDelta: true, isInProcess: false, graphPath: agentPath });
      open = null;
      count(tokens(input) + 400, tokens(plan.thinking));
      if (o.devHooks && input.includes("[[dev:fail]]")) throw new Error("The agent stopped unexpectedly (dev hook [[dev:fail]])");

      let answer: string;
      if (plan.kind === "none") {
        answer = plan.answer;
      } else {
        const metaId = `${base}-tool-meta`;
        open = metaId;
        const metaInput = JSON.stringify({ searchQuery: plan.searchQuery });
        emit({ id: metaId, role: "assistant", toolCall: { name: "svcMeta", input: metaInput }, isInProcess: true, graphPath: toolPath });
        await pause();
        if (signal.aborted) return false;
        emit({
          id: metaId,
          role: "assistant",
          toolCall: { name: "svcMeta", input: metaInput, result: JSON.stringify({ cubes: plan.cubes, searchQuery: plan.searchQuery }) },
          isInProcess: false,
          graphPath: toolPath,
        });
        open = null;
        const sqlId = `${base}-tool-sql`;
        const failSql = o.devHooks && input.includes("[[dev:tool-error]]");
        const sql = failSql ? `${plan.sql.replace("FROM orders", "FROM orders WHERE no_such_column = 1 AND TRUE")}` : plan.sql;
        const sqlInput = JSON.stringify({
          sqlQuery: sql,
          queryTitle: plan.queryTitle,
          description: plan.description,
          userRequest: input,
          memoryId: t.chatId,
          ...(plan.vegaSpec ? { vegaSpec: plan.vegaSpec } : {}),
        });
        open = sqlId;
        emit({ id: sqlId, role: "assistant", toolCall: { name: "svcSqlApi", input: sqlInput }, isInProcess: true, graphPath: toolPath });
        await pause();
        if (signal.aborted) return false;
        let resultText: string;
        try {
          const r = await runSql(conn, { ...plan, sql }, input, randomUUID());
          resultText = JSON.stringify(r);
          answer = answerFor(plan, r);
        } catch (e) {
          failed = true;
          resultText = JSON.stringify({ sqlQuery: sql, error: (e as Error).message });
          answer = "The query failed, so I have no numbers to show. The error is in the SQL step above.";
        }
        emit({
          id: sqlId,
          role: "assistant",
          toolCall: { name: "svcSqlApi", input: sqlInput, result: resultText },
          isInProcess: false,
          graphPath: toolPath,
        });
        open = null;
        count(tokens(sqlInput) + 800, tokens(sql));
      }
      const answerId = `${base}-answer`;
      open = answerId;
      const parts = deltas(answer);
      for (const [i, d] of parts.entries()) {
        if (signal.aborted) return false;
        emit({ id: answerId, role: "assistant", content: d, isDelta: i > 0, isInProcess: true, graphPath: finalPath });
        await pause();
      }
      if (signal.aborted) return false;
      emit({ id: answerId, role: "assistant", content: "", isDelta: true, isInProcess: false, graphPath: finalPath });
      open = null;
      count(tokens(answer) + 600, tokens(answer));
    } catch (e) {
      failed = true;
      send({ error: (e as Error).message });
    } finally {
      if (open && t.messages.get(open)?.isInProcess) emit({ id: open, role: "assistant", isDelta: true, isInProcess: false });
      t.done.add(turn.messageId);
      t.active = null;
      persist([t]);
      send({ ...stateFrame(t), state: { ...stateFrame(t).state, ...(signal.aborted ? { aborted: true } : {}) } });
      send({ id: "__usage__", type: "usage", usage });
      for (const fn of turn.listeners) fn(null);
      turn.listeners.clear();
    }
    return !failed && !signal.aborted;
  }

  function newThread(owner: string, deploymentId: number): Thread {
    const t: Thread = { chatId: randomUUID(), owner, deploymentId, messages: new Map(), nextSort: 1, active: null, done: new Set() };
    threads.set(t.chatId, t);
    return t;
  }

  function startTurn(t: Thread, input: string, messageId: string): { turn: Turn; finished: Promise<boolean> } {
    const turn: Turn = { messageId, abort: new AbortController(), listeners: new Set(), ids: [] };
    t.active = turn;
    return { turn, finished: runTurn(t, turn, input) };
  }

  const streamHandler = handle(async (c) => {
    const form = resolveForm(c);
    const body = await parse(c, StreamChatInput);
    const caller = authenticate(c, form, body.sessionSettings);
    expire();
    let t: Thread | undefined;
    if (body.chatId !== undefined) {
      t = threads.get(body.chatId);
      // Another user's thread does not exist for the caller.
      if (!t || t.owner !== caller.key || t.deploymentId !== caller.deploymentId) throw new Problem(404, `Chat ${body.chatId} not found`);
    }
    // messageId makes requests idempotent (§4.1): a repeat without chatId (the client lost the
    // connection before __cutoff__) finds the caller's thread that has this message.
    if (!t && body.messageId !== undefined) {
      t = [...threads.values()].find(
        (x) =>
          x.owner === caller.key &&
          x.deploymentId === caller.deploymentId &&
          (x.active?.messageId === body.messageId || x.done.has(body.messageId!)),
      );
    }
    if (body.input === undefined) {
      if (!t) throw new Problem(400, "Give input, or chatId to read a thread's state", "input");
      return snapshot(t);
    }
    if (t?.active) {
      if (body.messageId === t.active.messageId) return subscribe(t, t.active);
      return ndjson((push, end) => {
        push(line({ error: STREAMING_IN_PROGRESS }));
        end();
      });
    }
    if (t && body.messageId && t.done.has(body.messageId)) return snapshot(t); // idempotent repeat
    t ??= newThread(caller.key, caller.deploymentId);
    const { turn, finished } = startTurn(t, body.input, body.messageId ?? `${clock.now()}-message`);
    void finished;
    return subscribe(t, turn);
  });

  const abortHandler = handle(async (c) => {
    const form = resolveForm(c);
    const body = await parse(c, AbortChatInput);
    const caller = authenticate(c, form, body.sessionSettings);
    expire();
    const t = threads.get(body.chatId);
    if (!t) throw new Problem(404, `Chat ${body.chatId} not found`);
    if (t.owner !== caller.key || t.deploymentId !== caller.deploymentId) throw new Problem(403, "This thread belongs to another user");
    t.active?.abort.abort();
    return c.body(null, 204);
  });

  const prefix = "/api/v1/public/:account";
  for (const form of ["agents/:agentId", "deployments/:deploymentId"]) {
    app.post(`${prefix}/${form}/chat/stream-chat-state`, streamHandler);
    app.post(`${prefix}/${form}/chat/stream-chat-state/abort`, abortHandler);
  }
  const runs: ChatRuns = {
    start(user, deploymentId, input) {
      // The internal user's own thread (key as on both chat forms): the run's thread is theirs.
      const t = newThread(`user:${user.email}`, deploymentId);
      // Unique per thread, and a 13+ digit millisecond timestamp then -message, as §4.1 requires.
      const { finished } = startTurn(t, input, `${clock.now()}-message`);
      return { chatId: t.chatId, finished };
    },
  };
  return Object.assign(app, { runs });
}

/** Turns the platform starts itself (scheduled tasks, docs/API.md §12): a new thread of `user`. */
export interface ChatRuns {
  start(user: User, deploymentId: number, input: string): { chatId: string; finished: Promise<boolean> };
}
