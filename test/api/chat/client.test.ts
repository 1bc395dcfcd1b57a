// The chat client against the stand-in: auth-form choice, JSON-RPC auth errors, reconnect with the
// same messageId after a dropped connection (no duplicates), the idle deadline, a non-JSON line
// mid-stream, Stop, a busy thread; and the app-config / sheets-settings client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../../dev/platform/server";
import { signJwt } from "../../../dev/platform/auth";
import { createDeploymentTokenManager, createPlatformClient, TimeoutError, type FetchLike } from "../../../src/api";
import {
  applyFrame,
  ChatAuthError,
  createChatClient,
  createChatSettingsClient,
  EMPTY_CONVERSATION,
  isFinalAnswer,
  MalformedLineError,
  newMessageId,
  ThreadBusyError,
  type ChatClientOptions,
  type ChatFrame,
  type Conversation,
} from "../../../src/api/chat";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, chatDeltaMs: 3 });
});
afterAll(async () => {
  await p?.close();
});

const analystEmail = "ana.analyst@cellbound.test";
function tokens(deploymentId: number) {
  return createDeploymentTokenManager({
    client: createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.admin }),
    deploymentId,
  });
}
function client(deploymentId = 1, extra: Partial<ChatClientOptions> = {}) {
  return createChatClient({
    aiUrl: p.info.aiUrl,
    accountName: p.info.accountName,
    auth: {
      deployment: { deploymentId, token: tokens(deploymentId) },
      agent: {
        agentId: deploymentId === 1 ? p.info.chat.agentId : "finance-auto-agent",
        apiKey: p.info.apiKeys.admin,
        internalId: "ada.admin@cellbound.test",
      },
    },
    ...extra,
  });
}
function collect() {
  let conv: Conversation = EMPTY_CONVERSATION;
  const frames: ChatFrame[] = [];
  return {
    onFrame: (f: ChatFrame) => {
      frames.push(f);
      conv = applyFrame(conv, f);
    },
    frames,
    conv: () => conv,
  };
}

describe("createChatClient", () => {
  it("uses the deployment form with the minted token when the deployment allows it", async () => {
    const c = client(1);
    const sink = collect();
    const r = await c.send({ input: "revenue by month", onFrame: sink.onFrame });
    expect(c.form()).toBe("deployment");
    expect(r).toMatchObject({ completed: true, chatId: expect.any(String), messageId: expect.stringMatching(/^\d{13,}-message$/) });
    expect(sink.conv().messages.filter(isFinalAnswer)[0]!.content).toMatch(/Revenue by month/);
  });

  it("falls back to the agent form (Api-Key, internalId, agent id) when the deployment form is off (403)", async () => {
    const c = client(2);
    const sink = collect();
    await c.send({ input: "orders by status", onFrame: sink.onFrame });
    expect(c.form()).toBe("agent");
    expect(sink.conv().messages.filter(isFinalAnswer)).toHaveLength(1);
  });

  it("a JSON-RPC error in an HTTP 200 is a ChatAuthError", async () => {
    const bad = { getToken: async () => signJwt({ externalId: "u", scope: ["chat"], exp: p.clock.nowSec() + 60 }, "wrong-secret") };
    const c = createChatClient({
      aiUrl: p.info.aiUrl,
      accountName: p.info.accountName,
      auth: { deployment: { deploymentId: 1, token: bad } },
    });
    await expect(c.send({ input: "revenue", onFrame: () => {} })).rejects.toBeInstanceOf(ChatAuthError);
  });

  it("reconnects after a dropped connection with the same messageId; the merged conversation has no duplicates", async () => {
    p.setChatDeltaMs(15);
    try {
      const bodies: string[] = [];
      let calls = 0;
      // The first stream is cut after ~1.5 KB (mid-line), like a network drop.
      const cutting: FetchLike = async (url, init) => {
        bodies.push(String(init.body));
        const res = await fetch(url, init);
        if (calls++ > 0 || !res.body) return res;
        const reader = res.body.getReader();
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(ctrl) {
            const { done, value } = await reader.read();
            if (done) return ctrl.close();
            sent += value.length;
            if (sent > 1500) {
              ctrl.enqueue(value.subarray(0, Math.max(1, value.length - (sent - 1500))));
              await reader.cancel();
              ctrl.error(new TypeError("terminated"));
              return;
            }
            ctrl.enqueue(value);
          },
        });
        return new Response(body, { status: res.status, headers: res.headers });
      };
      const c = client(1, { fetch: cutting });
      const sink = collect();
      let reconnects = 0;
      const r = await c.send({ input: "revenue by month", onFrame: sink.onFrame, onReconnect: () => reconnects++ });
      expect(reconnects).toBe(1);
      expect(r.completed).toBe(true);
      const [first, second] = bodies.map((b) => JSON.parse(b) as { messageId: string; chatId?: string });
      expect(second!.messageId).toBe(first!.messageId);
      expect(second!.chatId).toBe(r.chatId);
      const ids = sink.conv().messages.map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
      // Identical to a clean read of the thread.
      const clean = collect();
      await c.send({ chatId: r.chatId!, onFrame: clean.onFrame });
      expect(sink.conv().messages.map((m) => [m.id, m.content, m.thinking])).toEqual(
        clean.conv().messages.map((m) => [m.id, m.content, m.thinking]),
      );
    } finally {
      p.setChatDeltaMs(3);
    }
  });

  it("a stream silent past its idle deadline ends with a TimeoutError after its reconnects", async () => {
    const silent: FetchLike = async () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { status: 200 });
    const c = createChatClient({
      aiUrl: p.info.aiUrl,
      accountName: p.info.accountName,
      auth: { deployment: { deploymentId: 1, token: { getToken: async () => "t" } } },
      fetch: silent,
      idleTimeoutMs: 80,
      maxReconnects: 1,
    });
    const t0 = Date.now();
    await expect(c.send({ input: "revenue", onFrame: () => {} })).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it("a line that is not JSON is reported; the frames after it still arrive", async () => {
    const garbling: FetchLike = async (url, init) => {
      const res = await fetch(url, init);
      const text = await res.text();
      const lines = text.split("\n");
      lines.splice(3, 0, "<<garbage>>");
      return new Response(lines.join("\n"), { status: 200 });
    };
    const warnings: unknown[] = [];
    const sink = collect();
    const r = await client(1, { fetch: garbling }).send({
      input: "revenue by month",
      onFrame: sink.onFrame,
      onWarning: (e) => warnings.push(e),
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toBeInstanceOf(MalformedLineError);
    expect(r.completed).toBe(true);
    expect(sink.conv().messages.filter(isFinalAnswer)).toHaveLength(1);
  });

  it("Stop: abort(chatId) ends the stream (no HTTP error), marked aborted", async () => {
    p.setChatDeltaMs(25);
    try {
      const c = client(1);
      const sink = collect();
      let chatId: string | null = null;
      const done = c.send({
        input: "revenue by week",
        onFrame: (f) => {
          sink.onFrame(f);
          if (f.id === "__cutoff__") chatId = f.state!.chatId as string;
        },
      });
      await expect.poll(() => chatId).not.toBeNull();
      await c.abort(chatId!);
      const r = await done;
      expect(r.completed).toBe(true);
      expect(sink.conv().state).toMatchObject({ aborted: true });
      // A new message while the thread streams: ThreadBusyError.
      const busy = c.send({ input: "orders", chatId: chatId!, onFrame: () => {} });
      await expect(busy).resolves.toBeTruthy(); // not busy any more after the abort
      const sink2 = collect();
      let id2: string | null = null;
      const running = c.send({
        input: "revenue by day",
        onFrame: (f) => {
          sink2.onFrame(f);
          if (f.id === "__cutoff__") id2 = f.state!.chatId as string;
        },
      });
      await expect.poll(() => id2).not.toBeNull();
      await expect(c.send({ input: "another", chatId: id2!, onFrame: () => {} })).rejects.toBeInstanceOf(ThreadBusyError);
      await c.abort(id2!);
      await running;
    } finally {
      p.setChatDeltaMs(3);
    }
  });

  it("newMessageId: a 13+ digit ms timestamp then -message, distinct within one ms", () => {
    const a = newMessageId(1763900000000);
    const b = newMessageId(1763900000000);
    expect(a).toMatch(/^\d{13,}-message$/);
    expect(b).not.toBe(a);
  });
});

describe("createChatSettingsClient", () => {
  it("reads app-config and merges sheets settings", async () => {
    const s = createChatSettingsClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.analyst });
    expect((await s.appConfig()).sheetsAgentChatEnabled).toBe(true);
    expect(await s.updateSheetsSettings({ chatAgentId: "a", chatOpenThreadId: "t" })).toEqual({ chatAgentId: "a", chatOpenThreadId: "t" });
    expect(await s.updateSheetsSettings({ chatOpenThreadId: null })).toEqual({ chatAgentId: "a" });
    expect(await s.sheetsSettings()).toEqual({ chatAgentId: "a" });
    expect(analystEmail).toContain("@");
  });
});
