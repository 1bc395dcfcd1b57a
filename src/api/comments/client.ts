// The dashboard comments client (seeds 02 §4.1): one function per endpoint on an embed session,
// each taking an AbortSignal last; cursor pages as async iterables driven by hasNextPage; bodies
// checked against the §8 limits before anything is sent.
import { BadRequestError } from "../errors";
import { path, type FetchLike } from "../http";
import type { Deadlines, RetryPolicy } from "../deadlines";
import type { EmbedTokenSource } from "../embed/session";
import { embedCall, embedContext } from "../embed/call";
import { Comment, MentionableUserList, PostCommentInput, Thread, ThreadList, CommentText, type ThreadFilter } from "./schemas";

export interface CommentsClientOptions {
  baseUrl: string;
  /** An EmbedSession (src/api/embed): the token source, re-minted once on a 401. */
  session: EmbedTokenSource;
  fetch?: FetchLike;
  retry?: Partial<RetryPolicy>;
  deadlines?: Partial<Deadlines>;
}

export interface ThreadQuery {
  /** open (default), all (open and resolved) or resolved only. */
  filter?: ThreadFilter;
  first?: number;
  after?: string;
}

export interface MentionQuery {
  search?: string;
  first?: number;
  after?: string;
}

export interface CommentsClient {
  listThreads(publicId: string, q?: ThreadQuery, signal?: AbortSignal): Promise<ThreadList>;
  /** Page after page while hasNextPage (`first` = page size). */
  threadPages(publicId: string, q?: Omit<ThreadQuery, "after">, signal?: AbortSignal): AsyncIterable<ThreadList>;
  /** Starts a thread, or replies to one when parentId names its first comment. Never retried (not idempotent). */
  postComment(publicId: string, input: { body: string; parentId?: number }, signal?: AbortSignal): Promise<Comment>;
  editComment(publicId: string, commentId: number, body: string, signal?: AbortSignal): Promise<Comment>;
  deleteComment(publicId: string, commentId: number, signal?: AbortSignal): Promise<void>;
  resolveThread(publicId: string, rootId: number, resolved: boolean, signal?: AbortSignal): Promise<Thread>;
  mentionableUsers(publicId: string, q?: MentionQuery, signal?: AbortSignal): Promise<MentionableUserList>;
  mentionablePages(publicId: string, q?: Omit<MentionQuery, "after">, signal?: AbortSignal): AsyncIterable<MentionableUserList>;
}

const FILTER_QUERY: Record<ThreadFilter, Record<string, string>> = {
  open: {},
  all: { includeResolved: "true" },
  resolved: { resolvedOnly: "true" },
};

/** Rejects a body outside 1..10,000 code points before a request is made. */
function checkBody(body: string): void {
  const r = CommentText.safeParse(body);
  if (!r.success) throw new BadRequestError(r.error.issues[0]?.message ?? "invalid body", 400, undefined, "body");
}

async function* pages<P extends { pageInfo: { hasNextPage: boolean; endCursor?: string | null | undefined } }>(
  fetchPage: (after: string | undefined) => Promise<P>,
): AsyncIterable<P> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage(after);
    yield page;
    // An absent cursor passed back is a bogus cursor, not a restart (§2.3): stop instead.
    if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return;
    after = page.pageInfo.endCursor;
  }
}

export function createCommentsClient(o: CommentsClientOptions): CommentsClient {
  const ctx = embedContext(o);
  const base = (publicId: string) => path`/api/v1/embed/dashboard/${publicId}/comments`;
  const client: CommentsClient = {
    listThreads: (publicId, q = {}, signal) =>
      embedCall(ctx, "GET", base(publicId), ThreadList, {
        query: { ...FILTER_QUERY[q.filter ?? "open"], first: q.first, after: q.after },
        signal,
        idempotent: true,
      }),
    threadPages: (publicId, q = {}, signal) =>
      pages((after) => client.listThreads(publicId, { ...q, ...(after ? { after } : {}) }, signal)),
    postComment: async (publicId, input, signal) => {
      checkBody(input.body);
      const body: PostCommentInput = input.parentId === undefined ? { body: input.body } : { body: input.body, parentId: input.parentId };
      return embedCall(ctx, "POST", base(publicId), Comment, { body, signal, idempotent: false });
    },
    editComment: async (publicId, commentId, body, signal) => {
      checkBody(body);
      return embedCall(ctx, "PATCH", base(publicId) + path`/${commentId}`, Comment, { body: { body }, signal, idempotent: true });
    },
    deleteComment: async (publicId, commentId, signal) => {
      await embedCall(ctx, "DELETE", base(publicId) + path`/${commentId}`, null, { signal, idempotent: false });
    },
    resolveThread: (publicId, rootId, resolved, signal) =>
      embedCall(ctx, "POST", base(publicId) + path`/${rootId}/resolve`, Thread, { body: { resolved }, signal, idempotent: true }),
    mentionableUsers: (publicId, q = {}, signal) =>
      embedCall(ctx, "GET", base(publicId) + "/mentionable-users", MentionableUserList, {
        query: { search: q.search || undefined, first: q.first, after: q.after },
        signal,
        idempotent: true,
      }),
    mentionablePages: (publicId, q = {}, signal) =>
      pages((after) => client.mentionableUsers(publicId, { ...q, ...(after ? { after } : {}) }, signal)),
  };
  return client;
}
