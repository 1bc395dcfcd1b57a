// The action in flight as a progress line, with Cancel when the action can be cancelled.
import { ProgressLine } from "../ui/Notice";

/** The action in flight, with Cancel (which aborts its request, not only the next one). */
export function BusyLine({ busy }: { busy: { label: string; done?: number | undefined; total?: number | undefined; cancel?: (() => void) | undefined } }) {
  return (
    <div class="cb-row">
      <ProgressLine label={busy.label} done={busy.done} total={busy.total} />
      {busy.cancel && (
        <button type="button" class="cb-btn cb-small" onClick={busy.cancel} aria-label={`Cancel ${busy.label.replace(/…$/, "").toLowerCase()}`}>
          Cancel
        </button>
      )}
    </div>
  );
}

