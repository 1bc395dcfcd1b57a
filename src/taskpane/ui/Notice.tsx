// A message box: errors say what happened and what to do next; progress is announced politely.
import type { Notice } from "../state/store";

export function NoticeBox({ notice, onDismiss }: { notice: Notice; onDismiss?: () => void }) {
  return (
    <div class={`cb-message cb-message-${notice.tone}`} role={notice.tone === "error" ? "alert" : "status"}>
      <strong>{notice.title}</strong>
      {notice.detail && <p>{notice.detail}</p>}
      {notice.next && <p>{notice.next}</p>}
      {onDismiss && (
        <button type="button" class="cb-btn cb-small cb-subtle" onClick={onDismiss}>
          Dismiss
        </button>
      )}
    </div>
  );
}

export function ProgressLine({ label, done, total }: { label: string; done?: number | undefined; total?: number | undefined }) {
  const known = done !== undefined && total !== undefined && total > 0;
  return (
    <div class="cb-row" role="status" aria-live="polite">
      <span style={{ flex: "0 0 auto" }}>
        {label}
        {known ? ` ${done} of ${total}` : ""}
      </span>
      <div
        class="cb-progress"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={known ? total : undefined}
        aria-valuenow={known ? done : undefined}
      >
        <span style={{ width: known ? `${Math.round((100 * done) / total)}%` : "30%" }} />
      </div>
    </div>
  );
}
