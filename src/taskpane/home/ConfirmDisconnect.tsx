// Disconnect asks first: a destructive action is never one click away. The question names the
// report and range; Escape or "Keep it" closes it; focus moves into the question on "Keep it" (the
// safe choice: Enter twice never disconnects) and back to the Disconnect button. Whether the question
// is open is the store's (store.disconnectAsked): while it is, nothing else starts on the placement.
import { useEffect, useRef } from "preact/hooks";

export function DisconnectButton({
  title,
  where,
  disabled,
  asking,
  onAsk,
  onKeep,
  onConfirm,
}: {
  title: string;
  where: string;
  disabled: boolean;
  /** The question is open. */
  asking: boolean;
  onAsk: () => void;
  onKeep: () => void;
  onConfirm: () => void;
}) {
  const keepRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keepRef.current?.focus();
  }, [asking]);
  const close = () => {
    onKeep();
    queueMicrotask(() => openerRef.current?.focus());
  };
  if (!asking) {
    return (
      <button ref={openerRef} type="button" class="cb-btn cb-small" disabled={disabled} onClick={onAsk} aria-label="Disconnect">
        Disconnect
      </button>
    );
  }
  return (
    <div
      class="cb-confirm"
      role="group"
      aria-label={`Disconnect ${title}?`}
      onKeyDown={(e) => {
        if (e.key === "Escape") close();
      }}
    >
      <span>
        Stop refreshing “{title}” at {where}? The cells stay as they are.
      </span>
      <button type="button" class="cb-btn cb-small cb-danger" onClick={onConfirm} aria-label="Confirm disconnect">
        Disconnect
      </button>
      <button ref={keepRef} type="button" class="cb-btn cb-small" onClick={close}>
        Keep it
      </button>
    </div>
  );
}
