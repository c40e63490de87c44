/**
 * `useLoad`: a page's reads, re-run when their inputs change or on `reload()`; an answer that
 * arrives after a newer call started is dropped, so a page never shows an older read over a newer one.
 * A read is given a signal, aborted when a newer one starts or its page is left: a read of several
 * calls passes it on, so that none goes out for a page no longer shown (one that did could find the
 * session ended, and take the browser to sign-in from the page now shown).
 */
import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(read: (signal: AbortSignal) => Promise<T>, inputs: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const latest = useRef<AbortController | null>(null);
  const run = useCallback(() => {
    latest.current?.abort();
    const call = new AbortController();
    latest.current = call;
    setState((previous) => ({ ...previous, loading: true }));
    read(call.signal).then(
      (data) => !call.signal.aborted && setState({ data, loading: false }),
      (error: unknown) => !call.signal.aborted && setState({ error, loading: false }),
    );
  }, inputs);
  // Started as the page is put in place, not after the next frame is painted (useEffect): a read sooner.
  useLayoutEffect(run, [run]);
  useLayoutEffect(() => () => latest.current?.abort(), []);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}
