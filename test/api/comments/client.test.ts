// The comments client and the embed session against the stand-in (sessions from its dev broker), and
// against scripted answers where the stand-in cannot misbehave on purpose.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type RunningPlatform } from "../../../dev/platform/server";
import { createCommentsClient, type CommentsClient } from "../../../src/api/comments";
import { createEmbedClient, createEmbedSession, EmbedSessionError, type EmbedSession } from "../../../src/api/embed";
import {
  BadRequestError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  type FetchLike,
} from "../../../src/api";

let p: RunningPlatform;
let shared: string;
let tenant: string;

beforeAll(async () => {
  p = await startPlatform({ log: () => {}, devHooks: true });
  shared = p.info.embed.dashboards.shared;
  tenant = p.info.embed.tenants[0]!;
});
afterAll(() => p?.close());

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** A fetch that records every request on its way to the stand-in. */
function recording(): { fetch: FetchLike; seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    fetch: (url, init) => {
      seen.push({ url, method: String(init.method), headers: { ...(init.headers as Record<string, string>) } });
      return fetch(url, init);
    },
  };
}

function viewer(externalId: string, t = tenant, f?: FetchLike): { session: EmbedSession; comments: CommentsClient } {
  const session = createEmbedSession({
    baseUrl: p.info.baseUrl,
    sessionUrl: `${p.info.baseUrl}/__dev/embed-session`,
    sessionRequest: { externalId, embedTenantName: t },
    ...(f ? { fetch: f } : {}),
  });
  return {
    session,
    comments: createCommentsClient({ baseUrl: p.info.baseUrl, session, ...(f ? { fetch: f } : {}), retry: { maxAttempts: 1 } }),
  };
}

describe("embed session", () => {
  it("gets a session id from the session URL, exchanges it without an Authorization header, and keeps the token", async () => {
    const rec = recording();
    const { session } = viewer("sess-1", tenant, rec.fetch);
    const token = await session.getToken();
    expect(await session.getToken()).toBe(token);
    expect(rec.seen.map((s) => new URL(s.url).pathname)).toEqual(["/__dev/embed-session", "/api/v1/embed/session/token"]);
    for (const s of rec.seen) expect(Object.keys(s.headers).map((h) => h.toLowerCase())).not.toContain("authorization");
    expect(session.expiresAt()! - Date.now()).toBeGreaterThan(22 * 3600_000);
  });

  it("concurrent callers share one mint", async () => {
    const rec = recording();
    const { session } = viewer("sess-2", tenant, rec.fetch);
    const tokens = await Promise.all([session.getToken(), session.getToken(), session.getToken()]);
    expect(new Set(tokens).size).toBe(1);
    expect(rec.seen).toHaveLength(2);
  });

  it("renews before the token stops working (about 23 h), not after", async () => {
    let now = Date.now();
    const rec = recording();
    const session = createEmbedSession({
      baseUrl: p.info.baseUrl,
      sessionUrl: `${p.info.baseUrl}/__dev/embed-session`,
      sessionRequest: { externalId: "sess-3" },
      fetch: rec.fetch,
      now: () => now,
    });
    const first = await session.getToken();
    now += 18 * 3600_000;
    expect(await session.getToken()).toBe(first);
    now += 1 * 3600_000; // 19 h: past 80 % of the 23 usable hours
    expect(await session.getToken()).not.toBe(first);
    expect(rec.seen).toHaveLength(4);
  });

  it("a session URL that fails or answers without a sessionId is a clear error", async () => {
    const status500: FetchLike = async () => new Response(JSON.stringify({ error: "down" }), { status: 500 });
    const s1 = createEmbedSession({ baseUrl: p.info.baseUrl, sessionUrl: "https://broker.example/session", fetch: status500 });
    await expect(s1.getToken()).rejects.toBeInstanceOf(EmbedSessionError);
    const noId: FetchLike = async () => new Response(JSON.stringify({ id: "x" }), { status: 200 });
    const s2 = createEmbedSession({ baseUrl: p.info.baseUrl, sessionUrl: "https://broker.example/session", fetch: noId });
    await expect(s2.getToken()).rejects.toBeInstanceOf(InvalidResponseError);
  });

  it("a session id the platform refuses (redeemed, expired) is an UnauthorizedError", async () => {
    const used = (await (
      await fetch(`${p.info.baseUrl}/__dev/embed-session`, {
        method: "POST",
        body: JSON.stringify({ externalId: "x" }),
        headers: { "content-type": "application/json" },
      })
    ).json()) as { sessionId: string };
    await fetch(`${p.info.baseUrl}/api/v1/embed/session/token`, {
      method: "POST",
      body: JSON.stringify(used),
      headers: { "content-type": "application/json" },
    });
    const broker: FetchLike = (url, init) =>
      url.startsWith("https://broker.example") ? Promise.resolve(new Response(JSON.stringify(used))) : fetch(url, init);
    const s = createEmbedSession({ baseUrl: p.info.baseUrl, sessionUrl: "https://broker.example/session", fetch: broker });
    await expect(s.getToken()).rejects.toBeInstanceOf(UnauthorizedError);
  });
});

describe("comments client", () => {
  it("posts, replies, edits, resolves, reopens and deletes, with typed answers", async () => {
    const { comments } = viewer("c-ann", "t-client");
    const root = await comments.postComment(shared, { body: "Why did returns jump in May?" });
    expect(root).toMatchObject({ dashboardId: shared, isOwn: true, editedAt: null });
    const reply = await comments.postComment(shared, { body: "Looking", parentId: root.id });
    const edited = await comments.editComment(shared, reply.id, "Looking into it");
    expect(edited.editedAt).toEqual(expect.any(String));
    const resolved = await comments.resolveThread(shared, root.id, true);
    expect(resolved.resolvedAt).toEqual(expect.any(String));
    expect((await comments.listThreads(shared)).items).toEqual([]);
    expect((await comments.listThreads(shared, { filter: "resolved" })).items.map((t) => t.root.id)).toEqual([root.id]);
    expect((await comments.listThreads(shared, { filter: "all" })).items).toHaveLength(1);
    const reopened = await comments.resolveThread(shared, root.id, false);
    expect(reopened.resolvedAt ?? null).toBeNull(); // open threads omit it: a loose null check
    await comments.deleteComment(shared, reply.id);
    expect((await comments.listThreads(shared)).items[0]!.replies).toEqual([]);
  });

  it("pages threads and mentionable users as async iterables on hasNextPage", async () => {
    const { comments } = viewer("c-pager", "t-pages");
    for (let i = 0; i < 7; i++) await comments.postComment(shared, { body: `n${i}` });
    const sizes: number[] = [];
    const bodies: string[] = [];
    for await (const page of comments.threadPages(shared, { first: 3 })) {
      sizes.push(page.items.length);
      bodies.push(...page.items.map((t) => t.root.body));
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(bodies).toEqual(["n6", "n5", "n4", "n3", "n2", "n1", "n0"]);
    for (const name of ["b", "c"]) await viewer(name, "t-pages").session.getToken();
    const users: string[] = [];
    for await (const page of comments.mentionablePages(shared, { first: 2 })) users.push(...page.items.map((u) => u.username));
    expect(users).toEqual(["b", "c", "c-pager"]);
    expect((await comments.mentionableUsers(shared, { search: "PAG" })).items.map((u) => u.username)).toEqual(["c-pager"]);
  });

  it("on a 401 (revoked session) mints and exchanges a fresh session once, then succeeds", async () => {
    const rec = recording();
    const { session, comments } = viewer("c-revoked", "t-revoke", rec.fetch);
    await comments.postComment(shared, { body: "before" });
    const sessionIds = rec.seen.filter((s) => s.url.endsWith("/__dev/embed-session")).length;
    expect(sessionIds).toBe(1);
    // Revoke every session minted so far for this viewer (as a host backend would).
    const revokeAll = async () => {
      const token = await session.getToken();
      const sid = (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { sid: string }).sid;
      const r = await fetch(`${p.info.baseUrl}/api/v1/embed/session/revoke`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${p.info.apiKeys.admin}` },
        body: JSON.stringify({ sessionId: sid }),
      });
      expect(r.status).toBe(204);
    };
    await revokeAll();
    const after = await comments.postComment(shared, { body: "after" });
    expect(after.body).toBe("after");
    expect(rec.seen.filter((s) => s.url.endsWith("/__dev/embed-session"))).toHaveLength(2);
    expect((await comments.listThreads(shared)).items.map((t) => t.root.body)).toEqual(["after", "before"]);
  });

  it("re-mints only once: a 401 on the fresh token too is thrown", async () => {
    let tokens = 0;
    const f: FetchLike = async (url) => {
      if (url.includes("session-url")) return new Response(JSON.stringify({ sessionId: "s" }));
      if (url.endsWith("/session/token"))
        return new Response(JSON.stringify({ token: `t${++tokens}`, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }));
      return new Response(JSON.stringify({ error: "Invalid token" }), { status: 401 });
    };
    const session = createEmbedSession({ baseUrl: "https://p.example", sessionUrl: "https://p.example/session-url", fetch: f });
    const comments = createCommentsClient({ baseUrl: "https://p.example", session, fetch: f });
    await expect(comments.listThreads("SalesDash001")).rejects.toBeInstanceOf(UnauthorizedError);
    expect(tokens).toBe(2);
  });

  it("two calls refused at once share one re-mint (the second does not drop the fresh token)", async () => {
    let minted = 0;
    let refused = 0;
    const f: FetchLike = async (url, init) => {
      if (url.includes("session-url")) return new Response(JSON.stringify({ sessionId: `s${++minted}` }));
      if (url.endsWith("/session/token")) {
        await new Promise((r) => setTimeout(r, 5));
        return new Response(JSON.stringify({ token: `t${minted}`, expiresAt: new Date(Date.now() + 86_400_000).toISOString() }));
      }
      const auth = (init.headers as Record<string, string>).Authorization;
      if (auth === "Embed-Token t1") {
        // The refusals arrive one after another, the later ones after the first re-mint finished.
        await new Promise((r) => setTimeout(r, 40 * refused++));
        return new Response(JSON.stringify({ error: "revoked" }), { status: 401 });
      }
      return new Response(JSON.stringify({ items: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } }));
    };
    const session = createEmbedSession({ baseUrl: "https://p.example", sessionUrl: "https://p.example/session-url", fetch: f });
    const comments = createCommentsClient({ baseUrl: "https://p.example", session, fetch: f });
    await session.getToken();
    await Promise.all([comments.listThreads("SalesDash001"), comments.listThreads("SalesDash001"), comments.listThreads("SalesDash001")]);
    expect(minted).toBe(2);
  });

  it("checks the status before the body: an error body is never a comment", async () => {
    const f: FetchLike = async (url) => {
      if (url.includes("session-url")) return new Response(JSON.stringify({ sessionId: "s" }));
      if (url.endsWith("/session/token"))
        return new Response(JSON.stringify({ token: "t", expiresAt: new Date(Date.now() + 86_400_000).toISOString() }));
      // A 403 whose body even looks like a comment.
      return new Response(
        JSON.stringify({ id: 1, dashboardId: "x", body: "x", createdAt: new Date().toISOString(), isOwn: true, error: "no" }),
        { status: 403 },
      );
    };
    const session = createEmbedSession({ baseUrl: "https://p.example", sessionUrl: "https://p.example/session-url", fetch: f });
    const comments = createCommentsClient({ baseUrl: "https://p.example", session, fetch: f });
    await expect(comments.postComment("SalesDash001", { body: "x" })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("a malformed success body is an InvalidResponseError, not a crash", async () => {
    const f: FetchLike = async (url) => {
      if (url.includes("session-url")) return new Response(JSON.stringify({ sessionId: "s" }));
      if (url.endsWith("/session/token"))
        return new Response(JSON.stringify({ token: "t", expiresAt: new Date(Date.now() + 86_400_000).toISOString() }));
      return new Response(JSON.stringify({ items: [{ root: { id: "1" } }], pageInfo: { hasNextPage: false, hasPreviousPage: false } }));
    };
    const session = createEmbedSession({ baseUrl: "https://p.example", sessionUrl: "https://p.example/session-url", fetch: f });
    await expect(createCommentsClient({ baseUrl: "https://p.example", session, fetch: f }).listThreads("X")).rejects.toBeInstanceOf(
      InvalidResponseError,
    );
  });

  it("rejects bodies outside 1..10,000 code points before sending anything", async () => {
    const rec = recording();
    const { comments } = viewer("c-limit", "t-limit", rec.fetch);
    await expect(comments.postComment(shared, { body: "" })).rejects.toBeInstanceOf(BadRequestError);
    await expect(comments.postComment(shared, { body: "😀".repeat(10_001) })).rejects.toBeInstanceOf(BadRequestError);
    expect(rec.seen).toHaveLength(0);
    expect((await comments.postComment(shared, { body: "😀".repeat(10_000) })).body).toHaveLength(20_000);
  });

  it("maps the §7 statuses: another tenant's comment 404, someone else's 403", async () => {
    const a = viewer("c-a", "t-map").comments;
    const b = viewer("c-b", "t-map").comments;
    const x = viewer("c-x", "t-map-x").comments;
    const c = await a.postComment(shared, { body: "a's" });
    await expect(b.editComment(shared, c.id, "b's")).rejects.toBeInstanceOf(ForbiddenError);
    await expect(x.editComment(shared, c.id, "x's")).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe("deadlines", () => {
  /** A fetch that never answers (until its signal aborts). */
  const hang =
    (answer?: (url: string) => Response | null): FetchLike =>
    (url, init) => {
      const r = answer?.(url);
      if (r) return Promise.resolve(r);
      return new Promise((_, reject) => init.signal?.addEventListener("abort", () => reject(init.signal!.reason)));
    };

  it("a session URL that never answers ends in a TimeoutError (tokenMintMs), not a hang", async () => {
    const s = createEmbedSession({
      baseUrl: "https://p.example",
      sessionUrl: "https://broker.example/s",
      fetch: hang(),
      deadlines: { tokenMintMs: 150 },
    });
    const t0 = Date.now();
    await expect(s.getToken()).rejects.toBeInstanceOf(TimeoutError);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it("a comments call that hangs ends in a TimeoutError within its budget; the caller's abort stays an abort", async () => {
    const f = hang((url) =>
      url.includes("session-url")
        ? new Response(JSON.stringify({ sessionId: "s" }))
        : url.endsWith("/session/token")
          ? new Response(JSON.stringify({ token: "t", expiresAt: new Date(Date.now() + 86_400_000).toISOString() }))
          : null,
    );
    const session = createEmbedSession({ baseUrl: "https://p.example", sessionUrl: "https://p.example/session-url", fetch: f });
    const comments = createCommentsClient({
      baseUrl: "https://p.example",
      session,
      fetch: f,
      deadlines: { managementAttemptMs: 100 },
      retry: { maxElapsedMs: 250, maxAttempts: 10 },
    });
    await expect(comments.listThreads("SalesDash001")).rejects.toBeInstanceOf(TimeoutError);
    await expect(comments.postComment("SalesDash001", { body: "x" })).rejects.toBeInstanceOf(TimeoutError);
    const ac = new AbortController();
    const p = comments.listThreads("SalesDash001", {}, ac.signal);
    ac.abort(new DOMException("stop", "AbortError"));
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
  });
});

describe("embed client", () => {
  it("reads a dashboard and lists the dashboards linked to a report", async () => {
    const { session } = viewer("e-1", tenant);
    const embed = createEmbedClient({ baseUrl: p.info.baseUrl, session });
    const d = await embed.getDashboard(shared);
    expect(d.widgets.length).toBeGreaterThan(0);
    expect((await embed.linkedDashboards({ deploymentId: 1, reportId: 1 })).map((x) => x.publicId)).toEqual([
      shared,
      p.info.embed.dashboards.restricted,
    ]);
    await expect(embed.getDashboard("NoSuchDash01")).rejects.toBeInstanceOf(NotFoundError);
  });
});
