// The live CommentsService: embed sessions from the configured session URL (src/api/embed), the
// comments client (src/api/comments), dashboards linked to the placement under the selection, and
// author names from the tenant's mentionable users (a comment carries only a userId).
import { codePoints, COMMENT_LIMITS, createCommentsClient, type Comment, type CommentsClient, type Thread } from "../../api/comments";
import { createEmbedClient, createEmbedSession, type EmbedClient } from "../../api/embed";
import type { FetchLike } from "../../api";
import type { CommentView, CommentsService, ThreadView } from "./service";
import type { EmbedConfig, LinkedDashboards, SelectedPlacement } from "../types";

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

function defaultStorage(): CommentsDeps["storage"] {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

export function createLiveComments(deps: CommentsDeps): CommentsService {
  const storage = deps.storage === undefined ? defaultStorage() : deps.storage;
  let configured: string | null = storage?.getItem(STORAGE_KEY) || deps.embed.sessionUrl || null;
  let clients: { comments: CommentsClient; embed: EmbedClient } | null = null;
  /** userId → username, per dashboard (mentionable users are the tenant's, read through a dashboard). */
  const names = new Map<string, Map<number, string>>();

  const api = () => {
    if (!configured) throw new Error("No session URL is configured for comments.");
    if (!clients) {
      const session = createEmbedSession({
        baseUrl: deps.baseUrl,
        sessionUrl: configured,
        ...(deps.embed.sessionRequest ? { sessionRequest: deps.embed.sessionRequest } : {}),
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
      });
      const common = { baseUrl: deps.baseUrl, session, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
      clients = { comments: createCommentsClient(common), embed: createEmbedClient(common) };
    }
    return clients;
  };

  async function directory(publicId: string, need: Iterable<number>, signal?: AbortSignal): Promise<Map<number, string>> {
    let dir = names.get(publicId);
    const missing = [...need].some((id) => !dir?.has(id));
    if (!dir || missing) {
      dir = new Map();
      let pages = 0;
      for await (const page of api().comments.mentionablePages(publicId, { first: 200 }, signal)) {
        for (const u of page.items) dir.set(u.id, u.username);
        if (++pages >= DIRECTORY_PAGES) break;
      }
      names.set(publicId, dir);
    }
    return dir;
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

  const threadView = (dir: Map<number, string>, t: Thread): ThreadView => {
    // Loose null checks (seeds 02 §2.1): an open thread may omit resolvedAt and resolvedBy entirely.
    const resolvedAt = t.resolvedAt ?? null;
    const own = t.resolvedBy != null && t.resolvedBy === t.root.userId && t.root.isOwn;
    return {
      root: commentView(dir, t.root),
      replies: t.replies.map((r) => commentView(dir, r)),
      resolvedAt,
      resolvedBy: resolvedAt === null ? null : author(dir, t.resolvedBy, own),
    };
  };

  const usersIn = (ts: Thread[]) =>
    ts.flatMap((t) => [t.root, ...t.replies].map((c) => c.userId).concat(t.resolvedBy)).filter((x): x is number => typeof x === "number");

  return {
    sessionUrl: () => configured,
    configure(url) {
      configured = url?.trim() || null;
      clients = null;
      names.clear();
      if (configured) storage?.setItem(STORAGE_KEY, configured);
      else storage?.removeItem(STORAGE_KEY);
    },
    bodyMax: COMMENT_LIMITS.bodyMax,
    measure: codePoints,
    async linkedDashboards(signal): Promise<LinkedDashboards> {
      const p = await deps.selectedPlacement();
      if (!p) return { placement: null, dashboards: [] };
      const found = await api().embed.linkedDashboards({ deploymentId: p.deploymentId, reportId: p.reportId }, signal);
      return {
        placement: { reportName: p.reportName, range: p.range },
        dashboards: found.map((d) => ({ publicId: d.publicId, title: d.title })),
      };
    },
    async dashboard(publicId, signal) {
      const d = await api().embed.getDashboard(publicId, signal);
      return { publicId: d.publicId, title: d.title };
    },
    async threads(publicId, filter, after, signal) {
      const page = await api().comments.listThreads(publicId, { filter, ...(after ? { after } : {}), first: 20 }, signal);
      const dir = await directory(publicId, usersIn(page.items), signal);
      return {
        threads: page.items.map((t) => threadView(dir, t)),
        next: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null,
      };
    },
    async post(publicId, body, parentId, signal) {
      const c = await api().comments.postComment(publicId, parentId === null ? { body } : { body, parentId }, signal);
      return commentView(await directory(publicId, [], signal), c);
    },
    async edit(publicId, commentId, body, signal) {
      const c = await api().comments.editComment(publicId, commentId, body, signal);
      return commentView(await directory(publicId, [], signal), c);
    },
    remove: (publicId, commentId, signal) => api().comments.deleteComment(publicId, commentId, signal),
    async resolve(publicId, rootId, resolved, signal) {
      const t = await api().comments.resolveThread(publicId, rootId, resolved, signal);
      return threadView(await directory(publicId, usersIn([t]), signal), t);
    },
    async mentionable(publicId, search, signal) {
      const page = await api().comments.mentionableUsers(publicId, { search, first: 8 }, signal);
      return page.items.map((u) => ({ id: u.id, username: u.username, email: u.email ?? null, firstName: u.firstName ?? null }));
    },
    close() {
      clients = null;
      names.clear();
    },
  };
}
