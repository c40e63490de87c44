/**
 * A form's error beside its submit button, announced (role="alert"): an error's details (a
 * VALIDATION_ERROR's, or a refusal the form placed at its field) are shown at their fields, so
 * here only a count of them and any detail no field of this form shows; any other error whole.
 */
import { CandidateContractError } from "../../api";
import { belowPath } from "../../components/fields";
import { alertKey, ErrorNote } from "../../components/notes";

export function FormError({ error, paths }: { error: unknown; paths: string[] }) {
  if (!(error instanceof CandidateContractError) || error.details.length === 0) return <ErrorNote error={error} />;
  const shown = (path: string) => paths.some((p) => belowPath(path, p) !== null);
  const elsewhere = error.details.filter((d) => !shown(d.path));
  const atFields = error.details.length - elsewhere.length;
  return (
    <div class="error-note" role="alert" key={alertKey(error)}>
      <strong>{error.code}</strong>{" "}
      {atFields > 0 && `${atFields === 1 ? "One problem" : `${atFields} problems`}, shown at the fields above.`}
      {elsewhere.map((d) => (
        <span key={d.path}>
          {" "}
          <code>{d.path}</code>: {d.message}
        </span>
      ))}
      {error.requestId && <span class="muted"> (request {error.requestId})</span>}
    </div>
  );
}

/** Problems found in the page itself (before any call), each shown at its path like the API's. */
export const localErrors = (details: { path: string; message: string }[]) =>
  new CandidateContractError("VALIDATION_ERROR", details.map((d) => `${d.path}: ${d.message}`).join(" "), 0, details);

/** One problem found in the page itself, shown at `path` like the API's. */
export const localError = (path: string, message: string) => localErrors([{ path, message }]);
