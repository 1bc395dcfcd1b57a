// One thread: its first comment and replies (oldest first), each with Edit and Delete for its author,
// Resolve/Reopen for the thread starter only (hidden for others; a 403 is still explained), and a
// reply box. `full` shows everything (the thread view); otherwise a summary card for the list.
import { useSignal } from "@preact/signals";
import type { CommentsModel } from "./state";
import type { CommentView, ThreadView as Thread } from "./service";
import { Compose } from "./Compose";
import { bodyPieces, localTime } from "./format";

function Time({ iso, prefix = "" }: { iso: string; prefix?: string }) {
  const t = localTime(iso);
  return (
    <time dateTime={iso} title={t.title}>
      {prefix}
      {t.text}
    </time>
  );
}

export function Body({ text }: { text: string }) {
  // Text nodes only: a body is never parsed as HTML or markdown.
  return (
    <p class="cb-comment-body">
      {bodyPieces(text).map((p, i) =>
        p.mention ? (
          <span key={i} class="cb-mention">
            {p.text}
          </span>
        ) : (
          p.text
        ),
      )}
    </p>
  );
}

function CommentItem({ model, rootId, c, isRoot }: { model: CommentsModel; rootId: number; c: CommentView; isRoot: boolean }) {
  const editing = useSignal(false);
  // Office blocks window.confirm in add-ins: deleting asks inline instead.
  const confirming = useSignal(false);
  const busy = model.busy.value !== null;
  return (
    <article class="cb-comment" aria-label={`${isRoot ? "Comment" : "Reply"} by ${c.author}`}>
      <div class="cb-comment-head">
        <strong>{c.author}</strong>
        <Time iso={c.createdAt} />
        {c.editedAt && <span title={localTime(c.editedAt).title}>(edited)</span>}
      </div>
      {editing.value ? (
        <Compose
          model={model}
          label={`Edit your ${isRoot ? "comment" : "reply"}`}
          submitLabel="Save"
          initial={c.body}
          autoFocus
          onSubmit={async (body) => {
            const ok = await model.edit(rootId, c.id, body);
            if (ok) editing.value = false;
            return ok;
          }}
          onCancel={() => (editing.value = false)}
        />
      ) : (
        <Body text={c.body} />
      )}
      {c.isOwn && !editing.value && confirming.value && (
        <div class="cb-actions" role="group" aria-label="Confirm delete">
          <span>{isRoot ? "Delete this comment and its whole thread?" : "Delete this reply?"}</span>
          <button
            type="button"
            class="cb-btn cb-small cb-primary"
            disabled={busy}
            onClick={() => void model.remove(rootId, c.id).then(() => (confirming.value = false))}
          >
            Yes, delete
          </button>
          <button type="button" class="cb-btn cb-small cb-subtle" onClick={() => (confirming.value = false)}>
            Keep it
          </button>
        </div>
      )}
      {c.isOwn && !editing.value && !confirming.value && (
        <div class="cb-actions">
          <button type="button" class="cb-btn cb-small cb-subtle" disabled={busy} onClick={() => (editing.value = true)}>
            Edit<span class="cb-sr-only"> your {isRoot ? "comment" : "reply"}</span>
          </button>
          <button type="button" class="cb-btn cb-small cb-subtle" disabled={busy} onClick={() => (confirming.value = true)}>
            Delete<span class="cb-sr-only"> your {isRoot ? "comment and its thread" : "reply"}</span>
          </button>
        </div>
      )}
    </article>
  );
}

export function ThreadCard({ model, thread, full }: { model: CommentsModel; thread: Thread; full: boolean }) {
  const busy = model.busy.value !== null;
  const root = thread.root;
  const resolved = thread.resolvedAt !== null;
  return (
    <li class={resolved ? "cb-thread cb-thread-resolved" : "cb-thread"}>
      {resolved && (
        <p class="cb-meta" style={{ margin: 0 }}>
          <span class="cb-badge cb-badge-ok">Resolved</span> by {thread.resolvedBy ?? "the thread starter"}{" "}
          <Time iso={thread.resolvedAt!} prefix="on " />
        </p>
      )}
      <CommentItem model={model} rootId={root.id} c={root} isRoot />
      {full ? (
        <>
          {thread.replies.length > 0 && (
            <div class="cb-replies" role="group" aria-label="Replies">
              {thread.replies.map((r) => (
                <CommentItem key={r.id} model={model} rootId={root.id} c={r} isRoot={false} />
              ))}
            </div>
          )}
          <Compose model={model} label="Reply" submitLabel="Reply" onSubmit={(body) => model.reply(root.id, body)} />
        </>
      ) : (
        <p class="cb-meta" style={{ margin: 0 }}>
          {thread.replies.length === 0 ? "No replies" : thread.replies.length === 1 ? "1 reply" : `${thread.replies.length} replies`}
        </p>
      )}
      <div class="cb-actions">
        {!full && (
          <button type="button" class="cb-btn cb-small" onClick={() => (model.openThread.value = root.id)}>
            Open thread<span class="cb-sr-only"> started by {root.author}</span>
          </button>
        )}
        {root.isOwn && (
          <button type="button" class="cb-btn cb-small" disabled={busy} onClick={() => void model.resolve(root.id, !resolved)}>
            {resolved ? "Reopen thread" : "Resolve thread"}
          </button>
        )}
      </div>
    </li>
  );
}
