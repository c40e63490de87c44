/** The small pieces every page is made of. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { CandidateContractError } from "../api";

/** A page: its heading (and the document's title), its actions beside it. */
export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · Candidate Contract Service`;
  }, [title]);
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>{title}</h1>
        {actions && <div class="actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

/**
 * A ref for what a page just opened (a form's heading, a notice), focused as it appears (and again
 * when `deps` change): the button that opened it is gone, and focus must not fall to the page's body.
 */
export function useFocusOnShow<T extends HTMLElement>(deps: unknown[] = []) {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.focus(), deps);
  return ref;
}

/**
 * Focus for what opens in place of the button that asked for it (a question, a chooser, a panel):
 * `first()` takes the focus as `open` is set; when `open` clears and its part is gone with the
 * focus, `opener(was)` (given the value `open` had) gets it back, as it would fall to the page's
 * body. Focus that is elsewhere stays: on a panel still holding it while its answer re-reads the
 * page, or on the button that toggled the part closed.
 */
export function useFocusInPlace<T>(
  open: T | null | false,
  first: () => HTMLElement | null | undefined,
  opener: (was: T) => HTMLElement | null | undefined,
) {
  const was = useRef(open);
  useEffect(() => {
    if (open) first()?.focus();
    else if (was.current && (document.activeElement ?? document.body) === document.body) opener(was.current)?.focus();
    was.current = open;
  }, [open]);
}

/** Where focus goes when what held it closes (Cancel, Done): the page's heading. */
export const focusPageHeading = () => document.querySelector<HTMLElement>("main h1")?.focus();

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

/** What went wrong, as the API said it, with the request id to quote. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const known = error instanceof CandidateContractError;
  return (
    <div class="error-note" role="alert">
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

export type Status = "OPEN" | "PENDING" | "CONFIRMED" | "FAILED";

/** A status exactly as the API wrote it, coloured by what it means. */
export const StatusBadge = ({ status }: { status: string }) => (
  <span class={`badge status-${status.toLowerCase()}`}>{status}</span>
);

/** One formatter for every instant shown: making one per call costs a list page ~10 ms. */
export const LOCAL_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** An instant: local time to read, the exact ISO instant on hover and for machines. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {LOCAL_TIME.format(date)}
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

/**
 * Where a detail's path sits under a field's `path`: "" for the path itself, the KEY of something
 * below it (`path.KEY` in a body, `path[KEY]` for a query's metadata filter), else null.
 */
export function belowPath(detailPath: string, path: string): string | null {
  if (detailPath === path) return "";
  if (!detailPath.startsWith(path)) return null;
  const below = /^(?:\.(.*)|\[(.*)\])$/s.exec(detailPath.slice(path.length));
  return below ? (below[1] ?? below[2]) : null;
}

/** The messages a VALIDATION_ERROR gave for `path` (and below it, each named by its KEY), for the field that holds it. */
export function fieldMessages(error: unknown, path: string): string[] {
  if (!(error instanceof CandidateContractError)) return [];
  return error.details.flatMap((d) => {
    const key = belowPath(d.path, path);
    return key === null ? [] : [key === "" ? d.message : `${key}: ${d.message}`];
  });
}

/** A labelled field with the API's errors for it below, tied to the input for screen readers. */
export function Field({
  id,
  label,
  hint,
  error,
  path,
  children,
}: {
  id: string;
  label: string;
  hint?: string;
  error?: unknown;
  path?: string;
  children: ComponentChildren;
}) {
  const messages = path ? fieldMessages(error, path) : [];
  return (
    <div class={`field${messages.length ? " invalid" : ""}`}>
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      )}
      {messages.length > 0 && (
        <small id={`${id}-error`} class="field-error">
          {messages.join(" ")}
        </small>
      )}
    </div>
  );
}

/** The aria attributes tying an input to its hint and errors (Field renders those with these ids). */
export function described(id: string, error: unknown, path: string, hint = false) {
  const invalid = fieldMessages(error, path).length > 0;
  const ids = [hint ? `${id}-hint` : "", invalid ? `${id}-error` : ""].filter(Boolean).join(" ");
  return { id, "aria-invalid": invalid || undefined, "aria-describedby": ids || undefined };
}

/**
 * Paging by cursor: Previous (or "First page" when the pages before are not known) and Next. Shown
 * even when the page failed to load (a cursor gone bad, a bookmark edited), so there is a way back.
 */
export function Pager({ cursor, next, loading }: { cursor: Cursor; next: string | null; loading: boolean }) {
  if (!cursor.hasPrevious && next === null) return null;
  // While a page loads, `next` is still the page before's: a second click (a double click) would go
  // to it again. So clicks wait; the buttons stay enabled, keeping a keyboard user's focus on them.
  return (
    <nav class="pager" aria-label="Pages" aria-busy={loading}>
      <button
        type="button"
        class="secondary"
        disabled={!cursor.hasPrevious}
        aria-disabled={loading || undefined}
        onClick={() => !loading && cursor.onPrevious()}
      >
        {cursor.previousIsFirst ? "← First page" : "← Previous"}
      </button>
      <button
        type="button"
        class="secondary"
        disabled={next === null}
        aria-disabled={loading || undefined}
        onClick={() => !loading && next && cursor.onNext(next)}
      >
        Next →
      </button>
    </nav>
  );
}

/**
 * What a page's history entry remembers of its paging: the cursors of the pages before it, oldest
 * first, the first page as "". Empty or absent: the pages before are not known (a bookmark, a jump).
 */
interface PagingState {
  earlierCursors?: string[];
}

/**
 * The page of a list shown, kept in the address as `after=` (so Back, a reload and a bookmark keep
 * it; an address without it is the first page, so a new filter starts there). The cursors of the
 * pages before it ride in the history entry, for Previous; where they are not known, Previous is
 * "First page".
 */
export function useCursor() {
  const { url, query, route } = useLocation();
  const after = query.after || undefined;
  const earlier = (history.state as PagingState | null)?.earlierCursors ?? [];
  const go = (cursor: string | undefined, before: string[]) => {
    const to = new URL(url, location.origin);
    if (cursor) to.searchParams.set("after", cursor);
    else to.searchParams.delete("after");
    route(to.pathname + to.search);
    // preact-iso pushed the entry with no state: this page's paging goes into it (the address stays).
    history.replaceState({ ...(history.state as object | null), earlierCursors: before } satisfies PagingState, "");
  };
  return {
    after,
    hasPrevious: after !== undefined,
    previousIsFirst: after !== undefined && earlier.length === 0,
    onPrevious: () => go(earlier.at(-1), earlier.slice(0, -1)),
    onNext: (cursor: string) => go(cursor, [...earlier, after ?? ""]),
    /** To a page whose pages before are not known (the feed's newest): its Previous is "First page". */
    jumpTo: (cursor: string) => go(cursor, []),
    /** To the first page; false when it is shown already (the caller reads it again, if need be). */
    toFirst: () => after !== undefined && (go(undefined, []), true),
  };
}

export type Cursor = ReturnType<typeof useCursor>;
