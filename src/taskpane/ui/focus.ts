// Keyboard focus for questions and for what an action leads to (docs/UI.md "Keyboard and focus").
// A question (overwrite, hand edits, disconnect) takes focus on its safe choice when it opens and,
// when it closes, gives focus back to what opened it; a finished sign-in or placement moves focus
// to something meaningful (the home heading, the new card) instead of leaving it on <body>.
import { useEffect, useRef, type MutableRef } from "preact/hooks";

function focusable(el: Element | null | undefined): el is HTMLElement {
  return el instanceof HTMLElement && el.isConnected && el !== document.body && !(el as HTMLButtonElement).disabled;
}

/** The element that last had focus: a button disabled by the action it started loses focus to <body>. */
let lastFocused: HTMLElement | null = null;
if (typeof document !== "undefined")
  document.addEventListener("focusin", (e) => {
    if (e.target instanceof HTMLElement) lastFocused = e.target;
  });

/**
 * Focus is nowhere useful inside the pane: on <body>, or on an element that left the page — while
 * the pane itself has focus. When the user has moved on to the sheet (the pane's document lost focus
 * to Excel or the harness), the pane never takes focus back.
 */
function focusLost(): boolean {
  if (!document.hasFocus()) return false;
  const a = document.activeElement;
  return !a || a === document.body || !a.isConnected;
}

/**
 * Give focus back to `target` once it can take it (it may be disabled while the action it started
 * runs), unless the user has put focus somewhere meanwhile. Gives up after `ms`.
 */
function restoreFocus(target: HTMLElement | null, ms = 15_000): void {
  if (!target) return;
  const end = Date.now() + ms;
  const attempt = () => {
    if (!focusLost() || !target.isConnected || Date.now() > end) return;
    if (focusable(target)) target.focus();
    else setTimeout(attempt, 100);
  };
  setTimeout(attempt, 0);
}

/**
 * Focus `safe` when the question opens; when it closes, give focus back to what opened it (the
 * element focused before it opened, else the last one focused — the button that started the
 * action — else `opener()`). Escape handling stays with the question.
 */
export function useQuestionFocus(safe: MutableRef<HTMLElement | null>, opener?: () => Element | null): void {
  const openerRef = useRef(opener);
  openerRef.current = opener;
  useEffect(() => {
    const active = document.activeElement;
    const before = focusable(active) ? active : lastFocused && lastFocused.isConnected ? lastFocused : null;
    if (document.hasFocus()) safe.current?.focus(); // a question the user is not looking at never pulls focus from the sheet
    return () => {
      const fallback = openerRef.current?.();
      restoreFocus(before ?? (fallback instanceof HTMLElement ? fallback : null));
    };
  }, []);
}

/** Where the pane sends focus after an action finishes (store.focusRequest). */
export type FocusRequest = { target: "home" } | { target: "card"; id: string };

/**
 * Bring `el` into view below the pane's notice (which is sticky at the top) and focus it, without
 * scrolling the notice out of view when both fit.
 */
export function revealAndFocus(el: HTMLElement): void {
  // Never take focus from the sheet: only when the pane has it (the user acted in the pane).
  if (document.hasFocus()) el.focus({ preventScroll: true });
  const notice = document.querySelector<HTMLElement>(".cb-main > .cb-notice");
  const top = notice ? notice.getBoundingClientRect().bottom + 8 : 8;
  const r = el.getBoundingClientRect();
  if (r.top < top) window.scrollBy(0, r.top - top);
  else if (r.bottom > window.innerHeight) window.scrollBy(0, Math.min(r.bottom - window.innerHeight + 8, r.top - top));
}
