// The live CommentsService: embed sessions from the configured session URL (src/api/embed), the
// comments client (src/api/comments), dashboards linked to the placement under the selection, and
// author names from the tenant's mentionable users (a comment carries only a userId).
import { codePoints, COMMENT_LIMITS, createCommentsClient, type Comment, type CommentsClient, type Thread } from "../../api/comments";
import { createEmbedClient, createEmbedSession, type EmbedClient } from "../../api/embed";
import type { FetchLike } from "../../api";
import type { CommentView, CommentsService, ThreadFilter, ThreadPage, ThreadView } from "./service";
import type { EmbedConfig, LinkedDashboards, SelectedPlacement } from "../types";
import { displayName, mentionMatches } from "./format";

export interface CommentsDeps {
  baseUrl: string;
  embed: EmbedConfig;
  /** The placement under the Excel selection, if any. */
  selectedPlacement(): Promise<SelectedPlacement | null>;
  fetch?: FetchLike;
  /** Where the session URL chosen in the pane is kept (default: localStorage when present). */
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
}

const STORAGE_KEY = "cellbound.comments.sessionUrl";
/** How many users one name lookup reads at most (pages of 200). */
const DIRECTORY_PAGES = 5;
/** Users asked for per @mention search (the platform's search is looser than the pane's match), and how many are offered. */
const MENTION_CANDIDATES = 50;
const MENTION_SHOWN = 8;

function defaultStorage(): CommentsDeps["storage"] {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

/** What one live comments service keeps: the session URL in use, its clients and the names it has read. */
interface CommentsContext {
  deps: CommentsDeps;
  storage: CommentsDeps["storage"];
  configured: string | null;
  clients: { comments: CommentsClient; embed: EmbedClient } | null;
  /** userId → name (displayName), per dashboard (mentionable users are the tenant's, read through a dashboard). */
  names: Map<string, Map<number, string>>;
}

export function createLiveComments(deps: CommentsDeps): CommentsService {
  const storage = deps.storage === undefined ? defaultStorage() : deps.storage;
  const ctx: CommentsContext = {
    deps,
    storage,
    configured: storage?.getItem(STORAGE_KEY) || deps.embed.sessionUrl || null,
    clients: null,
    names: new Map(),
  };
  return {
    sessionUrl: () => ctx.configured,
    configure: (url) => configure(ctx, url),
    bodyMax: COMMENT_LIMITS.bodyMax,
    measure: codePoints,
    linkedDashboards: (signal) => linkedDashboards(ctx, signal),
    async dashboard(publicId, signal) {
      const d = await api(ctx).embed.getDashboard(publicId, signal);
      return { publicId: d.publicId, title: d.title };
    },
    threads: (publicId, filter, after, signal) => threads(ctx, publicId, filter, after, signal),
    async post(publicId, body, parentId, signal) {
      const c = await api(ctx).comments.postComment(publicId, parentId === null ? { body } : { body, parentId }, signal);
      return commentView(await directory(ctx, publicId, [], signal), c);
    },
    async edit(publicId, commentId, body, signal) {
      const c = await api(ctx).comments.editComment(publicId, commentId, body, signal);
      return commentView(await directory(ctx, publicId, [], signal), c);
    },
    remove: (publicId, commentId, signal) => api(ctx).comments.deleteComment(publicId, commentId, signal),
    async resolve(publicId, rootId, resolved, signal) {
      const t = await api(ctx).comments.resolveThread(publicId, rootId, resolved, signal);
      return threadView(await directory(ctx, publicId, usersIn([t]), signal), t);
    },
    async mentionable(publicId, search, signal) {
      // The platform's search matches anywhere in the username or email; the pane offers only users
      // whose name or a word of it starts with what was typed (format.ts mentionMatches).
      const page = await api(ctx).comments.mentionableUsers(publicId, { search, first: MENTION_CANDIDATES }, signal);
      return page.items
        .map((u) => ({ id: u.id, username: u.username, email: u.email ?? null, firstName: u.firstName ?? null }))
        .filter((u) => mentionMatches(u, search))
        .slice(0, MENTION_SHOWN);
    },
    close() {
      ctx.clients = null;
      ctx.names.clear();
    },
  };
}

/** Sets (or clears) the session URL, keeps it in storage, and forgets the clients and names of the old one. */
function configure(ctx: CommentsContext, url: string | null): void {
  ctx.configured = url?.trim() || null;
  ctx.clients = null;
  ctx.names.clear();
  if (ctx.configured) ctx.storage?.setItem(STORAGE_KEY, ctx.configured);
  else ctx.storage?.removeItem(STORAGE_KEY);
}

/** The comments and embed clients over one embed session of the configured session URL. */
function api(ctx: CommentsContext): { comments: CommentsClient; embed: EmbedClient } {
  const { deps, configured } = ctx;
  if (!configured) throw new Error("No session URL is configured for comments.");
  if (!ctx.clients) {
    const session = createEmbedSession({
      baseUrl: deps.baseUrl,
      sessionUrl: configured,
      ...(deps.embed.sessionRequest ? { sessionRequest: deps.embed.sessionRequest } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
    const common = { baseUrl: deps.baseUrl, session, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
    ctx.clients = { comments: createCommentsClient(common), embed: createEmbedClient(common) };
  }
  return ctx.clients;
}

/** The dashboard's userId → name (the user's firstName, else username), read again (up to DIRECTORY_PAGES pages) when a needed user is missing. */
async function directory(
  ctx: CommentsContext,
  publicId: string,
  need: Iterable<number>,
  signal?: AbortSignal,
): Promise<Map<number, string>> {
  let dir = ctx.names.get(publicId);
  const missing = [...need].some((id) => !dir?.has(id));
  if (!dir || missing) {
    dir = new Map();
    let pages = 0;
    for await (const page of api(ctx).comments.mentionablePages(publicId, { first: 200 }, signal)) {
      for (const u of page.items) dir.set(u.id, displayName(u));
      if (++pages >= DIRECTORY_PAGES) break;
    }
    ctx.names.set(publicId, dir);
  }
  return dir;
}

async function linkedDashboards(ctx: CommentsContext, signal?: AbortSignal): Promise<LinkedDashboards> {
  const p = await ctx.deps.selectedPlacement();
  if (!p) return { placement: null, dashboards: [] };
  const found = await api(ctx).embed.linkedDashboards({ deploymentId: p.deploymentId, reportId: p.reportId }, signal);
  return {
    placement: { reportName: p.reportName, range: p.range },
    dashboards: found.map((d) => ({ publicId: d.publicId, title: d.title })),
  };
}

/** One page of threads, their authors by name. */
async function threads(
  ctx: CommentsContext,
  publicId: string,
  filter: ThreadFilter,
  after: string | null,
  signal?: AbortSignal,
): Promise<ThreadPage> {
  const page = await api(ctx).comments.listThreads(publicId, { filter, ...(after ? { after } : {}), first: 20 }, signal);
  const dir = await directory(ctx, publicId, usersIn(page.items), signal);
  return {
    threads: page.items.map((t) => threadView(dir, t)),
    next: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null,
  };
}

const author = (dir: Map<number, string>, userId: number | null | undefined, own: boolean) =>
  own ? "You" : userId == null ? "A former viewer" : (dir.get(userId) ?? `Viewer #${userId}`);

const commentView = (dir: Map<number, string>, c: Comment): CommentView => ({
  id: c.id,
  userId: c.userId ?? null,
  author: author(dir, c.userId, c.isOwn),
  body: c.body,
  createdAt: c.createdAt,
  editedAt: c.editedAt ?? null,
  isOwn: c.isOwn,
});

function threadView(dir: Map<number, string>, t: Thread): ThreadView {
  // Loose null checks (seeds 02 §2.1): an open thread may omit resolvedAt and resolvedBy entirely.
  const resolvedAt = t.resolvedAt ?? null;
  const own = t.resolvedBy != null && t.resolvedBy === t.root.userId && t.root.isOwn;
  return {
    root: commentView(dir, t.root),
    replies: t.replies.map((r) => commentView(dir, r)),
    resolvedAt,
    resolvedBy: resolvedAt === null ? null : author(dir, t.resolvedBy, own),
  };
}

/** The users a page of threads names: authors of its comments and who resolved them. */
const usersIn = (ts: Thread[]) =>
  ts.flatMap((t) => [t.root, ...t.replies].map((c) => c.userId).concat(t.resolvedBy)).filter((x): x is number => typeof x === "number");
