// What the comments pane needs from the world (implemented over src/api in comments/live.ts, scripted
// in the view tests). Plain view shapes: the pane never sees the wire format.
import type { DashboardChoice, LinkedDashboards } from "../types";

export type ThreadFilter = "open" | "all" | "resolved";

export interface CommentView {
  id: number;
  userId: number | null;
  /** "You" for the caller's own comments, else the author's name as the comments API gives it (firstName, else username; "Viewer #id" if unknown). */
  author: string;
  body: string;
  createdAt: string;
  editedAt: string | null;
  isOwn: boolean;
}

export interface ThreadView {
  root: CommentView;
  replies: CommentView[];
  resolvedAt: string | null;
  /** Who resolved it, by name ("You" when the caller did). */
  resolvedBy: string | null;
}

export interface ThreadPage {
  threads: ThreadView[];
  /** Cursor for the next page; null at the end. */
  next: string | null;
}

export interface MentionUser {
  id: number;
  username: string;
  email: string | null;
  firstName: string | null;
}

export interface CommentsService {
  /** The session URL the host organisation provides, or null when none is configured. */
  sessionUrl(): string | null;
  /** Set (or clear) the session URL; kept in this browser's storage, never in the workbook. */
  configure(sessionUrl: string | null): void;
  /** Body limits (seeds 02 §8) and how they count (Unicode code points). */
  readonly bodyMax: number;
  measure(body: string): number;
  linkedDashboards(signal?: AbortSignal): Promise<LinkedDashboards>;
  dashboard(publicId: string, signal?: AbortSignal): Promise<DashboardChoice>;
  threads(publicId: string, filter: ThreadFilter, after: string | null, signal?: AbortSignal): Promise<ThreadPage>;
  post(publicId: string, body: string, parentId: number | null, signal?: AbortSignal): Promise<CommentView>;
  edit(publicId: string, commentId: number, body: string, signal?: AbortSignal): Promise<CommentView>;
  remove(publicId: string, commentId: number, signal?: AbortSignal): Promise<void>;
  resolve(publicId: string, rootId: number, resolved: boolean, signal?: AbortSignal): Promise<ThreadView>;
  mentionable(publicId: string, search: string, signal?: AbortSignal): Promise<MentionUser[]>;
  /** Forget the session (sign out, or after the configuration changed). */
  close(): void;
}
