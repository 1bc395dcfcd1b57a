// The report builder (loaded on demand): from /v1/meta pick a view, measures, dimensions, a time
// dimension with granularity, filters and order; pivot zones and display options (all of
// pivotItems); preview the first rows; save as a report (upsert by a new publicId) and place it.
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { formatValue } from "../../host/number-format";
import type { SheetValue } from "../../host/port";
import type { BuilderFilter, MetaView, PivotItems } from "../types";
import type { PreviewGrid } from "./types";
import { errorNotice, type Notice, type PaneStore } from "../state/store";
import { NoticeBox, ProgressLine } from "../ui/Notice";
import {
  dateRangeProblem,
  emptyBuilder,
  GRANULARITIES,
  operatorLabel,
  pivotDimensionMembers,
  problems,
  toPivotItems,
  toQuery,
  type BuilderState,
} from "./query";

const OPERATORS: BuilderFilter["operator"][] = ["equals", "notEquals", "contains", "gt", "lt", "set", "notSet"];
const PREVIEW_ROWS = 20;

function toggle(list: string[], item: string): string[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

function Checks({
  legend,
  options,
  chosen,
  onToggle,
}: {
  legend: string;
  options: { name: string; title: string }[];
  chosen: string[];
  onToggle: (n: string) => void;
}) {
  return (
    <fieldset class="cb-fieldset">
      <legend>{legend}</legend>
      {options.length === 0 && <p class="cb-meta">None in this view.</p>}
      {options.map((o) => (
        <label class="cb-check" key={o.name}>
          <input type="checkbox" checked={chosen.includes(o.name)} onChange={() => onToggle(o.name)} />
          {o.title}
        </label>
      ))}
    </fieldset>
  );
}

function Preview({ grid }: { grid: PreviewGrid }) {
  const head = grid.cells.slice(0, grid.headerRows);
  const body = grid.cells.slice(grid.headerRows, grid.headerRows + PREVIEW_ROWS);
  const text = (v: unknown) => (v === null || v === undefined ? "" : String(v));
  // As the sheet will show it: dates as dates, currency, percent, thousands separators.
  const shown = (v: SheetValue | null | undefined, col: number) =>
    v === null || v === undefined ? "" : formatValue(v, grid.columnFormats?.[col]);
  return (
    <div class="cb-table-wrap">
      <table class="cb-table" aria-label="Preview">
        <thead>
          {head.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <th scope="col" key={j}>
                  {text(v)}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {body.map((row, i) => (
            <tr key={i}>
              {row.map((v, j) => (
                <td key={j} class={typeof v === "number" ? "cb-num" : undefined}>
                  {shown(v, j)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="cb-meta">Preview of the first {PREVIEW_ROWS} result rows, laid out as they will be placed.</p>
    </div>
  );
}

export function BuilderView({ store }: { store: PaneStore }) {
  const ws = store.workspace.value;
  const views = useSignal<MetaView[] | null>(null);
  const state = useSignal<BuilderState>(emptyBuilder());
  const name = useSignal("");
  const error = useSignal<Notice | null>(null);
  const working = useSignal<string | null>(null);
  const preview = useSignal<PreviewGrid | null>(null);
  const issues = useSignal<string[]>([]);

  useEffect(() => {
    if (!ws) return;
    const abort = new AbortController();
    ws.meta(abort.signal).then(
      (v) => {
        views.value = v;
        if (v[0]) state.value = emptyBuilder(v[0].name);
      },
      (e) => (error.value = errorNotice(e)),
    );
    return () => abort.abort();
  }, [ws]);

  const s = state.value;
  const update = (patch: Partial<BuilderState>) => {
    state.value = { ...state.value, ...patch };
    preview.value = null;
  };
  const updatePivot = (patch: Partial<PivotItems>) => update({ pivotItems: { ...state.value.pivotItems, ...patch } });
  const view = views.value?.find((v) => v.name === s.view);
  const dims = view?.dimensions.filter((d) => d.type !== "time") ?? [];
  const times = view?.dimensions.filter((d) => d.type === "time") ?? [];
  const members = [...(view?.measures ?? []), ...(view?.dimensions ?? [])];
  const zoneMembers = pivotDimensionMembers(s);
  // Checked as typed once the user has tried Preview or Save (then it stays beside the field until fixed).
  const rangeError = issues.value.length > 0 ? dateRangeProblem(s) : null;

  const runPreview = async () => {
    const found = problems(s, null);
    issues.value = found;
    if (found.length || !ws) return;
    working.value = "Running preview…";
    error.value = null;
    try {
      preview.value = await ws.preview(toQuery(s, PREVIEW_ROWS), toPivotItems(s));
    } catch (e) {
      error.value = errorNotice(e);
    } finally {
      working.value = null;
    }
  };

  const save = async () => {
    const found = problems(s, name.value);
    issues.value = found;
    if (found.length || !ws) return;
    working.value = "Saving report…";
    error.value = null;
    try {
      const report = await ws.saveReport({ name: name.value.trim(), query: toQuery(s), pivotItems: toPivotItems(s) });
      working.value = null;
      await store.place(report.id);
    } catch (e) {
      error.value = errorNotice(e);
    } finally {
      working.value = null;
    }
  };

  if (!views.value) {
    return (
      <section aria-labelledby="cb-builder-title">
        <h1 id="cb-builder-title">New report</h1>
        {error.value ? <NoticeBox notice={error.value} /> : <ProgressLine label="Loading the data model…" />}
      </section>
    );
  }

  const zone = (label: string, key: "rows" | "columns" | "filters") => (
    <Checks
      legend={label}
      options={zoneMembers.map((m) => ({ name: m, title: members.find((x) => m.startsWith(x.name))?.title ?? m }))}
      chosen={s.pivotItems[key]}
      onToggle={(n) => updatePivot({ [key]: toggle(s.pivotItems[key], n) })}
    />
  );

  return (
    <section aria-labelledby="cb-builder-title">
      <h1 id="cb-builder-title">New report</h1>
      {error.value && <NoticeBox notice={error.value} />}
      <div class="cb-field">
        <label for="cb-view">View</label>
        <select id="cb-view" class="cb-select" value={s.view} onChange={(e) => (state.value = emptyBuilder(e.currentTarget.value))}>
          {views.value.map((v) => (
            <option value={v.name} key={v.name}>
              {v.title}
            </option>
          ))}
        </select>
      </div>
      <Checks
        legend="Measures"
        options={view?.measures ?? []}
        chosen={s.measures}
        onToggle={(n) => update({ measures: toggle(s.measures, n) })}
      />
      <Checks legend="Dimensions" options={dims} chosen={s.dimensions} onToggle={(n) => update({ dimensions: toggle(s.dimensions, n) })} />
      <fieldset class="cb-fieldset">
        <legend>Time</legend>
        <div class="cb-row">
          <div class="cb-field">
            <label for="cb-time">Time dimension</label>
            <select
              id="cb-time"
              class="cb-select"
              value={s.timeDimension ?? ""}
              onChange={(e) => update({ timeDimension: e.currentTarget.value || null })}
            >
              <option value="">None</option>
              {times.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.title}
                </option>
              ))}
            </select>
          </div>
          <div class="cb-field">
            <label for="cb-granularity">Granularity</label>
            <select
              id="cb-granularity"
              class="cb-select"
              value={s.granularity ?? ""}
              disabled={!s.timeDimension}
              onChange={(e) => update({ granularity: e.currentTarget.value || null })}
            >
              <option value="">None</option>
              {GRANULARITIES.map((g) => (
                <option key={g} value={g}>
                  {g}
                </option>
              ))}
            </select>
          </div>
        </div>
        <div class="cb-field">
          <label for="cb-range">Date range</label>
          <input
            id="cb-range"
            class="cb-input"
            placeholder="e.g. last 12 months, or 2025-01-01 to 2025-06-30"
            value={s.dateRange}
            disabled={!s.timeDimension}
            aria-invalid={rangeError !== null}
            aria-describedby={rangeError ? "cb-range-error" : undefined}
            onInput={(e) => update({ dateRange: e.currentTarget.value })}
          />
          {rangeError && (
            <p id="cb-range-error" class="cb-field-error" role="alert">
              {rangeError}
            </p>
          )}
        </div>
      </fieldset>
      <fieldset class="cb-fieldset">
        <legend>Filters</legend>
        {s.filters.map((f, i) => {
          const set = (patch: Partial<BuilderFilter>) => update({ filters: s.filters.map((g, j) => (j === i ? { ...g, ...patch } : g)) });
          return (
            <div class="cb-row" key={i} style={{ marginBottom: "4px" }}>
              <select
                class="cb-select"
                aria-label={`Filter ${i + 1} member`}
                value={f.member}
                onChange={(e) => set({ member: e.currentTarget.value })}
              >
                {members.map((m) => (
                  <option key={m.name} value={m.name}>
                    {m.title}
                  </option>
                ))}
              </select>
              <select
                class="cb-select"
                aria-label={`Filter ${i + 1} operator`}
                value={f.operator}
                onChange={(e) => set({ operator: e.currentTarget.value as BuilderFilter["operator"] })}
              >
                {OPERATORS.map((o) => (
                  <option key={o} value={o}>
                    {operatorLabel(o)}
                  </option>
                ))}
              </select>
              <input
                class="cb-input"
                aria-label={`Filter ${i + 1} values (comma separated)`}
                value={f.values.join(",")}
                disabled={f.operator === "set" || f.operator === "notSet"}
                onInput={(e) =>
                  set({
                    values: e.currentTarget.value
                      .split(",")
                      .map((x) => x.trim())
                      .filter(Boolean),
                  })
                }
              />
              <button
                type="button"
                class="cb-btn cb-small"
                style={{ flex: "0 0 auto" }}
                onClick={() => update({ filters: s.filters.filter((_, j) => j !== i) })}
              >
                Remove filter {i + 1}
              </button>
            </div>
          );
        })}
        <button
          type="button"
          class="cb-btn cb-small"
          disabled={members.length === 0}
          onClick={() => update({ filters: [...s.filters, { member: members[0]!.name, operator: "equals", values: [] }] })}
        >
          Add filter
        </button>
      </fieldset>
      <fieldset class="cb-fieldset">
        <legend>Order</legend>
        <div class="cb-row">
          <select
            class="cb-select"
            aria-label="Order by"
            value={s.order?.[0] ?? ""}
            onChange={(e) => update({ order: e.currentTarget.value ? [e.currentTarget.value, s.order?.[1] ?? "asc"] : null })}
          >
            <option value="">Default</option>
            {[...s.measures, ...s.dimensions, ...(s.timeDimension ? [s.timeDimension] : [])].map((m) => (
              <option key={m} value={m}>
                {members.find((x) => x.name === m)?.title ?? m}
              </option>
            ))}
          </select>
          <select
            class="cb-select"
            aria-label="Direction"
            value={s.order?.[1] ?? "asc"}
            disabled={!s.order}
            onChange={(e) => s.order && update({ order: [s.order[0], e.currentTarget.value as "asc" | "desc"] })}
          >
            <option value="asc">Ascending</option>
            <option value="desc">Descending</option>
          </select>
        </div>
      </fieldset>
      <label class="cb-check">
        <input type="checkbox" checked={s.pivot} onChange={() => update({ pivot: !s.pivot })} />
        Show as a pivot table
      </label>
      {s.pivot && (
        <div>
          {zone("Rows", "rows")}
          {zone("Columns", "columns")}
          {zone("Filters zone", "filters")}
          <fieldset class="cb-fieldset">
            <legend>Display</legend>
            <div class="cb-row">
              <div class="cb-field">
                <label for="cb-axis">Measures on</label>
                <select
                  id="cb-axis"
                  class="cb-select"
                  value={s.pivotItems.measuresAxis}
                  onChange={(e) => updatePivot({ measuresAxis: e.currentTarget.value as "columns" | "rows" })}
                >
                  <option value="columns">Columns</option>
                  <option value="rows">Rows</option>
                </select>
              </div>
              <div class="cb-field">
                <label for="cb-position">Measures position</label>
                <select
                  id="cb-position"
                  class="cb-select"
                  value={s.pivotItems.measuresPosition}
                  onChange={(e) => updatePivot({ measuresPosition: e.currentTarget.value as "before" | "after" })}
                >
                  <option value="before">Before</option>
                  <option value="after">After</option>
                </select>
              </div>
            </div>
            <div class="cb-field">
              <label for="cb-scale">Display scale</label>
              <select
                id="cb-scale"
                class="cb-select"
                value={s.pivotItems.displayScale}
                onChange={(e) => updatePivot({ displayScale: e.currentTarget.value as PivotItems["displayScale"] })}
              >
                {["model", "absolute", "thousands", "millions", "billions"].map((x) => (
                  <option key={x} value={x}>
                    {x}
                  </option>
                ))}
              </select>
            </div>
            <label class="cb-check">
              <input
                type="checkbox"
                checked={s.pivotItems.showColumnTotals === true}
                onChange={() => updatePivot({ showColumnTotals: !s.pivotItems.showColumnTotals })}
              />
              Column totals
            </label>
            <label class="cb-check">
              <input
                type="checkbox"
                checked={s.pivotItems.showRowTotals === true}
                disabled={s.pivotItems.columns.length === 0}
                onChange={() => updatePivot({ showRowTotals: !s.pivotItems.showRowTotals })}
              />
              Row totals (needs a Columns zone)
            </label>
            <label class="cb-check">
              <input
                type="checkbox"
                checked={s.pivotItems.showAppliedFilters === true}
                onChange={() => updatePivot({ showAppliedFilters: !s.pivotItems.showAppliedFilters })}
              />
              Show applied filters above the table
            </label>
          </fieldset>
        </div>
      )}
      {issues.value.filter((m) => m !== rangeError).length > 0 && (
        <div class="cb-message cb-message-warning" role="alert">
          {issues.value
            .filter((m) => m !== rangeError)
            .map((m) => (
              <p key={m}>{m}</p>
            ))}
        </div>
      )}
      <button type="button" class="cb-btn" disabled={working.value !== null} onClick={() => void runPreview()}>
        Preview
      </button>
      {working.value && <ProgressLine label={working.value} />}
      {preview.value && <Preview grid={preview.value} />}
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
      <button
        type="button"
        class="cb-btn cb-primary"
        disabled={working.value !== null || store.busy.value !== null}
        onClick={() => void save()}
      >
        Save report
      </button>
      <p class="cb-meta">Saving creates the report on the platform and places it at the selected cell.</p>
    </section>
  );
}
