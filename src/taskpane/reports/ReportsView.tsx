// Reports: search and browse the deployment's reports with cursor paging, then place the chosen one
// at the selected cell. When the target is not empty, say how many cells and where, then ask. The
// listing (paging, the listing in flight, its end in words) is listing.ts. "Place as an Excel table"
// (issue 33) is for flat reports: while it is chosen, a pivot report's Place says why it cannot be one.
import { useSignal, type Signal } from "@preact/signals";
import type { ReportSummary } from "../types";
import type { PaneStore } from "../state/store";
import { BusyLine } from "../app/BusyLine";
import { RoleLimit } from "../ui/Notice";
import { relativeTime } from "../ui/time";
import { useReportListing } from "./listing";

export function ReportsView({ store }: { store: PaneStore }) {
  const search = useSignal("");
  const selected = useSignal<number | null>(null);
  const valuesOnly = useSignal(false);
  const asTable = useSignal(false);
  const { items, next, loading, failed, load, cancel } = useReportListing(store, search);
  const busy = store.busy.value;
  const limit = store.workspace.value?.roleLimit ?? null;
  return (
    <section aria-labelledby="cb-reports-title">
      <h1 id="cb-reports-title">Reports</h1>
      {limit && <RoleLimit text={limit} />}
      <SearchForm search={search} onSearch={() => void load(null)} />
      <label class="cb-check">
        <input type="checkbox" checked={valuesOnly.value} onChange={(e) => (valuesOnly.value = e.currentTarget.checked)} />
        Values only <span class="cb-meta">(no number formats or header style; you format the cells)</span>
      </label>
      <TableChoice asTable={asTable} />
      {busy && <BusyLine busy={busy} slowAfterMs={store.slowAfterMs} />}
      <ul class="cb-list" aria-label="Reports" aria-busy={loading.value}>
        {items.value.map((r) => (
          <ReportCard
            key={r.id}
            r={r}
            current={selected.value === r.id}
            disabled={busy !== null || limit !== null}
            why={limit ? "cb-role-limit" : undefined}
            asTable={asTable.value}
            onPlace={() => {
              selected.value = r.id;
              void store.place(r.id, false, { valuesOnly: valuesOnly.value, ...(asTable.value ? { asTable: true } : {}) });
            }}
          />
        ))}
      </ul>
      {loading.value && <BusyLine busy={{ label: "Loading reports…", cancel }} slowAfterMs={store.slowAfterMs} />}
      {!loading.value && items.value.length === 0 && !failed.value && <p>No reports match.</p>}
      {next.value && !loading.value && (
        <button type="button" class="cb-btn" onClick={() => void load(next.value)}>
          Load more
        </button>
      )}
      <p class="cb-meta">Reports are placed with their top-left corner at the cell selected in Excel.</p>
    </section>
  );
}

function SearchForm({ search, onSearch }: { search: Signal<string>; onSearch: () => void }) {
  return (
    <form
      role="search"
      class="cb-row"
      style={{ marginBottom: "12px" }}
      onSubmit={(e) => {
        e.preventDefault();
        onSearch();
      }}
    >
      <label for="cb-search" class="cb-sr-only">
        Search reports
      </label>
      <input
        id="cb-search"
        class="cb-input"
        type="search"
        placeholder="Search reports"
        value={search.value}
        onInput={(e) => (search.value = e.currentTarget.value)}
      />
      <button type="submit" class="cb-btn" style={{ flex: "0 0 auto" }}>
        Search
      </button>
    </form>
  );
}

/** Issue 33: a placement can be an Excel table; the hint says what that gives the person. */
function TableChoice({ asTable }: { asTable: Signal<boolean> }) {
  return (
    <>
      <label class="cb-check" style={{ marginBottom: 0 }}>
        <input
          type="checkbox"
          checked={asTable.value}
          aria-describedby="cb-table-hint"
          onChange={(e) => (asTable.value = e.currentTarget.checked)}
        />
        Place as an Excel table
      </label>
      <p id="cb-table-hint" class="cb-meta">
        Formulas you add in a column beside it fill every row after each refresh.
      </p>
    </>
  );
}

function ReportCard(p: {
  r: ReportSummary;
  current: boolean;
  disabled: boolean;
  why: string | undefined;
  asTable: boolean;
  onPlace: () => void;
}) {
  const { r, current, why, onPlace } = p;
  const title = r.title || r.name;
  // A pivot stays a range (issue 33): with the table chosen its Place is disabled, and the card says why in
  // the engine's words (src/sync/place.ts refusePivotTable, which the command line prints).
  const pivotWhy = p.asTable && r.pivot ? `cb-pivot-why-${r.id}` : undefined;
  return (
    <li class="cb-card" aria-current={current ? "true" : undefined}>
      <div class="cb-card-head">
        <span class="cb-card-title">{title}</span>
      </div>
      <div class="cb-meta">
        {r.folder ? `${r.folder} · ` : ""}
        {r.ownerName ? `${r.ownerName} · ` : ""}updated {relativeTime(r.updatedAt)}
      </div>
      {pivotWhy && (
        <p id={pivotWhy} class="cb-meta" role="note">
          “{title}” is a pivot: a pivot is placed as cells, not as an Excel table (a table has one header row). Place it without “as an
          Excel table”, or make it a flat report.
        </p>
      )}
      <button
        type="button"
        class="cb-btn cb-small cb-primary"
        disabled={p.disabled || pivotWhy !== undefined}
        aria-describedby={why ?? pivotWhy}
        aria-label={`Place report ${title}`}
        onClick={onPlace}
      >
        Place report
      </button>
    </li>
  );
}
