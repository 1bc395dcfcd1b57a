// Panes that load when they are opened: the report builder, chat (its charts come later still, with
// the first chart), comments, the dashboard and diagnostics each come in their own chunk, named after
// the pane, so the first paint carries only the Workbook tab and what surrounds it. A chunk comes from
// where the first bundle came from (webpack's automatic public path: the pane's own origin, which the
// CSP's script-src 'self' allows). While it loads, the pane shows its loading line; when it cannot be
// loaded (offline), the pane says so and what to do, and opening the pane again tries again.
import { useEffect, useRef, useState } from "preact/hooks";
import type { ComponentType } from "preact";
import { describeError, isChunkLoadError, type HumanError } from "../errors";
import type { PaneStore } from "../state/store";
import { NoticeBox, ProgressLine } from "../ui/Notice";
import type { ServicePane } from "./model";

type PaneView = ComponentType<{ store: PaneStore }>;

export interface OnDemandPane {
  /** The pane's name as its tab shows it. */
  name: string;
  /** Its loading line while the chunk comes. */
  loading: string;
  /** The pane's view (its chunk). */
  view: () => Promise<PaneView>;
  /** Its live service, which the workspace loads with it (the same chunk). */
  service?: ServicePane;
}

/** The panes of the tabs that load on demand (diagnostics comes from the entry: index.tsx). */
export const ON_DEMAND = {
  builder: {
    name: "New report",
    loading: "Loading the report builder…",
    view: () => import(/* webpackChunkName: "builder" */ "../builder/BuilderView").then((m) => m.BuilderView as PaneView),
  },
  comments: {
    name: "Comments",
    loading: "Loading comments…",
    view: () => import(/* webpackChunkName: "comments" */ "../comments/CommentsView").then((m) => m.CommentsView as PaneView),
    service: "comments",
  },
  chat: {
    name: "Chat",
    loading: "Loading the chat…",
    view: () => import(/* webpackChunkName: "chat" */ "../chat/ChatView").then((m) => m.ChatView as PaneView),
    service: "chat",
  },
  dashboard: {
    name: "Dashboard",
    loading: "Loading the dashboard…",
    view: () => import(/* webpackChunkName: "dashboard" */ "../dashboard/DashboardView").then((m) => m.DashboardView as PaneView),
    service: "dashboard",
  },
} satisfies Record<string, OnDemandPane>;

/** The words for a pane that could not be loaded. */
export function paneLoadFailure(name: string, e: unknown): HumanError {
  const said = describeError(e);
  const title = `The ${name} pane could not be loaded`;
  return isChunkLoadError(e) ? { ...said, title, next: "Check the connection and open it again." } : { ...said, title };
}

/** `attempt`: changes each time the user opens the pane (its tab); a pane that failed to load tries again then. */
export function Lazy({ pane, store, attempt }: { pane: OnDemandPane; store: PaneStore; attempt: number }) {
  const [View, setView] = useState<PaneView | null>(null);
  const [error, setError] = useState<unknown>(null);
  const loaded = useRef(false);
  useEffect(() => {
    if (loaded.current) return;
    let live = true;
    setError(null);
    const service = pane.service && store.workspace.peek()?.openPane?.(pane.service);
    Promise.all([pane.view(), service]).then(
      ([v]) => {
        loaded.current = true;
        if (live) setView(() => v);
      },
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [pane, store, attempt]);
  if (View) return <View store={store} />;
  if (error) return <NoticeBox notice={{ tone: "error", ...paneLoadFailure(pane.name, error) }} />;
  return <ProgressLine label={pane.loading} />;
}
