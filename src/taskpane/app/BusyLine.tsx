// The action in flight as a progress line, with Cancel when the action can be cancelled (Cancel
// aborts its request, not only the next one). An action still running after a few seconds adds a hint:
// Excel holds add-ins' changes while a cell is being edited (they wait for the person, issue 22), and
// typing in a cell is the commonest reason for a stalled step.
import { useEffect, useState } from "preact/hooks";
import { ProgressLine } from "../ui/Notice";

export interface Busy {
  label: string;
  done?: number | undefined;
  total?: number | undefined;
  cancel?: (() => void) | undefined;
}

/** How long an action runs before the cell-edit hint shows. */
export const CELL_EDIT_HINT_MS = 3000;

export function BusyLine({ busy, hintAfterMs = CELL_EDIT_HINT_MS }: { busy: Busy; hintAfterMs?: number }) {
  // The label the action that has run for a while had: a new action (another label) starts without the hint.
  const [slowLabel, setSlowLabel] = useState<string | null>(null);
  useEffect(() => {
    const t = setTimeout(() => setSlowLabel(busy.label), hintAfterMs);
    return () => clearTimeout(t);
  }, [busy.label, hintAfterMs]);
  const slow = slowLabel === busy.label;
  return (
    <div style={{ marginBottom: "8px" }}>
      <div style={{ display: "flex", alignItems: "center", gap: "8px" }}>
        <div style={{ flex: "1 1 auto", minWidth: 0 }}>
          <ProgressLine label={busy.label} done={busy.done} total={busy.total} />
        </div>
        {busy.cancel && (
          <button
            type="button"
            class="cb-btn cb-small"
            style={{ flex: "0 0 auto" }}
            onClick={busy.cancel}
            aria-label={`Cancel ${busy.label.replace(/…$/, "").toLowerCase()}`}
          >
            Cancel
          </button>
        )}
      </div>
      {slow && (
        <p class="cb-meta" role="status" data-testid="cell-edit-hint">
          If you are typing in a cell, Excel is waiting for you to finish editing it: press Enter or Esc in the sheet.
        </p>
      )}
    </div>
  );
}
