// The action in flight as a progress line, with Cancel when the action can be cancelled (Cancel
// aborts its request, not only the next one).
import { ProgressLine } from "../ui/Notice";

export interface Busy {
  label: string;
  done?: number | undefined;
  total?: number | undefined;
  cancel?: (() => void) | undefined;
}

export function BusyLine({ busy }: { busy: Busy }) {
  return (
    <div style={{ display: "flex", alignItems: "center", gap: "8px", marginBottom: "8px" }}>
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
  );
}
