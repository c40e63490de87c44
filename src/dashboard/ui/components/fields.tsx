/** Form fields, with the API's validation messages for each below it. */
import type { ComponentChildren } from "preact";
import { CandidateContractError } from "../api";

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
  label: ComponentChildren;
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
