// Comments: the conversation on a published dashboard, next to the data. Which dashboard: the one
// linked to the report of the placement under the selection, or one chosen by its publicId. Threads
// (open by default; include resolved / resolved only), infinite scroll, a thread view with replies,
// and a composer with @mentions. Without a session URL, it explains what the organisation must provide.
import { useSignal } from "@preact/signals";
import { useEffect, useMemo, useRef } from "preact/hooks";
import type { PaneStore } from "../state/store";
import { NoticeBox, ProgressLine } from "../ui/Notice";
import type { CommentsService, ThreadFilter } from "./service";
import { CommentsModel } from "./state";
import { Compose } from "./Compose";
import { ThreadCard } from "./ThreadView";
import { COMMENTS_CSS } from "./styles";

export function CommentsView({ store }: { store: PaneStore }) {
  const service = store.workspace.value?.comments;
  if (!service) return <NoticeBox notice={{ tone: "info", title: "Comments are not available in this workspace" }} />;
  return <CommentsPane service={service} />;
}

export function CommentsPane({ service }: { service: CommentsService }) {
  const model = useMemo(() => new CommentsModel(service), [service]);
  const configured = useSignal(model.configured);
  useEffect(() => () => model.dispose(), [model]);
  useEffect(() => {
    if (configured.value) void model.findLinked();
  }, [model, configured.value]);

  return (
    <section aria-labelledby="cb-comments-title">
      <style>{COMMENTS_CSS}</style>
      <h1 id="cb-comments-title">Comments</h1>
      {configured.value ? (
        <Conversation model={model} onSettings={() => (configured.value = false)} />
      ) : (
        <SessionSetup
          service={service}
          onSaved={() => {
            configured.value = true;
          }}
        />
      )}
    </section>
  );
}

function SessionSetup({ service, onSaved }: { service: CommentsService; onSaved: () => void }) {
  const url = useSignal(service.sessionUrl() ?? "");
  const problem = useSignal<string | null>(null);
  return (
    <div>
      <div class="cb-message cb-message-info" role="status">
        <strong>Comments need a session URL from your organisation</strong>
        <p>
          Dashboard comments are signed in as an embedded-dashboard viewer of your organisation. Your organisation provides a session URL:
          an address on its own server that, when the pane asks, calls the platform's generate-session with an admin key that stays on that
          server, and answers with a one-time session id. Cellbound never holds that admin key.
        </p>
        <p>Ask your platform admin for the session URL, then enter it here.</p>
      </div>
      <form
        class="cb-field"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          const v = url.value.trim();
          if (!/^https?:\/\/\S+$/.test(v)) {
            problem.value = "Enter a full address starting with https:// (or http:// for a local test server).";
            return;
          }
          problem.value = null;
          service.configure(v);
          onSaved();
        }}
      >
        <label for="cb-session-url">Session URL</label>
        <div class="cb-row">
          <input
            id="cb-session-url"
            class="cb-input"
            type="url"
            placeholder="https://example.com/embed-session"
            value={url.value}
            aria-invalid={problem.value !== null}
            aria-describedby={problem.value ? "cb-session-url-problem" : undefined}
            onInput={(e) => (url.value = e.currentTarget.value)}
          />
          <button type="submit" class="cb-btn cb-primary" style={{ flex: "0 0 auto" }}>
            Save
          </button>
        </div>
        {problem.value && (
          <p id="cb-session-url-problem" class="cb-hint" role="alert">
            {problem.value}
          </p>
        )}
      </form>
    </div>
  );
}

const FILTERS: { value: ThreadFilter; label: string }[] = [
  { value: "open", label: "Open" },
  { value: "all", label: "Include resolved" },
  { value: "resolved", label: "Resolved only" },
];

function Conversation({ model, onSettings }: { model: CommentsModel; onSettings: () => void }) {
  const d = model.dashboard.value;
  return (
    <>
      <DashboardChooser model={model} onSettings={onSettings} />

      {model.error.value && <NoticeBox notice={model.error.value} onDismiss={() => (model.error.value = null)} />}
      {model.info.value && <NoticeBox notice={model.info.value} onDismiss={() => (model.info.value = null)} />}
      {model.busy.value && <ProgressLine label={model.busy.value} />}

      {d && (
        <section aria-labelledby="cb-conversation-title">
          <div class="cb-row" style={{ justifyContent: "space-between" }}>
            <h2 id="cb-conversation-title">{d.title}</h2>
            <button type="button" class="cb-btn cb-small cb-subtle" disabled={model.loading.value} onClick={() => void model.reload()}>
              Refresh
            </button>
          </div>
          <ThreadsOrThread model={model} />
        </section>
      )}
    </>
  );
}

/** Which dashboard: the ones linked to the selected placement, the selection again, or one by its id. */
function DashboardChooser({ model, onSettings }: { model: CommentsModel; onSettings: () => void }) {
  const publicId = useSignal("");
  const d = model.dashboard.value;
  const linked = model.linked.value;
  return (
    <div class="cb-card">
      <div class="cb-card-head">
        <span class="cb-card-title">Dashboard</span>
        <button type="button" class="cb-btn cb-small cb-subtle" onClick={onSettings}>
          Session URL…
        </button>
      </div>
      {linked?.loading && <ProgressLine label="Looking for the dashboards of the selected placement…" />}
      {linked && !linked.loading && (
        <p class="cb-meta">
          {linked.placement
            ? linked.dashboards.length
              ? `Dashboards of ${linked.placement.reportName ?? "the report"} (${linked.placement.range})`
              : `No published dashboard is linked to ${linked.placement.reportName ?? "the report"} at ${linked.placement.range} (or your organisation cannot read it).`
            : "Select a cell inside a placed report to find its dashboard, or open one by its id."}
        </p>
      )}
      {linked && linked.dashboards.length > 1 && (
        <div class="cb-chips" role="group" aria-label="Linked dashboards">
          {linked.dashboards.map((x) => (
            <button
              key={x.publicId}
              type="button"
              class="cb-btn cb-small"
              aria-pressed={d?.publicId === x.publicId}
              onClick={() => void model.open(x)}
            >
              {x.title}
            </button>
          ))}
        </div>
      )}
      <div class="cb-row">
        <button type="button" class="cb-btn cb-small" onClick={() => void model.findLinked()}>
          Use the selected placement
        </button>
      </div>
      <form
        class="cb-row"
        onSubmit={(e) => {
          e.preventDefault();
          void model.openByPublicId(publicId.value);
        }}
      >
        <label for="cb-dashboard-id" class="cb-sr-only">
          Dashboard id
        </label>
        <input
          id="cb-dashboard-id"
          class="cb-input"
          placeholder="Dashboard id (from its embed URL)"
          value={publicId.value}
          onInput={(e) => (publicId.value = e.currentTarget.value)}
        />
        <button type="submit" class="cb-btn cb-small" style={{ flex: "0 0 auto" }}>
          Open
        </button>
      </form>
    </div>
  );
}

/** The open thread with its replies (and a way back), else the list of threads. */
function ThreadsOrThread({ model }: { model: CommentsModel }) {
  const open = model.openThread.value;
  const thread = open === null ? null : (model.threads.value.find((t) => t.root.id === open) ?? null);
  return thread ? (
    <>
      <BackButton onBack={() => (model.openThread.value = null)} />
      <ul class="cb-list" aria-label="Thread">
        <ThreadCard model={model} thread={thread} full />
      </ul>
    </>
  ) : (
    <ThreadList model={model} />
  );
}

/** Takes the focus when the thread view opens (the button that opened it is gone), for keyboard users. */
function BackButton({ onBack }: { onBack: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <button ref={ref} type="button" class="cb-btn cb-small cb-subtle" onClick={onBack}>
      ← All threads
    </button>
  );
}

function ThreadList({ model }: { model: CommentsModel }) {
  const sentinel = useRef<HTMLDivElement>(null);
  // Infinite scroll: the next page loads when the end of the list comes into view.
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) void model.more();
    });
    io.observe(el);
    return () => io.disconnect();
  }, [model, model.next.value]);

  const threads = model.threads.value;
  const filter = model.filter.value;
  return (
    <>
      <Compose model={model} label="Start a thread" submitLabel="Post" onSubmit={(body) => model.startThread(body)} />
      <fieldset class="cb-comments-toolbar cb-fieldset">
        <legend class="cb-sr-only">Which threads</legend>
        {FILTERS.map((f) => (
          <label key={f.value} class="cb-check">
            <input type="radio" name="cb-thread-filter" checked={filter === f.value} onChange={() => void model.setFilter(f.value)} />{" "}
            {f.label}
          </label>
        ))}
      </fieldset>
      {threads.length === 0 && !model.loading.value && (
        <p class="cb-meta">
          {filter === "resolved" ? "No resolved threads." : filter === "all" ? "No threads yet." : "No open threads. Start one above."}
        </p>
      )}
      <ul class="cb-list" aria-label="Threads" aria-busy={model.loading.value}>
        {threads.map((t) => (
          <ThreadCard key={t.root.id} model={model} thread={t} full={false} />
        ))}
      </ul>
      {model.loading.value && <ProgressLine label="Loading threads…" />}
      <div ref={sentinel} aria-hidden="true" style={{ height: "1px" }} />
      {model.next.value && !model.loading.value && (
        <button type="button" class="cb-btn cb-small" onClick={() => void model.more()}>
          Load more threads
        </button>
      )}
    </>
  );
}
