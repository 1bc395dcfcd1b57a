// Dashboard-comment schemas (seeds 02 §2.1–§2.3, §4.1, §8): the client checks responses with them
// (lenient objects: unknown fields dropped; loose null checks, since an open thread may omit
// resolvedAt entirely), the stand-in checks requests (strict: an author or any unknown field is a 400).
import { z } from "zod";
import { Timestamp } from "../schemas/common";

/** Seeds 02 §8. */
export const COMMENT_LIMITS = {
  bodyMin: 1,
  bodyMax: 10_000,
  firstDefault: 100,
  firstMax: 200,
  firstMin: 1,
  searchMax: 255,
} as const;

/** Length in Unicode code points (what the limits count): "😀" is 1, not 2 UTF-16 units. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** 1 to 10,000 code points, kept verbatim (no trimming: "  " is a valid body of 2). */
export const CommentText = z.string().refine((s) => codePoints(s) >= COMMENT_LIMITS.bodyMin && codePoints(s) <= COMMENT_LIMITS.bodyMax, {
  error: `body must be ${COMMENT_LIMITS.bodyMin} to ${COMMENT_LIMITS.bodyMax} characters`,
});

export const Comment = z.object({
  id: z.number().int(),
  /** The dashboard's publicId. */
  dashboardId: z.string(),
  userId: z.number().int().nullish(),
  body: z.string(),
  editedAt: Timestamp.nullish(),
  removedAt: Timestamp.nullish(),
  createdAt: Timestamp,
  isOwn: z.boolean(),
});
export type Comment = z.infer<typeof Comment>;

export const Thread = z.object({
  root: Comment,
  replies: z.array(Comment),
  resolvedAt: Timestamp.nullish(),
  resolvedBy: z.number().int().nullish(),
});
export type Thread = z.infer<typeof Thread>;

/** §2.3: cursors are null or absent on an empty page. */
export const CommentPageInfo = z.object({
  hasNextPage: z.boolean(),
  hasPreviousPage: z.boolean(),
  startCursor: z.string().nullish(),
  endCursor: z.string().nullish(),
});
export type CommentPageInfo = z.infer<typeof CommentPageInfo>;

export const ThreadList = z.object({ items: z.array(Thread), pageInfo: CommentPageInfo });
export type ThreadList = z.infer<typeof ThreadList>;

export const MentionableUser = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string().nullish(),
  firstName: z.string().nullish(),
});
export type MentionableUser = z.infer<typeof MentionableUser>;

export const MentionableUserList = z.object({ items: z.array(MentionableUser), pageInfo: CommentPageInfo });
export type MentionableUserList = z.infer<typeof MentionableUserList>;

export const PostCommentInput = z.strictObject({ body: CommentText, parentId: z.number().int().positive().optional() });
export type PostCommentInput = z.infer<typeof PostCommentInput>;
export const EditCommentInput = z.strictObject({ body: CommentText });
export const ResolveInput = z.strictObject({ resolved: z.boolean() });

// ---- query strings (stand-in side) -----------------------------------------------------------

const BoolParam = z.enum(["true", "false"], { error: "must be true or false" }).transform((v) => v === "true");
/** `first`: default 100, larger values clamped to 200, below 1 → 400 (§4.1 rule 5). */
const FirstParam = z
  .string()
  .regex(/^[+-]?\d+$/, { error: "first must be an integer" })
  .transform((s) => Math.min(Number(s), COMMENT_LIMITS.firstMax))
  .pipe(z.number().min(COMMENT_LIMITS.firstMin, { error: "first must be at least 1" }));

export const ThreadListQuery = z.strictObject({
  includeResolved: BoolParam.optional(),
  resolvedOnly: BoolParam.optional(),
  first: FirstParam.optional(),
  after: z.string().optional(),
});
export const MentionableQuery = z.strictObject({
  search: z
    .string()
    .refine((s) => codePoints(s) <= COMMENT_LIMITS.searchMax, { error: `search must be at most ${COMMENT_LIMITS.searchMax} characters` })
    .optional(),
  first: FirstParam.optional(),
  after: z.string().optional(),
});

/** Which threads a list shows (§4.1 rule 4): open (default), open + resolved, or resolved only. */
export type ThreadFilter = "open" | "all" | "resolved";
