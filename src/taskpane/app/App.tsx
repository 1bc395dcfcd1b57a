// The pane's frame: header (deployment, Sign out), tab navigation (state-based, never the URL),
// the current view, and the global notice / progress line.
import type { PaneStore, Route } from "../state/store";
import { ConnectView } from "../connect/ConnectView";
import { HomeView } from "../home/HomeView";
import { ReportsView } from "../reports/ReportsView";
import { NoticeBox } from "../ui/Notice";
import { Lazy } from "./lazy";
import { OverwritePrompt } from "./OverwritePrompt";
import { BusyLine } from "./BusyLine";
import type { ComponentType } from "preact";
import { useEffect } from "preact/hooks";

const loadBuilder = () => import("../builder/BuilderView").then((m) => m.BuilderView as ComponentType<{ store: PaneStore }>);
const loadDashboard = () => import("../dashboard/DashboardView").then((m) => m.DashboardView as ComponentType<{ store: PaneStore }>);
const loadComments = () => import("../comments/CommentsView").then((m) => m.CommentsView as ComponentType<{ store: PaneStore }>);
const loadChat = () => import("../chat/ChatView").then((m) => m.ChatView as ComponentType<{ store: PaneStore }>);

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
  // Hidden entry for support: Ctrl+Shift+D (with the pane focused) opens Diagnostics.
  useEffect(() => {
    if (!loadDiagnostics) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey && e.shiftKey && (e.key === "D" || e.key === "d") && store.workspace.value) {
        e.preventDefault();
        store.navigate("diagnostics");
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [loadDiagnostics, store]);

  const ws = store.workspace.value;
  const route = ws ? store.route.value : "connect";
  // A view's own notice (a failed reports listing) belongs to that view: never shown on another tab.
  const raised = store.notice.value;
  const notice = raised && (!raised.view || raised.view === route) ? raised : null;
  const busy = store.busy.value;
  const dismiss = () => (store.notice.value = null);

  return (
    <div class="cb-app">
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
      {ws && (
        <nav class="cb-nav" aria-label="Views">
          {TABS.map((t) => (
            <button
              key={t.route}
              type="button"
              aria-current={route === t.route ? "page" : undefined}
              onClick={() => store.navigate(t.route)}
            >
              {t.label}
            </button>
          ))}
          {loadDiagnostics && route === "diagnostics" && (
            <button type="button" aria-current="page">
              Diagnostics
            </button>
          )}
        </nav>
      )}
      <main class="cb-main">
        {notice && (
          <NoticeBox notice={notice} onDismiss={dismiss} sticky context={{ view: route, deployment: ws?.deployment.name ?? null }} />
        )}
        {busy && route !== "reports" && <BusyLine busy={busy} slowAfterMs={store.slowAfterMs} />}
        <OverwritePrompt store={store} />
        {route === "connect" && <ConnectView store={store} />}
        {route === "home" && <HomeView store={store} />}
        {route === "reports" && <ReportsView store={store} />}
        {route === "builder" && <Lazy load={loadBuilder} props={{ store }} label="the report builder" />}
        {route === "comments" && <Lazy load={loadComments} props={{ store }} label="comments" />}
        {route === "chat" && <Lazy load={loadChat} props={{ store }} label="the chat" />}
        {route === "dashboard" && <Lazy load={loadDashboard} props={{ store }} label="the dashboard" />}
        {route === "diagnostics" && loadDiagnostics && <Lazy load={loadDiagnostics} props={{ store }} label="diagnostics" />}
      </main>
    </div>
  );
}
