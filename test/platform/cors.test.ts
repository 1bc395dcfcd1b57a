// The pane calls the stand-in from another origin: CORS must allow loopback origins
// (the harness, https://localhost:3000 in Excel) and nothing else.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform } from "../../dev/platform/server";
import { isAllowedOrigin } from "../../dev/platform/cors";

type Running = Awaited<ReturnType<typeof startPlatform>>;
let platform: Running;

beforeAll(async () => {
  platform = await startPlatform({ corsOrigins: ["https://addin.example.com"] });
});
afterAll(async () => {
  await platform?.close();
});

describe("stand-in CORS", () => {
  it("answers a preflight from the harness origin with the methods and headers the pane sends", async () => {
    const res = await fetch(`${platform.info.baseUrl}/api/v1/users/me`, {
      method: "OPTIONS",
      headers: {
        Origin: "http://127.0.0.1:3000",
        "Access-Control-Request-Method": "PUT",
        "Access-Control-Request-Headers": "authorization,content-type",
      },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("access-control-allow-origin")).toBe("http://127.0.0.1:3000");
    expect(res.headers.get("access-control-allow-methods")).toContain("PUT");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
  });

  it("labels error responses too, so the pane can read a 401's body", async () => {
    const res = await fetch(`${platform.info.baseUrl}/api/v1/users/me`, { headers: { Origin: "https://localhost:3000" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://localhost:3000");
  });

  it("covers the data API", async () => {
    const res = await fetch(`${platform.info.dataUrl}/v1/meta`, { headers: { Origin: "http://localhost:8080" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:8080");
  });

  it("gives a foreign origin no allow header; a configured one is allowed", async () => {
    const foreign = await fetch(`${platform.info.baseUrl}/api/v1/users/me`, { headers: { Origin: "https://evil.example" } });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const configured = await fetch(`${platform.info.baseUrl}/api/v1/users/me`, { headers: { Origin: "https://addin.example.com" } });
    expect(configured.headers.get("access-control-allow-origin")).toBe("https://addin.example.com");
  });

  it("matches loopback origins only", () => {
    expect(isAllowedOrigin("http://127.0.0.1:51234")).toBe(true);
    expect(isAllowedOrigin("https://localhost:3000")).toBe(true);
    expect(isAllowedOrigin("http://[::1]:3000")).toBe(true);
    expect(isAllowedOrigin("http://127.0.0.1.evil.example")).toBe(false);
    expect(isAllowedOrigin("http://localhost.evil.example:3000")).toBe(false);
    expect(isAllowedOrigin("null")).toBe(false);
  });
});
