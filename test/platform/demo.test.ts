// Issue 25 §5: the demo a fresh clone starts (the stand-in as `npm start` and the e2e harness start
// it: no test fixtures) shows every pane. The catalogue holds the demo's reports and no test fixtures;
// each demo report is on a published dashboard its Comments and Dashboard tabs open; two comments
// users exist from the start, so @mention offers a colleague.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";
import { demoCommentsUsers } from "../../dev/harness/config";
import { createPlatformClient } from "../../src/api";
import { readFileSync } from "node:fs";

let p: RunningPlatform;
beforeAll(async () => {
  p = await startPlatform({ log: () => {}, devHooks: true, fixtures: false });
});
afterAll(async () => {
  await p?.close();
});

async function call(method: string, path: string, auth?: string, body?: unknown) {
  const res = await fetch(p.info.baseUrl + path, {
    method,
    headers: { ...(auth ? { authorization: auth } : {}), ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await res.json()) as Record<string, unknown>;
}

async function embedToken(externalId: string): Promise<string> {
  const { sessionId } = await call("POST", "/__dev/embed-session", undefined, { externalId, embedTenantName: p.info.embed.tenants[0] });
  const { token } = await call("POST", "/api/v1/embed/session/token", undefined, { sessionId });
  return token as string;
}

describe("the demo a fresh clone starts (issue 25 §5)", () => {
  it("the analyst's catalogue holds the demo's reports in their folders and no test fixtures", async () => {
    const client = createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.analyst });
    const listed: { name: string; folder: string }[] = [];
    for await (const r of client.iterateReports(1))
      listed.push({ name: r.name, folder: (r.folderPath ?? []).map((f) => f.name).join(" › ") });
    expect(listed.map((r) => r.folder)).not.toContain("Test fixtures (edge cases)");
    expect(listed.some((r) => /^(Legacy report|Oversized) /.test(r.name))).toBe(false);
    expect(listed).toEqual(
      expect.arrayContaining([
        { name: "Revenue by month", folder: "Sales" },
        { name: "Top customers", folder: "Customers" },
        { name: "Orders by status and region", folder: "Operations" },
      ]),
    );
  });

  it("every demo report is on a published dashboard a comments user can open", async () => {
    const token = await embedToken("ana");
    for (const reportId of [6, 7, 8]) {
      const r = await call("GET", `/api/v1/embed/dashboards?deploymentId=1&reportId=${reportId}`, `Embed-Token ${token}`);
      expect((r.items as unknown[]).length, `report ${reportId}`).toBeGreaterThan(0);
    }
  });

  it("two comments users from the start: ana can mention ben", async () => {
    const viewers = await demoCommentsUsers(p.info.baseUrl, p.info.embed.tenants[0]!);
    expect(viewers.embedViewers!.map((v) => v.name)).toEqual(["Ana", "Ben"]);
    const token = await embedToken("ana");
    const dash = p.info.embed.dashboards.shared;
    const r = await call("GET", `/api/v1/embed/dashboard/${dash}/comments/mentionable-users`, `Embed-Token ${token}`);
    expect((r.items as { username: string }[]).map((u) => u.username)).toEqual(expect.arrayContaining(["ana", "ben"]));
  });

  it("issue 31 item 9: the README names every report the demo's Reports tab shows, the test run's time and needs, and which files round trip", async () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const quickStart = readme.slice(readme.indexOf("## Quick start"), readme.indexOf("## Sideload into Excel"));
    const client = createPlatformClient({ baseUrl: p.info.baseUrl, credential: p.info.apiKeys.analyst });
    const names: string[] = [];
    for await (const r of client.iterateReports(1)) names.push(r.title || r.name);
    expect(names.length).toBeGreaterThan(3);
    for (const name of names) expect(quickStart, name).toContain(name);
    expect(quickStart).toMatch(
      new RegExp(`\\b${["zero", "one", "two", "three", "four", "five", "six", "seven"][names.length]}\\b[^.]*reports`, "i"),
    );
    expect(quickStart).toMatch(/`npm test`[^.]*about 25 minutes/);
    expect(quickStart).toMatch(/needs Chromium and LibreOffice/);
    expect(quickStart).toContain('docs/XLSX.md "Which files round trip"');
    const xlsx = readFileSync(new URL("../../docs/XLSX.md", import.meta.url), "utf8");
    expect(xlsx).toMatch(/## Which files round trip/);
  });
});
