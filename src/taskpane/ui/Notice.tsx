// A message box: errors say what happened and what to do next; progress is announced politely.
// The pane has one notification area (App): a new notice replaces the last one, successes and
// information fade after NOTICE_FADE_MS, errors and warnings stay until dismissed (× or Escape).
import { useEffect, useRef } from "preact/hooks";
import type { Notice } from "../state/store";

export const NOTICE_FADE_MS = 8000;

/** Where a notice is shown: its advice must fit the view and name the user's things. */
export interface NoticeContext {
  view?: string;
  /** The open deployment's name. */
  deployment?: string | null;
}

const SIGN_IN_AGAIN = /^Sign out and sign in again with (.*)$/;

/** Fit a notice's wording to where it is shown (no "Sign out" on Connect; the deployment by name). */
export function fitNotice(notice: Notice, ctx: NoticeContext = {}): Notice {
  const named = (s: string | undefined) =>
    s && ctx.deployment ? s.replace(/\bthis deployment\b/g, `the deployment “${ctx.deployment}”`) : s;
  let next = named(notice.next);
  if (ctx.view === "connect" && next) next = next.replace(SIGN_IN_AGAIN, "Check the API key or access token and sign in again with $1");
  const out: Notice = { ...notice };
  const detail = named(notice.detail);
  if (detail !== undefined) out.detail = detail;
  if (next !== undefined) out.next = next;
  return out;
}

/** `sticky`: the pane's one notification area stays in view while the view scrolls (theme: .cb-notice). */
export function NoticeBox({
  notice,
  onDismiss,
  context,
  sticky = false,
}: {
  notice: Notice;
  onDismiss?: () => void;
  context?: NoticeContext;
  sticky?: boolean;
}) {
  const n = fitNotice(notice, context);
  const lasting = n.tone === "error" || n.tone === "warning";
  const dismissRef = useRef(onDismiss);
  dismissRef.current = onDismiss;
  const canDismiss = onDismiss !== undefined;
  useEffect(() => {
    if (!canDismiss || lasting) return;
    const t = setTimeout(() => dismissRef.current?.(), NOTICE_FADE_MS);
    return () => clearTimeout(t);
  }, [notice, canDismiss, lasting]);
  return (
    <div
      class={`cb-message cb-message-${n.tone}${sticky ? " cb-notice" : ""}`}
      role={n.tone === "error" ? "alert" : "status"}
      onKeyDown={(e) => {
        if (e.key === "Escape" && onDismiss) onDismiss();
      }}
    >
      <strong>{n.title}</strong>
      {n.detail && <p>{n.detail}</p>}
      {n.next && <p>{n.next}</p>}
      {n.technical && (
        <details class="cb-details">
          <summary>Details</summary>
          <p class="cb-meta">{n.technical}</p>
        </details>
      )}
      {onDismiss && (
        <button type="button" class="cb-btn cb-small cb-subtle cb-dismiss" aria-label="Dismiss" title="Dismiss (Esc)" onClick={onDismiss}>
          <span aria-hidden="true">✕</span>
        </button>
      )}
    </div>
  );
}

export function ProgressLine({
  label,
  done,
  total,
  atLeast,
}: {
  label: string;
  done?: number | undefined;
  total?: number | undefined;
  /** The total is a lower bound (rows still arriving): "of at least". */
  atLeast?: boolean | undefined;
}) {
  const known = done !== undefined && total !== undefined && total > 0;
  return (
    <div class="cb-row" role="status" aria-live="polite">
      <span style={{ flex: "0 0 auto" }}>
        {label}
        {known ? ` ${done.toLocaleString("en-US")} of ${atLeast ? "at least " : ""}${total.toLocaleString("en-US")}` : ""}
      </span>
      <div
        class="cb-progress"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={known && !atLeast ? total : undefined}
        aria-valuenow={known && !atLeast ? done : undefined}
        aria-valuetext={known && atLeast ? `${done.toLocaleString("en-US")} of at least ${total.toLocaleString("en-US")}` : undefined}
      >
        {/* A total that is only a lower bound gives no fraction: the bar moves without claiming one. */}
        <span style={{ width: known && !atLeast ? `${Math.round((100 * done) / total)}%` : "30%" }} />
      </div>
    </div>
  );
}

/**
 * The role's rule, said before the person tries (issue 31 item 3): at the top of Reports and the
 * builder, whose Place and Save buttons are then disabled and point here (aria-describedby).
 */
export function RoleLimit({ text }: { text: string }) {
  return (
    <p id="cb-role-limit" class="cb-message cb-message-info" role="note">
      {text}
    </p>
  );
}
