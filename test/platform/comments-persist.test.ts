// Embed users and comments survive a restart of the stand-in on the same data dir (DuckDB); sessions
// do not: an old token answers 401 and a new session for the same viewer is the same user.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../dev/platform/server";

const dir = mkdtempSync(path.join(tmpdir(), "cellbound-embed-persist-"));
let running: RunningPlatform | null = null;
afterAll(async () => {
  await running?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function token(p: RunningPlatform, externalId: string, tenant: string): Promise<string> {
  const s = (await (
    await fetch(`${p.info.baseUrl}/__dev/embed-session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ externalId, embedTenantName: tenant, email: `${externalId}@acme.test` }),
    })
  ).json()) as { sessionId: string };
  const t = (await (
    await fetch(`${p.info.baseUrl}/api/v1/embed/session/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(s),
    })
  ).json()) as { token: string };
  return t.token;
}

const req = (p: RunningPlatform, tok: string, method: string, rest: string, body?: unknown) =>
  fetch(`${p.info.baseUrl}/api/v1/embed/dashboard/${p.info.embed.dashboards.shared}/comments${rest}`, {
    method,
    headers: { authorization: `Embed-Token ${tok}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

describe("embed state across a restart", () => {
  it("keeps users, threads, edits, deletions and resolutions; forgets sessions", async () => {
    running = await startPlatform({ log: () => {}, devHooks: true, dataDir: dir });
    let p = running;
    const ana = await token(p, "ana", "t-persist");
    const ben = await token(p, "ben", "t-persist");
    const root = (await (await req(p, ana, "POST", "", { body: "kept" })).json()) as { id: number; userId: number };
    const reply = (await (await req(p, ben, "POST", "", { body: "gone soon", parentId: root.id })).json()) as { id: number };
    await req(p, ben, "POST", "", { body: "stays", parentId: root.id });
    expect((await req(p, ben, "DELETE", `/${reply.id}`)).status).toBe(204);
    expect((await req(p, ana, "PATCH", `/${root.id}`, { body: "kept, edited" })).status).toBe(200);
    expect((await req(p, ana, "POST", `/${root.id}/resolve`, { resolved: true })).status).toBe(200);
    await p.close();

    running = await startPlatform({ log: () => {}, devHooks: true, dataDir: dir });
    p = running;
    expect((await req(p, ana, "GET", "")).status).toBe(401); // sessions are not kept
    const ana2 = await token(p, "ana", "t-persist");
    const list = (await (await req(p, ana2, "GET", "?includeResolved=true")).json()) as {
      items: {
        root: { id: number; body: string; isOwn: boolean; userId: number; editedAt: string | null };
        replies: { body: string }[];
        resolvedBy?: number;
      }[];
    };
    expect(list.items).toHaveLength(1);
    const t = list.items[0]!;
    expect(t.root).toMatchObject({ id: root.id, body: "kept, edited", isOwn: true, userId: root.userId, editedAt: expect.any(String) });
    expect(t.replies.map((r) => r.body)).toEqual(["stays"]);
    expect(t.resolvedBy).toBe(root.userId);
    const users = (await (await req(p, ana2, "GET", "/mentionable-users")).json()) as { items: { username: string; email: string }[] };
    expect(users.items).toEqual([
      expect.objectContaining({ username: "ana", email: "ana@acme.test" }),
      expect.objectContaining({ username: "ben" }),
    ]);
    // New ids continue after the stored ones.
    const next = (await (await req(p, ana2, "POST", "", { body: "after restart" })).json()) as { id: number };
    expect(next.id).toBeGreaterThan(reply.id + 1);
    const carol = await token(p, "carol", "t-persist");
    const carolId = ((await (await req(p, carol, "GET", "/mentionable-users?search=carol")).json()) as { items: { id: number }[] })
      .items[0]!.id;
    expect(carolId).toBeGreaterThan(root.userId);
  });
});
