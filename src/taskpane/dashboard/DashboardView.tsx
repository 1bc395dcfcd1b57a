// Dashboard: the published dashboard beside the sheet, both ways. Which one: linked to the report of
// the placement under the selection, or one picked by its publicId. The embed follows Office's theme
// and the user's time zone; "Filter dashboard by this cell" pushes the selected cell as a filter;
// a drilldown can be placed in the sheet; "Insert dashboard picture" puts a PNG export at the
// selection (and refreshes it in place); downloads made in the embed are listed.
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { PaneStore } from "../state/store";
import { NoticeBox } from "../ui/Notice";
import { useQuestionFocus } from "../ui/focus";
import type { DashboardService, EmbedHandle, EmbedNews, PictureProgress } from "./service";
import type { DashboardChoice } from "../types";

const CSS = `
.cb-dashboard-frame { width: 100%; height: 460px; border: 1px solid var(--colorNeutralStroke1); border-radius: var(--borderRadiusMedium); background: var(--colorNeutralBackground1); }
.cb-dash-tools { display: flex; flex-wrap: wrap; gap: var(--spacingS); margin: var(--spacingS) 0; }
.cb-dash-box { border: 1px solid var(--colorNeutralStroke1); border-radius: var(--borderRadiusMedium); padding: var(--spacingS); margin: var(--spacingS) 0; }
`;

export function DashboardView({ store }: { store: PaneStore }) {
  const service = store.workspace.value?.dashboard;
  if (!service) return <NoticeBox notice={{ tone: "info", title: "The dashboard is not available in this workspace" }} />;
  return <DashboardPane service={service} />;
}

type Drill = { member: string; value: unknown; widgetId: string | null };
/** A drilldown in words, members by their titles when known: "Count where Status is cancelled". */
const drillLabel = (d: Drill, titles: Record<string, string> = {}) => {
  const t = (k: string) => titles[k] ?? titles[k.replace(/\.[a-z]+$/, "")] ?? k;
  const point =
    d.value && typeof d.value === "object"
      ? Object.entries(d.value as Record<string, unknown>)
          .map(([k, v]) => `${t(k)} is ${String(v)}`)
          .join(" and ")
      : "";
  return `${t(d.member)}${point ? ` where ${point}` : ""}`;
};
const PROGRESS: Record<PictureProgress["status"], string> = {
  queued: "Waiting for the platform to start the picture…",
  running: "The platform is rendering the dashboard…",
  downloading: "Downloading the picture…",
  inserting: "Inserting the picture into the sheet…",
  done: "Done",
  failed: "Failed",
};

export function DashboardPane({ service }: { service: DashboardService }) {
  const linked = useSignal<{ placement: string | null; dashboards: DashboardChoice[] } | null>(null);
  const publicId = useSignal<string | null>(null);
  const typed = useSignal("");
  const status = useSignal("Choose a dashboard.");
  const error = useSignal<string | null>(null);
  const info = useSignal<string | null>(null);
  const drill = useSignal<Drill | null>(null);
  const titles = useSignal<Record<string, string>>({});
  useEffect(() => {
    void service.memberTitles?.().then(
      (t) => (titles.value = t),
      () => undefined, // without titles, messages name the members by key
    );
  }, [service]);
  /** The filter the user applied in the embed ("orders.status = completed (Sheet1!B3)"): a picture does not carry it. */
  const filtered = useSignal<string | null>(null);
  const overwrite = useSignal<{ count: number; target: string } | null>(null);
  const downloads = useSignal<Array<{ format: string; title: string | null; rowCount: number | null }>>([]);
  const picture = useSignal<{ running: PictureProgress["status"] | null; name: string | null }>({ running: null, name: null });
  const pictureAbort = useRef<AbortController | null>(null);
  const frameHost = useRef<HTMLDivElement>(null);
  const handle = useRef<EmbedHandle | null>(null);
  const configured = service.sessionUrl() !== null;

  // Which dashboard: the one linked to the selected placement's report, if any.
  const findLinked = async () => {
    error.value = null;
    try {
      const l = await service.linkedDashboards();
      linked.value = {
        placement: l.placement ? `${l.placement.reportName ?? "A report"} (${l.placement.range})` : null,
        dashboards: l.dashboards,
      };
      if (!publicId.value && l.dashboards[0]) publicId.value = l.dashboards[0].publicId;
    } catch (e) {
      error.value = (e as Error).message;
    }
  };
  useEffect(() => {
    if (configured) void findLinked();
  }, [configured]);

  // Mount the embed for the chosen dashboard.
  useEffect(() => {
    const id = publicId.value;
    const host = frameHost.current;
    if (!id || !host) return;
    let closed = false;
    filtered.value = null; // a new embed starts unfiltered
    status.value = "Loading the dashboard…";
    const onNews = (n: EmbedNews) => {
      switch (n.kind) {
        case "ready":
          status.value = "Dashboard ready.";
          break;
        case "loaded":
          status.value = `Dashboard loaded (${n.widgetCount ?? "?"} charts).`;
          break;
        case "download":
          downloads.value = [...downloads.value, { format: n.format, title: n.title, rowCount: n.rowCount }];
          break;
        case "drilldown":
          drill.value = { member: n.member, value: n.value, widgetId: n.widgetId };
          overwrite.value = null;
          break;
        case "renewing":
          status.value = n.reason === "expired" ? "The dashboard's session ended; renewing it…" : "Renewing the dashboard's session…";
          break;
        case "renewed":
          status.value = "Session renewed; the dashboard kept its filters.";
          error.value = null;
          break;
        case "error":
          error.value = n.message;
          break;
      }
    };
    // A picture of this dashboard already on the sheet can be refreshed.
    void service.pictureOnSheet(id).then(
      (name) => {
        if (!closed && name) picture.value = { ...picture.value, name };
      },
      () => undefined,
    );
    service.open(host, id, onNews).then(
      (h) => {
        if (closed) h.close();
        else handle.current = h;
      },
      (e: Error) => {
        error.value = `The dashboard ${id} could not be opened: ${e.message}`;
      },
    );
    // Follow Office's theme (installTheme keeps <html data-theme> current).
    const obs = new MutationObserver(() => handle.current?.setScheme(document.documentElement.dataset.theme === "dark" ? "dark" : "light"));
    obs.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    return () => {
      closed = true;
      obs.disconnect();
      handle.current?.close();
      handle.current = null;
    };
  }, [publicId.value, service]);

  const filterByCell = async () => {
    error.value = null;
    info.value = null;
    try {
      const f = await service.cellFilter();
      handle.current?.setFilter(f.member, [f.value]);
      filtered.value = f.label;
      info.value = `Filtered the dashboard by ${f.label}.`;
    } catch (e) {
      error.value = (e as Error).message;
    }
  };

  const placeDrill = async (confirmed: boolean) => {
    const d = drill.value;
    const id = publicId.value;
    if (!d || !id) return;
    error.value = null;
    status.value = "Placing the drilldown…";
    try {
      const out = await service.placeDrilldown(id, d, confirmed);
      if (out.kind === "placed") {
        info.value = `Placed the drilldown ${drillLabel(d, titles.value)} at ${out.sheetName}!${out.range}.`;
        drill.value = null;
        overwrite.value = null;
      } else if (out.kind === "wouldOverwrite") {
        overwrite.value = { count: out.count, target: out.target };
      } else {
        error.value = `The drilldown would overlap ${out.placements.join(", ")} at ${out.target}: select an empty cell away from placed reports and try again.`;
      }
      status.value = "Dashboard ready.";
    } catch (e) {
      error.value = `The drilldown could not be placed: ${(e as Error).message}`;
    }
  };

  const insertPicture = async (refresh: boolean) => {
    const id = publicId.value;
    if (!id) return;
    error.value = null;
    const ac = new AbortController();
    pictureAbort.current = ac;
    picture.value = { ...picture.value, running: "queued" };
    try {
      const title = linked.value?.dashboards.find((d) => d.publicId === id)?.title;
      const r = await service.insertPicture(id, {
        ...(refresh && picture.value.name ? { refreshName: picture.value.name } : {}),
        ...(title ? { title } : {}),
        signal: ac.signal,
        onProgress: (p) => (picture.value = { ...picture.value, running: p.status }),
      });
      picture.value = { running: null, name: r.name };
      const what = title ? `the picture of “${title}”` : `the picture ${r.name}`;
      // The platform's picture export has no filters: say so rather than let it pass for what is on screen.
      const unfiltered = filtered.value
        ? ` It shows the dashboard unfiltered: the platform's picture export does not take the filter you applied (${filtered.value}).`
        : "";
      info.value = `${refresh ? `Refreshed ${what}` : `Inserted ${what} at the selection`}.${unfiltered}`;
    } catch (e) {
      picture.value = { ...picture.value, running: null };
      error.value = ac.signal.aborted
        ? null
        : `The dashboard picture could not be ${refresh ? "refreshed" : "inserted"}: ${(e as Error).message}`;
      if (ac.signal.aborted) info.value = "Stopped: no picture was inserted.";
    }
  };

  if (!configured) {
    return (
      <section aria-labelledby="cb-dash-title">
        <h1 id="cb-dash-title">Dashboard</h1>
        <NoticeBox
          notice={{
            tone: "info",
            title: "The dashboard needs a session URL from your organisation",
            detail: "Enter it in the Comments tab; the dashboard uses the same one.",
          }}
        />
      </section>
    );
  }

  const running = picture.value.running;
  return (
    <section aria-labelledby="cb-dash-title">
      <style>{CSS}</style>
      <h1 id="cb-dash-title">Dashboard</h1>
      <div class="cb-dash-tools">
        {linked.value?.dashboards.map((d) => (
          <button
            key={d.publicId}
            type="button"
            class="cb-btn cb-small"
            aria-pressed={publicId.value === d.publicId}
            onClick={() => (publicId.value = d.publicId)}
          >
            {d.title}
          </button>
        ))}
        <button type="button" class="cb-btn cb-small" onClick={() => void findLinked()}>
          Find for selection
        </button>
      </div>
      {linked.value && (
        <p class="cb-meta">
          {linked.value.placement ? `Selection: ${linked.value.placement}` : "The selection is not in a placed report."}
        </p>
      )}
      <form
        class="cb-dash-tools"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.value.trim()) publicId.value = typed.value.trim();
        }}
      >
        <label>
          Dashboard id <input value={typed.value} onInput={(e) => (typed.value = (e.target as HTMLInputElement).value)} size={14} />
        </label>
        <button type="submit" class="cb-btn cb-small">
          Open
        </button>
      </form>
      <p role="status" class="cb-meta" data-testid="dash-status">
        {status.value}
      </p>
      {error.value && <NoticeBox notice={{ tone: "error", title: error.value }} onDismiss={() => (error.value = null)} />}
      {info.value && <p role="status">{info.value}</p>}
      {publicId.value && (
        <div class="cb-dash-tools">
          <button type="button" class="cb-btn" onClick={() => void filterByCell()}>
            Filter dashboard by this cell
          </button>
          <button type="button" class="cb-btn" disabled={running !== null} onClick={() => void insertPicture(false)}>
            Insert dashboard picture
          </button>
          {picture.value.name && (
            <button type="button" class="cb-btn" disabled={running !== null} onClick={() => void insertPicture(true)}>
              Refresh picture
            </button>
          )}
          <button type="button" class="cb-btn cb-small" onClick={() => handle.current?.refresh()}>
            Refresh dashboard
          </button>
        </div>
      )}
      {running && (
        <div class="cb-dash-box" role="status">
          <progress aria-label="Dashboard picture" /> {PROGRESS[running]}{" "}
          <button type="button" class="cb-btn cb-small" onClick={() => pictureAbort.current?.abort()}>
            Cancel
          </button>
        </div>
      )}
      {drill.value && (
        <div class="cb-dash-box" aria-label="Drilldown">
          <p>Drilled into {drillLabel(drill.value, titles.value)}.</p>
          {overwrite.value ? (
            <DrillOverwrite
              target={overwrite.value.target}
              count={overwrite.value.count}
              onOverwrite={() => void placeDrill(true)}
              onCancel={() => (overwrite.value = null)}
            />
          ) : (
            <button type="button" class="cb-btn" onClick={() => void placeDrill(false)}>
              Place this drilldown
            </button>
          )}
        </div>
      )}
      <div ref={frameHost} />
      {downloads.value.length > 0 && (
        <div class="cb-dash-box">
          <h2 style={{ fontSize: "1em", margin: 0 }}>Downloads from the dashboard</h2>
          <ul aria-label="Downloads">
            {downloads.value.map((d, i) => (
              <li key={i}>
                {d.format.toUpperCase()}
                {d.title ? ` — ${d.title}` : ""}
                {d.rowCount !== null ? ` — ${d.rowCount} rows` : ""}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/** The drilldown's overwrite question: focus on Cancel (the safe choice), Escape cancels, focus goes back. */
function DrillOverwrite(p: { target: string; count: number; onOverwrite: () => void; onCancel: () => void }) {
  const cancel = useRef<HTMLButtonElement>(null);
  useQuestionFocus(cancel);
  return (
    <div
      role="group"
      aria-label="Overwrite cells?"
      onKeyDown={(e) => {
        if (e.key === "Escape") p.onCancel();
      }}
    >
      <p role="alert">
        Placing it at {p.target} would overwrite {p.count} {p.count === 1 ? "cell that holds" : "cells that hold"} data.
      </p>
      <button type="button" class="cb-btn" onClick={p.onOverwrite}>
        Overwrite
      </button>{" "}
      <button ref={cancel} type="button" class="cb-btn" onClick={p.onCancel}>
        Cancel
      </button>
    </div>
  );
}
