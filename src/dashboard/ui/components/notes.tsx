/** What a page says besides its data: a change made, an error, loading, nothing yet. */
import type { ComponentChildren } from "preact";
import { CandidateContractError } from "../api";
import { useFocusOnShow, focusPageHeading } from "./page";

/**
 * What the last change did, where the control that made it is gone (a form closed, a row left the
 * list): focused as it appears, so it is read out, and Dismiss hands the focus to the page heading.
 * `shown` changes with each new notice, which takes the focus again; `children` say more.
 */
export function ChangeNotice({
  text,
  shown,
  onClose,
  children,
}: {
  text: string;
  shown: unknown;
  onClose: () => void;
  children?: ComponentChildren;
}) {
  const box = useFocusOnShow<HTMLDivElement>([shown]);
  return (
    <div class="notice" role="status" tabIndex={-1} ref={box}>
      <p>
        {text}{" "}
        <button type="button" class="secondary small" onClick={() => (onClose(), focusPageHeading())}>
          Dismiss
        </button>
      </p>
      {children}
    </div>
  );
}

const alertNumbers = new WeakMap<object, number>();
let alertsMade = 0;
/**
 * The key of an error's alert: each error its own element, so a second refusal in the same words
 * is put in anew and read out again (a screen reader announces an alert as it appears or changes).
 */
export function alertKey(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  let number = alertNumbers.get(error);
  if (number === undefined) alertNumbers.set(error, (number = ++alertsMade));
  return `alert-${number}`;
}

/** What went wrong, as the API said it, with the request id to quote. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const known = error instanceof CandidateContractError;
  return (
    <div class="error-note" role="alert" key={alertKey(error)}>
      <strong>{known ? error.code : "Error"}</strong> {error instanceof Error ? error.message : String(error)}
      {known && error.requestId && <span class="muted"> (request {error.requestId})</span>}
    </div>
  );
}

/** A read in flight, announced to screen readers too. */
export const Loading = () => (
  <p class="muted" role="status">
    Loading…
  </p>
);

/** An empty page: what to do next. */
export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}
