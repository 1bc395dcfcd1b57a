// GET /api/v1/app-config (start flags set each field) and PATCH /api/v1/users/me/settings
// (field-by-field merge, explicit null clears; GET /users/me carries settings.sheetsSettings).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { AppConfig } from "../../src/api/chat/schemas";
import { Me } from "../../src/api/schemas/management";

let p: RunningPlatform;
let off: RunningPlatform;
beforeAll(async () => {
  [p, off] = await Promise.all([
    startPlatform({ log: () => {} }),
    startPlatform({
      log: () => {},
      appConfig: {
        sheetsAgentChatEnabled: false,
        aiPaywalled: true,
        restrictDataDownload: true,
        timezoneSettings: { timezone: "Europe/Berlin" },
      },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([p?.close(), off?.close()]);
});

const req = (pl: RunningPlatform, method: string, path: string, body?: unknown, key = pl.info.apiKeys.analyst) =>
  fetch(`${pl.info.baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("GET /api/v1/app-config", () => {
  it("answers the five documented fields; chat on by default", async () => {
    const c = AppConfig.parse(await (await req(p, "GET", "/app-config")).json());
    expect(c).toMatchObject({
      aiPaywalled: false,
      sheetsAgentChatEnabled: true,
      dashboardAppsEnabled: true,
      restrictDataDownload: false,
      timezoneSettings: { timezone: "UTC" },
    });
  });
  it("start flags set each field", async () => {
    const c = AppConfig.parse(await (await req(off, "GET", "/app-config")).json());
    expect(c).toMatchObject({
      aiPaywalled: true,
      sheetsAgentChatEnabled: false,
      restrictDataDownload: true,
      timezoneSettings: { timezone: "Europe/Berlin" },
    });
  });
  it("needs a credential", async () => {
    expect((await fetch(`${p.info.baseUrl}/api/v1/app-config`)).status).toBe(401);
  });
});

describe("PATCH /api/v1/users/me/settings", () => {
  it("merges sheetsSettings field by field, null clears, and GET /users/me carries them", async () => {
    const a = await req(p, "PATCH", "/users/me/settings", { sheetsSettings: { chatAgentId: "sales-auto-agent", chatOpenThreadId: "t-1" } });
    expect(a.status).toBe(200);
    expect(await a.json()).toEqual({ sheetsSettings: { chatAgentId: "sales-auto-agent", chatOpenThreadId: "t-1" } });
    const b = await req(p, "PATCH", "/users/me/settings", { sheetsSettings: { chatOpenThreadId: null, theme: "dark" } });
    expect(await b.json()).toEqual({ sheetsSettings: { chatAgentId: "sales-auto-agent", theme: "dark" } });
    const me = Me.parse(await (await req(p, "GET", "/users/me")).json());
    expect(me.settings?.sheetsSettings).toEqual({ chatAgentId: "sales-auto-agent", theme: "dark" });
    // Per user: another user's settings are untouched.
    const other = Me.parse(await (await req(p, "GET", "/users/me", undefined, p.info.apiKeys.viewer)).json());
    expect(other.settings?.sheetsSettings).toEqual({});
  });
  it("rejects a body that is not a settings patch (400 naming the field)", async () => {
    const res = await req(p, "PATCH", "/users/me/settings", { sheetsSettings: { x: { nested: true } } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ field: expect.stringContaining("sheetsSettings") });
    expect((await req(p, "PATCH", "/users/me/settings", { other: 1 })).status).toBe(400);
  });
});

describe("npm run platform app-config flags", () => {
  it("--no-chat --ai-paywalled --no-dashboard-apps --restrict-data-download --timezone set each field; --chat-delta-ms is accepted; --no-scheduled-tasks turns scheduled tasks off", async () => {
    const { spawnPlatform } = await import("../../dev/platform/spawn");
    const p = await spawnPlatform([
      "--no-chat",
      "--ai-paywalled",
      "--no-dashboard-apps",
      "--restrict-data-download",
      "--timezone",
      "Asia/Tokyo",
      "--chat-delta-ms",
      "5",
      "--no-scheduled-tasks",
    ]);
    try {
      const res = await fetch(`${p.info.baseUrl}/api/v1/app-config`, { headers: { authorization: `Bearer ${p.info.apiKeys.analyst}` } });
      expect(AppConfig.parse(await res.json())).toMatchObject({
        sheetsAgentChatEnabled: false,
        aiPaywalled: true,
        dashboardAppsEnabled: false,
        restrictDataDownload: true,
        timezoneSettings: { timezone: "Asia/Tokyo" },
      });
      expect(p.info.chat).toEqual({ agentId: "sales-auto-agent", tokenChatDeploymentIds: [1] });
      expect(p.info.deployments.every((d) => /^[0-9a-f]{64}$/.test(d.apiSecret))).toBe(true);
      const tasks = await fetch(`${p.info.baseUrl}/api/v1/deployments/1/scheduled-tasks`, {
        headers: { authorization: `Bearer ${p.info.apiKeys.admin}` },
      });
      expect(tasks.status).toBe(403);
      expect(await tasks.json()).toMatchObject({ code: "scheduled_tasks_disabled" });
    } finally {
      expect(await p.stop()).toBe(0);
    }
  });
});
