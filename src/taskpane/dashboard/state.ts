// The dashboard pane's state and what its buttons do: which dashboard is shown (linked to the
// selection's report or typed), the embed's news in words, the filter bridge (the selected cell as a
// filter in the embed), placing a drilldown and inserting or refreshing the dashboard's picture. The
// view (DashboardView.tsx) renders this state; the service (service.ts) reaches the sheet and the embed.
import { useSignal, type Signal } from "@preact/signals";
import { useEffect, useRef, type MutableRef } from "preact/hooks";
import type { DashboardService, EmbedHandle, EmbedNews, PictureProgress } from "./service";
import type { DashboardChoice } from "../types";

export type Drill = { member: string; value: unknown; widgetId: string | null };
export type Download = { format: string; title: string | null; rowCount: number | null };

/** What the dashboard pane keeps between renders: its signals and the embed's handles. */
export interface DashState {
  service: DashboardService;
  linked: Signal<{ placement: string | null; dashboards: DashboardChoice[] } | null>;
  publicId: Signal<string | null>;
  typed: Signal<string>;
  status: Signal<string>;
  error: Signal<string | null>;
  info: Signal<string | null>;
  drill: Signal<Drill | null>;
  /** Members' titles by key, when the service knows them. */
  titles: Signal<Record<string, string>>;
  /** The filter the user applied in the embed ("orders.status = completed (Sheet1!B3)"): a picture does not carry it. */
  filtered: Signal<string | null>;
  overwrite: Signal<{ count: number; target: string } | null>;
  downloads: Signal<Download[]>;
  picture: Signal<{ running: PictureProgress["status"] | null; name: string | null }>;
  pictureAbort: MutableRef<AbortController | null>;
  frameHost: MutableRef<HTMLDivElement | null>;
  handle: MutableRef<EmbedHandle | null>;
}

/** A drilldown in words, members by their titles when known: "Count where Status is cancelled". */
export const drillLabel = (d: Drill, titles: Record<string, string> = {}) => {
  const t = (k: string) => titles[k] ?? titles[k.replace(/\.[a-z]+$/, "")] ?? k;
  const point =
    d.value && typeof d.value === "object"
      ? Object.entries(d.value as Record<string, unknown>)
          .map(([k, v]) => `${t(k)} is ${String(v)}`)
          .join(" and ")
      : "";
  return `${t(d.member)}${point ? ` where ${point}` : ""}`;
};

/** The pane's state, with the members' titles asked for once per service. */
export function useDashState(service: DashboardService): DashState {
  const s: DashState = {
    service,
    linked: useSignal<DashState["linked"]["value"]>(null),
    publicId: useSignal<string | null>(null),
    typed: useSignal(""),
    status: useSignal("Choose a dashboard."),
    error: useSignal<string | null>(null),
    info: useSignal<string | null>(null),
    drill: useSignal<Drill | null>(null),
    titles: useSignal<Record<string, string>>({}),
    filtered: useSignal<string | null>(null),
    overwrite: useSignal<DashState["overwrite"]["value"]>(null),
    downloads: useSignal<Download[]>([]),
    picture: useSignal<DashState["picture"]["value"]>({ running: null, name: null }),
    pictureAbort: useRef<AbortController | null>(null),
    frameHost: useRef<HTMLDivElement>(null),
    handle: useRef<EmbedHandle | null>(null),
  };
  useEffect(() => {
    void service.memberTitles?.().then(
      (t) => (s.titles.value = t),
      () => undefined, // without titles, messages name the members by key
    );
  }, [service]);
  return s;
}

/** Which dashboard: the one linked to the selected placement's report, if any. */
export async function findLinked(s: DashState): Promise<void> {
  s.error.value = null;
  try {
    const l = await s.service.linkedDashboards();
    s.linked.value = {
      placement: l.placement ? `${l.placement.reportName ?? "A report"} (${l.placement.range})` : null,
      dashboards: l.dashboards,
    };
    if (!s.publicId.value && l.dashboards[0]) s.publicId.value = l.dashboards[0].publicId;
  } catch (e) {
    s.error.value = (e as Error).message;
  }
}

/** The embed's news, in the pane's words. */
function onEmbedNews(s: DashState, n: EmbedNews): void {
  switch (n.kind) {
    case "ready":
      s.status.value = "Dashboard ready.";
      break;
    case "loaded":
      s.status.value = `Dashboard loaded (${n.widgetCount ?? "?"} charts).`;
      break;
    case "download":
      s.downloads.value = [...s.downloads.value, { format: n.format, title: n.title, rowCount: n.rowCount }];
      break;
    case "drilldown":
      s.drill.value = { member: n.member, value: n.value, widgetId: n.widgetId };
      s.overwrite.value = null;
      break;
    case "renewing":
      s.status.value = n.reason === "expired" ? "The dashboard's session ended; renewing it…" : "Renewing the dashboard's session…";
      break;
    case "renewed":
      s.status.value = "Session renewed; the dashboard kept its filters.";
      s.error.value = null;
      break;
    case "error":
      s.error.value = n.message;
      break;
  }
}

/** Mounts the embed of the chosen dashboard into the frame host; the effect's clean-up closes it. */
export function useEmbed(s: DashState): void {
  useEffect(() => {
    const id = s.publicId.value;
    const host = s.frameHost.current;
    if (!id || !host) return;
    let closed = false;
    s.filtered.value = null; // a new embed starts unfiltered
    s.status.value = "Loading the dashboard…";
    // A picture of this dashboard already on the sheet can be refreshed.
    void s.service.pictureOnSheet(id).then(
      (name) => {
        if (!closed && name) s.picture.value = { ...s.picture.value, name };
      },
      () => undefined,
    );
    s.service
      .open(host, id, (n) => onEmbedNews(s, n))
      .then(
        (h) => {
          if (closed) h.close();
          else s.handle.current = h;
        },
        (e: Error) => {
          s.error.value = `The dashboard ${id} could not be opened: ${e.message}`;
        },
      );
    // Follow Office's theme (installTheme keeps <html data-theme> current).
    const obs = new MutationObserver(() =>
      s.handle.current?.setScheme(document.documentElement.dataset.theme === "dark" ? "dark" : "light"),
    );
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => {
      closed = true;
      obs.disconnect();
      s.handle.current?.close();
      s.handle.current = null;
    };
  }, [s.publicId.value, s.service]);
}

/** The filter bridge: the selected cell becomes a filter in the embed. */
export async function filterByCell(s: DashState): Promise<void> {
  s.error.value = null;
  s.info.value = null;
  try {
    const f = await s.service.cellFilter();
    s.handle.current?.setFilter(f.member, [f.value]);
    s.filtered.value = f.label;
    s.info.value = `Filtered the dashboard by ${f.label}.`;
  } catch (e) {
    s.error.value = (e as Error).message;
  }
}

/** Places the drilled-into data at the selection; `confirmed` once the user agreed to overwrite. */
export async function placeDrill(s: DashState, confirmed: boolean): Promise<void> {
  const d = s.drill.value;
  const id = s.publicId.value;
  if (!d || !id) return;
  s.error.value = null;
  s.status.value = "Placing the drilldown…";
  try {
    const out = await s.service.placeDrilldown(id, d, confirmed);
    if (out.kind === "placed") {
      s.info.value = `Placed the drilldown ${drillLabel(d, s.titles.value)} at ${out.sheetName}!${out.range}.`;
      s.drill.value = null;
      s.overwrite.value = null;
    } else if (out.kind === "wouldOverwrite") {
      s.overwrite.value = { count: out.count, target: out.target };
    } else {
      s.error.value = `The drilldown would overlap ${out.placements.join(", ")} at ${out.target}: select an empty cell away from placed reports and try again.`;
    }
    s.status.value = "Dashboard ready.";
  } catch (e) {
    s.error.value = `The drilldown could not be placed: ${(e as Error).message}`;
  }
}

/** Inserts the dashboard's picture at the selection, or refreshes the one on the sheet; Cancel aborts it. */
export async function insertPicture(s: DashState, refresh: boolean): Promise<void> {
  const id = s.publicId.value;
  if (!id) return;
  s.error.value = null;
  const ac = new AbortController();
  s.pictureAbort.current = ac;
  s.picture.value = { ...s.picture.value, running: "queued" };
  try {
    const title = s.linked.value?.dashboards.find((d) => d.publicId === id)?.title;
    const r = await s.service.insertPicture(id, {
      ...(refresh && s.picture.value.name ? { refreshName: s.picture.value.name } : {}),
      ...(title ? { title } : {}),
      signal: ac.signal,
      onProgress: (p) => (s.picture.value = { ...s.picture.value, running: p.status }),
    });
    s.picture.value = { running: null, name: r.name };
    const what = title ? `the picture of “${title}”` : `the picture ${r.name}`;
    // The platform's picture export has no filters: say so rather than let it pass for what is on screen.
    const unfiltered = s.filtered.value
      ? ` It shows the dashboard unfiltered: the platform's picture export does not take the filter you applied (${s.filtered.value}).`
      : "";
    s.info.value = `${refresh ? `Refreshed ${what}` : `Inserted ${what} at the selection`}.${unfiltered}`;
  } catch (e) {
    s.picture.value = { ...s.picture.value, running: null };
    s.error.value = ac.signal.aborted
      ? null
      : `The dashboard picture could not be ${refresh ? "refreshed" : "inserted"}: ${(e as Error).message}`;
    if (ac.signal.aborted) s.info.value = "Stopped: no picture was inserted.";
  }
}
