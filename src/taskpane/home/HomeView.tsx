// Workbook home: placements grouped by sheet, each with report name, range, last refreshed, status
// badge and its actions (Refresh, Locate, Disconnect); DENIED placements show their owner and no
// actions. Refresh all shows a footer with "N of M" and Stop, and a status per row.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { PlacementView } from "./types";
import type { PaneStore } from "../state/store";
import { ProgressLine } from "../ui/Notice";
import { relativeTime } from "../ui/time";
import { DisconnectButton } from "./ConfirmDisconnect";
import { EditBanner } from "./EditBanner";
import { BusyLine } from "../app/BusyLine";
import { staleFacts, statusOfView, STATUS_TONE } from "./live-status";
import { revealAndFocus } from "../ui/focus";

export function groupBySheet(placements: PlacementView[]): [string, PlacementView[]][] {
  const groups = new Map<string, PlacementView[]>();
  for (const p of placements) {
    const key = p.sheetName ?? "Deleted sheets";
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(p);
  }
  return [...groups.entries()];
}

function PlacementCard({ store, p, now, showDeployment }: { store: PaneStore; p: PlacementView; now: number; showDeployment: boolean }) {
  const denied = p.facts.access === "DENIED";
  const rowState = store.rowStates.value[p.id];
  const stale = store.homeStale.value;
  // One status: the badge and every line below come from it (live-status.ts).
  const st = statusOfView(stale ? { ...p, facts: staleFacts(p.facts, stale) } : p, rowState);
  // Signing out or switching deployment: what runs is being stopped, nothing new starts.
  const running = store.refreshAll.value?.running === true || st.kind === "refreshing" || store.stopping.value !== null;
  // A question about it is open or it is being disconnected: nothing else starts on it (issue 36 item 19).
  const held = store.heldBy(p.id);
  const asking = store.disconnectAsked.value.has(p.id);
  const title = denied ? "Report you cannot open" : (p.reportName ?? "Untitled report");
  const deployment = p.deploymentName ?? (p.deploymentId !== null ? "another deployment" : null);
  return (
    <li
      class="cb-card"
      tabIndex={-1}
      data-placement={p.id}
      data-status={st.kind}
      aria-label={`${title}, ${p.sheetName ?? "deleted sheet"}${p.range ? "!" + p.range : ""}, ${st.label}`}
    >
      <div class="cb-card-head">
        <span class="cb-card-title">{title}</span>
        <span class={`cb-badge ${STATUS_TONE[st.kind]}`}>{st.label}</span>
      </div>
      <div class="cb-meta">
        {p.range ?? "range deleted"}
        {" · "}
        <span title={p.refreshedAt ?? undefined}>refreshed {relativeTime(p.refreshedAt, now)}</span>
        {(showDeployment || denied) && deployment ? ` · ${deployment}` : ""}
      </div>
      {denied && (
        <div class="cb-meta">
          Owner: {p.owner?.name ?? "unknown"}
          {p.owner?.email ? ` (${p.owner.email})` : ""}.
        </div>
      )}
      {st.lines.map((line) => (
        <div class="cb-rowstatus" role="status" key={line}>
          {line}
        </div>
      ))}
      {!denied && (
        <div class="cb-actions">
          {st.kind !== "missing" && st.kind !== "viewOnly" && (
            <button
              type="button"
              class="cb-btn cb-small"
              disabled={running || !st.canRefresh || held !== null}
              title={held ? `Refresh can start once ${held}.` : undefined}
              onClick={() => void store.refresh(p.id)}
              aria-label="Refresh"
            >
              Refresh
            </button>
          )}
          {st.kind !== "missing" && (
            <button type="button" class="cb-btn cb-small" onClick={() => void store.locate(p.id)} aria-label="Locate">
              Locate
            </button>
          )}
          {st.canDisconnect && (
            <DisconnectButton
              title={title}
              where={`${p.sheetName ?? "a deleted sheet"}${p.range ? "!" + p.range : ""}`}
              disabled={running || (held !== null && !asking)}
              asking={asking}
              onAsk={() => store.askDisconnect(p.id)}
              onKeep={() => store.keepPlacement(p.id)}
              onConfirm={() => void store.disconnect(p.id)}
            />
          )}
        </div>
      )}
    </li>
  );
}

/** `flag`, once it has stayed true for `ms`. */
function useDelayed(flag: boolean, ms: number): boolean {
  const [on, setOn] = useState(false);
  useEffect(() => {
    if (!flag) {
      setOn(false);
      return;
    }
    const t = setTimeout(() => setOn(true), ms);
    return () => clearTimeout(t);
  }, [flag, ms]);
  return on && flag;
}

/** Cards rendered at first; more follow as the list scrolls into view (or on "Show more"). */
export const FIRST_CARDS = 60;
const MORE_CARDS = 200;

/** The groups cut to the first `limit` placements (in display order). */
export function firstOf(groups: [string, PlacementView[]][], limit: number): [string, PlacementView[]][] {
  const out: [string, PlacementView[]][] = [];
  let left = limit;
  for (const [sheet, list] of groups) {
    if (left <= 0) break;
    out.push([sheet, list.slice(0, left)]);
    left -= list.length;
  }
  return out;
}

/** Renders more cards when the end of the list comes near the viewport. */
function ShowMore({ remaining, onMore }: { remaining: number; onMore: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && onMore(), { rootMargin: "400px" });
    io.observe(el);
    return () => io.disconnect();
  }, [onMore]);
  return (
    <button ref={ref} type="button" class="cb-btn" onClick={onMore}>
      Show more ({remaining} more)
    </button>
  );
}

export function HomeView({ store, now = Date.now() }: { store: PaneStore; now?: number }) {
  const home = store.home.value;
  const [limit, setLimit] = useState(FIRST_CARDS);
  const more = useCallback(() => setLimit((l) => l + MORE_CARDS), []);
  // A re-check of a shown home says so (with Cancel) only when it takes a while: no flicker on every edit.
  const slowCheck = useDelayed(store.homeLoading.value && home !== null, 600);
  const groups = useMemo(() => (home ? groupBySheet(home.placements) : []), [home]);
  // After sign-in the heading, after a placement its card takes focus (in view, below the notice).
  const focus = store.focusRequest.value;
  useEffect(() => {
    if (!focus || !home) return;
    const el =
      focus.target === "home"
        ? document.getElementById("cb-home-title")
        : document.querySelector<HTMLElement>(`[data-placement="${CSS.escape(focus.id)}"]`);
    if (focus.target === "card" && !el) {
      // Not rendered yet (beyond the first cards): show them all, then try again on the next render.
      if (home.placements.some((p) => p.id === focus.id)) setLimit(home.placements.length);
      else store.focusRequest.value = null;
      return;
    }
    store.focusRequest.value = null;
    if (el) revealAndFocus(el);
  }, [focus, home, limit, store]);
  const total = home?.placements.length ?? 0;
  const all = store.refreshAll.value;
  const blocked = store.refreshAllBlocked.value;
  const prompt = store.editPrompt.value;
  const refreshable =
    home?.placements.filter((p) => p.facts.access !== "DENIED" && !p.facts.missing && !p.facts.noAccess && !p.facts.viewOnly).length ?? 0;
  const viewOnly = home?.placements.filter((p) => p.facts.viewOnly).length ?? 0;
  // Name deployments on the cards when the workbook holds more than one, or not the one signed in.
  const active = store.workspace.value?.deployment.id;
  const showDeployment = (home?.placements ?? []).some((p) => p.deploymentId !== null && p.deploymentId !== active);

  return (
    <section aria-labelledby="cb-home-title">
      <div class="cb-row" style={{ marginBottom: "8px" }}>
        <h1 id="cb-home-title" tabIndex={-1} style={{ margin: 0 }}>
          {home?.workbookName ?? "This workbook"}
        </h1>
        <div class="cb-actions" style={{ flex: "0 0 auto" }}>
          <button
            type="button"
            class="cb-btn cb-primary"
            disabled={!home || refreshable === 0 || all?.running === true || store.stopping.value !== null || blocked !== null}
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
      {home?.copied && (
        <div class="cb-message cb-message-warning" role="status">
          <strong>This looks like a copy of another workbook</strong>
          <p>
            It carries the same workbook id as a file at another address, so its placements are still that file's. If you renamed or moved
            this file (or saved it under a new name and no longer use the old one), it is the same workbook.
          </p>
          <button type="button" class="cb-btn" disabled={store.busy.value !== null} onClick={() => void store.fork()}>
            Make this a separate workbook
          </button>{" "}
          <button type="button" class="cb-btn" disabled={store.busy.value !== null} onClick={() => void store.keepIdentity()}>
            It is the same file, renamed or moved
          </button>
        </div>
      )}
      {home?.platformProblem && (
        <div class="cb-message cb-message-warning" role="status">
          <strong>The platform does not list this workbook's placements</strong>
          <p>{home.platformProblem}</p>
        </div>
      )}
      {prompt && <EditBanner store={store} prompt={prompt} />}
      {(store.homeLoading.value && !home) || slowCheck ? (
        <BusyLine
          busy={{ label: home ? "Checking the workbook…" : "Loading placements…", cancel: () => store.cancelHome() }}
          slowAfterMs={store.slowAfterMs}
        />
      ) : null}
      {home && home.placements.length === 0 && (
        <div class="cb-message cb-message-info">
          <strong>No reports in this workbook yet</strong>
          <p>Select a cell, then place a report from Reports or build a new one.</p>
          <button type="button" class="cb-btn" onClick={() => store.navigate("reports")}>
            Browse reports
          </button>
        </div>
      )}
      {total > FIRST_CARDS && (
        <p class="cb-meta">
          {total} placements on {groups.length} {groups.length === 1 ? "sheet" : "sheets"}
        </p>
      )}
      {home &&
        firstOf(groups, limit).map(([sheet, list]) => (
          <section class="cb-sheet" key={sheet} aria-label={`Sheet ${sheet}`}>
            <h3>{sheet}</h3>
            <ul class="cb-list">
              {list.map((p) => (
                <PlacementCard key={p.id} store={store} p={p} now={now} showDeployment={showDeployment} />
              ))}
            </ul>
          </section>
        ))}
      {total > limit && <ShowMore remaining={total - limit} onMore={more} />}
      {all && (
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
      )}
    </section>
  );
}
