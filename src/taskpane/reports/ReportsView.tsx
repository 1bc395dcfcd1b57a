// Reports: search and browse the deployment's reports with cursor paging, then place the chosen one
// at the selected cell. When the target is not empty, say how many cells and where, then ask.
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { ReportSummary } from "../types";
import { errorNotice, type PaneStore } from "../state/store";
import { BusyLine } from "../app/BusyLine";
import { relativeTime } from "../ui/time";

const LOAD = "reports-load";

export function ReportsView({ store }: { store: PaneStore }) {
  const search = useSignal("");
  const items = useSignal<ReportSummary[]>([]);
  const next = useSignal<string | null>(null);
  const loading = useSignal(false);
  // A failed listing is said in the pane's one notification area (kind "reports-load"); this only
  // keeps "No reports match." from claiming an empty result.
  const failed = useSignal(false);
  const selected = useSignal<number | null>(null);
  const valuesOnly = useSignal(false);
  const ws = store.workspace.value;

  // One controller for the listing in flight: a new search, Cancel or leaving the view aborts it.
  const inflight = useRef<AbortController | null>(null);
  // Listings the person cancelled: only that is news; leaving the view stops its listing quietly.
  const cancelled = useRef(new WeakSet<AbortController>());
  const load = async (after: string | null) => {
    if (!ws) return;
    inflight.current?.abort();
    const c = new AbortController();
    inflight.current = c;
    loading.value = true;
    failed.value = false;
    store.clearNotice(LOAD);
    try {
      const page = await ws.reports({ search: search.value.trim(), after }, c.signal);
      items.value = after ? [...items.value, ...page.items] : page.items;
      next.value = page.next;
    } catch (e) {
      if (inflight.current !== c) return; // a newer listing took over
      failed.value = true;
      // The view is gone (another tab): its listing's end is not news there (issue 36 item 20).
      if ((c.signal.aborted && !cancelled.current.has(c)) || store.route.value !== "reports") return;
      store.notice.value = c.signal.aborted
        ? { tone: "info", title: "Loading reports was cancelled", next: "Search again to load them.", kind: LOAD, view: "reports" }
        : { ...errorNotice(e), kind: LOAD, view: "reports" };
    } finally {
      if (inflight.current === c) {
        inflight.current = null;
        loading.value = false;
      }
    }
  };

  useEffect(() => {
    void load(null);
    return () => inflight.current?.abort();
  }, [ws]);

  const busy = store.busy.value;
  return (
    <section aria-labelledby="cb-reports-title">
      <h1 id="cb-reports-title">Reports</h1>
      <form
        role="search"
        class="cb-row"
        style={{ marginBottom: "12px" }}
        onSubmit={(e) => {
          e.preventDefault();
          void load(null);
        }}
      >
        <label for="cb-search" class="cb-sr-only">
          Search reports
        </label>
        <input
          id="cb-search"
          class="cb-input"
          type="search"
          placeholder="Search reports"
          value={search.value}
          onInput={(e) => (search.value = e.currentTarget.value)}
        />
        <button type="submit" class="cb-btn" style={{ flex: "0 0 auto" }}>
          Search
        </button>
      </form>
      <label class="cb-check">
        <input type="checkbox" checked={valuesOnly.value} onChange={(e) => (valuesOnly.value = e.currentTarget.checked)} />
        Values only <span class="cb-meta">(no number formats or header style; you format the cells)</span>
      </label>
      {busy && <BusyLine busy={busy} slowAfterMs={store.slowAfterMs} />}
      <ul class="cb-list" aria-label="Reports" aria-busy={loading.value}>
        {items.value.map((r) => (
          <li key={r.id} class="cb-card" aria-current={selected.value === r.id ? "true" : undefined}>
            <div class="cb-card-head">
              <span class="cb-card-title">{r.title || r.name}</span>
            </div>
            <div class="cb-meta">
              {r.folder ? `${r.folder} · ` : ""}
              {r.ownerName ? `${r.ownerName} · ` : ""}updated {relativeTime(r.updatedAt)}
            </div>
            <button
              type="button"
              class="cb-btn cb-small cb-primary"
              disabled={busy !== null}
              aria-label={`Place report ${r.title || r.name}`}
              onClick={() => {
                selected.value = r.id;
                void store.place(r.id, false, { valuesOnly: valuesOnly.value });
              }}
            >
              Place report
            </button>
          </li>
        ))}
      </ul>
      {loading.value && (
        <BusyLine
          busy={{
            label: "Loading reports…",
            cancel: () => {
              if (inflight.current) cancelled.current.add(inflight.current);
              inflight.current?.abort();
            },
          }}
          slowAfterMs={store.slowAfterMs}
        />
      )}
      {!loading.value && items.value.length === 0 && !failed.value && <p>No reports match.</p>}
      {next.value && !loading.value && (
        <button type="button" class="cb-btn" onClick={() => void load(next.value)}>
          Load more
        </button>
      )}
      <p class="cb-meta">Reports are placed with their top-left corner at the cell selected in Excel.</p>
    </section>
  );
}
