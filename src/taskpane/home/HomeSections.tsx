// The parts of the Workbook home around its cards: the heading with Refresh all (and why it cannot
// start), the banners (a copied workbook, the platform's problem, an empty workbook), the cards
// grouped by sheet and the Refresh all footer. HomeView.tsx puts them together.
import type { ComponentChildren } from "preact";
import type { HomeData, RefreshAllProgress } from "./types";
import type { PaneStore } from "../state/store";
import { ProgressLine } from "../ui/Notice";

type RefreshAllRun = RefreshAllProgress & { running: boolean };

/** The workbook's name and Refresh all; the reason it cannot start, when one holds it back. */
export function HomeHeading(p: {
  store: PaneStore;
  home: HomeData | null;
  refreshable: number;
  all: RefreshAllRun | null;
  blocked: string | null;
}) {
  const { store, home, all, blocked } = p;
  return (
    <>
      <div class="cb-row" style={{ marginBottom: "8px" }}>
        <h1 id="cb-home-title" tabIndex={-1} style={{ margin: 0 }}>
          {home?.workbookName ?? "This workbook"}
        </h1>
        <div class="cb-actions" style={{ flex: "0 0 auto" }}>
          <button
            type="button"
            class="cb-btn cb-primary"
            disabled={!home || p.refreshable === 0 || all?.running === true || store.stopping.value !== null || blocked !== null}
            aria-describedby={blocked ? "cb-refresh-all-why" : undefined}
            onClick={() => void store.refreshEverything()}
          >
            Refresh all
          </button>
        </div>
      </div>
      {blocked && !all?.running && (
        <p id="cb-refresh-all-why" class="cb-meta" role="status">
          {blocked}
        </p>
      )}
    </>
  );
}

/** The workbook carries another file's id: make it separate, or say it is the same file. */
export function CopiedWorkbook({ store }: { store: PaneStore }) {
  return (
    <div class="cb-message cb-message-warning" role="status">
      <strong>This looks like a copy of another workbook</strong>
      <p>
        It carries the same workbook id as a file at another address, so its placements are still that file's. If you renamed or moved this
        file (or saved it under a new name and no longer use the old one), it is the same workbook.
      </p>
      <button type="button" class="cb-btn" disabled={store.busy.value !== null} onClick={() => void store.fork()}>
        Make this a separate workbook
      </button>{" "}
      <button type="button" class="cb-btn" disabled={store.busy.value !== null} onClick={() => void store.keepIdentity()}>
        It is the same file, renamed or moved
      </button>
    </div>
  );
}

export function PlatformProblem({ problem }: { problem: string }) {
  return (
    <div class="cb-message cb-message-warning" role="status">
      <strong>The platform does not list this workbook's placements</strong>
      <p>{problem}</p>
    </div>
  );
}

export function EmptyWorkbook({ store }: { store: PaneStore }) {
  return (
    <div class="cb-message cb-message-info">
      <strong>No reports in this workbook yet</strong>
      <p>Select a cell, then place a report from Reports or build a new one.</p>
      <button type="button" class="cb-btn" onClick={() => store.navigate("reports")}>
        Browse reports
      </button>
    </div>
  );
}

/** One sheet's cards, under its name. */
export function SheetGroup({ sheet, children }: { sheet: string; children: ComponentChildren }) {
  return (
    <section class="cb-sheet" aria-label={`Sheet ${sheet}`}>
      <h3>{sheet}</h3>
      <ul class="cb-list">{children}</ul>
    </section>
  );
}

/** Refresh all: "N of M", the view-only count, and Stop while it runs (Close once it has ended). */
export function RefreshAllFooter({ store, all, viewOnly }: { store: PaneStore; all: RefreshAllRun; viewOnly: number }) {
  return (
    <footer class="cb-footer" aria-label="Refresh all progress">
      <ProgressLine
        label={all.running ? "Refreshing" : all.done === all.total ? "Refreshed" : "Refresh all ended: refreshed"}
        done={all.done}
        total={all.total}
      />
      {viewOnly > 0 && <span class="cb-meta">{viewOnly} view only, not refreshed</span>}
      {all.running ? (
        <button type="button" class="cb-btn" onClick={() => store.stopRefreshAll()}>
          Stop
        </button>
      ) : (
        <button type="button" class="cb-btn cb-subtle" onClick={() => (store.refreshAll.value = null)}>
          Close
        </button>
      )}
    </footer>
  );
}
