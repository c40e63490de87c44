/** A page: its heading and the document's title, and where focus goes as parts of it open and close. */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { isolated } from "./bidi";

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
    document.title = `${isolated(title)} · Candidate Contract Service`;
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
