// Workbook home: placements grouped by sheet, each with report name, range, last refreshed, status
// badge and its actions (Refresh, Locate, Disconnect); DENIED placements show their owner and no
// actions. Refresh all shows a footer with "N of M" and Stop, and a status per row. The parts around
// the cards (heading, banners, footer) are HomeSections.tsx.
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import type { HomeData, PlacementView } from "./types";
import type { PaneStore } from "../state/store";
import { relativeTime } from "../ui/time";
import { DisconnectButton } from "./ConfirmDisconnect";
import { EditBanner } from "./EditBanner";
import { BusyLine } from "../app/BusyLine";
import { staleFacts, statusOfView, STATUS_TONE, type StatusKind } from "./live-status";
import { revealAndFocus } from "../ui/focus";
import { CopiedWorkbook, EmptyWorkbook, HomeHeading, PlatformProblem, RefreshAllFooter, SheetGroup } from "./HomeSections";
import { InputsPanel } from "./InputsPanel";

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
  const [inputsOpen, setInputsOpen] = useState(false);
  return (
    <li
      class="cb-card"
      tabIndex={-1}
      data-placement={p.id}
      data-status={st.kind}
      aria-label={`${title}, ${p.sheetName ?? "deleted sheet"}${p.range ? "!" + p.range : ""}, ${st.label}`}
    >
      <CardHead p={p} title={title} st={st} now={now} deployment={(showDeployment || denied) && deployment ? deployment : null} />
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
          {st.kind !== "missing" && st.kind !== "viewOnly" && store.workspace.value?.inputs && (
            <InputsButton open={inputsOpen} id={p.id} onToggle={() => setInputsOpen(!inputsOpen)} />
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
      {inputsOpen && !denied && <InputsPanel store={store} id={p.id} title={title} onClose={() => setInputsOpen(false)} />}
    </li>
  );
}

/** The card's title, status badge, range, last refresh, deployment (when named) and a denied report's owner. */
function CardHead(p: { p: PlacementView; title: string; st: { kind: StatusKind; label: string }; now: number; deployment: string | null }) {
  const { p: v, st } = p;
  return (
    <>
      <div class="cb-card-head">
        <span class="cb-card-title">{p.title}</span>
        <span class={`cb-badge ${STATUS_TONE[st.kind]}`}>{st.label}</span>
      </div>
      <div class="cb-meta">
        {v.range ?? "range deleted"}
        {v.tableName ? ` · Excel table ${v.tableName}` : ""}
        {" · "}
        <span title={v.refreshedAt ?? undefined}>refreshed {relativeTime(v.refreshedAt, p.now)}</span>
        {p.deployment ? ` · ${p.deployment}` : ""}
      </div>
      {v.facts.access === "DENIED" && (
        <div class="cb-meta">
          Owner: {v.owner?.name ?? "unknown"}
          {v.owner?.email ? ` (${v.owner.email})` : ""}.
        </div>
      )}
    </>
  );
}

function InputsButton({ open, id, onToggle }: { open: boolean; id: string; onToggle: () => void }) {
  return (
    <button
      type="button"
      class="cb-btn cb-small"
      data-inputs-toggle
      aria-expanded={open}
      aria-controls={open ? `cb-inputs-panel-${id}` : undefined}
      onClick={onToggle}
    >
      Inputs…
    </button>
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

/**
 * After sign-in the heading, after a placement its card takes focus (in view, below the notice). A card
 * not rendered yet (beyond the first cards) gets them all shown, and is tried again on the next render.
 */
function useFocusRequest(store: PaneStore, home: HomeData | null, limit: number, setLimit: (n: number) => void): void {
  const focus = store.focusRequest.value;
  useEffect(() => {
    if (!focus || !home) return;
    const el =
      focus.target === "home"
        ? document.getElementById("cb-home-title")
        : document.querySelector<HTMLElement>(`[data-placement="${CSS.escape(focus.id)}"]`);
    if (focus.target === "card" && !el) {
      if (home.placements.some((p) => p.id === focus.id)) setLimit(home.placements.length);
      else store.focusRequest.value = null;
      return;
    }
    store.focusRequest.value = null;
    if (el) revealAndFocus(el);
  }, [focus, home, limit, store]);
}

/** How many placements Refresh all can refresh, and how many are view only. */
function counts(home: HomeData | null) {
  return {
    refreshable:
      home?.placements.filter((p) => p.facts.access !== "DENIED" && !p.facts.missing && !p.facts.noAccess && !p.facts.viewOnly).length ?? 0,
    viewOnly: home?.placements.filter((p) => p.facts.viewOnly).length ?? 0,
  };
}

/**
 * Why Refresh all is disabled when every placement here is view only for this user (issue 31 item 3):
 * the role's rule when the deployment's role says viewer, else what the cards say.
 */
function viewOnlyAll(store: PaneStore): string {
  return (
    store.workspace.value?.roleLimit ??
    "Refresh all has nothing you may refresh here: each report is view only for you (its card says whom to ask)."
  );
}

export function HomeView({ store, now = Date.now() }: { store: PaneStore; now?: number }) {
  const home = store.home.value;
  const [limit, setLimit] = useState(FIRST_CARDS);
  const more = useCallback(() => setLimit((l) => l + MORE_CARDS), []);
  // A re-check of a shown home says so (with Cancel) only when it takes a while: no flicker on every edit.
  const slowCheck = useDelayed(store.homeLoading.value && home !== null, 600);
  const groups = useMemo(() => (home ? groupBySheet(home.placements) : []), [home]);
  useFocusRequest(store, home, limit, setLimit);
  const total = home?.placements.length ?? 0;
  const all = store.refreshAll.value;
  const prompt = store.editPrompt.value;
  const { refreshable, viewOnly } = counts(home);
  const blocked = store.refreshAllBlocked.value ?? (refreshable === 0 && viewOnly > 0 ? viewOnlyAll(store) : null);
  // Name deployments on the cards when the workbook holds more than one, or not the one signed in.
  const active = store.workspace.value?.deployment.id;
  const showDeployment = (home?.placements ?? []).some((p) => p.deploymentId !== null && p.deploymentId !== active);

  return (
    <section aria-labelledby="cb-home-title">
      <HomeHeading store={store} home={home} refreshable={refreshable} all={all} blocked={blocked} />
      {home?.copied && <CopiedWorkbook store={store} />}
      {home?.platformProblem && <PlatformProblem problem={home.platformProblem} />}
      {prompt && <EditBanner store={store} prompt={prompt} />}
      {(store.homeLoading.value && !home) || slowCheck ? (
        <BusyLine
          busy={{ label: home ? "Checking the workbook…" : "Loading placements…", cancel: () => store.cancelHome() }}
          slowAfterMs={store.slowAfterMs}
        />
      ) : null}
      {home && home.placements.length === 0 && <EmptyWorkbook store={store} />}
      {total > FIRST_CARDS && (
        <p class="cb-meta">
          {total} placements on {groups.length} {groups.length === 1 ? "sheet" : "sheets"}
        </p>
      )}
      {home &&
        firstOf(groups, limit).map(([sheet, list]) => (
          <SheetGroup key={sheet} sheet={sheet}>
            {list.map((p) => (
              <PlacementCard key={p.id} store={store} p={p} now={now} showDeployment={showDeployment} />
            ))}
          </SheetGroup>
        ))}
      {total > limit && <ShowMore remaining={total - limit} onMore={more} />}
      {all && <RefreshAllFooter store={store} all={all} viewOnly={viewOnly} />}
    </section>
  );
}
