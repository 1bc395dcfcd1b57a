// The chat pane in Chromium over a scripted ChatService: unavailable → why; a streamed answer
// rendered as safe markdown (raw HTML stays text), thinking collapsible, steps with SQL, the table
// and a real vega chart (loaded on demand), usage; a refused chart; Stop; Place in sheet; resume of
// a running answer after a reload with the same messageId; preferences saved.
import { render } from "preact";
import { App } from "../../src/taskpane/app/App";
import { PaneStore } from "../../src/taskpane/state/store";
import { memoryStore, SecretStore } from "../../src/taskpane/state/secrets";
import { installTheme } from "../../src/taskpane/theme/theme";
import type { ChatAvailability, ChatPrefs, ChatSendInput, ChatService } from "../../src/taskpane/chat/service";
import type { ChatFrame } from "../../src/taskpane/chat/live-conversation";
import { scriptedBackend } from "./scripted";
import { ResultTable } from "../../src/taskpane/chat/parts";

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SPEC = {
  $schema: "https://vega.github.io/schema/vega-lite/v5.json",
  mark: "line",
  encoding: { x: { field: "month", type: "temporal" }, y: { field: "revenue", type: "quantitative" } },
};
const result = (spec: object = SPEC) => ({
  sqlQuery: "SELECT date_trunc('month', o.created_at) AS month, sum(o.amount) AS revenue\nFROM orders AS o\nGROUP BY 1\nORDER BY 1",
  queryTitle: "Revenue by month",
  schema: [
    { name: "month", column_type: "TIMESTAMP" },
    { name: "revenue", column_type: "DECIMAL(18,2)" },
  ],
  data: [
    ["2024-01-01T00:00:00", 100.5],
    ["2024-02-01T00:00:00", 150],
    ["2024-03-01T00:00:00", 120],
  ],
  totalRows: 36,
  uuid: "0b7a0b5e-6d5e-4d59-9d1e-6f0f9c1f0a11",
  vegaSpec: JSON.stringify(spec),
});

/** The frames of one answer, as the platform streams them. */
function answerFrames(messageId: string, chatId: string, question: string, spec?: object): ChatFrame[] {
  const b = messageId.replace(/-message$/, "");
  const final = ["final", "svc_data_analyst_agent"];
  const words = [
    "Here is **Revenue by month**: ",
    "36 rows. ",
    "<img src=x onerror=alert(1)> ",
    "<b>not bold</b> ",
    "[site](https://example.com)\n\n- Highest: **2024-02**",
  ];
  return [
    { id: messageId, role: "user", content: question, sort: 1 },
    { id: "__cutoff__", state: { chatId } },
    {
      id: `${b}-t`,
      role: "assistant",
      thinking: "Revenue is the amount.",
      isInProcess: false,
      graphPath: ["svc_data_analyst_agent"],
      sort: 2,
    },
    {
      id: `${b}-s`,
      role: "assistant",
      toolCall: { name: "svcSqlApi", input: JSON.stringify({ sqlQuery: result().sqlQuery }) },
      isInProcess: true,
      graphPath: ["svc_data_analyst_agent", "tools"],
      sort: 3,
    },
    {
      id: `${b}-s`,
      role: "assistant",
      toolCall: { name: "svcSqlApi", input: JSON.stringify({ sqlQuery: result().sqlQuery }), result: JSON.stringify(result(spec)) },
      isInProcess: false,
      graphPath: ["svc_data_analyst_agent", "tools"],
      sort: 3,
    },
    ...words.map((w, i): ChatFrame => ({
      id: `${b}-a`,
      role: "assistant",
      content: w,
      isDelta: i > 0,
      isInProcess: true,
      graphPath: final,
      sort: 4,
    })),
    { id: `${b}-a`, role: "assistant", content: "", isDelta: true, isInProcess: false, graphPath: final, sort: 4 },
    { id: "__state__", state: { chatId, status: "idle" } },
    {
      id: "__usage__",
      type: "usage",
      usage: {
        models: ["m"],
        llmCalls: 2,
        inputTokens: 1200,
        outputTokens: 80,
        cacheWriteTokens: 0,
        cacheReadTokens: 0,
        totalTokens: 1280,
      },
    },
  ];
}

interface Scripted extends ChatService {
  calls: string[];
  saved: Partial<ChatPrefs>[];
  sends: ChatSendInput[];
}

function scriptedChat(o: { availability?: ChatAvailability; send?: (i: ChatSendInput) => Promise<void> } = {}): Scripted {
  const calls: string[] = [];
  const saved: Partial<ChatPrefs>[] = [];
  const sends: ChatSendInput[] = [];
  return {
    calls,
    saved,
    sends,
    open: async () => o.availability ?? { ok: true, prefs: { agentId: null, openThreadId: null, threads: [] } },
    savePrefs: async (p) => void saved.push(p),
    async send(i) {
      sends.push(i);
      calls.push(`send ${i.input ?? "(state)"} ${i.chatId ?? "-"} ${i.messageId ?? "-"}`);
      if (o.send) await o.send(i);
      else
        for (const f of answerFrames(i.messageId ?? "1763900000000-message", "chat-1", i.input ?? "")) {
          i.onFrame(f);
          await sleep(5);
        }
      return { chatId: "chat-1", messageId: i.messageId ?? null, completed: true };
    },
    abort: async (chatId) => void calls.push(`abort ${chatId}`),
    saveAsReport: async (a) => {
      calls.push(`save ${a.title} ${a.sqlQuery.length}`);
      return { reportId: 77, name: a.title };
    },
  };
}

async function mountWith(chat: ChatService, o: { occupied?: boolean } = {}) {
  installTheme(document, undefined);
  const { backend, ws } = scriptedBackend({ home: { workbookName: "Book.xlsx", copied: false, placements: [] } });
  const placed: number[] = [];
  Object.assign(ws, {
    chat,
    place: async (reportId: number, p: { confirmed: boolean }) => {
      if (o.occupied && !p.confirmed) return { kind: "wouldOverwrite", count: 2, addresses: ["B3", "C4"], target: "B2:C38" };
      placed.push(reportId);
      return { kind: "placed", placementId: "p", range: "B2:C37", sheetName: "Sheet1" };
    },
  });
  const store = new PaneStore(backend, new SecretStore(memoryStore()));
  await store.signIn({ baseUrl: "http://127.0.0.1:1", dataUrl: null, credential: "good-key" });
  const root = document.createElement("div");
  root.style.width = "360px";
  document.body.append(root);
  render(<App store={store} />, root);
  store.navigate("chat");
  return { root, store, placed };
}

const byText = (root: Element, sel: string, text: string | RegExp) =>
  [...root.querySelectorAll<HTMLElement>(sel)].find((e) =>
    typeof text === "string" ? e.textContent?.trim() === text : text.test(e.textContent ?? ""),
  );

async function ask(root: HTMLElement, q: string) {
  await until(() => root.querySelector("textarea") !== null);
  const ta = root.querySelector("textarea")!;
  ta.value = q;
  ta.dispatchEvent(new Event("input", { bubbles: true }));
  await until(() => !(byText(root, "button", "Send") as HTMLButtonElement).disabled);
  byText(root, "button", "Send")!.click();
}

describe("chat pane", () => {
  afterEach(() => {
    render(null, document.body);
    document.body.innerHTML = "";
  });

  it("explains why chat is unavailable (app-config) and offers no question box", async () => {
    const { root } = await mountWith(
      scriptedChat({
        availability: {
          ok: false,
          title: "Chat is turned off for spreadsheets",
          detail: "Your platform's settings do not allow it.",
          next: "Ask an admin.",
        },
      }),
    );
    await until(() => /turned off for spreadsheets/.test(root.textContent ?? ""));
    expect(root.textContent).toMatch(/Ask an admin/);
    expect(root.querySelector("textarea")).toBeNull();
  });

  it("streams an answer: safe markdown, thinking and SQL step, table, chart, usage, no sentinel", async () => {
    const chat = scriptedChat();
    const { root } = await mountWith(chat);
    await ask(root, "revenue by month");
    await until(() => /Tokens: 1,280/.test(root.textContent ?? ""));
    const answer = root.querySelector(".cb-chat-md")!;
    expect(answer.querySelector("strong")!.textContent).toBe("Revenue by month");
    // Raw HTML is text: no element was created from it.
    expect(answer.querySelector("img, b, a")).toBeNull();
    expect(answer.textContent).toContain("<img src=x onerror=alert(1)>");
    expect(answer.textContent).toContain("(https://example.com)");
    expect(root.textContent).not.toMatch(/__cutoff__|__state__|__usage__/);
    const thinking = byText(root, "summary", "Thinking")!.parentElement as HTMLDetailsElement;
    expect(thinking.open).toBe(false);
    const step = root.querySelector<HTMLDetailsElement>('details[data-tool="svcSqlApi"]')!;
    expect(step.querySelector("pre")!.textContent).toMatch(/date_trunc\('month'/);
    expect(root.querySelectorAll(".cb-table tbody tr")).toHaveLength(3);
    expect(root.querySelector(".cb-table caption")!.textContent).toBe("First 3 of 36 rows");
    await until(() => root.querySelector(".cb-chat-chart svg") !== null, 15_000);
    expect(root.querySelectorAll(".cb-chat-chart svg path").length).toBeGreaterThan(0);
    expect(chat.saved.some((p) => p.threads?.[0]?.chatId === "chat-1" && p.openThreadId === "chat-1")).toBe(true);
  });

  it("refuses a chart that points at remote data, and says why", async () => {
    const chat = scriptedChat({
      send: async (i) => {
        for (const f of answerFrames(i.messageId ?? "1763900000001-message", "chat-2", i.input!, {
          ...SPEC,
          layer: [{ data: { url: "https://evil.example/d.csv" }, mark: "bar" }],
        }))
          i.onFrame(f);
      },
    });
    const { root } = await mountWith(chat);
    await ask(root, "revenue by month");
    await until(() => /Chart not shown/.test(root.textContent ?? ""));
    expect(root.querySelector(".cb-chat-chart")).toBeNull();
    expect(root.querySelectorAll(".cb-table tbody tr")).toHaveLength(3);
  });

  it("Stop aborts the thread's answer on the platform", async () => {
    let release!: () => void;
    const chat = scriptedChat({
      send: async (i) => {
        const fs = answerFrames(i.messageId ?? "1763900000001-message", "chat-3", i.input!);
        for (const f of fs.slice(0, 6)) i.onFrame(f);
        await new Promise<void>((r) => (release = r));
      },
    });
    const { root } = await mountWith(chat);
    await ask(root, "revenue by month");
    await until(() => byText(root, "button", "Stop") !== undefined);
    byText(root, "button", "Stop")!.click();
    await until(() => chat.calls.includes("abort chat-3"));
    release();
    await until(() => byText(root, "button", "Send") !== undefined);
  });

  it("Place in sheet saves the full SQL as a report and places it through the engine", async () => {
    const chat = scriptedChat();
    const { root, placed, store } = await mountWith(chat);
    await ask(root, "revenue by month");
    await until(() => byText(root, "button", "Place in sheet") !== undefined);
    byText(root, "button", "Place in sheet")!.click();
    await until(() => placed.length === 1);
    expect(placed).toEqual([77]);
    expect(chat.calls).toContain(`save Revenue by month ${result().sqlQuery.length}`);
    await until(() => store.route.value === "home");
  });

  it("Place in sheet over content asks first; nothing is placed until Overwrite", async () => {
    const chat = scriptedChat();
    const { root, placed } = await mountWith(chat, { occupied: true });
    await ask(root, "revenue by month");
    await until(() => byText(root, "button", "Place in sheet") !== undefined);
    byText(root, "button", "Place in sheet")!.click();
    await until(() => /2 cells would be overwritten/.test(root.textContent ?? ""));
    expect(placed).toEqual([]);
    byText(root, "button", "Overwrite")!.click();
    await until(() => placed.length === 1);
  });

  it("a mid-stream failure keeps the transcript and offers Ask again", async () => {
    let n = 0;
    const chat = scriptedChat({
      send: async (i) => {
        const fs = answerFrames(i.messageId ?? `176390000000${n}-message`, "chat-5", i.input!);
        if (n++ === 0) {
          for (const f of fs.slice(0, 6)) i.onFrame(f);
          i.onFrame({ error: "The agent stopped unexpectedly" });
          return;
        }
        for (const f of fs) i.onFrame(f);
      },
    });
    const { root } = await mountWith(chat);
    await ask(root, "revenue by month");
    await until(() => /The agent stopped unexpectedly/.test(root.textContent ?? ""));
    expect(root.querySelector(".cb-chat-md")!.textContent).toContain("Revenue by month");
    byText(root, "button", "Ask again")!.click();
    await until(() => chat.sends.length === 2);
    expect(chat.sends[1]!.input).toBe("revenue by month");
    await until(() => /Tokens: 1,280/.test(root.textContent ?? ""));
    expect(root.textContent).not.toMatch(/The agent stopped unexpectedly/);
  });

  it("a platform that stops answering (idle deadline): the turn ends in words, no step stays running, no cursor; Ask again (issue 25 §2)", async () => {
    let n = 0;
    const chat = scriptedChat({
      send: async (i) => {
        const fs = answerFrames(i.messageId ?? `176390000001${n}-message`, "chat-6", i.input ?? "revenue by month");
        if (n++ === 0) {
          for (const f of fs.slice(0, 4)) i.onFrame(f); // a step begins, then nothing more arrives
          throw Object.assign(new Error("POST stream-chat-state: nothing for 30 s"), { name: "TimeoutError", kind: "timeout", status: 0 });
        }
        for (const f of fs) i.onFrame(f);
      },
    });
    const { root } = await mountWith(chat);
    await ask(root, "revenue by month");
    await until(() => /The agent stopped answering/.test(root.textContent ?? ""));
    await until(() => byText(root, "button", "Send") !== undefined);
    expect(root.textContent).not.toMatch(/running…/);
    expect(root.querySelector(".cb-chat-cursor")).toBeNull();
    expect(root.textContent).not.toMatch(/POST|TimeoutError/);
    byText(root, "button", "Ask again")!.click();
    await until(() => /Tokens: 1,280/.test(root.textContent ?? ""));
    expect(root.textContent).not.toMatch(/The agent stopped answering/);
  });

  it("after a reload mid-answer, resumes the open thread with the running messageId (no second question)", async () => {
    const mid = "1763900000123-message";
    const chat = scriptedChat({
      availability: {
        ok: true,
        prefs: {
          agentId: null,
          openThreadId: "chat-9",
          threads: [{ chatId: "chat-9", title: "revenue by month", at: "2026-01-01T00:00:00Z" }],
        },
      },
      send: async (i) => {
        const fs = answerFrames(mid, "chat-9", "revenue by month");
        if (i.input === undefined) {
          // The thread's state: the question and the answer so far, still streaming.
          i.onFrame(fs[1]!);
          for (const f of fs.slice(0, 7)) if (f.role) i.onFrame({ ...f, isDelta: false });
          i.onFrame({ id: "__state__", state: { chatId: "chat-9", status: "streaming", activeMessageId: mid } });
          return;
        }
        // The resubscribed stream: what was said so far as full frames, then the rest.
        for (const f of fs) i.onFrame(f.id === `${mid.replace(/-message$/, "")}-a` && f.content ? { ...f, isDelta: f.isDelta } : f);
      },
    });
    const { root } = await mountWith(chat);
    await until(() => /Tokens: 1,280/.test(root.textContent ?? ""));
    expect(chat.calls).toEqual(["send (state) chat-9 -", `send revenue by month chat-9 ${mid}`]);
    expect(root.querySelectorAll(".cb-chat-user")).toHaveLength(1);
    expect(root.querySelectorAll(".cb-chat-md")).toHaveLength(1);
  });
});

describe("the answer's table", () => {
  it("issue 31 item 5: numbers show their column's decimals on every row (17,105,391.90, not 17,105,391.9)", () => {
    const host = document.createElement("div");
    document.body.append(host);
    const r = {
      sqlQuery: "select …",
      uuid: "u1",
      totalRows: 3,
      schema: [
        { name: "month", column_type: "DATE" },
        { name: "revenue", column_type: "DECIMAL(38,2)" },
        { name: "orders", column_type: "BIGINT" },
        { name: "avg_ratio", column_type: "DOUBLE" },
        { name: "whole", column_type: "DOUBLE" },
      ],
      data: [
        ["2025-01-01T00:00:00", 17105391.9, 1200, 0.5, 3],
        ["2025-02-01T00:00:00", 16000000, 1100, 0.125, 4],
        ["2025-03-01T00:00:00", 15432.125, 1000, 2, 5],
      ],
    };
    render(<ResultTable r={r} />, host);
    const rows = [...host.querySelectorAll(".cb-table tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent));
    const n = (v: number, d: number) => v.toLocaleString(undefined, { minimumFractionDigits: d, maximumFractionDigits: d });
    expect(rows).toEqual([
      ["2025-01-01", n(17105391.9, 2), n(1200, 0), n(0.5, 2), n(3, 0)],
      ["2025-02-01", n(16000000, 2), n(1100, 0), n(0.125, 2), n(4, 0)],
      ["2025-03-01", n(15432.125, 2), n(1000, 0), n(2, 2), n(5, 0)],
    ]);
    expect(rows[0]![1]).toMatch(/^17.105.391.90$/);
    render(null, host);
    host.remove();
  });
});
