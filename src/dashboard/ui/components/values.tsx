/** How values are shown: a status, an instant, a secret shown once. */
import { useEffect, useState } from "preact/hooks";
import { useFocusOnShow, focusPageHeading } from "./page";

export type Status = "OPEN" | "PENDING" | "CONFIRMED" | "FAILED";

/** A status exactly as the API wrote it, coloured by what it means. */
export const StatusBadge = ({ status }: { status: string }) => (
  <span class={`badge status-${status.toLowerCase()}`}>{status}</span>
);

/** "1 key", "3 keys": a count and its noun. */
export const countOf = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/**
 * One formatter for every instant shown (making one per call costs a list page ~10 ms). With its
 * zone ("PST", "UTC", "GMT+1"): filters and months are UTC days, the times the reader's own.
 */
export const LOCAL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "long" });

/** An instant's date and time of day, as the reader's locale writes them ("Dec 5, 2026," and "1:32:57 PM UTC"). */
function dateAndTime(instant: Date): [string, string] {
  const parts = LOCAL_TIME.formatToParts(instant);
  const hour = parts.findIndex((part) => part.type === "hour");
  const text = (some: Intl.DateTimeFormatPart[]) => some.map((part) => part.value).join("");
  return hour > 0 ? [text(parts.slice(0, hour)).trimEnd(), text(parts.slice(hour))] : [text(parts), ""];
}

/**
 * An instant: local time, with its zone, to read; the exact ISO instant on hover and for machines.
 * A narrow column may break it between its date and its time, never inside either.
 */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const [date, time] = dateAndTime(new Date(iso));
  return (
    <time dateTime={iso} title={iso}>
      <span class="nowrap">{date}</span>
      {time && (
        <>
          {" "}
          <span class="nowrap">{time}</span>
        </>
      )}
    </time>
  );
}

/**
 * A secret shown this once (a new key, a webhook signing secret): never put in a URL or kept after
 * the page moves on; a button copies it.
 */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  // The secret takes the focus (selected, ready to copy): the form or panel that made it is gone.
  const field = useFocusOnShow<HTMLInputElement>([secret]);
  // Leaving the page ends it too: the browser's back/forward cache would otherwise show it again.
  useEffect(() => {
    window.addEventListener("pagehide", onDone);
    return () => window.removeEventListener("pagehide", onDone);
  }, [onDone]);
  return (
    <div class="secret" role="region" aria-label={label}>
      <p>
        <strong>{label}.</strong> Copy it now: it is shown only this once.
      </p>
      <div class="secret-row">
        <input
          ref={field}
          readOnly
          value={secret}
          aria-label={label}
          onFocus={(e) => e.currentTarget.select()}
          spellcheck={false}
          autocomplete="off"
        />
        <button
          type="button"
          onClick={async () => {
            await navigator.clipboard.writeText(secret).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
        <span class="visually-hidden" role="status">
          {copied ? "Copied to the clipboard." : ""}
        </span>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            onDone();
            focusPageHeading();
          }}
        >
          Done
        </button>
      </div>
    </div>
  );
}
