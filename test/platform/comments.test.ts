// Contract tests of the dashboard comments API (seeds 02 §2.1–§2.3, §3.1, §3.2, §4.1, §5, §7, §8)
// against the stand-in. Most tests use a tenant of their own, so conversations never mix.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbedRig, embedAuth, type Call } from "./embed-support";

let rig: EmbedRig;
let shared: string;
let restricted: string;
let tenants: string[];

beforeAll(async () => {
  rig = await EmbedRig.start();
  ({ shared, restricted } = rig.p.info.embed.dashboards);
  tenants = rig.p.info.embed.tenants;
});
afterAll(() => rig?.close());

interface C {
  id: number;
  dashboardId: string;
  userId?: number | null;
  body: string;
  editedAt?: string | null;
  removedAt?: string | null;
  createdAt: string;
  isOwn: boolean;
}
interface T {
  root: C;
  replies: C[];
  resolvedAt?: string | null;
  resolvedBy?: number | null;
}
interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor?: string | null;
  endCursor?: string | null;
}
interface Threads {
  items: T[];
  pageInfo: PageInfo;
}
interface Users {
  items: { id: number; username: string; email?: string | null; firstName?: string | null }[];
  pageInfo: PageInfo;
}

/** One embed viewer: a token and calls on one dashboard. */
class Viewer {
  constructor(
    readonly token: string,
    readonly dashboard = shared,
  ) {}
  static async of(externalId: string, tenant: string, extra: Record<string, unknown> = {}, dashboard = shared): Promise<Viewer> {
    return new Viewer(await rig.token(externalId, tenant, extra), dashboard);
  }
  private base(d = this.dashboard) {
    return `/api/v1/embed/dashboard/${d}/comments`;
  }
  call(method: string, rest: string, body?: unknown, d?: string): Promise<Call> {
    return rig.call(method, this.base(d) + rest, { auth: embedAuth(this.token), ...(body === undefined ? {} : { body }) });
  }
  async post(body: string, parentId?: number, d?: string): Promise<C> {
    const r = await this.call("POST", "", parentId === undefined ? { body } : { body, parentId }, d);
    if (r.status !== 201) throw new Error(`post ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as C;
  }
  async list(q = ""): Promise<Threads> {
    const r = await this.call("GET", q);
    if (r.status !== 200) throw new Error(`list ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as Threads;
  }
  async users(q = ""): Promise<Users> {
    const r = await this.call("GET", `/mentionable-users${q}`);
    if (r.status !== 200) throw new Error(`users ${r.status} ${JSON.stringify(r.json)}`);
    return r.json as Users;
  }
  resolve(id: number, resolved: boolean) {
    return this.call("POST", `/${id}/resolve`, { resolved });
  }
}

const rootIds = (t: Threads) => t.items.map((x) => x.root.id);

describe("authentication (§4.1 headers, §5)", () => {
  it("Embed-Token and Bearer resolve the same user", async () => {
    const v = await Viewer.of("auth-a", "t-auth");
    const c = await v.post("mine");
    const viaBearer = await rig.call("GET", `/api/v1/embed/dashboard/${shared}/comments`, { auth: `Bearer ${v.token}` });
    expect((viaBearer.json as Threads).items[0]!.root).toMatchObject({ id: c.id, isOwn: true });
  });

  it("the prefix is case-sensitive; no, malformed or unknown tokens → 401", async () => {
    const v = await Viewer.of("auth-b", "t-auth");
    for (const auth of [`embed-token ${v.token}`, `bearer ${v.token}`, v.token, "Embed-Token x.y.z", ""]) {
      expect((await rig.call("GET", `/api/v1/embed/dashboard/${shared}/comments`, { auth })).status).toBe(401);
    }
  });

  it("an API key, a console (data-API) token or an internalId session → 403", async () => {
    const path = `/api/v1/embed/dashboard/${shared}/comments`;
    expect((await rig.call("GET", path, { auth: `Bearer ${rig.p.info.apiKeys.admin}` })).status).toBe(403);
    expect((await rig.call("GET", path, { auth: `Embed-Token ${rig.p.info.apiKeys.analyst}` })).status).toBe(403);
    const data = await rig.call("POST", "/api/v1/deployments/1/token", { body: {}, auth: `Bearer ${rig.p.info.apiKeys.admin}` });
    expect((await rig.call("GET", path, { auth: `Bearer ${(data.json as { token: string }).token}` })).status).toBe(403);
    const internal = await rig.exchange(await rig.sessionId({ internalId: "ada.admin@cellbound.test" }));
    const token = (internal.json as { token: string }).token;
    for (const [m, p, body] of [
      ["GET", path],
      ["POST", path, { body: "x" }],
      ["GET", `${path}/mentionable-users`],
    ] as const) {
      const r = await rig.call(m, p, { auth: embedAuth(token), ...(body ? { body } : {}) });
      expect(r.status).toBe(403);
      expect(r.json).toMatchObject({ error: expect.any(String) });
    }
  });

  it("comments answer whatever enableDashboardComments says (it only hides the built-in panel, §1)", async () => {
    const v = await Viewer.of("off", "t-auth", { settings: { enableDashboardComments: false } });
    expect((await v.post("still works")).body).toBe("still works");
  });
});

describe("no author in bodies (rule 1)", () => {
  it("rejects userId, author or any unknown field with 400; the author is the session's user", async () => {
    const v = await Viewer.of("rule1", "t-rule1");
    for (const extra of [{ userId: 999 }, { author: "someone" }, { isOwn: true }]) {
      const r = await v.call("POST", "", { body: "x", ...extra });
      expect(r.status).toBe(400);
    }
    const c = await v.post("x");
    const patched = await v.call("PATCH", `/${c.id}`, { body: "y", userId: 1 });
    expect(patched.status).toBe(400);
  });
});

describe("dashboard lookup before access (rule 2)", () => {
  it("unknown dashboard → 404; unreadable → 403, on every comment endpoint", async () => {
    const other = await Viewer.of("rule2", tenants[1]!);
    const first = await Viewer.of("rule2", tenants[0]!);
    const c = await first.post("on restricted", undefined, restricted);
    const routes: [string, string, unknown?][] = [
      ["GET", ""],
      ["POST", "", { body: "x" }],
      ["GET", "/mentionable-users"],
      ["PATCH", `/${c.id}`, { body: "x" }],
      ["DELETE", `/${c.id}`],
      ["POST", `/${c.id}/resolve`, { resolved: true }],
    ];
    for (const [m, rest, body] of routes) {
      expect((await other.call(m, rest, body, "NoSuchDash01")).status, `${m} ${rest}`).toBe(404);
      expect((await other.call(m, rest, body, restricted)).status, `${m} ${rest}`).toBe(403);
    }
  });
});

describe("threads and replies (rule 3, §3.1)", () => {
  it("replies nest one level: a reply to a reply → 400", async () => {
    const v = await Viewer.of("nest", "t-nest");
    const root = await v.post("root");
    const reply = await v.post("reply", root.id);
    const r = await v.call("POST", "", { body: "deeper", parentId: reply.id });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ field: "parentId" });
  });

  it("parentId naming nothing, a deleted thread, another dashboard's or another tenant's comment → 404", async () => {
    const v = await Viewer.of("nest2", tenants[0]!);
    const stranger = await Viewer.of("nest2", "t-elsewhere");
    expect((await v.call("POST", "", { body: "x", parentId: 99_999_999 })).status).toBe(404);
    const gone = await v.post("to delete");
    expect((await v.call("DELETE", `/${gone.id}`)).status).toBe(204);
    expect((await v.call("POST", "", { body: "x", parentId: gone.id })).status).toBe(404);
    const elsewhere = await v.post("on the restricted one", undefined, restricted);
    expect((await v.call("POST", "", { body: "x", parentId: elsewhere.id })).status).toBe(404);
    const theirs = await stranger.post("another tenant");
    expect((await v.call("POST", "", { body: "x", parentId: theirs.id })).status).toBe(404);
    expect((await v.call("POST", "", { body: "x", parentId: 0 })).status).toBe(400);
  });

  it("a resolved thread still takes replies", async () => {
    const v = await Viewer.of("nest3", "t-nest3");
    const root = await v.post("root");
    await v.resolve(root.id, true);
    expect((await v.post("after resolve", root.id)).body).toBe("after resolve");
  });
});

describe("ordering and filters (rule 4)", () => {
  it("threads newest first by start (a reply keeps the thread's place); replies oldest first", async () => {
    const v = await Viewer.of("order", "t-order");
    const a = await v.post("A");
    await rig.advance(1000);
    const b = await v.post("B");
    await rig.advance(1000);
    const c = await v.post("C");
    await rig.advance(1000);
    const r1 = await v.post("A.1", a.id);
    await rig.advance(1000);
    const r2 = await v.post("A.2", a.id);
    const list = await v.list();
    expect(rootIds(list)).toEqual([c.id, b.id, a.id]);
    expect(list.items[2]!.replies.map((r) => r.id)).toEqual([r1.id, r2.id]);
  });

  it("open by default; includeResolved adds resolved; resolvedOnly wins; filtered before paging", async () => {
    const v = await Viewer.of("filter", "t-filter");
    const made: C[] = [];
    for (let i = 0; i < 6; i++) made.push(await v.post(`t${i}`));
    for (const i of [0, 2, 4]) expect((await v.resolve(made[i]!.id, true)).status).toBe(200);
    const open = [5, 3, 1].map((i) => made[i]!.id);
    const resolved = [4, 2, 0].map((i) => made[i]!.id);
    expect(rootIds(await v.list())).toEqual(open);
    expect(rootIds(await v.list("?includeResolved=false"))).toEqual(open);
    expect(rootIds(await v.list("?includeResolved=true"))).toEqual(made.map((c) => c.id).reverse());
    expect(rootIds(await v.list("?resolvedOnly=true"))).toEqual(resolved);
    expect(rootIds(await v.list("?resolvedOnly=true&includeResolved=true"))).toEqual(resolved);
    expect(rootIds(await v.list("?resolvedOnly=true&includeResolved=false"))).toEqual(resolved);
    // Server-side: every page of one item holds a matching thread, and the pages add up.
    const seen: number[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await v.list(`?resolvedOnly=true&first=1${after ? `&after=${after}` : ""}`);
      expect(p.items).toHaveLength(1);
      seen.push(p.items[0]!.root.id);
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor!;
    }
    expect(seen).toEqual(resolved);
    expect((await v.call("GET", "?includeResolved=yes")).status).toBe(400);
  });
});

describe("page size (rule 5, §8)", () => {
  it("first defaults to 100, is clamped to 200, and below 1 is a 400 — threads and mentionable users", async () => {
    const v = await Viewer.of("size", "t-size");
    for (let i = 0; i < 205; i++) await v.post(`n${i}`);
    expect((await v.list()).items).toHaveLength(100);
    expect((await v.list()).pageInfo.hasNextPage).toBe(true);
    expect((await v.list("?first=200")).items).toHaveLength(200);
    const clamped = await v.list("?first=1000000");
    expect(clamped.items).toHaveLength(200);
    expect(clamped.pageInfo.hasNextPage).toBe(true);
    for (const bad of ["0", "-1", "abc", "1.5", ""]) {
      const r = await v.call("GET", `?first=${bad}`);
      expect(r.status, `first=${bad}`).toBe(400);
      expect(r.json).toMatchObject({ field: "first" });
    }
    for (let i = 0; i < 3; i++) await Viewer.of(`size-user-${i}`, "t-size");
    expect((await v.users("?first=2")).items).toHaveLength(2);
    expect((await v.users("?first=999")).items).toHaveLength(4);
    expect((await v.call("GET", "/mentionable-users?first=0")).status).toBe(400);
  });

  it("a thread carries all its replies", async () => {
    const v = await Viewer.of("replies", "t-replies");
    const root = await v.post("root");
    for (let i = 0; i < 120; i++) await v.post(`r${i}`, root.id);
    expect((await v.list("?first=1")).items[0]!.replies).toHaveLength(120);
  });
});

describe("cursor paging (§2.3)", () => {
  it("walks every thread once with hasNextPage/hasPreviousPage and start/end cursors", async () => {
    const v = await Viewer.of("cursor", "t-cursor");
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await v.post(`c${i}`)).id);
    const p1 = await v.list("?first=2");
    expect(p1.pageInfo).toMatchObject({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: expect.any(String),
      endCursor: expect.any(String),
    });
    const p2 = await v.list(`?first=2&after=${p1.pageInfo.endCursor}`);
    expect(p2.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const p3 = await v.list(`?first=2&after=${p2.pageInfo.endCursor}`);
    expect(p3.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect([...rootIds(p1), ...rootIds(p2), ...rootIds(p3)]).toEqual(ids);
    // A new thread started meanwhile does not shift the pages already walked.
    await v.post("newer");
    expect(rootIds(await v.list(`?first=2&after=${p2.pageInfo.endCursor}`))).toEqual(rootIds(p3));
  });

  it("an empty page has no startCursor/endCursor (absent)", async () => {
    const v = await Viewer.of("empty", "t-empty");
    const p = await v.list();
    expect(p).toEqual({ items: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } });
    const c = await v.post("only");
    const first = await v.list();
    const after = await v.list(`?after=${first.pageInfo.endCursor}`);
    expect(after.items).toEqual([]);
    expect(after.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
    expect(c.id).toBe(first.items[0]!.root.id);
  });

  it("a bogus cursor → 400: after=, after=null, after=undefined, garbage, a user cursor, another tenant's cursor", async () => {
    const v = await Viewer.of("bogus", "t-bogus");
    const other = await Viewer.of("bogus", "t-bogus-2");
    await v.post("x");
    await other.post("y");
    const userCursor = (await v.users()).pageInfo.endCursor!;
    const foreign = (await other.list()).pageInfo.endCursor!;
    for (const after of ["", "null", "undefined", "%%%", "eyJrIjoidCIsImlkIjoiMSJ9", userCursor, foreign]) {
      const r = await v.call("GET", `?after=${encodeURIComponent(after)}`);
      expect(r.status, `after=${after}`).toBe(400);
      expect(r.json).toMatchObject({ field: "after" });
    }
    for (const after of ["", "null", "undefined"]) expect((await v.call("GET", `/mentionable-users?after=${after}`)).status).toBe(400);
  });
});

describe("edit, delete, resolve permissions (rule 6, §3.1, §3.2)", () => {
  it("only the author edits or deletes (403 otherwise); editedAt set by an edit", async () => {
    const ann = await Viewer.of("ann", "t-perm");
    const ben = await Viewer.of("ben", "t-perm");
    const c = await ann.post("draft");
    expect(c.editedAt).toBeNull();
    expect((await ben.call("PATCH", `/${c.id}`, { body: "hijack" })).status).toBe(403);
    expect((await ben.call("DELETE", `/${c.id}`)).status).toBe(403);
    await rig.advance(60_000);
    const edited = await ann.call("PATCH", `/${c.id}`, { body: "final" });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ id: c.id, body: "final", isOwn: true, editedAt: expect.any(String) });
    expect(Date.parse((edited.json as C).editedAt!)).toBeGreaterThan(Date.parse(c.createdAt));
    // ben sees the same conversation, with isOwn false.
    const seen = (await ben.list()).items.find((t) => t.root.id === c.id)!;
    expect(seen.root).toMatchObject({ body: "final", isOwn: false, userId: c.userId });
  });

  it("only the thread starter resolves or reopens (403 for a replier); resolve on a reply → 400", async () => {
    const ann = await Viewer.of("ann", "t-resolve");
    const ben = await Viewer.of("ben", "t-resolve");
    const root = await ann.post("question");
    expect((await ann.list()).items[0]).not.toHaveProperty("resolvedAt"); // open: absent
    const reply = await ben.post("answer", root.id);
    expect((await ben.resolve(root.id, true)).status).toBe(403);
    expect((await ben.resolve(reply.id, true)).status).toBe(400);
    expect((await ann.resolve(reply.id, true)).status).toBe(400);
    const r = await ann.resolve(root.id, true);
    expect(r.status).toBe(200);
    const t = r.json as T;
    expect(t.resolvedAt).toEqual(expect.any(String));
    expect(t.resolvedBy).toBe(root.userId);
    expect(t.replies.map((x) => x.id)).toEqual([reply.id]);
    expect((await ann.list()).items).toEqual([]); // resolved threads hidden by default
    expect((await ben.resolve(root.id, false)).status).toBe(403);
    const reopened = (await ann.resolve(root.id, false)).json as T;
    expect(reopened.resolvedAt ?? null).toBeNull();
    expect(reopened.resolvedBy ?? null).toBeNull();
    expect(rootIds(await ann.list())).toEqual([root.id]);
    expect((await ann.call("POST", `/${root.id}/resolve`, {})).status).toBe(400);
    expect((await ann.call("POST", `/${root.id}/resolve`, { resolved: "yes" })).status).toBe(400);
  });

  it("another tenant's comment is 404 to edit, delete or resolve (never visible)", async () => {
    const mine = await Viewer.of("iso", "t-iso-a");
    const theirs = await Viewer.of("iso", "t-iso-b");
    const c = await mine.post("private to a");
    expect((await theirs.call("PATCH", `/${c.id}`, { body: "x" })).status).toBe(404);
    expect((await theirs.call("DELETE", `/${c.id}`)).status).toBe(404);
    expect((await theirs.resolve(c.id, true)).status).toBe(404);
    expect((await theirs.call("PATCH", "/notanumber", { body: "x" })).status).toBe(404);
  });
});

describe("soft delete (§3.2)", () => {
  it("a deleted reply disappears and the thread keeps its place; a deleted root removes the whole thread", async () => {
    const ann = await Viewer.of("ann", "t-del");
    const ben = await Viewer.of("ben", "t-del");
    const older = await ann.post("older");
    const root = await ann.post("thread");
    const r1 = await ben.post("reply 1", root.id);
    const r2 = await ann.post("reply 2", root.id);
    expect((await ben.call("DELETE", `/${r1.id}`)).status).toBe(204);
    let list = await ann.list();
    expect(rootIds(list)).toEqual([root.id, older.id]);
    expect(list.items[0]!.replies.map((r) => r.id)).toEqual([r2.id]);
    expect((await ben.call("DELETE", `/${r1.id}`)).status).toBe(404); // already gone
    expect((await ben.call("PATCH", `/${r1.id}`, { body: "x" })).status).toBe(404);
    expect((await ann.call("DELETE", `/${root.id}`)).status).toBe(204);
    list = await ann.list("?includeResolved=true");
    expect(rootIds(list)).toEqual([older.id]);
    expect(JSON.stringify(list)).not.toContain("reply 2");
    // The replies of a deleted thread are gone too.
    expect((await ann.call("PATCH", `/${r2.id}`, { body: "x" })).status).toBe(404);
    for (const t of list.items) expect(t.root.removedAt ?? null).toBeNull();
  });
});

describe("mentionable users (rule 7, §2.3)", () => {
  it("only the caller's tenant, ordered by username case-insensitively, with id/username/email/firstName", async () => {
    const zed = await Viewer.of("zed", "t-mention", { email: "z@acme.test", firstName: "Zed" });
    await Viewer.of("Bob", "t-mention", { email: "bob@acme.test" });
    await Viewer.of("alice", "t-mention", { email: "ALICE@Acme.test", firstName: "Alice" });
    await Viewer.of("carol", "t-mention-other", { email: "carol@acme.test" });
    const u = await zed.users();
    expect(u.items.map((x) => x.username)).toEqual(["alice", "Bob", "zed"]);
    expect(u.items[0]).toEqual({ id: expect.any(Number), username: "alice", email: "ALICE@Acme.test", firstName: "Alice" });
    expect(u.items[1]).toMatchObject({ username: "Bob", firstName: null });
    // The ids match comment userIds.
    const c = await zed.post("hi @alice");
    expect(u.items.find((x) => x.username === "zed")!.id).toBe(c.userId);
  });

  it("search: a case-insensitive substring of username or email, at most 255 characters", async () => {
    const v = await Viewer.of("searcher", "t-search", { email: "s@example.org" });
    await Viewer.of("Maria.Lopez", "t-search", { email: "maria@globex.test" });
    await Viewer.of("mario", "t-search", { email: "m2@initech.test" });
    const names = async (q: string) => (await v.users(`?search=${encodeURIComponent(q)}`)).items.map((x) => x.username);
    expect(await names("MAR")).toEqual(["Maria.Lopez", "mario"]);
    expect(await names("GLOBEX")).toEqual(["Maria.Lopez"]);
    expect(await names("example.org")).toEqual(["searcher"]);
    expect(await names("nobody")).toEqual([]);
    expect(await names("")).toHaveLength(3);
    expect((await v.call("GET", `/mentionable-users?search=${"a".repeat(255)}`)).status).toBe(200);
    expect((await v.call("GET", `/mentionable-users?search=${encodeURIComponent("😀".repeat(255))}`)).status).toBe(200);
    const long = await v.call("GET", `/mentionable-users?search=${"a".repeat(256)}`);
    expect(long.status).toBe(400);
    expect(long.json).toMatchObject({ field: "search" });
  });

  it("pages by cursor like threads", async () => {
    const v = await Viewer.of("u0", "t-upage");
    for (let i = 1; i < 5; i++) await Viewer.of(`u${i}`, "t-upage");
    const p1 = await v.users("?first=3");
    expect(p1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const p2 = await v.users(`?first=3&after=${p1.pageInfo.endCursor}`);
    expect(p2.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect([...p1.items, ...p2.items].map((u) => u.username)).toEqual(["u0", "u1", "u2", "u3", "u4"]);
  });
});

describe("body (§2.1, §8)", () => {
  it("1 to 10,000 characters counted as code points, stored and returned verbatim", async () => {
    const v = await Viewer.of("body", "t-body");
    for (const body of ["", "x".repeat(10_001), "😀".repeat(10_001)]) {
      const r = await v.call("POST", "", { body });
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ field: "body" });
    }
    for (const body of ["x".repeat(10_000), "😀".repeat(10_000), " ", "  padded\n\ttext  ", "<b>not html</b> @alice https://x.test"]) {
      const c = await v.post(body);
      expect(c.body).toBe(body);
    }
    const c = await v.post("x");
    expect((await v.call("PATCH", `/${c.id}`, { body: "" })).status).toBe(400);
    expect((await v.call("PATCH", `/${c.id}`, { body: "y".repeat(10_001) })).status).toBe(400);
    expect((await v.call("POST", "", { body: 5 })).status).toBe(400);
    expect((await v.call("POST", "", {})).status).toBe(400);
    const listed = (await v.list()).items.map((t) => t.root.body);
    expect(listed).toContain("  padded\n\ttext  ");
  });
});

describe("tenant isolation (§2.4, rule 6)", () => {
  it("two tenants on one dashboard never see each other's threads; users of one tenant see the whole conversation", async () => {
    const a1 = await Viewer.of("same", tenants[0]!);
    const a2 = await Viewer.of("colleague", tenants[0]!);
    const b1 = await Viewer.of("same", tenants[1]!);
    const t = await a1.post("acme only");
    await a2.post("reply from colleague", t.id);
    const seenByA2 = await a2.list();
    expect(seenByA2.items.find((x) => x.root.id === t.id)!.replies).toHaveLength(1);
    const seenByB = await b1.list("?includeResolved=true");
    expect(seenByB.items.map((x) => x.root.id)).not.toContain(t.id);
    expect(JSON.stringify(seenByB)).not.toContain("acme only");
    expect((await b1.users()).items.map((u) => u.username)).not.toContain("colleague");
  });
});

describe("comment fields (§2.1)", () => {
  it("a Comment has id, dashboardId (the publicId), userId, body, editedAt, createdAt, isOwn", async () => {
    const v = await Viewer.of("fields", "t-fields");
    const c = await v.post("fields");
    expect(c).toEqual({
      id: expect.any(Number),
      dashboardId: shared,
      userId: expect.any(Number),
      body: "fields",
      editedAt: null,
      createdAt: expect.any(String),
      isOwn: true,
    });
    expect(Number.isNaN(Date.parse(c.createdAt))).toBe(false);
  });

  it("an error body parses as JSON and is no comment (§7)", async () => {
    const v = await Viewer.of("err", "t-err");
    const r = await v.call("POST", "", { body: "" });
    expect(r.json).toEqual({ error: expect.any(String), code: "invalid", field: "body" });
    expect(r.json).not.toHaveProperty("id");
  });
});
