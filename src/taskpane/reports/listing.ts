// The Reports view's listing as one hook: the pages loaded so far (cursor paging), the listing in
// flight (one controller: a new search, Cancel or leaving the view aborts it) and what its end says.
import { useSignal, type Signal } from "@preact/signals";
import { useEffect, useRef, type MutableRef } from "preact/hooks";
import type { Workspace } from "../app/model";
import type { ReportSummary } from "../types";
import { errorNotice, type PaneStore } from "../state/store";

const LOAD = "reports-load";

/** The listing's signals and the controller of the listing in flight. */
interface Listing {
  items: Signal<ReportSummary[]>;
  next: Signal<string | null>;
  loading: Signal<boolean>;
  /**
   * A failed listing is said in the pane's one notification area (kind "reports-load"); this only
   * keeps "No reports match." from claiming an empty result.
   */
  failed: Signal<boolean>;
  inflight: MutableRef<AbortController | null>;
  /** Listings the person cancelled: only that is news; leaving the view stops its listing quietly. */
  cancelled: MutableRef<WeakSet<AbortController>>;
}

/** Loads the first page (after = null) or the next one, for `search` as typed. */
async function loadPage(l: Listing, store: PaneStore, ws: Workspace | null, search: string, after: string | null): Promise<void> {
  if (!ws) return;
  l.inflight.current?.abort();
  const c = new AbortController();
  l.inflight.current = c;
  l.loading.value = true;
  l.failed.value = false;
  store.clearNotice(LOAD);
  try {
    const page = await ws.reports({ search: search.trim(), after }, c.signal);
    l.items.value = after ? [...l.items.value, ...page.items] : page.items;
    l.next.value = page.next;
  } catch (e) {
    if (l.inflight.current !== c) return; // a newer listing took over
    l.failed.value = true;
    // The view is gone (another tab): its listing's end is not news there (issue 36 item 20).
    if ((c.signal.aborted && !l.cancelled.current.has(c)) || store.route.value !== "reports") return;
    store.notice.value = c.signal.aborted
      ? { tone: "info", title: "Loading reports was cancelled", next: "Search again to load them.", kind: LOAD, view: "reports" }
      : { ...errorNotice(e), kind: LOAD, view: "reports" };
  } finally {
    if (l.inflight.current === c) {
      l.inflight.current = null;
      l.loading.value = false;
    }
  }
}

/** The listing for `search`: loaded when the view opens (and again per workspace), stopped when it closes. */
export function useReportListing(store: PaneStore, search: Signal<string>) {
  const l: Listing = {
    items: useSignal<ReportSummary[]>([]),
    next: useSignal<string | null>(null),
    loading: useSignal(false),
    failed: useSignal(false),
    inflight: useRef<AbortController | null>(null),
    cancelled: useRef(new WeakSet<AbortController>()),
  };
  const ws = store.workspace.value;
  const load = (after: string | null) => loadPage(l, store, ws, search.value, after);
  useEffect(() => {
    void load(null);
    return () => l.inflight.current?.abort();
  }, [ws]);
  const cancel = () => {
    if (l.inflight.current) l.cancelled.current.add(l.inflight.current);
    l.inflight.current?.abort();
  };
  return { items: l.items, next: l.next, loading: l.loading, failed: l.failed, load, cancel };
}
