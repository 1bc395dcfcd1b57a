// The builder's sections, one component each: the view, measures and dimensions (checkboxes), time
// (dimension, granularity, date range), filters, order. Each gets the choices as they stand and
// `update`, which changes them (and drops the preview that no longer matches).
import type { BuilderFilter, MetaView } from "../types";
import { GRANULARITIES, operatorLabel, type BuilderRowFilter, type BuilderState } from "./query";
import type { Update } from "./use-builder";

const OPERATORS: BuilderFilter["operator"][] = ["equals", "notEquals", "contains", "gt", "lt", "set", "notSet"];

/** A member of the view (measure or dimension) as the builder lists it. */
export type Member = { name: string; title: string };

export function toggle(list: string[], item: string): string[] {
  return list.includes(item) ? list.filter((x) => x !== item) : [...list, item];
}

export function Checks({
  legend,
  options,
  chosen,
  onToggle,
}: {
  legend: string;
  options: Member[];
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

export function ViewPicker({ views, s, onSelect }: { views: MetaView[]; s: BuilderState; onSelect: (view: string) => void }) {
  return (
    <div class="cb-field">
      <label for="cb-view">View</label>
      <select id="cb-view" class="cb-select" value={s.view} onChange={(e) => onSelect(e.currentTarget.value)}>
        {views.map((v) => (
          <option value={v.name} key={v.name}>
            {v.title}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Measures and the (non-time) dimensions of the view, as checkboxes. */
export function MeasuresAndDimensions({ view, s, update }: { view: MetaView | undefined; s: BuilderState; update: Update }) {
  const dims = view?.dimensions.filter((d) => d.type !== "time") ?? [];
  return (
    <>
      <Checks
        legend="Measures"
        options={view?.measures ?? []}
        chosen={s.measures}
        onToggle={(n) => update({ measures: toggle(s.measures, n) })}
      />
      <Checks legend="Dimensions" options={dims} chosen={s.dimensions} onToggle={(n) => update({ dimensions: toggle(s.dimensions, n) })} />
    </>
  );
}

export function TimeSection({
  view,
  s,
  update,
  rangeError,
  selectionRef,
}: {
  view: MetaView | undefined;
  selectionRef?: (() => Promise<string | null>) | null;
  s: BuilderState;
  update: Update;
  rangeError: string | null;
}) {
  const times = view?.dimensions.filter((d) => d.type === "time") ?? [];
  return (
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
      <DateRange s={s} update={update} rangeError={rangeError} selectionRef={selectionRef ?? null} />
    </fieldset>
  );
}

function DateRange(p: { s: BuilderState; update: Update; rangeError: string | null; selectionRef: (() => Promise<string | null>) | null }) {
  const { s, update, rangeError } = p;
  const bound = s.dateRangeRef !== undefined;
  return (
    <div class="cb-field">
      <label for="cb-range">Date range</label>
      <input
        id="cb-range"
        class="cb-input"
        placeholder="e.g. last 12 months, or 2025-01-01 to 2025-06-30"
        value={bound ? `From ${s.dateRangeRef} (from, to)` : s.dateRange}
        disabled={!s.timeDimension || bound}
        aria-invalid={rangeError !== null}
        aria-describedby={rangeError ? "cb-range-error" : undefined}
        onInput={(e) => update({ dateRange: e.currentTarget.value })}
      />
      {rangeError && !bound && (
        <p id="cb-range-error" class="cb-field-error" role="alert">
          {rangeError}
        </p>
      )}
      {/* Issue 32: two cells of the workbook (from, to) give the date range of this placement. */}
      {p.selectionRef && s.timeDimension && (
        <button
          type="button"
          class="cb-btn cb-small"
          onClick={() =>
            bound ? update({ dateRangeRef: undefined }) : void p.selectionRef!().then((ref) => ref && update({ dateRangeRef: ref }))
          }
        >
          {bound ? "Type the date range" : "Use selected cells for the date range"}
        </button>
      )}
    </div>
  );
}

export function FiltersSection(p: {
  s: BuilderState;
  update: Update;
  members: Member[];
  /** The cells selected now ("Sheet1!B1"), for a filter taking its values from them (issue 32); null where not offered. */
  selectionRef: (() => Promise<string | null>) | null;
}) {
  const { s, update, members } = p;
  return (
    <fieldset class="cb-fieldset">
      <legend>Filters</legend>
      {s.filters.map((f, i) => (
        <FilterRow
          key={i}
          f={f}
          i={i}
          members={members}
          selectionRef={p.selectionRef}
          set={(patch) => update({ filters: s.filters.map((g, j) => (j === i ? { ...g, ...patch } : g)) })}
          remove={() => update({ filters: s.filters.filter((_, j) => j !== i) })}
        />
      ))}
      <button
        type="button"
        class="cb-btn cb-small"
        disabled={members.length === 0}
        onClick={() => update({ filters: [...s.filters, { member: members[0]!.name, operator: "equals", values: [] }] })}
      >
        Add filter
      </button>
    </fieldset>
  );
}

/** A filter row's values: typed (comma separated), or the cells they come from once placed (issue 32). */
function FilterValues(p: { f: BuilderRowFilter; i: number; set: (patch: Partial<BuilderRowFilter>) => void }) {
  const { f, i, set } = p;
  if (f.ref)
    return (
      <span class="cb-meta" style={{ margin: 0 }}>
        From {f.ref} (its value when placed and at each refresh)
      </span>
    );
  return (
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
  );
}

/** "Use selected cell" / "Type values": a filter row takes its values from the selected cells, or typed ones. */
function BindButton(p: {
  f: BuilderRowFilter;
  i: number;
  selectionRef: () => Promise<string | null>;
  set: (patch: Partial<BuilderRowFilter>) => void;
}) {
  const { f, i, set } = p;
  if (f.ref)
    return (
      <button type="button" class="cb-btn cb-small" style={{ flex: "0 0 auto" }} onClick={() => set({ ref: undefined })}>
        Type values for filter {i + 1}
      </button>
    );
  return (
    <button
      type="button"
      class="cb-btn cb-small"
      style={{ flex: "0 0 auto" }}
      disabled={f.operator !== "equals"}
      title={f.operator !== "equals" ? "A filter takes its values from cells with “is”." : undefined}
      onClick={() => void p.selectionRef().then((ref) => ref && set({ ref }))}
    >
      Use selected cell for filter {i + 1}
    </button>
  );
}

function FilterRow(p: {
  f: BuilderRowFilter;
  i: number;
  members: Member[];
  selectionRef: (() => Promise<string | null>) | null;
  set: (patch: Partial<BuilderRowFilter>) => void;
  remove: () => void;
}) {
  const { f, i, set } = p;
  return (
    <div class="cb-row" style={{ marginBottom: "4px" }}>
      <select
        class="cb-select"
        aria-label={`Filter ${i + 1} member`}
        value={f.member}
        onChange={(e) => set({ member: e.currentTarget.value })}
      >
        {p.members.map((m) => (
          <option key={m.name} value={m.name}>
            {m.title}
          </option>
        ))}
      </select>
      <select
        class="cb-select"
        aria-label={`Filter ${i + 1} operator`}
        value={f.operator}
        disabled={f.ref !== undefined}
        onChange={(e) => set({ operator: e.currentTarget.value as BuilderFilter["operator"] })}
      >
        {OPERATORS.map((o) => (
          <option key={o} value={o}>
            {operatorLabel(o)}
          </option>
        ))}
      </select>
      <FilterValues f={f} i={i} set={set} />
      {p.selectionRef && <BindButton f={f} i={i} selectionRef={p.selectionRef} set={set} />}
      <button type="button" class="cb-btn cb-small" style={{ flex: "0 0 auto" }} onClick={p.remove}>
        Remove filter {i + 1}
      </button>
    </div>
  );
}

export function OrderSection({ s, update, members }: { s: BuilderState; update: Update; members: Member[] }) {
  return (
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
  );
}
