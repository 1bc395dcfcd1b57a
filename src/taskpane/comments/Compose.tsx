// The comment composer: a labelled text box with a live character counter (Unicode code points, the
// platform's limit of seeds 02 §8, enforced before anything is sent) and @mention autocomplete from
// the tenant's mentionable users (debounced; arrows to move, Enter or Tab to pick, Escape to close).
import { useSignal, type Signal } from "@preact/signals";
import { useEffect, useRef, type MutableRef } from "preact/hooks";
import type { CommentsModel } from "./state";
import type { MentionUser } from "./service";
import { mentionAt } from "./format";

/** How long typing must pause before mentionable users are searched. */
export const MENTION_DEBOUNCE_MS = 250;

let nextId = 0;

export interface ComposeProps {
  model: CommentsModel;
  label: string;
  submitLabel: string;
  initial?: string;
  /** Resolves true when the text was accepted (the box then clears). */
  onSubmit(body: string): Promise<boolean>;
  onCancel?: () => void;
  autoFocus?: boolean;
}

export function Compose({ model, label, submitLabel, initial = "", onSubmit, onCancel, autoFocus }: ComposeProps) {
  const text = useSignal(initial);
  const m = useMentions(model, text);
  const ids = useRef<string>(`cb-compose-${++nextId}`);

  useEffect(() => {
    if (autoFocus) m.box.current?.focus();
    return () => {
      clearTimeout(m.timer.current);
      m.search.current?.abort();
    };
  }, []);

  const max = model.service.bodyMax;
  const count = model.service.measure(text.value);
  const over = count > max;
  const blank = text.value.trim() === "";
  const busy = model.busy.value !== null;
  const open = m.mention.value !== null && m.suggestions.value.length > 0;
  const id = ids.current;

  const submit = async () => {
    if (blank || over || busy) return;
    closeMentions(m);
    if (await onSubmit(text.value)) text.value = "";
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (open && mentionKey(m, e)) return;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void submit();
    } else if (e.key === "Escape" && onCancel) {
      e.preventDefault();
      onCancel();
    }
  };

  return (
    <form
      class="cb-compose"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label for={id} class="cb-sr-only">
        {label}
      </label>
      <ComposeBox
        id={id}
        label={label}
        m={m}
        value={text.value}
        open={open}
        active={open ? m.active.value : 0}
        over={over}
        onInput={(el) => {
          text.value = el.value;
          lookFor(m, el);
        }}
        onKeyDown={onKeyDown}
      />
      {open && <MentionList id={id} m={m} />}
      <div class="cb-row" style={{ justifyContent: "space-between" }}>
        <CharacterCount id={id} count={count} max={max} />
        <ComposeActions submitLabel={submitLabel} disabled={blank || over || busy} onCancel={onCancel} />
      </div>
    </form>
  );
}

/** The @mention autocomplete of one composer: what is typed after the @, the users found, the one highlighted. */
interface Mentions {
  model: CommentsModel;
  text: Signal<string>;
  suggestions: Signal<MentionUser[]>;
  active: Signal<number>;
  mention: Signal<{ query: string; start: number } | null>;
  box: MutableRef<HTMLTextAreaElement | null>;
  /** The debounce before a search. */
  timer: MutableRef<ReturnType<typeof setTimeout> | undefined>;
  /** The search in flight. */
  search: MutableRef<AbortController | null>;
}

function useMentions(model: CommentsModel, text: Signal<string>): Mentions {
  return {
    model,
    text,
    suggestions: useSignal<MentionUser[]>([]),
    active: useSignal(0),
    mention: useSignal<{ query: string; start: number } | null>(null),
    box: useRef<HTMLTextAreaElement>(null),
    timer: useRef<ReturnType<typeof setTimeout> | undefined>(undefined),
    search: useRef<AbortController | null>(null),
  };
}

function closeMentions(m: Mentions): void {
  m.mention.value = null;
  m.suggestions.value = [];
  m.search.current?.abort();
  clearTimeout(m.timer.current);
}

/** Looks for an @mention at the caret; the users are searched once typing pauses. */
function lookFor(m: Mentions, el: HTMLTextAreaElement): void {
  const found = mentionAt(el.value, el.selectionStart ?? el.value.length);
  m.mention.value = found;
  clearTimeout(m.timer.current);
  if (!found) {
    m.suggestions.value = [];
    return;
  }
  m.timer.current = setTimeout(() => {
    m.search.current?.abort();
    const ac = (m.search.current = new AbortController());
    m.model.mentionable(found.query, ac.signal).then(
      (users) => {
        if (ac.signal.aborted) return;
        m.suggestions.value = users;
        m.active.value = 0;
      },
      () => undefined, // a failed lookup only means no suggestions
    );
  }, MENTION_DEBOUNCE_MS);
}

/** Puts "@username " in place of the typed mention and the caret after it. */
function pick(m: Mentions, u: MentionUser): void {
  const typed = m.mention.value;
  const el = m.box.current;
  if (!typed || !el) return;
  const caret = el.selectionStart ?? m.text.value.length;
  const insert = `@${u.username} `;
  m.text.value = m.text.value.slice(0, typed.start) + insert + m.text.value.slice(caret);
  closeMentions(m);
  const at = typed.start + insert.length;
  requestAnimationFrame(() => {
    el.focus();
    el.setSelectionRange(at, at);
  });
}

/** The open list's keys: arrows move, Enter or Tab picks, Escape closes. True when the key was the list's. */
function mentionKey(m: Mentions, e: KeyboardEvent): boolean {
  const n = m.suggestions.value.length;
  if (e.key === "ArrowDown") return (e.preventDefault(), (m.active.value = (m.active.value + 1) % n), true);
  if (e.key === "ArrowUp") return (e.preventDefault(), (m.active.value = (m.active.value - 1 + n) % n), true);
  if (e.key === "Enter" || e.key === "Tab") return (e.preventDefault(), pick(m, m.suggestions.value[m.active.value]!), true);
  if (e.key === "Escape") return (e.preventDefault(), closeMentions(m), true);
  return false;
}

/** The text box, a combobox over the list of people to mention. */
function ComposeBox(p: {
  id: string;
  label: string;
  m: Mentions;
  value: string;
  open: boolean;
  /** The highlighted person's index while the list is open. */
  active: number;
  over: boolean;
  onInput: (el: HTMLTextAreaElement) => void;
  onKeyDown: (e: KeyboardEvent) => void;
}) {
  const { id, m, open } = p;
  return (
    <textarea
      id={id}
      ref={m.box}
      class="cb-input"
      role="combobox"
      aria-autocomplete="list"
      aria-expanded={open}
      aria-controls={`${id}-list`}
      aria-activedescendant={open ? `${id}-opt-${p.active}` : undefined}
      aria-describedby={`${id}-count`}
      aria-invalid={p.over}
      placeholder={`${p.label} (type @ to mention someone)`}
      value={p.value}
      onInput={(e) => p.onInput(e.currentTarget)}
      onClick={(e) => lookFor(m, e.currentTarget)}
      onKeyDown={p.onKeyDown}
      onBlur={() => setTimeout(() => closeMentions(m), 150)}
    />
  );
}

function MentionList({ id, m }: { id: string; m: Mentions }) {
  return (
    <ul id={`${id}-list`} class="cb-suggest" role="listbox" aria-label="People to mention">
      {m.suggestions.value.map((u, i) => (
        <li
          key={u.id}
          id={`${id}-opt-${i}`}
          role="option"
          aria-selected={i === m.active.value}
          onMouseDown={(e) => {
            e.preventDefault();
            pick(m, u);
          }}
        >
          <strong>@{u.username}</strong>
          {(u.firstName || u.email) && <span class="cb-meta"> {[u.firstName, u.email].filter(Boolean).join(" · ")}</span>}
        </li>
      ))}
    </ul>
  );
}

/** Cancel (when the composer can be cancelled) and the submit button. */
function ComposeActions({
  submitLabel,
  disabled,
  onCancel,
}: {
  submitLabel: string;
  disabled: boolean;
  onCancel?: (() => void) | undefined;
}) {
  return (
    <span class="cb-actions">
      {onCancel && (
        <button type="button" class="cb-btn cb-small cb-subtle" onClick={onCancel}>
          Cancel
        </button>
      )}
      <button type="submit" class="cb-btn cb-small cb-primary" disabled={disabled}>
        {submitLabel}
      </button>
    </span>
  );
}

/** The live character counter (code points), spoken when the limit is near. */
function CharacterCount({ id, count, max }: { id: string; count: number; max: number }) {
  return (
    <span
      id={`${id}-count`}
      class={count > max ? "cb-counter cb-counter-over" : "cb-counter"}
      aria-live={count > max - 200 ? "polite" : "off"}
    >
      {count > max
        ? `${(count - max).toLocaleString()} characters over the limit of ${max.toLocaleString()}`
        : `${count.toLocaleString()} / ${max.toLocaleString()}`}
    </span>
  );
}
