// Issue 25 §2 (chat): the platform stops answering mid-stream. The idle deadline ends the turn in
// words ("The agent stopped answering", with Ask again), nothing stays "running…" and no cursor
// stays; once the platform answers again, Ask again shows the answer it finished meanwhile (the
// pane is not left stale). The live ChatService and the pane's ChatModel over the stand-in, with a
// fetch that freezes the chat stream as a stopped platform process would (bytes stop, nothing closes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { createChatService } from "../../src/taskpane/chat/live";
import { turnsOf } from "../../src/taskpane/chat/live-conversation";
import { ChatModel } from "../../src/taskpane/chat/state";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, chatDeltaMs: 40 });
});
afterAll(async () => {
  await p?.close();
});

/** A fetch whose chat streams stop delivering (and whose new chat requests never answer) while `frozen`. */
function freezable() {
  const state = { frozen: false, chunks: 0 };
  const never = (signal?: AbortSignal | null) =>
    new Promise<never>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
  const f: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.includes("/chat/")) return fetch(input, init);
    if (state.frozen) return never(init?.signal);
    const res = await fetch(input, init);
    if (!res.body) return res;
    const reader = res.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        if (state.frozen) return never(init?.signal);
        const r = await reader.read();
        if (state.frozen) return never(init?.signal);
        if (r.done) ctrl.close();
        else {
          state.chunks++;
          ctrl.enqueue(r.value);
        }
      },
      cancel: (why) => reader.cancel(why),
    });
    return new Response(body, { status: res.status, headers: res.headers });
  };
  return { fetch: f, state };
}

async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("a chat answer the platform stops sending (issue 25 §2)", () => {
  it("ends the turn in words, ends every running step and the cursor, and Ask again shows the answer once the platform is back", async () => {
    const net = freezable();
    const service = createChatService(
      { baseUrl: p.info.baseUrl, dataUrl: p.info.dataUrl, credential: p.info.apiKeys.analyst },
      { id: 1, name: "Sales Analytics" },
      net.fetch,
      { idleTimeoutMs: 400, maxReconnects: 1 },
    );
    const model = new ChatModel({ service, place: async () => true });
    await model.init();
    expect(model.phase.value).toBe("ready");
    const asked = model.ask("revenue by month");
    // Freeze once a step is running (the answer has begun).
    await until(() => turnsOf(model.conversation.value).some((t) => t.inProcess && t.steps.length > 0));
    net.state.frozen = true;
    await asked;
    expect(model.streaming.value).toBe(false);
    expect(model.error.value).toMatchObject({ title: "The agent stopped answering" });
    expect(`${model.error.value!.detail} ${model.error.value!.next}`).not.toMatch(/POST|\/api\/|ms\b|TimeoutError/);
    expect(model.stalled.value).toBe("revenue by month");
    const turns = turnsOf(model.conversation.value);
    expect(turns.some((t) => t.inProcess)).toBe(false); // no cursor
    expect(model.conversation.value.messages.some((m) => m.toolCall?.state === "running")).toBe(false); // no "running…"

    // The platform answers again: Ask again finds the answer it finished meanwhile.
    net.state.frozen = false;
    await new Promise((r) => setTimeout(r, 1500)); // the stand-in finishes the turn on its side
    await model.askAgain();
    expect(model.error.value).toBeNull();
    const last = turnsOf(model.conversation.value).at(-1)!;
    expect(last.user?.content).toBe("revenue by month");
    expect(last.answer.length).toBeGreaterThan(0);
    expect(last.inProcess).toBe(false);
    expect(model.conversation.value.messages.filter((m) => m.role === "user" && m.content === "revenue by month")).toHaveLength(1);
  }, 60_000);
});
