// Disconnect asks first: a destructive action is never one click away. The question names the
// report and range; Escape or "Keep it" closes it; focus moves into the question on "Keep it" (the
// safe choice: Enter twice never disconnects) and back to the Disconnect button.
import { useEffect, useRef, useState } from "preact/hooks";

export function DisconnectButton({
  title,
  where,
  disabled,
  onConfirm,
}: {
  title: string;
  where: string;
  disabled: boolean;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const keepRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keepRef.current?.focus();
  }, [asking]);
  const close = () => {
    setAsking(false);
    queueMicrotask(() => openerRef.current?.focus());
  };
  if (!asking) {
    return (
      <button
        ref={openerRef}
        type="button"
        class="cb-btn cb-small"
        disabled={disabled}
        onClick={() => setAsking(true)}
        aria-label="Disconnect"
      >
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
