/**
 * Sends an event to this candidate (POST /v1/events), as a system of the account would: a type and
 * an optional JSON value. The candidate's page reloads to show what it did.
 */
import { useState } from "preact/hooks";
import { api, ok } from "../../api";
import { described, Field } from "../../components/fields";
import { FormError, localError } from "../shared/form-error";
import { parseExact } from "../../exact-json";
import { useCall } from "../../components/use-call";

export function SendEvent({ alias, onSent }: { alias: string; onSent: () => void }) {
  const [type, setType] = useState("");
  const [value, setValue] = useState("");
  const [result, setResult] = useState<string | null>(null);
  const { busy, error, setError, run } = useCall();

  const submit = async (e: Event) => {
    e.preventDefault();
    setResult(null);
    let parsed: unknown;
    try {
      parsed = value.trim() === "" ? undefined : parseExact(value);
    } catch (syntax) {
      return setError(localError("value", `is not JSON: ${(syntax as Error).message}`));
    }
    await run(
      async () => {
        const answer = await ok(
          api.POST("/v1/events", {
            body: { candidate_alias: alias, type, ...(parsed === undefined ? {} : { value: parsed }) },
          }),
        );
        setResult(
          answer.event.matched
            ? `Recorded; it met a condition leaf. The candidate is ${answer.candidate.status}.`
            : `Recorded; it met no condition leaf. The candidate is ${answer.candidate.status}.`,
        );
        onSent();
      },
      { exclusive: true },
    );
  };

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="send-event-title">
      <h2 id="send-event-title">Send an event</h2>
      <div class="row">
        <Field id="ev-type" label="Type" error={error} path="type">
          <input
            {...described("ev-type", error, "type")}
            value={type}
            onInput={(e) => setType(e.currentTarget.value)}
            required
          />
        </Field>
        <Field id="ev-value" label="Value (JSON, optional)" error={error} path="value">
          <input
            {...described("ev-value", error, "value")}
            class="mono"
            value={value}
            placeholder='{"total": 120}'
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </Field>
        <div class="field">
          <button type="submit" disabled={type === ""} aria-disabled={busy || undefined}>
            Send event
          </button>
        </div>
      </div>
      {result && (
        <p role="status" class="muted">
          {result}
        </p>
      )}
      <FormError error={error} paths={["type", "value"]} />
    </form>
  );
}
