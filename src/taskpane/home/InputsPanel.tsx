// A placement's Inputs panel (issue 32), opened from its card's "Inputs…": the filters taking their values
// from cells (member, where, the values now, what is wrong with them), "Bind to selection" per filter of
// the report's query, Remove, and the switch "Refresh when inputs change". A SQL report says why it takes
// no inputs where the choice would be. Escape closes it; focus goes to its heading when it opens.
import { useSignal, type Signal } from "@preact/signals";
import { useEffect, useRef } from "preact/hooks";
import type { PaneStore } from "../state/store";
import type { Workspace } from "../app/model";
import { describeError } from "../errors";
import type { BindableMember, InputBinding, InputsDetail } from "./types";

interface PanelModel {
  detail: Signal<InputsDetail | null>;
  /** What failed, in words (the engine's words name the cell or say why the binding cannot be made). */
  error: Signal<string | null>;
  working: Signal<string | null>;
}

/** Load the panel's detail; an error becomes its words. */
async function load(ws: Workspace, id: string, m: PanelModel, signal?: AbortSignal): Promise<void> {
  try {
    const d = await ws.inputs!(id, signal);
    if (!signal?.aborted) m.detail.value = d;
  } catch (e) {
    if (!signal?.aborted) m.error.value = wordsOf(e);
  }
}

function wordsOf(e: unknown): string {
  const h = describeError(e);
  return h.detail && h.detail !== h.title ? `${h.title}: ${h.detail}` : h.title;
}

/** Run a change of the bindings, then show them (and the card) as they are now. */
async function act(store: PaneStore, id: string, m: PanelModel, label: string, run: (ws: Workspace) => Promise<unknown>): Promise<void> {
  const ws = store.workspace.value;
  if (!ws || store.stopping.value || m.working.value) return;
  m.working.value = label;
  m.error.value = null;
  try {
    await run(ws);
    await load(ws, id, m);
    void store.loadHome();
  } catch (e) {
    m.error.value = wordsOf(e);
  } finally {
    m.working.value = null;
  }
}

function Binding({ b, disabled, onRemove }: { b: InputBinding; disabled: boolean; onRemove: () => void }) {
  return (
    <li class="cb-input-row">
      <div>
        <strong>{b.title}</strong> from {b.where}: {b.values.length ? b.values.join(", ") : "(empty)"}
      </div>
      {b.problem && (
        <p class="cb-field-error" role="alert">
          {b.problem}
        </p>
      )}
      <button type="button" class="cb-btn cb-small" disabled={disabled} aria-label={`Remove input of ${b.title}`} onClick={onRemove}>
        Remove
      </button>
    </li>
  );
}

function Bindable({ b, bound, disabled, onBind }: { b: BindableMember; bound: boolean; disabled: boolean; onBind: () => void }) {
  return (
    <li class="cb-input-row">
      <span>
        {b.title}
        {b.time ? <span class="cb-meta"> (a date range: two cells, from and to)</span> : null}
        {bound ? <span class="cb-meta"> · bound</span> : null}
      </span>
      <button type="button" class="cb-btn cb-small" disabled={disabled} aria-label={`Bind ${b.title} to selection`} onClick={onBind}>
        Bind to selection
      </button>
    </li>
  );
}

function AutoSwitch({ on, disabled, onToggle }: { on: boolean; disabled: boolean; onToggle: (on: boolean) => void }) {
  return (
    <label class="cb-check">
      <input
        type="checkbox"
        role="switch"
        checked={on}
        aria-checked={on}
        disabled={disabled}
        onChange={(e) => onToggle(e.currentTarget.checked)}
      />
      Refresh when inputs change
    </label>
  );
}

function Choices({ store, id, m, d }: { store: PaneStore; id: string; m: PanelModel; d: InputsDetail }) {
  const busy = m.working.value !== null;
  if (d.notBindable) return <p class="cb-meta">{d.notBindable}</p>;
  const bound = new Set(d.inputs.map((i) => i.member));
  return (
    <>
      <p class="cb-meta">Select a cell or range in the sheet, then bind a filter to it. A range filters on any of its values.</p>
      <ul class="cb-list" aria-label="Filters">
        {d.bindable.map((b) => (
          <Bindable
            key={b.member}
            b={b}
            bound={bound.has(b.member)}
            disabled={busy}
            onBind={() => void act(store, id, m, "Binding…", (ws) => ws.bindSelection!(id, b.member))}
          />
        ))}
      </ul>
      <AutoSwitch
        on={d.autoRefresh}
        disabled={busy}
        onToggle={(on) => {
          m.detail.value = { ...d, autoRefresh: on }; // as pressed; what the engine holds shows once saved
          void act(store, id, m, "Saving…", async (ws) => {
            await ws.setAutoRefresh!(id, on);
            if (on) store.inputsSwitched();
          });
        }}
      />
    </>
  );
}

export function InputsPanel({ store, id, title, onClose }: { store: PaneStore; id: string; title: string; onClose: () => void }) {
  const m: PanelModel = { detail: useSignal(null), error: useSignal(null), working: useSignal(null) };
  const heading = useRef<HTMLHeadingElement>(null);
  const ws = store.workspace.value;
  // Each check of the home (after the person's changes, a refresh) reads the panel's inputs again: it shows them as they are.
  const checked = store.home.value;
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    if (!ws?.inputs) return;
    const abort = new AbortController();
    void load(ws, id, m, abort.signal);
    return () => abort.abort();
  }, [ws, id, checked]);
  const d = m.detail.value;
  const headingId = `cb-inputs-${id}`;
  // Closed (Close or Escape): focus goes back to the card's Inputs… button.
  const close = () => {
    onClose();
    setTimeout(() => document.querySelector<HTMLElement>(`[data-placement="${CSS.escape(id)}"] [data-inputs-toggle]`)?.focus(), 0);
  };
  return (
    <div
      class="cb-inputs"
      id={`cb-inputs-panel-${id}`}
      role="region"
      aria-labelledby={headingId}
      onKeyDown={(e) => {
        if (e.key === "Escape") close();
      }}
    >
      <h4 id={headingId} tabIndex={-1} ref={heading}>
        Inputs of {title}
      </h4>
      {!d && !m.error.value && <p class="cb-meta">Reading the inputs…</p>}
      {d && d.inputs.length > 0 && (
        <ul class="cb-list" aria-label="Inputs">
          {d.inputs.map((b) => (
            <Binding
              key={b.member}
              b={b}
              disabled={m.working.value !== null}
              onRemove={() => void act(store, id, m, "Removing…", (w) => w.unbindInput!(id, b.member))}
            />
          ))}
        </ul>
      )}
      {d && <Choices store={store} id={id} m={m} d={d} />}
      {m.working.value && (
        <p class="cb-meta" role="status">
          {m.working.value}
        </p>
      )}
      {m.error.value && (
        <p class="cb-field-error" role="alert">
          {m.error.value}
        </p>
      )}
      <button type="button" class="cb-btn cb-small cb-subtle" aria-label={`Close inputs of ${title}`} onClick={close}>
        Close
      </button>
    </div>
  );
}
