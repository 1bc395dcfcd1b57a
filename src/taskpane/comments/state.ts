// The comments pane's state and actions, as signals (framework-free apart from @preact/signals).
// One AbortController per kind of in-flight request, aborted when a newer one replaces it and on
// dispose(). Errors stay in the model (`error`), named for the user's things, with what to do next.
import { batch, signal } from "@preact/signals";
import { errorNotice, type Notice } from "../state/store";
import type { CommentView, CommentsService, MentionUser, ThreadFilter, ThreadView } from "./service";
import type { DashboardChoice, LinkedDashboards } from "../types";

const kindOf = (e: unknown) => (typeof e === "object" && e !== null ? (e as { kind?: unknown }).kind : undefined);
const isAbort = (e: unknown) => e instanceof DOMException && e.name === "AbortError";

/** What a failed comment action means to the user (seeds 02 §7), else the generic mapping. */
export function commentsNotice(e: unknown, what: string, dashboard: string | null): Notice {
  const where = dashboard ? `“${dashboard}”` : "this dashboard";
  switch (kindOf(e)) {
    case "forbidden":
      return {
        tone: "error",
        title: `You cannot ${what}`,
        detail: `Only the author may edit or delete a comment, and only the person who started a thread may resolve or reopen it. Your session may also lack access to ${where}.`,
        next: "Ask the author, or the person who started the thread.",
      };
    case "not-found":
      return {
        tone: "warning",
        title: `Could not ${what}: it is gone`,
        detail: `The comment, its thread or ${where} was deleted meanwhile.`,
        next: "The list was reloaded.",
      };
    case "unauthorized":
      return {
        tone: "error",
        title: "Your comments session was not accepted",
        detail: "Cellbound asked your organisation's session URL for a new session and the platform refused it too.",
        next: "Check the session URL with your platform admin, then try again.",
      };
    case "bad-request":
      return { tone: "error", title: `Could not ${what}`, detail: (e as Error).message, next: "Change the text and try again." };
    default: {
      const n = errorNotice(e);
      return { ...n, title: `Could not ${what}: ${n.title}` };
    }
  }
}

export class CommentsModel {
  readonly linked = signal<(LinkedDashboards & { loading: boolean }) | null>(null);
  readonly dashboard = signal<DashboardChoice | null>(null);
  readonly filter = signal<ThreadFilter>("open");
  readonly threads = signal<ThreadView[]>([]);
  readonly next = signal<string | null>(null);
  readonly loading = signal(false);
  /** A write in flight ("Posting…"), shown and used to disable the controls it concerns. */
  readonly busy = signal<string | null>(null);
  readonly error = signal<Notice | null>(null);
  readonly info = signal<Notice | null>(null);
  /** The thread shown in full (thread view), by root id. */
  readonly openThread = signal<number | null>(null);

  private listAbort: AbortController | null = null;
  private writeAbort: AbortController | null = null;

  constructor(readonly service: CommentsService) {}

  get configured(): boolean {
    return this.service.sessionUrl() !== null;
  }

  dispose(): void {
    this.listAbort?.abort();
    this.writeAbort?.abort();
  }

  /** Dashboards linked to the report of the placement under the selection; one → opened at once. */
  async findLinked(): Promise<void> {
    this.error.value = null;
    this.linked.value = { placement: null, dashboards: [], loading: true };
    try {
      const l = await this.service.linkedDashboards();
      this.linked.value = { ...l, loading: false };
      if (l.dashboards.length === 1) await this.open(l.dashboards[0]!);
    } catch (e) {
      this.linked.value = null;
      this.error.value = commentsNotice(e, "find the dashboards of this placement", null);
    }
  }

  /** A dashboard chosen by its publicId (as in its embed URL). */
  async openByPublicId(publicId: string): Promise<void> {
    const id = publicId.trim();
    if (!id) return;
    this.error.value = null;
    try {
      await this.open(await this.service.dashboard(id));
    } catch (e) {
      const k = kindOf(e);
      this.error.value =
        k === "not-found"
          ? {
              tone: "error",
              title: `No published dashboard has the id ${id}`,
              next: "Copy the id from the dashboard's embed URL (…/embed/dashboard/<id>) and try again.",
            }
          : k === "forbidden"
            ? {
                tone: "error",
                title: `Your organisation's viewers cannot open dashboard ${id}`,
                next: "Ask your platform admin to share it with your embed tenant.",
              }
            : commentsNotice(e, `open dashboard ${id}`, null);
    }
  }

  async open(d: DashboardChoice): Promise<void> {
    batch(() => {
      this.dashboard.value = d;
      this.openThread.value = null;
    });
    await this.reload();
  }

  async setFilter(f: ThreadFilter): Promise<void> {
    this.filter.value = f;
    this.info.value = null; // "Resolved threads are hidden" is no longer true once the filter changes
    await this.reload();
  }

  /** First page again (after a filter change, a 404, or on demand). */
  async reload(): Promise<void> {
    batch(() => {
      this.threads.value = [];
      this.next.value = null;
    });
    await this.page(null);
  }

  /** The next page (infinite scroll). */
  async more(): Promise<void> {
    if (this.next.value && !this.loading.value) await this.page(this.next.value);
  }

  private async page(after: string | null): Promise<void> {
    const d = this.dashboard.value;
    if (!d) return;
    this.listAbort?.abort();
    const ac = (this.listAbort = new AbortController());
    this.loading.value = true;
    try {
      const p = await this.service.threads(d.publicId, this.filter.value, after, ac.signal);
      if (ac.signal.aborted) return;
      batch(() => {
        const seen = new Set(this.threads.value.map((t) => t.root.id));
        this.threads.value = after ? [...this.threads.value, ...p.threads.filter((t) => !seen.has(t.root.id))] : p.threads;
        this.next.value = p.next;
        this.error.value = null;
      });
    } catch (e) {
      if (!isAbort(e)) this.error.value = commentsNotice(e, "load the comments", d.title);
    } finally {
      if (this.listAbort === ac) this.loading.value = false;
    }
  }

  private async write<T>(label: string, what: string, run: (publicId: string, signal: AbortSignal) => Promise<T>): Promise<T | null> {
    const d = this.dashboard.value;
    if (!d || this.busy.value) return null;
    const ac = (this.writeAbort = new AbortController());
    batch(() => {
      this.busy.value = label;
      this.error.value = null;
      this.info.value = null;
    });
    try {
      return await run(d.publicId, ac.signal);
    } catch (e) {
      if (isAbort(e)) return null;
      this.error.value = commentsNotice(e, what, d.title);
      if (kindOf(e) === "not-found") void this.reload();
      return null;
    } finally {
      this.busy.value = null;
    }
  }

  private replaceThread(rootId: number, f: (t: ThreadView) => ThreadView | null): void {
    this.threads.value = this.threads.value.flatMap((t) => {
      if (t.root.id !== rootId) return [t];
      const n = f(t);
      return n ? [n] : [];
    });
  }

  /** Start a thread; true when posted (the composer then clears). */
  async startThread(body: string): Promise<boolean> {
    const c = await this.write("Posting…", "post your comment", (id, s) => this.service.post(id, body, null, s));
    if (!c) return false;
    if (this.filter.value !== "resolved")
      this.threads.value = [{ root: c, replies: [], resolvedAt: null, resolvedBy: null }, ...this.threads.value];
    else
      this.info.value = {
        tone: "info",
        title: "Posted",
        detail: "New threads are open, so they are not shown while the list shows resolved threads only.",
      };
    return true;
  }

  async reply(rootId: number, body: string): Promise<boolean> {
    const c = await this.write("Replying…", "reply", (id, s) => this.service.post(id, body, rootId, s));
    if (!c) return false;
    this.replaceThread(rootId, (t) => ({ ...t, replies: [...t.replies, c] }));
    return true;
  }

  async edit(rootId: number, commentId: number, body: string): Promise<boolean> {
    const c = await this.write("Saving…", "edit the comment", (id, s) => this.service.edit(id, commentId, body, s));
    if (!c) return false;
    const swap = (x: CommentView) => (x.id === c.id ? c : x);
    this.replaceThread(rootId, (t) => ({ ...t, root: swap(t.root), replies: t.replies.map(swap) }));
    return true;
  }

  async remove(rootId: number, commentId: number): Promise<boolean> {
    const done = await this.write("Deleting…", "delete the comment", (id, s) => this.service.remove(id, commentId, s).then(() => true));
    if (!done) return false;
    // Deleting the first comment removes the whole thread; deleting a reply leaves the thread in place.
    this.replaceThread(rootId, (t) => (t.root.id === commentId ? null : { ...t, replies: t.replies.filter((r) => r.id !== commentId) }));
    if (rootId === commentId && this.openThread.value === rootId) this.openThread.value = null;
    return true;
  }

  async resolve(rootId: number, resolved: boolean): Promise<boolean> {
    const t = await this.write(resolved ? "Resolving…" : "Reopening…", resolved ? "resolve the thread" : "reopen the thread", (id, s) =>
      this.service.resolve(id, rootId, resolved, s),
    );
    if (!t) return false;
    const hidden = (this.filter.value === "open" && t.resolvedAt !== null) || (this.filter.value === "resolved" && t.resolvedAt === null);
    this.replaceThread(rootId, () => (hidden ? null : t));
    if (hidden) {
      if (this.openThread.value === rootId) this.openThread.value = null;
      this.info.value = resolved
        ? { tone: "success", title: "Thread resolved", detail: "Resolved threads are hidden; tick “Include resolved” to see them." }
        : { tone: "success", title: "Thread reopened", detail: "It is back among the open threads." };
    }
    return true;
  }

  mentionable(search: string, signal?: AbortSignal): Promise<MentionUser[]> {
    const d = this.dashboard.value;
    return d ? this.service.mentionable(d.publicId, search, signal) : Promise.resolve([]);
  }
}
