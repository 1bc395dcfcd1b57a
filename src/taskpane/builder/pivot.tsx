// The builder's pivot section: the "Show as a pivot table" switch, then the three zones (rows,
// columns, filters) and the display options of pivotItems (measures axis and position, scale, totals).
import type { PivotItems } from "../types";
import { pivotDimensionMembers, type BuilderState } from "./query";
import { Checks, toggle, type Member } from "./sections";
import type { Update } from "./use-builder";

type UpdatePivot = (patch: Partial<PivotItems>) => void;

export function PivotSection(p: { s: BuilderState; members: Member[]; update: Update; updatePivot: UpdatePivot }) {
  const { s, updatePivot } = p;
  const zoneMembers = pivotDimensionMembers(s);
  const zone = (label: string, key: "rows" | "columns" | "filters") => (
    <Checks
      legend={label}
      options={zoneMembers.map((m) => ({ name: m, title: p.members.find((x) => m.startsWith(x.name))?.title ?? m }))}
      chosen={s.pivotItems[key]}
      onToggle={(n) => updatePivot({ [key]: toggle(s.pivotItems[key], n) })}
    />
  );
  return (
    <>
      <label class="cb-check">
        <input type="checkbox" checked={s.pivot} onChange={() => p.update({ pivot: !s.pivot })} />
        Show as a pivot table
      </label>
      {s.pivot && (
        <div>
          {zone("Rows", "rows")}
          {zone("Columns", "columns")}
          {zone("Filters zone", "filters")}
          <PivotDisplay items={s.pivotItems} updatePivot={updatePivot} />
        </div>
      )}
    </>
  );
}

function PivotDisplay({ items, updatePivot }: { items: PivotItems; updatePivot: UpdatePivot }) {
  return (
    <fieldset class="cb-fieldset">
      <legend>Display</legend>
      <div class="cb-row">
        <div class="cb-field">
          <label for="cb-axis">Measures on</label>
          <select
            id="cb-axis"
            class="cb-select"
            value={items.measuresAxis}
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
            value={items.measuresPosition}
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
          value={items.displayScale}
          onChange={(e) => updatePivot({ displayScale: e.currentTarget.value as PivotItems["displayScale"] })}
        >
          {["model", "absolute", "thousands", "millions", "billions"].map((x) => (
            <option key={x} value={x}>
              {x}
            </option>
          ))}
        </select>
      </div>
      <PivotTotals items={items} updatePivot={updatePivot} />
    </fieldset>
  );
}

function PivotTotals({ items, updatePivot }: { items: PivotItems; updatePivot: UpdatePivot }) {
  return (
    <>
      <label class="cb-check">
        <input
          type="checkbox"
          checked={items.showColumnTotals === true}
          onChange={() => updatePivot({ showColumnTotals: !items.showColumnTotals })}
        />
        Column totals
      </label>
      <label class="cb-check">
        <input
          type="checkbox"
          checked={items.showRowTotals === true}
          disabled={items.columns.length === 0}
          onChange={() => updatePivot({ showRowTotals: !items.showRowTotals })}
        />
        Row totals (needs a Columns zone)
      </label>
      <label class="cb-check">
        <input
          type="checkbox"
          checked={items.showAppliedFilters === true}
          onChange={() => updatePivot({ showAppliedFilters: !items.showAppliedFilters })}
        />
        Show applied filters above the table
      </label>
    </>
  );
}
