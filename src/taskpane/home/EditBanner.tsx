// The hand-edit banner: names the report and the rows, Locate selects them, Show changes opens the
// compact diff (cell, last written, now, incoming), and three choices: Overwrite, Keep my edits, Cancel.
import { useSignal } from "@preact/signals";
import { useRef } from "preact/hooks";
import { useQuestionFocus } from "../ui/focus";
import type { CellDiff } from "./types";
import type { EditPrompt, PaneStore } from "../state/store";
import { describeRows } from "./live-status";
import { formatValue } from "../../host/number-format";

/** A value as the sheet shows it under its number format ("$15,294,788.18"), or a word for none. */
export function showValue(v: CellDiff["now"] | undefined, format?: string): string {
  if (v === undefined) return "(unknown)";
  if (v === "") return "(empty)";
  return format ? formatValue(v, format) : String(v);
}

export function DiffTable({ diff, total = diff.length }: { diff: CellDiff[]; total?: number }) {
  const LIMIT = 200;
  return (
    <div class="cb-table-wrap">
      <table class="cb-table" aria-label="Changes">
        <thead>
          <tr>
            <th scope="col">Cell</th>
            <th scope="col">Last written</th>
            <th scope="col">Now</th>
            <th scope="col">Incoming</th>
          </tr>
        </thead>
        <tbody>
          {diff.slice(0, LIMIT).map((d) => (
            <tr key={d.cell}>
              <th scope="row">{d.cell}</th>
              <td>{d.inserted ? "(inserted by hand)" : showValue(d.lastWritten, d.format)}</td>
              <td class="cb-changed">{showValue(d.now, d.format)}</td>
              <td>{showValue(d.incoming, d.format)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {total > Math.min(LIMIT, diff.length) && <p class="cb-meta">…and {total - Math.min(LIMIT, diff.length)} more edited cells.</p>}
    </div>
  );
}

export function EditBanner({ store, prompt }: { store: PaneStore; prompt: EditPrompt }) {
  const open = useSignal(false);
  const { outcome } = prompt;
  const rows = outcome.editedRows;
  const busy = store.busy.value !== null;
  // Focus on Cancel (writes nothing); back to the card's Refresh when the banner closes.
  const cancel = useRef<HTMLButtonElement>(null);
  useQuestionFocus(cancel, () =>
    document.querySelector(`[data-placement="${CSS.escape(prompt.placementId)}"] button[aria-label="Refresh"]`),
  );
  return (
    <section
      class="cb-message cb-message-warning"
      role="alert"
      aria-labelledby="cb-edit-title"
      onKeyDown={(e) => {
        if (e.key === "Escape") void store.resolveEdits("cancel"); // Escape = Cancel: writes nothing
      }}
    >
      <strong id="cb-edit-title">
        {outcome.line
          ? `${outcome.line} in ${outcome.reportName}`
          : `${describeRows(rows)} of ${outcome.reportName} ${rows.length === 1 && rows[0]!.from === rows[0]!.to ? "was" : "were"} edited by hand`}
      </strong>
      <p>Refreshing would replace those edits with the report's current data.</p>
      <div class="cb-actions">
        <button type="button" class="cb-btn cb-small" onClick={() => void store.locate(prompt.placementId, rows[0])}>
          Locate
        </button>
        <button
          type="button"
          class="cb-btn cb-small"
          aria-expanded={open.value}
          aria-controls="cb-edit-diff"
          aria-label="Show changes"
          onClick={() => (open.value = !open.value)}
        >
          Show changes <span aria-hidden="true">{open.value ? "▴" : "▾"}</span>
        </button>
      </div>
      {open.value && (
        <div id="cb-edit-diff">
          {outcome.moved && outcome.moved.length > 0 && (
            <ul class="cb-meta" aria-label="Rows and columns moved">
              {outcome.moved.map((m) => (
                <li key={m}>{m.charAt(0).toUpperCase() + m.slice(1)}</li>
              ))}
            </ul>
          )}
          {(outcome.diff.length > 0 || !outcome.moved?.length) && <DiffTable diff={outcome.diff} total={outcome.editedCells} />}
        </div>
      )}
      <div class="cb-actions" style={{ marginTop: "8px" }}>
        <button type="button" class="cb-btn cb-primary" disabled={busy} onClick={() => void store.resolveEdits("keep")}>
          Keep my edits
        </button>
        <button
          type="button"
          class="cb-btn cb-danger"
          disabled={busy}
          aria-label="Overwrite my edits"
          onClick={() => void store.resolveEdits("overwrite")}
        >
          Overwrite my edits
        </button>
        <button ref={cancel} type="button" class="cb-btn cb-subtle" onClick={() => void store.resolveEdits("cancel")}>
          Cancel
        </button>
      </div>
    </section>
  );
}
