// The comment composer: a labelled text box with a live character counter (Unicode code points, the
// platform's limit of seeds 02 §8, enforced before anything is sent) and @mention autocomplete from
// the tenant's mentionable users (debounced; arrows to move, Enter or Tab to pick, Escape to close).
import { useSignal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
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
  const suggestions = useSignal<MentionUser[]>([]);
  const active = useSignal(0);
  const mention = useSignal<{ query: string; start: number } | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const ids = useRef<string>(`cb-compose-${++nextId}`);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const search = useRef<AbortController | null>(null);

  useEffect(() => {
    if (autoFocus) box.current?.focus();
    return () => {
      clearTimeout(timer.current);
      search.current?.abort();
    };
  }, []);

  const max = model.service.bodyMax;
  const count = model.service.measure(text.value);
  const over = count > max;
  const blank = text.value.trim() === "";
  const busy = model.busy.value !== null;
  const open = mention.value !== null && suggestions.value.length > 0;
  const id = ids.current;

  const close = () => {
    mention.value = null;
    suggestions.value = [];
    search.current?.abort();
    clearTimeout(timer.current);
  };

  const lookFor = (el: HTMLTextAreaElement) => {
    const m = mentionAt(el.value, el.selectionStart ?? el.value.length);
    mention.value = m;
    clearTimeout(timer.current);
    if (!m) {
      suggestions.value = [];
      return;
    }
    timer.current = setTimeout(() => {
      search.current?.abort();
      const ac = (search.current = new AbortController());
      model.mentionable(m.query, ac.signal).then(
        (users) => {
          if (ac.signal.aborted) return;
          suggestions.value = users;
          active.value = 0;
        },
        () => undefined, // a failed lookup only means no suggestions
      );
    }, MENTION_DEBOUNCE_MS);
  };

  const pick = (u: MentionUser) => {
    const m = mention.value;
    const el = box.current;
    if (!m || !el) return;
    const caret = el.selectionStart ?? text.value.length;
    const insert = `@${u.username} `;
    text.value = text.value.slice(0, m.start) + insert + text.value.slice(caret);
    close();
    const at = m.start + insert.length;
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(at, at);
    });
  };

  const submit = async () => {
    if (blank || over || busy) return;
    close();
    if (await onSubmit(text.value)) text.value = "";
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (open) {
      const n = suggestions.value.length;
      if (e.key === "ArrowDown") return (e.preventDefault(), void (active.value = (active.value + 1) % n));
      if (e.key === "ArrowUp") return (e.preventDefault(), void (active.value = (active.value - 1 + n) % n));
      if (e.key === "Enter" || e.key === "Tab") return (e.preventDefault(), pick(suggestions.value[active.value]!));
      if (e.key === "Escape") return (e.preventDefault(), close());
    }
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
      <textarea
        id={id}
        ref={box}
        class="cb-input"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={`${id}-list`}
        aria-activedescendant={open ? `${id}-opt-${active.value}` : undefined}
        aria-describedby={`${id}-count`}
        aria-invalid={over}
        placeholder={`${label} (type @ to mention someone)`}
        value={text.value}
        onInput={(e) => {
          text.value = e.currentTarget.value;
          lookFor(e.currentTarget);
        }}
        onClick={(e) => lookFor(e.currentTarget)}
        onKeyDown={onKeyDown}
        onBlur={() => setTimeout(close, 150)}
      />
      {open && (
        <ul id={`${id}-list`} class="cb-suggest" role="listbox" aria-label="People to mention">
          {suggestions.value.map((u, i) => (
            <li
              key={u.id}
              id={`${id}-opt-${i}`}
              role="option"
              aria-selected={i === active.value}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(u);
              }}
            >
              <strong>@{u.username}</strong>
              {(u.firstName || u.email) && <span class="cb-meta"> {[u.firstName, u.email].filter(Boolean).join(" · ")}</span>}
            </li>
          ))}
        </ul>
      )}
      <div class="cb-row" style={{ justifyContent: "space-between" }}>
        <span
          id={`${id}-count`}
          class={over ? "cb-counter cb-counter-over" : "cb-counter"}
          aria-live={count > max - 200 ? "polite" : "off"}
        >
          {over
            ? `${(count - max).toLocaleString()} characters over the limit of ${max.toLocaleString()}`
            : `${count.toLocaleString()} / ${max.toLocaleString()}`}
        </span>
        <span class="cb-actions">
          {onCancel && (
            <button type="button" class="cb-btn cb-small cb-subtle" onClick={onCancel}>
              Cancel
            </button>
          )}
          <button type="submit" class="cb-btn cb-small cb-primary" disabled={blank || over || busy}>
            {submitLabel}
          </button>
        </span>
      </div>
    </form>
  );
}
