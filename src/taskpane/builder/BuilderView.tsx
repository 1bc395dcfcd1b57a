// The report builder (loaded on demand): from /v1/meta pick a view, measures, dimensions, a time
// dimension with granularity, filters and order; pivot zones and display options (all of
// pivotItems); preview the first rows; save as a report (upsert by a new publicId) and place it.
// The state and actions are use-builder.ts; the sections are sections.tsx and pivot.tsx.
import type { Signal } from "@preact/signals";
import type { PaneStore } from "../state/store";
import { NoticeBox, ProgressLine, RoleLimit } from "../ui/Notice";
import { Preview } from "./Preview";
import { PivotSection } from "./pivot";
import { FiltersSection, MeasuresAndDimensions, OrderSection, TimeSection, ViewPicker } from "./sections";
import { useBuilder } from "./use-builder";

export function BuilderView({ store }: { store: PaneStore }) {
  const b = useBuilder(store);
  const { m, s, update } = b;
  if (!m.views.value) {
    return (
      <section aria-labelledby="cb-builder-title">
        <h1 id="cb-builder-title">New report</h1>
        {m.error.value ? <NoticeBox notice={m.error.value} /> : <ProgressLine label="Loading the data model…" />}
      </section>
    );
  }
  const view = m.views.value.find((v) => v.name === s.view);
  const members = [...(view?.measures ?? []), ...(view?.dimensions ?? [])];
  const limit = store.workspace.value?.roleLimit ?? null;
  return (
    <section aria-labelledby="cb-builder-title">
      <h1 id="cb-builder-title">New report</h1>
      {limit && <RoleLimit text={limit} />}
      {m.error.value && <NoticeBox notice={m.error.value} />}
      <ViewPicker views={m.views.value} s={s} onSelect={b.selectView} />
      <MeasuresAndDimensions view={view} s={s} update={update} />
      <TimeSection view={view} s={s} update={update} rangeError={b.rangeError} selectionRef={b.selectionRef} />
      <FiltersSection s={s} update={update} members={members} selectionRef={b.selectionRef} />
      <OrderSection s={s} update={update} members={members} />
      <PivotSection s={s} members={members} update={update} updatePivot={b.updatePivot} />
      <Problems issues={m.issues.value} rangeError={b.rangeError} />
      <button type="button" class="cb-btn" disabled={m.working.value !== null} onClick={() => void b.runPreview()}>
        Preview
      </button>
      {m.working.value && <ProgressLine label={m.working.value} />}
      {m.preview.value && <Preview grid={m.preview.value} />}
      <SaveReport
        name={m.name}
        disabled={m.working.value !== null || store.busy.value !== null || limit !== null}
        why={limit ? "cb-role-limit" : undefined}
        onSave={b.save}
      />
    </section>
  );
}

/** What stops Preview or Save, but the date range's problem (shown beside its field). */
function Problems({ issues, rangeError }: { issues: string[]; rangeError: string | null }) {
  const shown = issues.filter((m) => m !== rangeError);
  if (shown.length === 0) return null;
  return (
    <div class="cb-message cb-message-warning" role="alert">
      {shown.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </div>
  );
}

function SaveReport(p: { name: Signal<string>; disabled: boolean; why: string | undefined; onSave: () => Promise<void> }) {
  const { name, disabled, why, onSave } = p;
  return (
    <>
      <div class="cb-field" style={{ marginTop: "12px" }}>
        <label for="cb-report-name">Report name</label>
        <input
          id="cb-report-name"
          class="cb-input"
          maxLength={255}
          value={name.value}
          onInput={(e) => (name.value = e.currentTarget.value)}
        />
      </div>
      <button type="button" class="cb-btn cb-primary" disabled={disabled} aria-describedby={why} onClick={() => void onSave()}>
        Save report
      </button>
      <p class="cb-meta">Saving creates the report on the platform and places it at the selected cell.</p>
    </>
  );
}
