// Asked before placing a report over content: how many cells would be overwritten, and where.
// It takes focus on Cancel (the safe choice); Escape closes it; focus goes back to what opened it.
import { useRef } from "preact/hooks";
import type { PaneStore } from "../state/store";
import { useQuestionFocus } from "../ui/focus";

export function OverwritePrompt({ store }: { store: PaneStore }) {
  const pending = store.pendingPlace.value;
  if (!pending) return null;
  return <OverwriteQuestion store={store} pending={pending} />;
}

function OverwriteQuestion({ store, pending }: { store: PaneStore; pending: NonNullable<PaneStore["pendingPlace"]["value"]> }) {
  const cancel = useRef<HTMLButtonElement>(null);
  useQuestionFocus(cancel);
  const { count, addresses, target } = pending.outcome;
  const shown = addresses.slice(0, 8).join(", ");
  return (
    <div
      class="cb-message cb-message-warning"
      role="alertdialog"
      aria-labelledby="cb-ow-title"
      aria-describedby="cb-ow-detail"
      onKeyDown={(e) => {
        if (e.key === "Escape") store.pendingPlace.value = null;
      }}
    >
      <strong id="cb-ow-title">
        {count} {count === 1 ? "cell" : "cells"} would be overwritten
      </strong>
      <p id="cb-ow-detail">
        Placing the report at {target} would replace {count === 1 ? "the content of" : "content in"} {shown}
        {addresses.length > 8 ? ` and ${addresses.length - 8} more` : ""}.
      </p>
      <div class="cb-actions">
        <button ref={cancel} type="button" class="cb-btn cb-primary" onClick={() => (store.pendingPlace.value = null)}>
          Cancel
        </button>
        <button
          type="button"
          class="cb-btn cb-danger"
          onClick={() =>
            void store.place(pending.report, true, {
              valuesOnly: pending.valuesOnly === true,
              asTable: pending.asTable === true,
              at: pending.outcome.at,
              ...(pending.inputs ? { inputs: pending.inputs } : {}),
            })
          }
        >
          Overwrite
        </button>
      </div>
    </div>
  );
}
