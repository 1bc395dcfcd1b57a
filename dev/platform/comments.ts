// Dashboard comments in the stand-in (seeds 02 §2.1–§2.3, §3.1, §3.2, §4.1): threads per dashboard
// and embed tenant, one level of replies, soft delete, resolve by the thread starter, cursor pages
// and mentionable users. HTTP-free: comments-routes.ts authenticates and validates, then calls it.
// Persisted in the stand-in's DuckDB file (embed-store.ts); each change commits before it applies.
import type { Comment, CommentPageInfo, MentionableUser, Thread, ThreadFilter } from "../../src/api/comments/schemas";
import { COMMENT_LIMITS } from "../../src/api/comments/schemas";
import { HttpProblem } from "./service";
import type { EmbedCaller, EmbedService, EmbedUser } from "./embed";
import type { Clock } from "./clock";
import type { EmbedStore } from "./embed-store";

type Caller = Extract<EmbedCaller, { kind: "external" }>;

interface StoredComment {
  id: number;
  dashboardId: string;
  tenant: string;
  userId: number;
  body: string;
  parentId: number | null;
  createdAt: string;
  editedAt: string | null;
  removedAt: string | null;
  /** Thread state, on roots only. */
  resolvedAt: string | null;
  resolvedBy: number | null;
}

export interface ListOptions {
  filter: ThreadFilter;
  first?: number | undefined;
  after?: string | undefined;
}

/** Cursors: opaque base64url of {k: kind, id}; only ones naming an item of the same list are accepted. */
function encodeCursor(kind: "t" | "u", id: number): string {
  return Buffer.from(JSON.stringify({ k: kind, id })).toString("base64url");
}
function decodeCursor(kind: "t" | "u", after: string): number {
  try {
    if (/^[A-Za-z0-9_-]+$/.test(after)) {
      const v = JSON.parse(Buffer.from(after, "base64url").toString()) as { k?: unknown; id?: unknown };
      if (v.k === kind && typeof v.id === "number" && Number.isSafeInteger(v.id)) return v.id;
    }
  } catch {
    /* fall through */
  }
  throw new HttpProblem(
    400,
    "after is not a cursor this server issued (pass pageInfo.endCursor, or omit after to start over)",
    "invalid",
    "after",
  );
}

/** Keyset paging: the items sorted after `anchor` (the cursor's item; stable when others are added or deleted). */
function keysetPage<T>(
  all: T[],
  cmp: (a: T, b: T) => number,
  anchor: T | undefined,
  first: number,
): { items: T[]; pageInfo: CommentPageInfo } {
  const sorted = [...all].sort(cmp);
  const rest = anchor === undefined ? sorted : sorted.filter((t) => cmp(t, anchor) > 0);
  const items = rest.slice(0, first);
  const pageInfo: CommentPageInfo = {
    hasNextPage: rest.length > items.length,
    hasPreviousPage: anchor !== undefined && sorted.some((t) => cmp(t, anchor) <= 0),
  };
  return { items, pageInfo };
}

export class CommentService {
  private readonly comments = new Map<number, StoredComment>();
  private nextId = 1;
  private readonly persist: EmbedStore<EmbedUser, StoredComment>;

  constructor(
    private readonly embed: EmbedService,
    private readonly clock: Clock,
  ) {
    this.persist = embed.persist as EmbedStore<EmbedUser, StoredComment>;
    for (const c of this.persist.comments) {
      this.comments.set(c.id, c);
      this.nextId = Math.max(this.nextId, c.id + 1);
    }
  }

  /** Commits the changed comment, then applies it (the copy replaces the stored one). */
  private async save(c: StoredComment): Promise<StoredComment> {
    await this.persist.saveComment(c);
    this.comments.set(c.id, c);
    return c;
  }

  private view(c: StoredComment, caller: Caller): Comment {
    return {
      id: c.id,
      dashboardId: c.dashboardId,
      userId: c.userId,
      body: c.body,
      editedAt: c.editedAt,
      createdAt: c.createdAt,
      isOwn: c.userId === caller.user.id,
    };
  }

  private threadView(root: StoredComment, caller: Caller): Thread {
    const replies = [...this.comments.values()]
      .filter((c) => c.parentId === root.id && c.removedAt === null)
      .sort((a, b) => a.id - b.id)
      .map((c) => this.view(c, caller));
    // An open thread omits resolvedAt/resolvedBy entirely (§2.1: clients test with a loose null check).
    return {
      root: this.view(root, caller),
      replies,
      ...(root.resolvedAt ? { resolvedAt: root.resolvedAt, resolvedBy: root.resolvedBy } : {}),
    };
  }

  /** A live comment of this dashboard and tenant (another tenant's, a deleted one or a reply in a deleted thread: 404). */
  private live(caller: Caller, publicId: string, id: number, what = "Comment"): StoredComment {
    const c = this.comments.get(id);
    const parent = c?.parentId ? this.comments.get(c.parentId) : undefined;
    if (!c || c.dashboardId !== publicId || c.tenant !== caller.tenant || c.removedAt !== null || (parent && parent.removedAt !== null)) {
      throw new HttpProblem(404, `${what} ${id} not found on dashboard ${publicId}`);
    }
    return c;
  }

  private requireAuthor(caller: Caller, c: StoredComment, action: string): void {
    if (c.userId !== caller.user.id) throw new HttpProblem(403, `Only the author can ${action} comment ${c.id}`);
  }

  list(caller: Caller, publicId: string, o: ListOptions): { items: Thread[]; pageInfo: CommentPageInfo } {
    // Newest thread first by when it started; ids grow with time and break ties of the same instant.
    const cmp = (a: StoredComment, b: StoredComment) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id;
    const inScope = (c: StoredComment) => c.dashboardId === publicId && c.tenant === caller.tenant && c.parentId === null;
    let anchor: StoredComment | undefined;
    if (o.after !== undefined) {
      anchor = this.comments.get(decodeCursor("t", o.after));
      if (!anchor || !inScope(anchor)) throw new HttpProblem(400, "after names no thread of this list", "invalid", "after");
    }
    const wanted = (c: StoredComment) =>
      inScope(c) && c.removedAt === null && (o.filter === "all" || (o.filter === "resolved") === (c.resolvedAt !== null));
    const p = keysetPage([...this.comments.values()].filter(wanted), cmp, anchor, o.first ?? COMMENT_LIMITS.firstDefault);
    return {
      items: p.items.map((c) => this.threadView(c, caller)),
      pageInfo: withCursors(
        p.pageInfo,
        p.items.map((c) => encodeCursor("t", c.id)),
      ),
    };
  }

  async post(caller: Caller, publicId: string, body: string, parentId: number | undefined): Promise<Comment> {
    if (parentId !== undefined) {
      const parent = this.live(caller, publicId, parentId, "Parent comment");
      if (parent.parentId !== null)
        throw new HttpProblem(400, "Replies nest one level: parentId must name a thread's first comment", "invalid", "parentId");
    }
    const c: StoredComment = {
      id: this.nextId++,
      dashboardId: publicId,
      tenant: caller.tenant,
      userId: caller.user.id,
      body,
      parentId: parentId ?? null,
      createdAt: this.clock.iso(),
      editedAt: null,
      removedAt: null,
      resolvedAt: null,
      resolvedBy: null,
    };
    return this.view(await this.save(c), caller);
  }

  async edit(caller: Caller, publicId: string, id: number, body: string): Promise<Comment> {
    const c = this.live(caller, publicId, id);
    this.requireAuthor(caller, c, "edit");
    return this.view(await this.save({ ...c, body, editedAt: this.clock.iso() }), caller);
  }

  async remove(caller: Caller, publicId: string, id: number): Promise<void> {
    const c = this.live(caller, publicId, id);
    this.requireAuthor(caller, c, "delete");
    await this.save({ ...c, removedAt: this.clock.iso() });
  }

  async resolve(caller: Caller, publicId: string, id: number, resolved: boolean): Promise<Thread> {
    const c = this.live(caller, publicId, id);
    if (c.parentId !== null)
      throw new HttpProblem(400, `Comment ${id} is a reply: resolve the thread by its first comment`, "invalid", "commentId");
    if (c.userId !== caller.user.id) throw new HttpProblem(403, `Only the thread starter can resolve or reopen thread ${id}`);
    let next = c;
    if (resolved && c.resolvedAt === null) next = await this.save({ ...c, resolvedAt: this.clock.iso(), resolvedBy: caller.user.id });
    else if (!resolved && c.resolvedAt !== null) next = await this.save({ ...c, resolvedAt: null, resolvedBy: null });
    return this.threadView(next, caller);
  }

  mentionable(
    caller: Caller,
    o: { search?: string | undefined; first?: number | undefined; after?: string | undefined },
  ): { items: MentionableUser[]; pageInfo: CommentPageInfo } {
    const users = this.embed.tenantUsers(caller.tenant);
    const key = (u: EmbedUser) => u.username.toLowerCase();
    const cmp = (a: EmbedUser, b: EmbedUser) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id);
    let anchor: EmbedUser | undefined;
    if (o.after !== undefined) {
      const id = decodeCursor("u", o.after);
      anchor = users.find((u) => u.id === id);
      if (!anchor) throw new HttpProblem(400, "after names no user of this list", "invalid", "after");
    }
    const s = (o.search ?? "").toLowerCase();
    const hit = (u: EmbedUser) => !s || u.username.toLowerCase().includes(s) || (u.email ?? "").toLowerCase().includes(s);
    const p = keysetPage(users.filter(hit), cmp, anchor, o.first ?? COMMENT_LIMITS.firstDefault);
    return {
      items: p.items.map((u) => ({ id: u.id, username: u.username, email: u.email, firstName: u.firstName })),
      pageInfo: withCursors(
        p.pageInfo,
        p.items.map((u) => encodeCursor("u", u.id)),
      ),
    };
  }
}

/** startCursor/endCursor only on a page with items (§2.3: absent on an empty page). */
function withCursors(info: CommentPageInfo, cursors: string[]): CommentPageInfo {
  return cursors.length ? { ...info, startCursor: cursors[0]!, endCursor: cursors[cursors.length - 1]! } : info;
}
