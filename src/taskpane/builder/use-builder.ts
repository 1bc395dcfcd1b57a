// The builder's state and actions as one hook: the data model (/v1/meta) loaded when the pane
// opens, the choices made so far, and Preview and Save as module functions over one small model
// of signals (what the builder shows: views, choices, name, notice, progress, preview, problems).
import { useSignal, type Signal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import type { Workspace } from "../app/model";
import type { MetaView, PivotItems } from "../types";
import type { PreviewGrid } from "./types";
import { errorNotice, type Notice, type PaneStore } from "../state/store";
import { dateRangeProblem, emptyBuilder, problems, toInputs, toPivotItems, toQuery, type BuilderState } from "./query";

export const PREVIEW_ROWS = 20;

/** The builder's signals: everything its sections read and its actions write. */
export interface BuilderModel {
  views: Signal<MetaView[] | null>;
  state: Signal<BuilderState>;
  name: Signal<string>;
  error: Signal<Notice | null>;
  working: Signal<string | null>;
  preview: Signal<PreviewGrid | null>;
  issues: Signal<string[]>;
}

/** A change to the choices: the preview shown no longer matches them, so it goes. */
export type Update = (patch: Partial<BuilderState>) => void;

function useBuilderModel(): BuilderModel {
  return {
    views: useSignal<MetaView[] | null>(null),
    state: useSignal<BuilderState>(emptyBuilder()),
    name: useSignal(""),
    error: useSignal<Notice | null>(null),
    working: useSignal<string | null>(null),
    preview: useSignal<PreviewGrid | null>(null),
    issues: useSignal<string[]>([]),
  };
}

/** Loads the data model once per workspace; the first view is chosen. */
function useMeta(ws: Workspace | null, m: BuilderModel): void {
  useEffect(() => {
    if (!ws) return;
    const abort = new AbortController();
    ws.meta(abort.signal).then(
      (v) => {
        m.views.value = v;
        if (v[0]) m.state.value = emptyBuilder(v[0].name);
      },
      (e) => (m.error.value = errorNotice(e)),
    );
    return () => abort.abort();
  }, [ws]);
}

function update(m: BuilderModel, patch: Partial<BuilderState>): void {
  m.state.value = { ...m.state.value, ...patch };
  m.preview.value = null;
}

/** Preview: the problems first; if there are none, the first PREVIEW_ROWS rows as they will be placed. */
async function runPreview(m: BuilderModel, ws: Workspace | null, s: BuilderState): Promise<void> {
  const found = problems(s, null);
  m.issues.value = found;
  if (found.length || !ws) return;
  m.working.value = "Running preview…";
  m.error.value = null;
  try {
    m.preview.value = await ws.preview(toQuery(s, PREVIEW_ROWS), toPivotItems(s));
  } catch (e) {
    m.error.value = errorNotice(e);
  } finally {
    m.working.value = null;
  }
}

/**
 * Save: the problems first; if there are none, the report is placed, and created on the platform as it
 * is placed: when its cells would overwrite content, nothing is saved until the person confirms, and a
 * Cancel leaves the form as it is, to choose another cell (issue 31 item 1). The store says what failed.
 */
async function saveReport(m: BuilderModel, ws: Workspace | null, store: PaneStore, s: BuilderState): Promise<void> {
  const found = problems(s, m.name.value);
  m.issues.value = found;
  if (found.length || !ws) return;
  m.error.value = null;
  const inputs = toInputs(s);
  await store.place({ name: m.name.value.trim(), query: toQuery(s), pivotItems: toPivotItems(s) }, false, inputs.length ? { inputs } : {});
}

/** The builder for one render: its model, the choices as they stand and the actions over them. */
export function useBuilder(store: PaneStore) {
  const ws = store.workspace.value;
  const m = useBuilderModel();
  useMeta(ws, m);
  const s = m.state.value;
  const edit: Update = (patch) => update(m, patch);
  return {
    m,
    s,
    update: edit,
    updatePivot: (patch: Partial<PivotItems>) => edit({ pivotItems: { ...m.state.value.pivotItems, ...patch } }),
    selectView: (view: string) => (m.state.value = emptyBuilder(view)),
    // Checked as typed once the user has tried Preview or Save (then it stays beside the field until fixed).
    rangeError: m.issues.value.length > 0 ? dateRangeProblem(s) : null,
    runPreview: () => runPreview(m, ws, s),
    // "Use selected cell" (issue 32): the cells selected in the sheet now, or null (what failed is shown).
    selectionRef: ws?.selectionRef
      ? async (): Promise<string | null> => {
          try {
            return await ws.selectionRef!();
          } catch (e) {
            m.error.value = errorNotice(e);
            return null;
          }
        }
      : null,
    save: () => saveReport(m, ws, store, s),
  };
}
