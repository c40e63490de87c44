/**
 * Confirm now or void an OPEN or PENDING candidate: final at once, so each asks "Are you sure?"
 * inline first (no browser dialog), and the answer is the API's.
 */
import { useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { ChangeNotice, ErrorNote } from "../../components/notes";
import { useFocusInPlace } from "../../components/page";
import { useCall } from "../../components/use-call";

type Outcome = "CONFIRMED" | "FAILED";

const WHAT: Record<Outcome, { button: string; yes: string; consequence: string; done: string }> = {
  CONFIRMED: {
    button: "Confirm now",
    yes: "Yes, confirm it",
    consequence: "It becomes CONFIRMED now, for good, and is billed its price.",
    done: "Confirmed: the candidate is CONFIRMED, for good.",
  },
  FAILED: {
    button: "Void (fail)",
    yes: "Yes, void it",
    consequence: "It becomes FAILED now, for good, and is never billed.",
    done: "Voided: the candidate is FAILED, for good.",
  },
};

export function Resolve({
  alias,
  status,
  canWrite,
  onAnswered,
}: {
  alias: string;
  status: string;
  canWrite: boolean;
  onAnswered: () => void;
}) {
  const [asking, setAsking] = useState<Outcome | null>(null);
  // What the last answer made it: said, and focused, where its buttons were.
  const [made, setMade] = useState<Outcome | null>(null);
  const { busy, error, run } = useCall();
  const yes = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  // The question takes the focus, so a keyboard user answers it next; Cancel gives it back.
  useFocusInPlace(
    asking,
    () => yes.current,
    (was) => box.current?.querySelector<HTMLElement>(`[data-outcome="${was}"]`),
  );
  const cancel = () => setAsking(null);
  const resolve = async (outcome: Outcome) => {
    // The answer button is disabled while the call runs, which would drop the focus: the panel holds it.
    box.current?.focus();
    await run(async () => {
      await api.POST("/v1/candidates/{candidate_alias}/resolve", {
        params: { path: { candidate_alias: alias } },
        body: { outcome },
      });
      setMade(outcome);
    });
    // Refused too (resolved or ended meanwhile, perhaps in another tab): the page shows it as it now is.
    setAsking(null);
    onAnswered();
  };
  const final = status !== "OPEN" && status !== "PENDING";
  return (
    <div ref={box} tabIndex={-1} class="focus-target">
      {made && <ChangeNotice text={WHAT[made].done} shown={made} onClose={() => setMade(null)} />}
      {final ? (
        <p class="muted">{status} is final: it can no longer be confirmed or voided.</p>
      ) : (
        !canWrite && <p class="muted">This session lacks candidates:write, which confirming or voiding needs.</p>
      )}
      {final ? null : asking === null ? (
        <div class="actions">
          <button type="button" data-outcome="CONFIRMED" disabled={!canWrite} onClick={() => setAsking("CONFIRMED")}>
            {WHAT.CONFIRMED.button}
          </button>
          <button
            type="button"
            data-outcome="FAILED"
            class="danger"
            disabled={!canWrite}
            onClick={() => setAsking("FAILED")}
          >
            {WHAT.FAILED.button}
          </button>
        </div>
      ) : (
        <div
          class="notice"
          role="group"
          aria-labelledby="resolve-ask"
          onKeyDown={(e) => e.key === "Escape" && !busy && cancel()}
        >
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
            <button type="button" class="secondary" disabled={busy} onClick={cancel}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={error} />
    </div>
  );
}
