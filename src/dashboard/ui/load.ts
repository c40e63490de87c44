/**
 * `useLoad`: a page's reads, re-run when their inputs change or on `reload()`; an answer that
 * arrives after a newer call started is dropped, so a page never shows an older read over a newer one.
 */
import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(read: () => Promise<T>, inputs: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const latest = useRef(0);
  const run = useCallback(() => {
    const call = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    read().then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error: unknown) => call === latest.current && setState({ error, loading: false }),
    );
  }, inputs);
  // Started as the page is put in place, not after the next frame is painted (useEffect): a read sooner.
  useLayoutEffect(run, [run]);
  return { data: state.data, error: state.error, loading: state.loading, reload: run };
}
