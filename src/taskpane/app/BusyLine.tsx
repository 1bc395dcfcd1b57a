// The action in flight as a progress line, with Cancel when the action can be cancelled (Cancel
// aborts its request, not only the next one). An action that takes long says so early and plainly:
// "Still waiting for the platform — 20 s", ticking, with the same Cancel (issue 25 §2). An action still
// running after a few seconds also adds a hint: Excel holds add-ins' changes while a cell is being edited
// (they wait for the person, issue 22), and typing in a cell is the commonest reason for a stalled step.
import { useEffect, useRef, useState } from "preact/hooks";
import { ProgressLine } from "../ui/Notice";

export interface Busy {
  label: string;
  done?: number | undefined;
  total?: number | undefined;
  /** total is a lower bound (rows still arriving). */
  atLeast?: boolean | undefined;
  cancel?: (() => void) | undefined;
}

/** Default wait before "Still waiting…" shows. */
export const SLOW_AFTER_MS = 10_000;

/** Seconds since `key` last changed, once at least `after` ms have passed (null before). */
function useWaited(key: string, after: number): number | null {
  const since = useRef({ key, at: Date.now() });
  if (since.current.key !== key) since.current = { key, at: Date.now() };
  const [, tick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), Math.min(1000, Math.max(50, after / 4)));
    return () => clearInterval(t);
  }, [after]);
  const waited = Date.now() - since.current.at;
  return waited >= after ? Math.floor(waited / 1000) : null;
}

/** How long an action runs before the cell-edit hint shows. */
export const CELL_EDIT_HINT_MS = 3000;

export function BusyLine({
  busy,
  slowAfterMs = SLOW_AFTER_MS,
  hintAfterMs = CELL_EDIT_HINT_MS,
}: {
  busy: Busy;
  slowAfterMs?: number;
  hintAfterMs?: number;
}) {
  // The label the action that has run for a while had: a new action (another label) starts without the hint.
  const [slowLabel, setSlowLabel] = useState<string | null>(null);
  useEffect(() => {
    const t = setTimeout(() => setSlowLabel(busy.label), hintAfterMs);
    return () => clearTimeout(t);
  }, [busy.label, hintAfterMs]);
  const slow = slowLabel === busy.label;
  // Progress (rows written) means it is moving: only a line without progress counts as waiting.
  const waited = useWaited(`${busy.label}|${busy.done ?? ""}`, slowAfterMs);
  return (
    <div style={{ marginBottom: "8px" }}>
      <div style={{ display: "flex", alignItems: "center", gap: "8px" }}>
        <div style={{ flex: "1 1 auto", minWidth: 0 }}>
          <ProgressLine label={busy.label} done={busy.done} total={busy.total} atLeast={busy.atLeast} />
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
      {waited !== null && (
        <p class="cb-meta cb-waiting" role="status">
          Still waiting for the platform — {waited} s.{busy.cancel ? " Cancel stops waiting." : ""}
        </p>
      )}
    </div>
  );
}
