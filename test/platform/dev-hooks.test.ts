// The stand-in's dev hooks exist only when asked for, and its clock drives token expiry.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";

let plain: RunningPlatform;
let dev: RunningPlatform;

beforeAll(async () => {
  [plain, dev] = await Promise.all([startPlatform({ log: () => {} }), startPlatform({ log: () => {}, devHooks: true })]);
});
afterAll(async () => {
  await Promise.all([plain?.close(), dev?.close()]);
});

const post = (p: RunningPlatform, path: string, body: unknown, key?: string) =>
  fetch(`${p.info.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });

describe("POST /__dev/clock", () => {
  it("is absent (404) unless the stand-in was started with dev hooks", async () => {
    expect((await post(plain, "/__dev/clock", { advanceMs: 1000 })).status).toBe(404);
  });

  it("rejects a negative or non-integer advance with 400 naming advanceMs", async () => {
    for (const advanceMs of [-1, 1.5, "10"]) {
      const res = await post(dev, "/__dev/clock", { advanceMs });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ field: "advanceMs" });
    }
  });

  it("moves the clock that data tokens expire by", async () => {
    const minted = await post(dev, "/api/v1/deployments/1/token", { expiresIn: 120 }, dev.info.apiKeys.analyst);
    const { token } = (await minted.json()) as { token: string };
    const meta = () => fetch(`${dev.info.dataUrl}/v1/meta`, { headers: { authorization: token } });
    expect((await meta()).status).toBe(200);
    const moved = await post(dev, "/__dev/clock", { advanceMs: 121_000 });
    expect(moved.status).toBe(200);
    expect(Date.parse(((await moved.json()) as { now: string }).now)).toBeGreaterThan(Date.now() + 120_000);
    expect((await meta()).status).toBe(403);
  });
});
