// The live ChatService (src/taskpane/chat/live.ts) against the stand-in: availability from
// app-config (off, paywalled), preferences round trip through PATCH /users/me/settings, a question
// over the deployment form, and "save as report" with the answer's full SQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { createPlatformClient } from "../../src/api";
import { createChatService } from "../../src/taskpane/chat/live";
import type { ChatFrame } from "../../src/taskpane/chat/live-conversation";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, chatDeltaMs: 0 });
});
afterAll(async () => {
  await p?.close();
});

const service = () =>
  createChatService(
    { baseUrl: p.info.baseUrl, dataUrl: p.info.dataUrl, credential: p.info.apiKeys.analyst },
    { id: 1, name: "Sales Analytics" },
  );

describe("live ChatService", () => {
  it("says why chat is unavailable: turned off, or AI not enabled", async () => {
    p.setAppConfig({ sheetsAgentChatEnabled: false });
    expect(await service().open()).toMatchObject({ ok: false, title: "Chat is turned off for spreadsheets" });
    p.setAppConfig({ sheetsAgentChatEnabled: true, aiPaywalled: true });
    expect(await service().open()).toMatchObject({ ok: false, title: "AI is not enabled for this account" });
    p.setAppConfig({ aiPaywalled: false });
    expect(await service().open()).toMatchObject({ ok: true });
  });

  it("keeps preferences on the platform (agent, open thread, thread list)", async () => {
    const s = service();
    await s.open();
    await s.savePrefs({
      agentId: "sales-auto-agent",
      openThreadId: "t-1",
      threads: [{ chatId: "t-1", title: "revenue", at: "2026-01-01T00:00:00Z" }],
    });
    const again = await service().open();
    expect(again).toEqual({
      ok: true,
      prefs: {
        agentId: "sales-auto-agent",
        openThreadId: "t-1",
        threads: [{ chatId: "t-1", title: "revenue", at: "2026-01-01T00:00:00Z" }],
      },
    });
    await s.savePrefs({ openThreadId: null });
    // The longest list the pane keeps: 20 threads with 80-character titles.
    const many = Array.from({ length: 20 }, (_, i) => ({
      chatId: `0b7a0b5e-6d5e-4d59-9d1e-6f0f9c1f0a${String(i).padStart(2, "0")}`,
      title: "q".repeat(80),
      at: "2026-01-01T00:00:00.000Z",
    }));
    await s.savePrefs({ threads: many });
    expect((await service().open()) as { prefs: { threads: unknown[] } }).toMatchObject({ prefs: { threads: many } });
    expect(await service().open()).toMatchObject({ prefs: { openThreadId: null } });
  });

  it("asks over the deployment form and saves the answer's full SQL as a report", async () => {
    const s = service();
    await s.open();
    const frames: ChatFrame[] = [];
    const r = await s.send({ input: "revenue by day", onFrame: (f) => frames.push(f) });
    expect(r.completed).toBe(true);
    const sql = frames
      .filter((f) => f.toolCall?.name === "svcSqlApi" && f.toolCall.result)
      .map((f) => JSON.parse(f.toolCall!.result!) as { sqlQuery: string; totalRows: number })[0]!;
    expect(sql.totalRows).toBe(1095);
    const saved = await s.saveAsReport({ sqlQuery: sql.sqlQuery, title: "Revenue by day" });
    const client = createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.analyst });
    let found;
    for await (const rep of client.iterateReports(1)) if (rep.id === saved.reportId) found = rep;
    expect(found).toMatchObject({ name: "Revenue by day (from Chat)", sqlQuery: sql.sqlQuery });
    // Placing the same answer again adds no duplicate report to the shared catalogue (issue 25 §5).
    const again = await s.saveAsReport({ sqlQuery: sql.sqlQuery, title: "Revenue by day" });
    expect(again).toEqual(saved);
    // Another answer under a title already used gets a name of its own.
    const other = await s.saveAsReport({ sqlQuery: `${sql.sqlQuery} `, title: "Revenue by day" });
    expect(other.name).toBe("Revenue by day (from Chat, 2)");
  });
});

describe("live ChatService on a deployment whose token sign-in for chat is off (issue 14)", () => {
  // Deployment 2 refuses the deployment form; the agent form needs an agent id. The outsider (an
  // editor in both deployments) has saved none: the host's default (in dev, the stand-in's) is used.
  const onDeployment2 = (defaults?: { defaultAgentId?: string }) =>
    createChatService(
      { baseUrl: p.info.baseUrl, dataUrl: p.info.dataUrl, credential: p.info.apiKeys.outsider },
      { id: 2, name: "Finance Sandbox" },
      undefined,
      defaults,
    );

  it("answers without the user typing an agent id, using the stand-in's default agent", async () => {
    expect(p.info.chat.tokenChatDeploymentIds).not.toContain(2);
    const s = onDeployment2({ defaultAgentId: p.info.chat.agentId });
    expect(await s.open()).toMatchObject({ ok: true, prefs: { agentId: p.info.chat.agentId } });
    const frames: ChatFrame[] = [];
    const r = await s.send({ input: "revenue by month", onFrame: (f) => frames.push(f) });
    expect(r.completed).toBe(true);
    expect(frames.some((f) => f.toolCall?.name === "svcSqlApi" && f.toolCall.result)).toBe(true);
  });

  it("without a default, the agent form has no agent and the question is refused", async () => {
    const s = onDeployment2();
    expect(await s.open()).toMatchObject({ ok: true, prefs: { agentId: null } });
    await expect(s.send({ input: "revenue by month", onFrame: () => {} })).rejects.toThrow();
  });
});
