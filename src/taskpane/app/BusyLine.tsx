// The action in flight as a progress line, with Cancel when the action can be cancelled (Cancel
// aborts its request, not only the next one). An action that takes long says so early and plainly:
// "Still waiting for the platform — 20 s", ticking, with the same Cancel (issue 25 §2).
import { useEffect, useRef, useState } from "preact/hooks";
import { ProgressLine } from "../ui/Notice";

export interface Busy {
  label: string;
  done?: number | undefined;
  total?: number | undefined;
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

export function BusyLine({ busy, slowAfterMs = SLOW_AFTER_MS }: { busy: Busy; slowAfterMs?: number }) {
  // Progress (rows written) means it is moving: only a line without progress counts as waiting.
  const waited = useWaited(`${busy.label}|${busy.done ?? ""}`, slowAfterMs);
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
      {waited !== null && (
        <p class="cb-meta cb-waiting" role="status">
          Still waiting for the platform — {waited} s.{busy.cancel ? " Cancel stops waiting." : ""}
        </p>
      )}
    </div>
  );
}
