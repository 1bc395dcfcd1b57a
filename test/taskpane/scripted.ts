// A scripted Backend/Workspace for the pane's view tests: records calls, answers from a script.
// (The live backend is exercised end to end in test/e2e against the stand-ins.)
import type { Backend, HomeData, PlacementView, RefreshAllProgress, RefreshOutcome, ReportSummary, Workspace } from "../../src/taskpane/model";

export function placement(p: Partial<PlacementView> & { id: string }): PlacementView {
  return {
    sheetName: "Sheet1",
    range: "A1:C10",
    reportId: 1,
    reportName: "Sales by month",
    refreshedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    status: "upToDate",
    owner: null,
    deploymentId: 1,
    editedRows: [],
    ...p,
  };
}

export interface Script {
  home: HomeData;
  reports?: ReportSummary[];
  refresh?: (id: string, choice: string) => Promise<RefreshOutcome>;
  refreshAll?: (o: { onProgress: (p: RefreshAllProgress) => void; signal: AbortSignal }) => Promise<RefreshAllProgress>;
}

export function scriptedBackend(script: Script) {
  const calls: string[] = [];
  const watchers: (() => void)[] = [];
  const ws: Workspace = {
    deployment: { id: 1, name: "Production" },
    home: async () => script.home,
    reports: async () => ({ items: script.reports ?? [], next: null }),
    place: async (id, o) => {
      calls.push(`place ${id}${o.valuesOnly ? " valuesOnly" : ""}`);
      return { kind: "placed", placementId: "p", range: "A1:B2", sheetName: "Sheet1" };
    },
    refresh: async (id, choice) => {
      calls.push(`refresh ${id} ${choice}`);
      return script.refresh ? script.refresh(id, choice) : { kind: "refreshed", cellsWritten: 1 };
    },
    refreshAll: async (o) => {
      calls.push("refreshAll");
      if (!script.refreshAll) throw new Error("no script");
      return script.refreshAll(o);
    },
    locate: async (id, rows) => void calls.push(`locate ${id}${rows ? ` ${rows.from}-${rows.to}` : ""}`),
    disconnect: async (id) => void calls.push(`disconnect ${id}`),
    meta: async () => [],
    preview: async () => ({ cells: [], headerRows: 0 }),
    saveReport: async () => {
      throw new Error("not scripted");
    },
    fork: async () => {
      calls.push("fork");
      return { reconnected: 2, failed: [] };
    },
    watch: (listener) => {
      watchers.push(listener);
      return () => void watchers.splice(watchers.indexOf(listener), 1);
    },
    close: async () => void calls.push("close"),
  };
  const backend: Backend = {
    signIn: async (input) => {
      calls.push(`signIn ${input.baseUrl}`);
      if (input.credential !== "good-key") throw Object.assign(new Error("401"), { kind: "unauthorized", status: 401 });
      return { user: { name: "Ana Analyst", email: "ana@example.com" }, deployments: [{ id: 1, name: "Production" }] };
    },
    open: async () => ws,
  };
  return { backend, ws, calls, watchers };
}
