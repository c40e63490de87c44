/** The one way a form or button of the dashboard calls the API and shows how it went. */
import { useRef, useState } from "preact/hooks";

export interface CallOptions {
  /**
   * The success takes this form away (a new page, a secret shown, its panel closed): `busy` stays
   * on until it goes, so it cannot be sent twice meanwhile.
   */
  leaving?: boolean;
  /** The failure as this form shows it (say, in its own words, at its own field). */
  asError?: (error: unknown) => unknown;
  /**
   * Ignored while a call of this hook runs: for a button left focusable while busy
   * (aria-disabled, so a refusal keeps the focus on it), which a disabled attribute would not guard.
   */
  exclusive?: boolean;
}

/**
 * `run(call)`: `busy` while a call runs, its failure kept as `error` (for ErrorNote and Field),
 * cleared when the next call starts. Calls may overlap (two rows' deletes, a rotation confirmed
 * while a test is sent): each runs, and `busy` lasts until the last ends. A button that must not
 * be pressed twice is disabled while `busy`, or its call is `exclusive`.
 * `setError` shows a form's own objection the same way, with no call.
 */
export function useCall() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const running = useRef(0);
  const run = async (
    call: () => Promise<unknown>,
    { leaving = false, asError = (e) => e, exclusive = false }: CallOptions = {},
  ) => {
    if (exclusive && running.current > 0) return;
    running.current++;
    setBusy(true);
    setError(null);
    try {
      await call();
      if (leaving) return;
    } catch (failure) {
      setError(asError(failure));
    }
    if (--running.current === 0) setBusy(false);
  };
  return { busy, error, setError, run };
}
