/**
 * Confirm now or void an OPEN or PENDING candidate: final at once, so each asks "Are you sure?"
 * inline first (no browser dialog), and the answer is the API's.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { ErrorNote } from "../../components/ui";

type Outcome = "CONFIRMED" | "FAILED";

const WHAT: Record<Outcome, { button: string; yes: string; consequence: string }> = {
  CONFIRMED: {
    button: "Confirm now",
    yes: "Yes, confirm it",
    consequence: "It becomes CONFIRMED now, for good, and is billed its price.",
  },
  FAILED: {
    button: "Void (fail)",
    yes: "Yes, void it",
    consequence: "It becomes FAILED now, for good, and is never billed.",
  },
};

export function Resolve({
  alias,
  status,
  canWrite,
  onResolved,
}: {
  alias: string;
  status: string;
  canWrite: boolean;
  onResolved: () => void;
}) {
  const [asking, setAsking] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const yes = useRef<HTMLButtonElement>(null);
  // The question takes the focus, so a keyboard user answers it next.
  useEffect(() => yes.current?.focus(), [asking]);
  if (status !== "OPEN" && status !== "PENDING") {
    return <p class="muted">{status} is final: it can no longer be confirmed or voided.</p>;
  }
  const resolve = async (outcome: Outcome) => {
    setBusy(true);
    setError(null);
    try {
      await api.POST("/v1/candidates/{candidate_alias}/resolve", {
        params: { path: { candidate_alias: alias } },
        body: { outcome },
      });
      setAsking(null);
      onResolved();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div>
      {!canWrite && <p class="muted">This session lacks candidates:write, which confirming or voiding needs.</p>}
      {asking === null ? (
        <div class="actions">
          <button type="button" disabled={!canWrite} onClick={() => setAsking("CONFIRMED")}>
            {WHAT.CONFIRMED.button}
          </button>
          <button type="button" class="danger" disabled={!canWrite} onClick={() => setAsking("FAILED")}>
            {WHAT.FAILED.button}
          </button>
        </div>
      ) : (
        <div class="notice" role="group" aria-labelledby="resolve-ask">
          <p id="resolve-ask">
            <strong>Are you sure?</strong> {WHAT[asking].consequence}
          </p>
          <div class="actions">
            <button
              type="button"
              class={asking === "FAILED" ? "danger" : undefined}
              disabled={busy}
              onClick={() => void resolve(asking)}
              ref={yes}
            >
              {busy ? "Working…" : WHAT[asking].yes}
            </button>
            <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
