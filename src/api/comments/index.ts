// Dashboard comments (seeds 02 §2.1–§2.3, §4.1).
export * from "./schemas";
export { createCommentsClient } from "./client";
export type { CommentsClient, CommentsClientOptions, ThreadQuery, MentionQuery } from "./client";
