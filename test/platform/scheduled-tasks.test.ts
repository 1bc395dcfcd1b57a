// The stand-in's scheduled tasks against seeds 01 §4.4/§4.5 with issue 23's choices (docs/API.md §12):
// one describe per rule of §4.5, plus the resource, partial update, runs on the stand-in's clock
// and the run's thread read through the chat API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { nextRun } from "../../dev/platform/scheduled-tasks";
import { decodeChunks } from "../../src/api/chat/ndjson";
import { ChatFrame } from "../../src/api/chat/schemas";
import { ScheduledTask, ScheduledTaskPage, ScheduledTaskRunPage, RunStarted } from "../../src/api/schemas/scheduled-tasks";
import type { PersonaName } from "../../dev/platform/personas";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, devHooks: true, chatDeltaMs: 0 });
});
afterAll(async () => {
  await p?.close();
});

interface Call {
  status: number;
  json: unknown;
}
async function call(method: string, path: string, o: { as?: PersonaName; auth?: string; body?: unknown } = {}): Promise<Call> {
  const headers: Record<string, string> = { authorization: o.auth ?? `Bearer ${p.info.apiKeys[o.as ?? "analyst"]}` };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(p.info.baseUrl + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
const base = (d = 1) => `/api/v1/deployments/${d}/scheduled-tasks`;
const weekly = { name: "Monday revenue", prompt: "revenue by month", cron: "0 8 * * 1", timezone: "Asia/Kathmandu" };
async function create(body: Record<string, unknown>, as: PersonaName = "analyst", d = 1): Promise<ScheduledTask> {
  const r = await call("POST", base(d), { as, body });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return ScheduledTask.parse(r.json);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(50);
  }
}
async function runs(taskId: number, q = "", as: PersonaName = "analyst") {
  const r = await call("GET", `${base()}/${taskId}/runs${q}`, { as });
  expect(r.status).toBe(200);
  return ScheduledTaskRunPage.parse(r.json);
}
async function cleanup(as: PersonaName): Promise<void> {
  for (const d of [1, 2]) {
    const r = await call("GET", base(d), { as: "admin" });
    for (const t of ScheduledTaskPage.parse(r.json).items)
      if (t.userId === userIds[as]) expect((await call("DELETE", `${base(d)}/${t.id}`, { as: "admin" })).status).toBe(204);
  }
}
const userIds: Record<PersonaName, number> = { admin: 1, analyst: 2, viewer: 3, outsider: 4 };

describe("the resource (seeds 01 §2.8, issue 23)", () => {
  it("POST → 201 with every field; nextRunAt is the next Monday 8:00 in Asia/Kathmandu (UTC+5:45)", async () => {
    const t = await create(weekly);
    expect(t).toMatchObject({ ...weekly, enabled: true, userId: userIds.analyst });
    expect(Object.keys(t).sort()).toEqual(["createdAt", "cron", "enabled", "id", "name", "nextRunAt", "prompt", "timezone", "userId"]);
    const next = new Date(t.nextRunAt!);
    expect(next.getUTCDay()).toBe(1); // 8:00 in Kathmandu is 02:15 UTC the same Monday
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([2, 15]);
    expect(next.getTime()).toBeGreaterThan(p.clock.now());
    expect(next.getTime() - p.clock.now()).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
    expect((await call("GET", `${base()}/${t.id}`)).json).toEqual(t);
  });

  it("on demand (no cron): nextRunAt null; a paused scheduled task: nextRunAt null", async () => {
    const manual = await create({ name: "Ad hoc", prompt: "orders by status" });
    expect(manual).toMatchObject({ cron: null, timezone: null, enabled: true, nextRunAt: null });
    const paused = await create({ ...weekly, enabled: false });
    expect(paused.nextRunAt).toBeNull();
  });

  it("PUT changes only the fields sent; pausing clears nextRunAt, resuming sets it; DELETE → 204, then 404", async () => {
    const t = await create(weekly);
    const renamed = ScheduledTask.parse((await call("PUT", `${base()}/${t.id}`, { body: { name: "Renamed" } })).json);
    expect(renamed).toEqual({ ...t, name: "Renamed" });
    const paused = ScheduledTask.parse((await call("PUT", `${base()}/${t.id}`, { body: { enabled: false } })).json);
    expect(paused).toMatchObject({ enabled: false, nextRunAt: null, cron: weekly.cron, prompt: weekly.prompt });
    const resumed = ScheduledTask.parse((await call("PUT", `${base()}/${t.id}`, { body: { enabled: true } })).json);
    expect(resumed.nextRunAt).toBe(t.nextRunAt);
    const manual = ScheduledTask.parse((await call("PUT", `${base()}/${t.id}`, { body: { cron: null } })).json);
    expect(manual).toMatchObject({ cron: null, timezone: weekly.timezone, nextRunAt: null });
    expect((await call("PUT", `${base()}/${t.id}`, { body: { userId: 1 } })).status).toBe(400); // read only
    expect((await call("DELETE", `${base()}/${t.id}`)).status).toBe(204);
    expect((await call("GET", `${base()}/${t.id}`)).status).toBe(404);
    // A task of another deployment is not found under this one.
    const other = await create(weekly, "outsider", 2);
    expect((await call("GET", `${base(1)}/${other.id}`, { as: "outsider" })).status).toBe(404);
  });

  it("name 1–200 and prompt 1–4000 characters; unknown fields are refused", async () => {
    expect((await call("POST", base(), { body: { ...weekly, name: "" } })).json).toMatchObject({ field: "name" });
    expect((await call("POST", base(), { body: { ...weekly, name: "n".repeat(201) } })).status).toBe(400);
    expect((await call("POST", base(), { body: { ...weekly, prompt: "p".repeat(4001) } })).json).toMatchObject({ field: "prompt" });
    await create({ ...weekly, name: "n".repeat(200), prompt: "p".repeat(4000) });
    expect((await call("POST", base(), { body: { ...weekly, schedule: "weekly" } })).status).toBe(400);
  });
});

describe("§4.5 rule 1: 403 unless enabled for the account, read access to the deployment, and not an embed session", () => {
  it("scheduled tasks turned off for the account: every route answers 403 (code scheduled_tasks_disabled)", async () => {
    const t = await create(weekly);
    p.setScheduledTasks(false);
    try {
      for (const [m, path, body] of [
        ["GET", base()],
        ["POST", base(), weekly],
        ["GET", `${base()}/${t.id}`],
        ["PUT", `${base()}/${t.id}`, { name: "x" }],
        ["DELETE", `${base()}/${t.id}`],
        ["POST", `${base()}/${t.id}/run`],
        ["GET", `${base()}/${t.id}/runs`],
      ] as const) {
        const r = await call(m, path, body ? { body } : {});
        expect(r.status, `${m} ${path}`).toBe(403);
        expect(r.json).toMatchObject({ code: "scheduled_tasks_disabled" });
      }
    } finally {
      p.setScheduledTasks(true);
    }
    expect((await call("GET", `${base()}/${t.id}`)).status).toBe(200);
  });

  it("no read access to the deployment → 403 (the analyst has no role in deployment 2); unknown deployment → 404; no key → 401", async () => {
    expect((await call("GET", base(2))).status).toBe(403);
    expect((await call("POST", base(2), { body: weekly })).status).toBe(403);
    expect((await call("GET", base(9))).status).toBe(404);
    expect((await call("GET", base(), { auth: "Bearer nope" })).status).toBe(401);
  });

  it("an embed session's token → 403 (code embed_session), as Bearer or Embed-Token, even a console user's", async () => {
    const gen = await call("POST", "/api/v1/embed/generate-session", { as: "admin", body: { internalId: "ana.analyst@cellbound.test" } });
    const { sessionId } = gen.json as { sessionId: string };
    const tok = await call("POST", "/api/v1/embed/session/token", { auth: "", body: { sessionId } });
    const { token } = tok.json as { token: string };
    for (const auth of [`Bearer ${token}`, `Embed-Token ${token}`]) {
      const r = await call("GET", base(), { auth });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ code: "embed_session" });
    }
  });
});

describe("§4.5 rule 2: anyone with access lists and reads; only the creator or an admin updates, deletes or runs", () => {
  it("the viewer and another editor read the analyst's task but cannot change, delete or run it; the admin can", async () => {
    const t = await create(weekly);
    for (const as of ["viewer", "outsider"] as const) {
      const list = ScheduledTaskPage.parse((await call("GET", base(), { as })).json);
      expect(list.items.map((x) => x.id)).toContain(t.id);
      expect((await call("GET", `${base()}/${t.id}`, { as })).status).toBe(200);
      expect((await call("PUT", `${base()}/${t.id}`, { as, body: { name: "mine" } })).status).toBe(403);
      expect((await call("POST", `${base()}/${t.id}/run`, { as })).status).toBe(403);
      expect((await call("GET", `${base()}/${t.id}/runs`, { as })).status).toBe(200);
      expect((await call("DELETE", `${base()}/${t.id}`, { as })).status).toBe(403);
    }
    const byAdmin = await call("PUT", `${base()}/${t.id}`, { as: "admin", body: { name: "Admin renamed" } });
    expect(byAdmin.json).toMatchObject({ name: "Admin renamed", userId: userIds.analyst });
    expect((await call("POST", `${base()}/${t.id}/run`, { as: "admin" })).status).toBe(202);
    expect((await call("DELETE", `${base()}/${t.id}`, { as: "admin" })).status).toBe(204);
  });
});

describe("§4.5 rule 3: a cron fires at most once an hour (one-number minute field); a bad cron or time zone → 400", () => {
  it.each(["* * * * *", "*/5 * * * *", "0,30 * * * *", "0-10 8 * * *", "*/60 * * * *", "@hourly", "0 8 * *", "0 0 8 * * 1", "60 8 * * *"])(
    "refuses %j (field cron)",
    async (cron) => {
      const r = await call("POST", base(), { body: { ...weekly, cron } });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ field: "cron" });
    },
  );
  it("refuses a cron croner cannot parse (hour 25, month 13)", async () => {
    for (const cron of ["0 25 * * *", "0 8 * 13 *"]) {
      const r = await call("POST", base(), { body: { ...weekly, cron } });
      expect(r.status, cron).toBe(400);
      expect(r.json).toMatchObject({ field: "cron" });
    }
  });
  it("accepts hourly at one minute, weekly, monthly", async () => {
    for (const cron of ["15 * * * *", "0 8 * * 1", "30 6 1 * *", "0 9-17 * * 1-5"]) await create({ ...weekly, cron });
  });
  it("accepts every current IANA name (Asia/Kolkata, Asia/Kathmandu, Europe/Kyiv), refuses others; a cron needs a time zone", async () => {
    for (const timezone of ["Asia/Kolkata", "Asia/Kathmandu", "Europe/Kyiv", "America/Argentina/Buenos_Aires", "UTC"])
      expect((await create({ ...weekly, timezone })).timezone).toBe(timezone);
    for (const timezone of ["Mars/Phobos", "+05:45", "UTC+5", "Europe/Kyiv'; DROP", ""]) {
      const r = await call("POST", base(), { body: { ...weekly, timezone } });
      expect(r.status, timezone).toBe(400);
      expect(r.json).toMatchObject({ field: "timezone" });
    }
    const { timezone: _tz, ...noZone } = weekly;
    expect((await call("POST", base(), { body: noZone })).json).toMatchObject({ field: "timezone" });
    const manual = await create({ name: "m", prompt: "orders" });
    expect((await call("PUT", `${base()}/${manual.id}`, { body: { cron: "0 8 * * 1" } })).json).toMatchObject({ field: "timezone" });
  });
  it("computes nextRunAt across a DST change in the task's zone (Europe/Kyiv, 8:00 every day)", () => {
    // 2026-03-29: Kyiv goes from UTC+2 to UTC+3 at 03:00.
    expect(nextRun("0 8 * * *", "Europe/Kyiv", Date.parse("2026-03-28T12:00:00Z"))).toBe("2026-03-29T05:00:00.000Z");
    expect(nextRun("0 8 * * *", "Europe/Kyiv", Date.parse("2026-03-27T12:00:00Z"))).toBe("2026-03-28T06:00:00.000Z");
  });
});

describe("§4.5 rule 4: at most 20 active tasks per user across the account's deployments", () => {
  it("the 21st active task (create or resume) → 409 scheduled_task_limit; manual and paused ones do not count", async () => {
    await cleanup("outsider");
    for (let i = 0; i < 20; i++) await create({ ...weekly, name: `t${i}` }, "outsider", i < 10 ? 1 : 2);
    for (const d of [1, 2]) {
      const r = await call("POST", base(d), { as: "outsider", body: weekly });
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({ code: "scheduled_task_limit" });
    }
    const manual = await create({ name: "manual", prompt: "orders" }, "outsider");
    const paused = await create({ ...weekly, enabled: false }, "outsider");
    // Resuming past the limit, or giving a manual task a cron, is refused; pausing one makes room.
    expect((await call("PUT", `${base()}/${paused.id}`, { as: "outsider", body: { enabled: true } })).status).toBe(409);
    expect((await call("PUT", `${base()}/${manual.id}`, { as: "outsider", body: { cron: "0 8 * * 1", timezone: "UTC" } })).status).toBe(
      409,
    );
    expect((await call("PUT", `${base()}/${paused.id}`, { as: "outsider", body: { name: "still paused" } })).status).toBe(200);
    const list = ScheduledTaskPage.parse((await call("GET", base(1), { as: "outsider" })).json).items;
    const some = list.find((t) => t.userId === userIds.outsider && t.enabled && t.cron)!;
    expect((await call("PUT", `${base()}/${some.id}`, { as: "outsider", body: { enabled: false } })).status).toBe(200);
    expect((await call("PUT", `${base()}/${paused.id}`, { as: "outsider", body: { enabled: true } })).status).toBe(200);
    // Other users are not affected by the outsider's count.
    await create(weekly, "viewer");
    // An admin resuming the outsider's task counts against the outsider (the creator).
    expect((await call("PUT", `${base()}/${some.id}`, { as: "admin", body: { enabled: true } })).status).toBe(409);
    await cleanup("outsider");
  });
});

describe("§4.5 rule 5: the tasks list has no cap; runs are the 50 most recent, newest first", () => {
  it("omitting first returns every task; first/after page through them", async () => {
    // On-demand tasks do not count against the limit: 40 of them by one user.
    for (let i = 0; i < 40; i++) await create({ name: `manual ${i}`, prompt: "orders" }, "viewer");
    const all = ScheduledTaskPage.parse((await call("GET", base())).json);
    expect(all.items.length).toBeGreaterThan(40);
    expect(all.pageInfo.hasNextPage).toBe(false);
    const seen: number[] = [];
    let after: string | null = null;
    do {
      const pg = ScheduledTaskPage.parse((await call("GET", `${base()}?first=7${after ? `&after=${after}` : ""}`)).json);
      seen.push(...pg.items.map((t) => t.id));
      after = pg.pageInfo.hasNextPage ? pg.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(all.items.map((t) => t.id));
  });

  it("POST run → 202 {runId, chatId}; the runs list keeps the 50 most recent, newest first; first/after page within them", async () => {
    const t = await create({ name: "Chatty", prompt: "hello there" }); // no SQL: a quick run
    const started: string[] = [];
    for (let i = 0; i < 53; i++) {
      const r = await call("POST", `${base()}/${t.id}/run`);
      expect(r.status).toBe(202);
      started.push(RunStarted.parse(r.json).runId);
    }
    const all = await runs(t.id);
    expect(all.items.map((r) => r.id)).toEqual(started.slice(3).reverse());
    expect(all.pageInfo.hasNextPage).toBe(false);
    const first = await runs(t.id, "?first=20");
    const second = await runs(t.id, `?first=20&after=${first.pageInfo.endCursor}`);
    const third = await runs(t.id, `?first=20&after=${second.pageInfo.endCursor}`);
    expect([...first.items, ...second.items, ...third.items].map((r) => r.id)).toEqual(all.items.map((r) => r.id));
    expect(third.items).toHaveLength(10);
    expect(third.pageInfo.hasNextPage).toBe(false);
  });
});

describe("runs: a real chat thread of the creator; the stand-in's clock runs due tasks", () => {
  async function thread(chatId: string, as: "analyst" | "viewer") {
    const tok = await call("POST", "/api/v1/deployments/1/token", { as, body: {} });
    const res = await fetch(`${p.info.aiUrl}/api/v1/public/${p.info.accountName}/deployments/1/chat/stream-chat-state`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-svc-auth-token": (tok.json as { token: string }).token },
      body: JSON.stringify({ chatId }),
    });
    const text = await res.text();
    if (res.status !== 200) return { status: res.status, frames: [] };
    const frames = decodeChunks([new TextEncoder().encode(text)]).map((i) => (i.ok ? ChatFrame.parse(i.value) : null));
    return { status: res.status, frames };
  }

  it("Run now starts a turn of the agent in a new thread of the creator; the run succeeds; another user cannot read the thread", async () => {
    const t = await create(weekly);
    const r = RunStarted.parse((await call("POST", `${base()}/${t.id}/run`)).json);
    expect(r.runId).toMatch(/^run_/);
    const done = await until(async () => (await runs(t.id)).items.find((x) => x.id === r.runId && x.status !== "running"));
    expect(done).toMatchObject({ status: "succeeded", chatId: r.chatId });
    expect(Date.parse(done.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
    const mine = await thread(r.chatId, "analyst");
    expect(mine.status).toBe(200);
    expect(mine.frames.find((f) => f?.role === "user")?.content).toBe("revenue by month");
    expect(mine.frames.some((f) => f?.toolCall?.name === "svcSqlApi" && f.toolCall.result)).toBe(true);
    expect(mine.frames.some((f) => f?.graphPath?.[0] === "final" && (f.content ?? "").includes("Revenue by month"))).toBe(true);
    expect((await thread(r.chatId, "viewer")).status).toBe(404);
  });

  it("advancing the stand-in's clock (POST /__dev/clock) past nextRunAt runs the task once and moves nextRunAt on", async () => {
    const t = await create({ name: "Hourly", prompt: "orders by status", cron: "0 * * * *", timezone: "UTC" });
    expect((await runs(t.id)).items).toHaveLength(0);
    const before = Date.parse(t.nextRunAt!);
    const adv = await fetch(`${p.info.baseUrl}/__dev/clock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ advanceMs: before - p.clock.now() + 1000 }),
    });
    expect(adv.status).toBe(200);
    const r = await until(async () => (await runs(t.id)).items[0]);
    expect(r.status === "running" || r.status === "succeeded").toBe(true);
    const after = ScheduledTask.parse((await call("GET", `${base()}/${t.id}`)).json);
    expect(Date.parse(after.nextRunAt!)).toBe(before + 3600_000);
    await until(async () => (await runs(t.id)).items[0]?.status === "succeeded");
    // A paused task does not run when it comes due.
    await call("PUT", `${base()}/${t.id}`, { body: { enabled: false } });
    p.clock.advance(2 * 3600_000);
    await sleep(1200);
    expect((await runs(t.id)).items).toHaveLength(1);
  });
});
