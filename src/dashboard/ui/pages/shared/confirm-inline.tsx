/**
 * A destructive action asked twice, in place: the button turns into the question with its answers
 * (no window.confirm: it blocks the page and cannot say which thing goes). Focus follows the
 * question, and returns to the button on Cancel (or Escape).
 */
import { useRef, useState } from "preact/hooks";
import { useFocusInPlace } from "../../components/page";

export function ConfirmInline({
  label,
  labelFull,
  question,
  confirmLabel,
  onConfirm,
  disabled,
  tone = "danger",
}: {
  label: string;
  /** The button's name for screen readers when `label` alone does not say what it acts on. */
  labelFull?: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  disabled?: boolean;
  /** The first button's class: `danger` for what cannot be undone. */
  tone?: "danger" | "secondary";
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const startRef = useRef<HTMLButtonElement>(null);
  useFocusInPlace(
    asking,
    () => confirmRef.current,
    () => startRef.current,
  );
  if (!asking) {
    return (
      <button
        ref={startRef}
        type="button"
        class={tone}
        disabled={disabled}
        aria-label={labelFull}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  }
  return (
    <span
      class="confirm-inline"
      role="group"
      aria-label={question}
      onKeyDown={(e) => e.key === "Escape" && !busy && setAsking(false)}
    >
      <span>{question}</span>
      <button
        ref={confirmRef}
        type="button"
        class={tone === "danger" ? "danger-solid" : undefined}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {busy ? "Working…" : confirmLabel}
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
