// Contract tests of the stand-in's agent chat API against seed 03: one test (at least) per row of
// §3 (states), §4 (endpoints), §5 (authentication), §7 (errors) and §8 (limits), plus the frames
// of §2.2 and the svcSqlApi result of §2.3.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { signJwt } from "../../dev/platform/auth";
import { decodeChunks } from "../../src/api/chat/ndjson";
import { ChatFrame, JsonRpcError, SqlToolResult, type ChatFrame as Frame } from "../../src/api/chat/schemas";
import { applyFrame, chartSpec, EMPTY_CONVERSATION, isFinalAnswer, turnsOf } from "../../src/api/chat/conversation";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, devHooks: true, chatDeltaMs: 2 });
});
afterAll(async () => {
  await p?.close();
});

const ai = () => `${p.info.aiUrl}/api/v1/public/${p.info.accountName}`;
const agentPath = (agent = p.info.chat.agentId) => `${ai()}/agents/${agent}/chat/stream-chat-state`;
const deploymentPath = (id: number | string = 1) => `${ai()}/deployments/${id}/chat/stream-chat-state`;
let seq = 0;
const newMessageId = () => `${Date.now() + seq++}-message`;
const secret = (d = 1) => p.info.deployments.find((x) => x.id === d)!.apiSecret;
const craft = (claims: Record<string, unknown>, d = 1, s = secret(d)) =>
  signJwt({ iat: p.clock.nowSec(), exp: p.clock.nowSec() + 600, ...claims }, s);

type Auth = { apiKey?: string; token?: string };
const asAnalyst = (): Auth => ({ apiKey: p.info.apiKeys.analyst });
const analystSession = { internalId: "ana.analyst@cellbound.test" };

async function post(url: string, body: unknown, auth: Auth = asAnalyst()): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (auth.apiKey) headers.authorization = `Api-Key ${auth.apiKey}`;
  if (auth.token) headers["x-svc-auth-token"] = auth.token;
  return fetch(url, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

/** The whole stream's frames (every line must be a valid frame). */
async function frames(res: Response): Promise<Frame[]> {
  expect(res.status).toBe(200);
  const items = decodeChunks([new Uint8Array(await res.arrayBuffer())]);
  return items.map((i) => {
    if (!i.ok) throw i.error;
    return ChatFrame.parse(i.value);
  });
}

/** Reads frames until `until` says stop; returns them and the still-open reader. */
async function readUntil(
  res: Response | { reader: ReadableStreamDefaultReader<Uint8Array>; rest?: string },
  until: (f: Frame, all: Frame[]) => boolean,
) {
  const reader = "reader" in res ? res.reader : res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "reader" in res ? (res.rest ?? "") : "";
  const got: Frame[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { got, reader, done: true, rest: buf };
    buf += dec.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const f = ChatFrame.parse(JSON.parse(buf.slice(0, nl)));
      buf = buf.slice(nl + 1);
      got.push(f);
      if (until(f, got)) return { got, reader, done: false, rest: buf };
    }
  }
}

const ask = (input: string, extra: Record<string, unknown> = {}, auth?: Auth, url = agentPath()) =>
  post(url, { input, messageId: newMessageId(), ...(auth?.token ? {} : { sessionSettings: analystSession }), ...extra }, auth);

const merged = (fs: Frame[]) => fs.reduce(applyFrame, EMPTY_CONVERSATION);

describe("§2.2 frames and §2.3 tool calls", () => {
  it("streams the user echo, __cutoff__ right after it, thinking, svcMeta, svcSqlApi, the final answer, __state__ and __usage__", async () => {
    const fs = await frames(await ask("What was our revenue by month?"));
    expect(fs[0]).toMatchObject({ role: "user", content: "What was our revenue by month?", isInProcess: false });
    expect(fs[1]).toMatchObject({ id: "__cutoff__", state: { chatId: expect.any(String) } });
    expect(fs.some((f) => f.role === "assistant" && f.thinking && f.isInProcess)).toBe(true);
    const tools = fs.filter((f) => f.toolCall);
    expect(tools.map((f) => f.toolCall!.name)).toEqual(["svcMeta", "svcMeta", "svcSqlApi", "svcSqlApi"]);
    expect(tools[0]!.toolCall!.result).toBeUndefined(); // result present only when complete
    expect(JSON.parse(tools[0]!.toolCall!.input!)).toEqual({ searchQuery: expect.any(String) });
    const meta = JSON.parse(tools[1]!.toolCall!.result!) as { cubes: unknown[]; searchQuery: string };
    expect(meta.cubes.length).toBeGreaterThan(0);
    const sqlInput = JSON.parse(tools[2]!.toolCall!.input!) as Record<string, unknown>;
    expect(sqlInput).toMatchObject({
      sqlQuery: expect.stringMatching(/date_trunc\('month'/),
      queryTitle: "Revenue by month",
      userRequest: "What was our revenue by month?",
    });
    const finals = fs.filter((f) => f.role === "assistant" && f.graphPath?.[0] === "final");
    expect(finals.length).toBeGreaterThan(3);
    expect(finals.slice(1, -1).every((f) => f.isDelta === true && f.isInProcess === true)).toBe(true);
    expect(finals.at(-1)).toMatchObject({ isInProcess: false });
    expect(fs.every((f) => f.role === undefined || typeof f.sort === "number")).toBe(true);
    const state = fs.find((f) => f.id === "__state__")!;
    expect(state.state).toMatchObject({ chatId: fs[1]!.state!.chatId, status: "idle" });
    const usage = fs.at(-1)!;
    expect(usage).toMatchObject({ id: "__usage__", type: "usage" });
    expect(usage.role).toBeUndefined();
    expect(usage.sort).toBeUndefined();
    expect(Object.keys(usage.usage!).sort()).toEqual([
      "cacheReadTokens",
      "cacheWriteTokens",
      "inputTokens",
      "llmCalls",
      "models",
      "outputTokens",
      "totalTokens",
    ]);
    expect(usage.usage!.totalTokens).toBe(usage.usage!.inputTokens + usage.usage!.outputTokens);
  });

  it("svcSqlApi: schema, ≤ 100 rows of data, totalRows, uuid, sqlQuery, queryTitle, a Vega-Lite v5 spec without data; the sqlQuery returns every row on the data API", async () => {
    const fs = await frames(await ask("sales by day"));
    const done = fs.filter((f) => f.toolCall?.name === "svcSqlApi" && f.toolCall.result).at(-1)!;
    const r = SqlToolResult.parse(JSON.parse(done.toolCall!.result!));
    expect(r.schema).toEqual([
      { name: "day", column_type: "TIMESTAMP" },
      { name: "revenue", column_type: expect.stringMatching(/^DECIMAL/) },
    ]);
    expect(r.data).toHaveLength(100);
    expect(r.totalRows).toBe(1095);
    expect(r.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.queryTitle).toBe("Revenue by day");
    const spec = JSON.parse(r.vegaSpec!) as Record<string, unknown>;
    expect(spec.$schema).toBe("https://vega.github.io/schema/vega-lite/v5.json");
    expect(spec).not.toHaveProperty("data");
    const token = (
      (await (
        await fetch(`${p.info.baseUrl}/api/v1/deployments/1/token`, {
          method: "POST",
          headers: { authorization: `Bearer ${p.info.apiKeys.analyst}`, "content-type": "application/json" },
          body: "{}",
        })
      ).json()) as { token: string }
    ).token;
    const all = (await (
      await fetch(`${p.info.dataUrl}/v1/svcsql`, {
        method: "POST",
        headers: { authorization: token, "content-type": "application/json" },
        body: JSON.stringify({ query: r.sqlQuery }),
      })
    ).json()) as { data: unknown[] };
    expect(all.data).toHaveLength(1095);
  });

  it("a question the agent cannot map gets a polite answer and no tool call", async () => {
    const fs = await frames(await ask("Tell me a joke about penguins"));
    expect(fs.some((f) => f.toolCall)).toBe(false);
    const turn = turnsOf(merged(fs))[0]!;
    expect(turn.answer.map((m) => m.content).join("")).toMatch(/could not match/);
  });

  it("a failed tool call carries error inside the result JSON string", async () => {
    const fs = await frames(await ask("revenue by month [[dev:tool-error]]"));
    const done = fs.filter((f) => f.toolCall?.name === "svcSqlApi" && f.toolCall.result).at(-1)!;
    expect(JSON.parse(done.toolCall!.result!)).toMatchObject({ error: expect.stringMatching(/no_such_column/) });
    expect(turnsOf(merged(fs))[0]!.steps.find((s) => s.toolCall?.name === "svcSqlApi")!.toolCall!.state).toBe("failed");
  });

  it("the final answer is the assistant frames with graphPath[0] final and length ≤ 2", async () => {
    const conv = merged(await frames(await ask("orders by country")));
    const finals = conv.messages.filter(isFinalAnswer);
    expect(finals).toHaveLength(1);
    expect(finals[0]!.content).toMatch(/Orders by country/);
    expect(
      conv.messages.filter((m) => m.role === "assistant" && !isFinalAnswer(m)).every((m) => m.graphPath[0] === "svc_data_analyst_agent"),
    ).toBe(true);
  });
});

describe("§3 states and transitions", () => {
  it("idle + input → streaming: the assistant message is isInProcess until complete", async () => {
    const fs = await frames(await ask("revenue by quarter"));
    const answerIds = new Set(fs.filter((f) => f.graphPath?.[0] === "final").map((f) => f.id));
    expect(answerIds.size).toBe(1);
    const seen = fs.filter((f) => answerIds.has(f.id));
    expect(seen.slice(0, -1).every((f) => f.isInProcess === true)).toBe(true);
    expect(seen.at(-1)!.isInProcess).toBe(false);
  });

  it("streaming + a new input without the matching messageId → error Streaming for thread is in progress", async () => {
    p.setChatDeltaMs(30);
    try {
      const first = await ask("revenue by month");
      const { got, reader } = await readUntil(first, (f) => f.id === "__cutoff__");
      const chatId = got.at(-1)!.state!.chatId as string;
      const second = await frames(await ask("orders by status", { chatId }));
      expect(second).toEqual([{ error: "Streaming for thread is in progress" }]);
      await reader.cancel();
    } finally {
      p.setChatDeltaMs(2);
    }
  });

  it("streaming + the same messageId → resubscribes to the running stream, no duplicate assistant messages", async () => {
    p.setChatDeltaMs(25);
    try {
      const messageId = newMessageId();
      const input = "revenue by month";
      const first = await post(agentPath(), { input, messageId, sessionSettings: analystSession });
      // Drop the connection after a few deltas of the answer.
      const part = await readUntil(first, (_f, all) => all.filter((x) => x.graphPath?.[0] === "final").length >= 3);
      await part.reader.cancel();
      const chatId = part.got.find((f) => f.id === "__cutoff__")!.state!.chatId as string;
      const again = await frames(await post(agentPath(), { input, messageId, chatId, sessionSettings: analystSession }));
      const conv = merged([...part.got, ...again]);
      const ids = conv.messages.map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(conv.messages.filter((m) => m.role === "user")).toHaveLength(1);
      // Same as a fresh read of the thread: nothing appended twice.
      const state = merged(await frames(await post(agentPath(), { chatId, sessionSettings: analystSession })));
      expect(conv.messages.map((m) => [m.id, m.content, m.thinking])).toEqual(state.messages.map((m) => [m.id, m.content, m.thinking]));
      expect(conv.messages.filter(isFinalAnswer)[0]!.content).toMatch(/Revenue by month/);
    } finally {
      p.setChatDeltaMs(2);
    }
  });

  it("streaming + abort by the owner → 204; the aborted stream ends without an HTTP error", async () => {
    p.setChatDeltaMs(30);
    try {
      const res = await ask("revenue by week");
      const part = await readUntil(res, (f) => f.id === "__cutoff__");
      const chatId = part.got.at(-1)!.state!.chatId as string;
      const aborted = await post(`${agentPath()}/abort`, { chatId, sessionSettings: analystSession });
      expect(aborted.status).toBe(204);
      expect(await aborted.text()).toBe("");
      const rest = await readUntil(part as { reader: ReadableStreamDefaultReader<Uint8Array>; rest?: string }, () => false);
      expect(rest.done).toBe(true);
      expect(rest.got.find((f) => f.id === "__state__")!.state).toMatchObject({ status: "idle", aborted: true });
      const conv = merged([...part.got, ...rest.got]);
      expect(conv.messages.every((m) => !m.isInProcess)).toBe(true);
    } finally {
      p.setChatDeltaMs(2);
    }
  });
});

describe("§4 endpoints", () => {
  it("4.1 agent form and deployment form (token) answer the same frames; a request without input returns the thread's state", async () => {
    const token = craft({ externalId: "Reader-42", scope: ["chat"] });
    const viaToken = await frames(await post(deploymentPath(1), { input: "revenue by year", messageId: newMessageId() }, { token }));
    const viaKey = await frames(await ask("revenue by year"));
    const shape = (fs: Frame[]) =>
      fs.map((f) => [
        f.id === "__cutoff__" || f.id === "__state__" || f.id === "__usage__" ? f.id : (f.role ?? "error"),
        f.toolCall?.name ?? null,
      ]);
    expect(shape(viaToken)).toEqual(shape(viaKey));
    const chatId = viaToken[1]!.state!.chatId as string;
    const state = await frames(await post(deploymentPath(1), { chatId }, { token }));
    expect(state[0]).toMatchObject({ id: "__cutoff__", state: { chatId } });
    expect(state.at(-1)).toMatchObject({ id: "__state__", state: { chatId, status: "idle" } });
    expect(merged(state).messages.map((m) => m.id)).toEqual(merged(viaToken).messages.map((m) => m.id));
  });

  it("4.1 the same messageId after the turn finished is idempotent (no second run)", async () => {
    const messageId = newMessageId();
    const first = await frames(await post(agentPath(), { input: "orders by status", messageId, sessionSettings: analystSession }));
    const chatId = first[1]!.state!.chatId as string;
    const again = await frames(await post(agentPath(), { input: "orders by status", messageId, chatId, sessionSettings: analystSession }));
    expect(merged(again).messages.filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("4.1 the same messageId without chatId (connection lost before __cutoff__) resubscribes instead of starting a second thread", async () => {
    p.setChatDeltaMs(20);
    try {
      const messageId = newMessageId();
      const first = await post(agentPath(), { input: "revenue by month", messageId, sessionSettings: analystSession });
      const part = await readUntil(first, (f) => f.id === "__cutoff__");
      await part.reader.cancel();
      const again = await frames(await post(agentPath(), { input: "revenue by month", messageId, sessionSettings: analystSession }));
      expect(again.find((f) => f.id === "__cutoff__")!.state!.chatId).toBe(part.got.at(-1)!.state!.chatId);
      expect(merged(again).messages.filter((m) => m.role === "user")).toHaveLength(1);
    } finally {
      p.setChatDeltaMs(2);
    }
  });

  it("4.1 activeBranchName and isDefaultBranch are accepted", async () => {
    const fs = await frames(await ask("revenue", { activeBranchName: "dev", isDefaultBranch: false }));
    expect(fs[0]!.role).toBe("user");
  });

  it("4.2 abort: 204 for the owner, 403 for another user, 404 for an unknown chatId, on either form", async () => {
    const fs = await frames(await ask("revenue"));
    const chatId = fs[1]!.state!.chatId as string;
    expect((await post(`${agentPath()}/abort`, { chatId, sessionSettings: analystSession })).status).toBe(204);
    const other = await post(
      `${agentPath()}/abort`,
      { chatId, sessionSettings: { internalId: "vic.viewer@cellbound.test" } },
      { apiKey: p.info.apiKeys.viewer },
    );
    expect(other.status).toBe(403);
    expect((await post(`${agentPath()}/abort`, { chatId: "no-such-chat", sessionSettings: analystSession })).status).toBe(404);
    const token = craft({ externalId: "aborter", scope: ["chat"] });
    const own = await frames(await post(deploymentPath(1), { input: "revenue", messageId: newMessageId() }, { token }));
    expect((await post(`${deploymentPath(1)}/abort`, { chatId: own[1]!.state!.chatId }, { token })).status).toBe(204);
    expect((await post(`${deploymentPath(1)}/abort`, { chatId: own[1]!.state!.chatId }, { apiKey: p.info.apiKeys.admin })).status).toBe(
      403,
    );
  });

  it("4.1 another user's thread is 404 to them", async () => {
    const fs = await frames(await ask("revenue"));
    const chatId = fs[1]!.state!.chatId as string;
    const res = await post(
      agentPath(),
      { chatId, sessionSettings: { internalId: "vic.viewer@cellbound.test" } },
      { apiKey: p.info.apiKeys.viewer },
    );
    expect(res.status).toBe(404);
  });
});

describe("§5 authentication", () => {
  const rpc = async (res: Response) => {
    expect(res.status).toBe(200);
    return JsonRpcError.parse(await res.json());
  };

  it("5.1 Api-Key with sessionSettings.internalId: that user's permissions apply", async () => {
    expect((await frames(await ask("revenue")))[0]!.role).toBe("user");
    // The analyst has no access to deployment 2's agent.
    const res = await post(agentPath("finance-auto-agent"), { input: "revenue", sessionSettings: analystSession });
    expect(res.status).toBe(403);
  });

  it("5.1 sessionSettings is required with Api-Key; internalId with userAttributes, groups, securityContext or roles is 400", async () => {
    expect((await post(agentPath(), { input: "revenue" })).status).toBe(400);
    for (const extra of [
      { groups: ["a"] },
      { userAttributes: [{ name: "region", value: "EU" }] },
      { securityContext: { a: 1 } },
      { roles: ["x"] },
    ]) {
      const res = await post(agentPath(), { input: "revenue", sessionSettings: { ...analystSession, ...extra } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/internalId/);
    }
  });

  it("5.1 externalId users are created from sessionSettings (an admin's key); a lower role cannot act for another user", async () => {
    const ok = await post(
      agentPath(),
      {
        input: "revenue",
        sessionSettings: { externalId: "Embed-User-1", groups: ["g"], userAttributes: [{ name: "region", value: "EU" }] },
      },
      { apiKey: p.info.apiKeys.admin },
    );
    expect((await frames(ok))[0]!.role).toBe("user");
    expect((await post(agentPath(), { input: "revenue", sessionSettings: { internalId: "ada.admin@cellbound.test" } })).status).toBe(403);
    expect((await post(agentPath(), { input: "revenue", sessionSettings: { externalId: "x" } })).status).toBe(403);
  });

  it("4.1 an Api-Key on the deployment form → 403 agentId is required for Api-Key authentication", async () => {
    const res = await post(deploymentPath(1), { input: "revenue", sessionSettings: analystSession });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe("agentId is required for Api-Key authentication");
  });

  it("4.1 the deployment form needs the deployment's setting on (deployment 2: off)", async () => {
    const token = craft({ externalId: "u", scope: ["chat"] }, 2);
    expect((await post(deploymentPath(2), { input: "revenue" }, { token })).status).toBe(403);
  });

  it("5.2 token: externalId lowercased (same user), else sub", async () => {
    const upper = craft({ externalId: "Mixed.Case", scope: ["chat"] });
    const lower = craft({ externalId: "mixed.case", scope: ["chat"] });
    const fs = await frames(await post(deploymentPath(1), { input: "revenue", messageId: newMessageId() }, { token: upper }));
    const chatId = fs[1]!.state!.chatId as string;
    expect((await post(deploymentPath(1), { chatId }, { token: lower })).status).toBe(200);
    const bySub = craft({ sub: "Someone-Else", scope: ["chat"] });
    expect((await frames(await post(deploymentPath(1), { input: "revenue" }, { token: bySub })))[0]!.role).toBe("user");
    expect((await post(deploymentPath(1), { chatId }, { token: bySub })).status).toBe(404);
  });

  it("5.2 rejected as JSON-RPC errors in HTTP 200: no identity, no chat scope, wrong signature, expired, missing", async () => {
    const cases = [
      craft({ scope: ["chat"] }),
      craft({ externalId: "u", scope: ["meta"] }),
      craft({ externalId: "u", scope: "chat" }),
      craft({ externalId: "u", scope: ["chat"] }, 1, secret(2)),
      signJwt({ externalId: "u", scope: ["chat"], iat: p.clock.nowSec() - 100, exp: p.clock.nowSec() - 1 }, secret(1)),
      "not.a.jwt",
    ];
    for (const token of cases) {
      const e = await rpc(await post(deploymentPath(1), { input: "revenue" }, { token }));
      expect(e.error.message).toMatch(/token/i);
      expect(e.id).toBeNull();
    }
    const none = await rpc(await post(deploymentPath(1), { input: "revenue" }, {}));
    expect(none.error.message).toMatch(/Missing credentials/);
    const badKey = await rpc(await post(agentPath(), { input: "revenue", sessionSettings: analystSession }, { apiKey: "cbk_wrong" }));
    expect(badKey.error.message).toMatch(/API key/);
  });

  it("5.2 the token is validated with the agent's deployment secret on the agent form", async () => {
    expect(
      (await frames(await post(agentPath(), { input: "revenue" }, { token: craft({ externalId: "u", scope: ["chat"] }) })))[0]!.role,
    ).toBe("user");
    await rpc(await post(agentPath("finance-auto-agent"), { input: "revenue" }, { token: craft({ externalId: "u", scope: ["chat"] }, 1) }));
  });

  it("minted deployment tokens carry the caller's email as sub and the chat scope: the add-in uses the deployment form with them", async () => {
    const minted = await fetch(`${p.info.baseUrl}/api/v1/deployments/1/token`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.info.apiKeys.analyst}`, "content-type": "application/json" },
      body: "{}",
    });
    const { token } = (await minted.json()) as { token: string };
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { sub: unknown; scope: string[] };
    expect(claims.sub).toBe("ana.analyst@cellbound.test");
    expect(claims.scope).toContain("chat");
    const fs = await frames(await post(deploymentPath(1), { input: "revenue", messageId: newMessageId() }, { token }));
    // The same user as the Api-Key form with internalId: the thread is theirs on both forms.
    const chatId = fs[1]!.state!.chatId as string;
    expect((await post(agentPath(), { chatId, sessionSettings: analystSession })).status).toBe(200);
  });
});

describe("§7 errors", () => {
  it("400: invalid body or parameters (not JSON, unknown field, bad messageId)", async () => {
    for (const body of [
      "{nope",
      { input: "x", sessionSettings: analystSession, extra: 1 },
      { input: "x", messageId: "123-message", sessionSettings: analystSession },
      { sessionSettings: analystSession },
    ]) {
      const res = await post(agentPath(), body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: expect.any(String), code: "invalid" });
    }
  });

  it("404: unknown agent, tenant or chat thread", async () => {
    expect((await post(agentPath("no-such-agent"), { input: "x", sessionSettings: analystSession })).status).toBe(404);
    expect(
      (
        await post(`${p.info.aiUrl}/api/v1/public/other-tenant/agents/${p.info.chat.agentId}/chat/stream-chat-state`, {
          input: "x",
          sessionSettings: analystSession,
        })
      ).status,
    ).toBe(404);
    expect((await post(agentPath(), { chatId: "no-such-chat", sessionSettings: analystSession })).status).toBe(404);
    expect((await post(deploymentPath(99), { input: "x" }, { token: "a.b.c" })).status).toBe(404);
  });

  it("stream error line: a failure after the stream opened is a line with only error, in an HTTP 200", async () => {
    const fs = await frames(await ask("revenue [[dev:fail]]"));
    const err = fs.find((f) => f.error !== undefined)!;
    expect(Object.keys(err)).toEqual(["error"]);
    expect(fs.at(-1)!.id).toBe("__usage__");
  });
});

describe("§8 limits", () => {
  it("messageId: 13 or more digits then -message", async () => {
    expect((await ask("revenue", { messageId: "1234567890123-message" })).status).toBe(200);
    expect((await ask("revenue", { messageId: "12345678901234567-message" })).status).toBe(200);
    for (const bad of ["123456789012-message", "1234567890123-msg", "abcdefghijklm-message", "1234567890123-message "]) {
      expect((await ask("revenue", { messageId: bad })).status).toBe(400);
    }
  });

  it("ephemeral users are removed after ephemeralTtlSeconds (default one week); isEphemeral false persists", async () => {
    const admin = { apiKey: p.info.apiKeys.admin };
    const start = async (s: Record<string, unknown>) =>
      (await frames(await post(agentPath(), { input: "revenue", sessionSettings: s }, admin)))[1]!.state!.chatId as string;
    const shortLived = await start({ externalId: "temp-1", ephemeralTtlSeconds: 60 });
    const weekLong = await start({ externalId: "temp-2" });
    const kept = await start({ externalId: "kept-1", isEphemeral: false });
    const read = (chatId: string, externalId: string) => post(agentPath(), { chatId, sessionSettings: { externalId } }, admin);
    expect((await read(shortLived, "temp-1")).status).toBe(200);
    await fetch(`${p.info.baseUrl}/__dev/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advanceMs: 61_000 }),
    });
    expect((await read(shortLived, "temp-1")).status).toBe(404);
    expect((await read(weekLong, "temp-2")).status).toBe(200);
    p.clock.advance(7 * 24 * 3600 * 1000);
    expect((await read(weekLong, "temp-2")).status).toBe(404);
    expect((await read(kept, "kept-1")).status).toBe(200);
  });
});

describe("threads are persisted per user", () => {
  it("a thread and its finished turns survive a restart of the stand-in (same data dir)", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const path = await import("node:path");
    const dataDir = mkdtempSync(path.join(tmpdir(), "cellbound-chat-"));
    try {
      const a = await startPlatform({ log: () => {}, dataDir, chatDeltaMs: 0 });
      const url = `${a.info.aiUrl}/api/v1/public/${a.info.accountName}/agents/${a.info.chat.agentId}/chat/stream-chat-state`;
      const body = { input: "revenue by year", messageId: newMessageId(), sessionSettings: analystSession };
      const first = await frames(await post(url, body, { apiKey: a.info.apiKeys.analyst }));
      const chatId = first[1]!.state!.chatId as string;
      await new Promise((r) => setTimeout(r, 100)); // the write after the turn
      await a.close();
      const b = await startPlatform({ log: () => {}, dataDir });
      try {
        const url2 = `${b.info.aiUrl}/api/v1/public/${b.info.accountName}/agents/${b.info.chat.agentId}/chat/stream-chat-state`;
        const state = merged(
          await frames(await post(url2, { chatId, sessionSettings: analystSession }, { apiKey: b.info.apiKeys.analyst })),
        );
        expect(state.messages.map((m) => [m.id, m.content])).toEqual(merged(first).messages.map((m) => [m.id, m.content]));
        expect(
          (await post(url2, { chatId, sessionSettings: { internalId: "vic.viewer@cellbound.test" } }, { apiKey: b.info.apiKeys.viewer }))
            .status,
        ).toBe(404);
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("issue 31 item 6: the agent answers what the question names", () => {
  /** The turn's svcMeta and svcSqlApi results, its SQL step's input and its final answer. */
  async function answer(question: string) {
    const fs = await frames(await ask(question));
    const done = (name: string) => fs.filter((f) => f.toolCall?.name === name && f.toolCall.result).at(-1);
    const sql = done("svcSqlApi");
    const meta = done("svcMeta");
    return {
      tools: fs.filter((f) => f.toolCall).length,
      input: sql ? (JSON.parse(sql.toolCall!.input!) as Record<string, unknown>) : null,
      result: sql ? SqlToolResult.parse(JSON.parse(sql.toolCall!.result!)) : null,
      meta: meta ? (JSON.parse(meta.toolCall!.result!) as { cubes: Array<{ name: string; measures: string[] }> }) : null,
      text: turnsOf(merged(fs))[0]!
        .answer.map((m) => m.content)
        .join(""),
    };
  }
  async function dataToken(): Promise<string> {
    const res = await fetch(`${p.info.baseUrl}/api/v1/deployments/1/token`, {
      method: "POST",
      headers: { authorization: `Bearer ${p.info.apiKeys.analyst}`, "content-type": "application/json" },
      body: "{}",
    });
    return ((await res.json()) as { token: string }).token;
  }
  /** The same numbers from /v1/load, keyed by the group values joined with "|" (times as YYYY-MM-DD). */
  async function load(query: Record<string, unknown>, keys: string[], measure: string): Promise<Map<string, number>> {
    const res = await fetch(`${p.info.dataUrl}/v1/load`, {
      method: "POST",
      headers: { authorization: await dataToken(), "content-type": "application/json" },
      body: JSON.stringify({ query: { ...query, limit: 10_000 } }),
    });
    const body = (await res.json()) as { data: Array<Record<string, string>> };
    return new Map(body.data.map((row) => [keys.map((k) => String(row[k]).slice(0, 10)).join("|"), Number(row[measure])]));
  }
  const keyOf = (row: unknown[], n: number) =>
    row
      .slice(0, n)
      .map((v) => String(v).slice(0, 10))
      .join("|");

  it("issue 31 item 6: questions naming different measures and dimensions (by title, any case, or an everyday word) get those, with the numbers /v1/load gives", async () => {
    const cases = [
      {
        q: "What is the Return Rate by category?",
        title: "Return Rate by category",
        columns: ["category", "return_rate"],
        load: { measures: ["orders.return_rate"], dimensions: ["products.category"] },
        keys: ["products.category"],
        measure: "orders.return_rate",
        digits: 1,
      },
      {
        q: "TOTAL QUANTITY and avg amount by segment and status",
        title: "Total Quantity and Avg Amount by segment and status",
        columns: ["segment", "status", "total_quantity", "avg_amount"],
        load: { measures: ["orders.total_quantity"], dimensions: ["customers.segment", "orders.status"] },
        keys: ["customers.segment", "orders.status"],
        measure: "orders.total_quantity",
        digits: 6,
      },
      {
        q: "customers count by signed up at",
        title: "Customers Count by signed up at (month)",
        columns: ["month", "customers_count"],
        load: { measures: ["customers.count"], timeDimensions: [{ dimension: "customers.signed_up_at", granularity: "month" }] },
        keys: ["customers.signed_up_at.month"],
        measure: "customers.count",
        digits: 6,
      },
      {
        q: "average order value per quarter",
        title: "Average order value by quarter",
        columns: ["quarter", "average_order_value"],
        load: { measures: ["orders.avg_amount"], timeDimensions: [{ dimension: "orders.created_at", granularity: "quarter" }] },
        keys: ["orders.created_at.quarter"],
        measure: "orders.avg_amount",
        digits: 4,
      },
    ];
    for (const c of cases) {
      const a = await answer(c.q);
      expect(a.input, c.q).toMatchObject({ queryTitle: c.title, userRequest: c.q });
      const r = a.result!;
      expect(
        r.schema.map((s) => s.name),
        c.q,
      ).toEqual(c.columns);
      expect(r.queryTitle).toBe(c.title);
      expect(a.text, c.q).toContain(`**${c.title}**`);
      // The numbers are the semantic layer's: the same as /v1/load gives for those members.
      const n = c.keys.length;
      const want = await load(c.load, c.keys, c.measure);
      expect(r.totalRows, c.q).toBe(want.size);
      for (const row of r.data) expect(Number(row[n]), `${c.q}: ${keyOf(row, n)}`).toBeCloseTo(want.get(keyOf(row, n))!, c.digits);
      // svcMeta found the views the query reads, with the members it used.
      const members = a.meta!.cubes.flatMap((cube) => cube.measures);
      expect(members, c.q).toContain(c.measure);
      // The chart draws (the pane's checks) and the sqlQuery loads every row on the data API.
      expect(chartSpec(r), c.q).toMatchObject({ ok: true });
      const all = (await (
        await fetch(`${p.info.dataUrl}/v1/svcsql`, {
          method: "POST",
          headers: { authorization: await dataToken(), "content-type": "application/json" },
          body: JSON.stringify({ query: r.sqlQuery }),
        })
      ).json()) as { data: unknown[] };
      expect(all.data, c.q).toHaveLength(r.totalRows);
    }
  });

  it("issue 31 item 6: a question naming no measure of the data model, or grouping by something it lacks, gets a plain answer and no query", async () => {
    const measures =
      /I can answer about: \*\*Orders\*\*: Count, Total Amount, Avg Amount, Return Rate, Total Quantity, Customers Count; \*\*Customers\*\*: Count; \*\*Products\*\*: Count\./;
    const unknown = await answer("What was our profit margin by country?");
    expect(unknown.tools).toBe(0);
    expect(unknown.text).toMatch(/^I could not find a measure named “profit margin” in the data model; /);
    expect(unknown.text).toMatch(measures);
    expect(unknown.text).toMatch(
      /Grouped by: \*\*Orders\*\*: .*Status.*\*\*Customers\*\*: .*Country.*; or by day, week, month, quarter or year\./,
    );

    const dimension = await answer("amount by status");
    expect(dimension.tools).toBe(0);
    expect(dimension.text).toMatch(
      /^I could not find a measure in that question \(“Amount” is a dimension of the data model: something to group by\); /,
    );
    expect(dimension.text).toMatch(measures);

    const group = await answer("revenue by planet");
    expect(group.tools).toBe(0);
    expect(group.text).toMatch(/^I could not find a dimension named “planet” in the data model; I can group by: \*\*Orders\*\*: /);

    const nothing = await answer("Tell me a joke about penguins");
    expect(nothing.tools).toBe(0);
    expect(nothing.text).toMatch(measures);
  });
});
