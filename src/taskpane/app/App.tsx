// The pane's frame: header (deployment, Sign out), tab navigation (state-based, never the URL),
// the current view, and the global notice / progress line. The Workbook, Reports and Connect views
// come with the first paint; every other pane loads when it is opened (lazy.tsx).
import type { PaneStore, Route } from "../state/store";
import type { Workspace } from "./model";
import { ConnectView } from "../connect/ConnectView";
import { HomeView } from "../home/HomeView";
import { ReportsView } from "../reports/ReportsView";
import { NoticeBox } from "../ui/Notice";
import { Lazy, ON_DEMAND, type OnDemandPane } from "./lazy";
import { OverwritePrompt } from "./OverwritePrompt";
import { BusyLine } from "./BusyLine";
import type { ComponentType } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";

const TABS: { route: Route; label: string }[] = [
  { route: "home", label: "Workbook" },
  { route: "reports", label: "Reports" },
  { route: "builder", label: "New report" },
  { route: "chat", label: "Chat" },
  { route: "comments", label: "Comments" },
  { route: "dashboard", label: "Dashboard" },
];

export interface AppProps {
  store: PaneStore;
  /** The hidden Diagnostics view (port contract suite), when the build provides one. */
  loadDiagnostics?: () => Promise<ComponentType<{ store: PaneStore }>>;
}

export function App({ store, loadDiagnostics }: AppProps) {
  // Each opening of a tab counts: a pane that could not be loaded tries again when it is opened again.
  const [opened, setOpened] = useState(0);
  const open = useCallback(
    (route: Route) => {
      setOpened((n) => n + 1);
      store.navigate(route);
    },
    [store],
  );
  useDiagnosticsKey(store, loadDiagnostics ? open : null);
  const diagnostics = useMemo<OnDemandPane | null>(
    () => (loadDiagnostics ? { name: "Diagnostics", loading: "Loading diagnostics…", view: loadDiagnostics } : null),
    [loadDiagnostics],
  );

  const ws = store.workspace.value;
  const route = ws ? store.route.value : "connect";
  // A view's own notice (a failed reports listing) belongs to that view: never shown on another tab.
  const raised = store.notice.value;
  const notice = raised && (!raised.view || raised.view === route) ? raised : null;
  const busy = store.busy.value;
  const dismiss = () => (store.notice.value = null);
  const lazy = route === "diagnostics" ? diagnostics : ON_DEMAND[route as keyof typeof ON_DEMAND];

  return (
    <div class="cb-app">
      <Header store={store} ws={ws} />
      {ws && <Nav route={route} diagnostics={diagnostics !== null} onOpen={open} />}
      <main class="cb-main">
        {notice && (
          <NoticeBox notice={notice} onDismiss={dismiss} sticky context={{ view: route, deployment: ws?.deployment.name ?? null }} />
        )}
        {busy && route !== "reports" && <BusyLine busy={busy} slowAfterMs={store.slowAfterMs} />}
        <OverwritePrompt store={store} />
        {route === "connect" && <ConnectView store={store} />}
        {route === "home" && <HomeView store={store} />}
        {route === "reports" && <ReportsView store={store} />}
        {lazy && <Lazy key={route} pane={lazy} store={store} attempt={opened} />}
      </main>
    </div>
  );
}

/** Hidden entry for support: Ctrl+Shift+D (with the pane focused) opens Diagnostics. */
function useDiagnosticsKey(store: PaneStore, open: ((route: Route) => void) | null) {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey && e.shiftKey && (e.key === "D" || e.key === "d") && store.workspace.value) {
        e.preventDefault();
        open("diagnostics");
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, store]);
}

/** The brand, the deployment (a choice when there are several) and Sign out. */
function Header({ store, ws }: { store: PaneStore; ws: Workspace | null }) {
  const busy = store.busy.value;
  return (
    <header class="cb-header">
      <span class="cb-brand">Cellbound</span>
      {ws && store.deployments.value.length > 1 ? (
        <select
          class="cb-select"
          aria-label="Deployment"
          value={String(ws.deployment.id)}
          disabled={busy !== null}
          onChange={(e) => {
            const d = store.deployments.value.find((x) => String(x.id) === (e.currentTarget as HTMLSelectElement).value);
            if (d) void store.chooseDeployment(d, { focusHome: false });
          }}
        >
          {store.deployments.value.map((d) => (
            <option key={d.id} value={String(d.id)}>
              {d.name}
            </option>
          ))}
        </select>
      ) : (
        ws && (
          <span class="cb-meta" style={{ margin: 0 }}>
            {ws.deployment.name}
          </span>
        )
      )}
      {store.user.value && (
        <button type="button" class="cb-btn cb-small" disabled={store.stopping.value !== null} onClick={() => void store.signOut()}>
          Sign out
        </button>
      )}
    </header>
  );
}

/** The tabs; Diagnostics shows as the current tab while it is open (it has no tab of its own). */
function Nav({ route, diagnostics, onOpen }: { route: Route; diagnostics: boolean; onOpen: (route: Route) => void }) {
  return (
    <nav class="cb-nav" aria-label="Views">
      {TABS.map((t) => (
        <button key={t.route} type="button" aria-current={route === t.route ? "page" : undefined} onClick={() => onOpen(t.route)}>
          {t.label}
        </button>
      ))}
      {diagnostics && route === "diagnostics" && (
        <button type="button" aria-current="page">
          Diagnostics
        </button>
      )}
    </nav>
  );
}
