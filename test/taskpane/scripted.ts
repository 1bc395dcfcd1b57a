// A scripted Backend/Workspace for the pane's view tests: records calls, answers from a script.
// (The live backend is exercised end to end in test/e2e against the stand-ins.)
import type { Backend, Workspace } from "../../src/taskpane/app/model";
import type { HomeData, PlacementView, RefreshAllProgress, RefreshOutcome } from "../../src/taskpane/home/types";
import type { PlaceOutcome, ReportSummary } from "../../src/taskpane/types";
import { factsFor } from "../../src/taskpane/home/live-status";

type Shorthand = Parameters<typeof factsFor>[0];

/** A card's data; `status` + `editedRows` are shorthand for the facts that give that status. */
export function placement(
  p: Partial<PlacementView> & { id: string; status?: Shorthand; editedRows?: { from: number; to: number }[] },
): PlacementView {
  const { status = "upToDate", editedRows = [], ...rest } = p;
  return {
    sheetName: "Sheet1",
    range: "A1:C10",
    reportId: 1,
    reportName: "Sales by month",
    refreshedAt: new Date(Date.now() - 5 * 60_000).toISOString(),
    facts: factsFor(status, editedRows),
    owner: null,
    deploymentId: 1,
    deploymentName: "Production",
    ...rest,
  };
}

export interface Script {
  home: HomeData;
  /** What a home load answers instead of `home` (n: 1 for the first load). */
  homeLoad?: (n: number, signal?: AbortSignal) => Promise<HomeData>;
  refresh?: (id: string, choice: string, signal?: AbortSignal) => Promise<RefreshOutcome>;
  disconnect?: (id: string, signal?: AbortSignal) => Promise<void>;
  reports?: ReportSummary[] | ((signal?: AbortSignal) => Promise<{ items: ReportSummary[]; next: null }>);
  refreshAll?: (o: { onProgress: (p: RefreshAllProgress) => void; signal: AbortSignal }) => Promise<RefreshAllProgress>;
  /** What Place answers (default: placed as "p" at A1:B2). */
  place?: (id: number, confirmed: boolean) => PlaceOutcome | undefined;
  /** Notices a placement comes back with (e.g. rows cut at the maximum). */
  placeNotices?: string[];
  /** The workspace's role rule (a viewer's), as the live workspace gives it. */
  roleLimit?: string;
}

export function scriptedBackend(script: Script) {
  const calls: string[] = [];
  const watchers: (() => void)[] = [];
  let homeLoads = 0;
  const ws: Workspace = {
    deployment: { id: 1, name: "Production" },
    ...(script.roleLimit ? { roleLimit: script.roleLimit } : {}),
    home: async (signal) => (script.homeLoad ? script.homeLoad(++homeLoads, signal) : script.home),
    reports: async (q, signal) =>
      typeof script.reports === "function" ? script.reports(signal) : { items: script.reports ?? [], next: null },
    place: async (report, o) => {
      const id = typeof report === "number" ? report : 0; // a report not saved yet has no id
      calls.push(
        `place ${typeof report === "number" ? id : report.name}${o.valuesOnly ? " valuesOnly" : ""}${o.confirmed ? " confirmed" : ""}`,
      );
      const scripted = script.place?.(id, o.confirmed);
      if (scripted) return scripted;
      return {
        kind: "placed",
        placementId: "p",
        range: "A1:B2",
        sheetName: "Sheet1",
        ...(script.placeNotices ? { notices: script.placeNotices } : {}),
      };
    },
    refresh: async (id, choice, o) => {
      calls.push(`refresh ${id} ${choice}`);
      return script.refresh ? script.refresh(id, choice, o?.signal) : { kind: "refreshed", cellsWritten: 1, summary: "1 cell changed" };
    },
    refreshAll: async (o) => {
      calls.push("refreshAll");
      if (!script.refreshAll) throw new Error("no script");
      return script.refreshAll(o);
    },
    locate: async (id, rows) => void calls.push(`locate ${id}${rows ? ` ${rows.from}-${rows.to}` : ""}`),
    disconnect: async (id, signal) => {
      calls.push(`disconnect ${id}`);
      if (script.disconnect) await script.disconnect(id, signal);
    },
    meta: async () => [],
    preview: async () => ({ cells: [], headerRows: 0 }),
    saveReport: async () => {
      throw new Error("not scripted");
    },
    fork: async () => {
      calls.push("fork");
      return { reconnected: 2, failed: [] };
    },
    keepIdentity: async () => void calls.push("keepIdentity"),
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
