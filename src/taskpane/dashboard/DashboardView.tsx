// Dashboard: the published dashboard beside the sheet, both ways. Which one: linked to the report of
// the placement under the selection, or one picked by its publicId. The embed follows Office's theme
// and the user's time zone; "Filter dashboard by this cell" pushes the selected cell as a filter;
// a drilldown can be placed in the sheet; "Insert dashboard picture" puts a PNG export at the
// selection (and refreshes it in place); downloads made in the embed are listed. The pane's state and
// what its buttons do are in state.ts; this file is its sections: picker, toolbar, picture, drilldown.
import { useEffect, useRef } from "preact/hooks";
import type { PaneStore } from "../state/store";
import { NoticeBox } from "../ui/Notice";
import { useQuestionFocus } from "../ui/focus";
import type { DashboardService, PictureProgress } from "./service";
import {
  drillLabel,
  filterByCell,
  findLinked,
  insertPicture,
  placeDrill,
  useDashState,
  useEmbed,
  type DashState,
  type Download,
  type Drill,
} from "./state";

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

const PROGRESS: Record<PictureProgress["status"], string> = {
  queued: "Waiting for the platform to start the picture…",
  running: "The platform is rendering the dashboard…",
  downloading: "Downloading the picture…",
  inserting: "Inserting the picture into the sheet…",
  done: "Done",
  failed: "Failed",
};

export function DashboardPane({ service }: { service: DashboardService }) {
  const s = useDashState(service);
  const configured = service.sessionUrl() !== null;
  useEffect(() => {
    if (configured) void findLinked(s);
  }, [configured]);
  useEmbed(s);

  if (!configured) return <NeedsSessionUrl />;
  return (
    <section aria-labelledby="cb-dash-title">
      <style>{CSS}</style>
      <h1 id="cb-dash-title">Dashboard</h1>
      <DashboardPicker s={s} />
      <p role="status" class="cb-meta" data-testid="dash-status">
        {s.status.value}
      </p>
      {s.error.value && <NoticeBox notice={{ tone: "error", title: s.error.value }} onDismiss={() => (s.error.value = null)} />}
      {s.info.value && <p role="status">{s.info.value}</p>}
      {s.publicId.value && <DashboardToolbar s={s} />}
      {s.picture.value.running && <PictureRunning s={s} running={s.picture.value.running} />}
      {s.drill.value && <DrillBox s={s} drill={s.drill.value} />}
      <div ref={s.frameHost} />
      {s.downloads.value.length > 0 && <DownloadList downloads={s.downloads.value} />}
    </section>
  );
}

/** Without a session URL there is no embed: say where to enter it. */
function NeedsSessionUrl() {
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

/** Which dashboard: the ones linked to the selection's report, Find for selection, and an id typed in. */
function DashboardPicker({ s }: { s: DashState }) {
  const linked = s.linked.value;
  return (
    <>
      <div class="cb-dash-tools">
        {linked?.dashboards.map((d) => (
          <button
            key={d.publicId}
            type="button"
            class="cb-btn cb-small"
            aria-pressed={s.publicId.value === d.publicId}
            onClick={() => (s.publicId.value = d.publicId)}
          >
            {d.title}
          </button>
        ))}
        <button type="button" class="cb-btn cb-small" onClick={() => void findLinked(s)}>
          Find for selection
        </button>
      </div>
      {linked && <p class="cb-meta">{linked.placement ? `Selection: ${linked.placement}` : "The selection is not in a placed report."}</p>}
      <form
        class="cb-dash-tools"
        onSubmit={(e) => {
          e.preventDefault();
          if (s.typed.value.trim()) s.publicId.value = s.typed.value.trim();
        }}
      >
        <label>
          Dashboard id <input value={s.typed.value} onInput={(e) => (s.typed.value = (e.target as HTMLInputElement).value)} size={14} />
        </label>
        <button type="submit" class="cb-btn cb-small">
          Open
        </button>
      </form>
    </>
  );
}

/** The open dashboard's toolbar: the filter bridge, its picture, and a refresh of the embed. */
function DashboardToolbar({ s }: { s: DashState }) {
  const busy = s.picture.value.running !== null;
  return (
    <div class="cb-dash-tools">
      <button type="button" class="cb-btn" onClick={() => void filterByCell(s)}>
        Filter dashboard by this cell
      </button>
      <button type="button" class="cb-btn" disabled={busy} onClick={() => void insertPicture(s, false)}>
        Insert dashboard picture
      </button>
      {s.picture.value.name && (
        <button type="button" class="cb-btn" disabled={busy} onClick={() => void insertPicture(s, true)}>
          Refresh picture
        </button>
      )}
      <button type="button" class="cb-btn cb-small" onClick={() => s.handle.current?.refresh()}>
        Refresh dashboard
      </button>
    </div>
  );
}

/** A picture on its way, with Cancel. */
function PictureRunning({ s, running }: { s: DashState; running: PictureProgress["status"] }) {
  return (
    <div class="cb-dash-box" role="status">
      <progress aria-label="Dashboard picture" /> {PROGRESS[running]}{" "}
      <button type="button" class="cb-btn cb-small" onClick={() => s.pictureAbort.current?.abort()}>
        Cancel
      </button>
    </div>
  );
}

/** The drilldown made in the embed, to place in the sheet (asking before it overwrites). */
function DrillBox({ s, drill }: { s: DashState; drill: Drill }) {
  const overwrite = s.overwrite.value;
  return (
    <div class="cb-dash-box" aria-label="Drilldown">
      <p>Drilled into {drillLabel(drill, s.titles.value)}.</p>
      {overwrite ? (
        <DrillOverwrite
          target={overwrite.target}
          count={overwrite.count}
          onOverwrite={() => void placeDrill(s, true)}
          onCancel={() => (s.overwrite.value = null)}
        />
      ) : (
        <button type="button" class="cb-btn" onClick={() => void placeDrill(s, false)}>
          Place this drilldown
        </button>
      )}
    </div>
  );
}

/** Downloads made in the embed. */
function DownloadList({ downloads }: { downloads: Download[] }) {
  return (
    <div class="cb-dash-box">
      <h2 style={{ fontSize: "1em", margin: 0 }}>Downloads from the dashboard</h2>
      <ul aria-label="Downloads">
        {downloads.map((d, i) => (
          <li key={i}>
            {d.format.toUpperCase()}
            {d.title ? ` — ${d.title}` : ""}
            {d.rowCount !== null ? ` — ${d.rowCount} rows` : ""}
          </li>
        ))}
      </ul>
    </div>
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
