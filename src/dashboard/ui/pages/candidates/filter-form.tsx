/**
 * The candidate list's filter form: edits a draft of the filters, and applies it by changing the
 * page's address. The API's objections to a filter appear at its field.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { described, Field } from "../../components/fields";
import { metadataLines, parseMetadataLines } from "../forms/metadata-lines";
import { FormError, localError } from "../shared/form-error";
import { candidatesHref, filterProblem, isFiltered, type Filters } from "./filters";

/** The API's names for what the filter form's fields hold. */
export const FIELD_PATHS = [
  "status",
  "customer_uuid",
  "candidate_alias_prefix",
  "status_since_gte",
  "status_since_lt",
  "metadata",
];

const STATUSES = ["OPEN", "PENDING", "CONFIRMED", "FAILED"];

/**
 * Set as the form applies filters that move the address (other filters, or the same ones from a
 * later page, which start again at the first): the page makes a new form for the new address
 * (keyed by it), which takes the focus back to its Apply button rather than leave it on the
 * page's body.
 */
let applying = false;

export function FilterForm({
  filters,
  error,
  onApply,
}: {
  filters: Filters;
  error: unknown;
  onApply: (href: string) => void;
}) {
  const [draft, setDraft] = useState(filters);
  const [metadataText, setMetadataText] = useState(metadataLines(filters.metadata));
  const [pageError, setPageError] = useState<unknown>(null);
  const shown = pageError ?? error;
  const applyButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (applying) applyButton.current?.focus();
    applying = false;
  }, []);
  const set = (name: keyof Omit<Filters, "metadata">) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setDraft({ ...draft, [name]: e.currentTarget.value });

  const apply = (e: Event) => {
    e.preventDefault();
    const parsed = parseMetadataLines(metadataText);
    if (typeof parsed === "string") {
      setPageError(localError("metadata", parsed));
      return;
    }
    const next = { ...draft, metadata: Object.entries(parsed) };
    const problem = filterProblem(next);
    setPageError(problem);
    if (problem) return;
    const href = candidatesHref(next);
    // Any other address (other filters, or the first page from a later one) makes a new form.
    applying = href !== location.pathname + location.search;
    onApply(href);
  };

  return (
    <form class="panel filters" onSubmit={apply} aria-label="Filters">
      <div class="filter-grid">
        <Field id="f-status" label="Status" error={shown} path="status">
          <select {...described("f-status", shown, "status")} value={draft.status} onChange={set("status")}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <Field id="f-customer" label="Customer" error={shown} path="customer_uuid">
          <input
            {...described("f-customer", shown, "customer_uuid")}
            value={draft.customer_uuid}
            onInput={set("customer_uuid")}
            spellcheck={false}
          />
        </Field>
        <Field
          id="f-prefix"
          label="Alias begins with"
          hint="Exact: case counts."
          error={shown}
          path="candidate_alias_prefix"
        >
          <input
            {...described("f-prefix", shown, "candidate_alias_prefix", true)}
            value={draft.alias_prefix}
            onInput={set("alias_prefix")}
            spellcheck={false}
          />
        </Field>
        <Field id="f-from" label="Status since, from (UTC day)" error={shown} path="status_since_gte">
          <input
            {...described("f-from", shown, "status_since_gte")}
            type="date"
            value={draft.from}
            onInput={set("from")}
          />
        </Field>
        <Field id="f-to" label="to (UTC day, inclusive)" error={shown} path="status_since_lt">
          <input {...described("f-to", shown, "status_since_lt")} type="date" value={draft.to} onInput={set("to")} />
        </Field>
        <div class="wide">
          <Field
            id="f-metadata"
            label="Metadata"
            hint='KEY=VALUE, one per line; all must hold. "Quote" a key or value to keep spaces at its ends.'
            error={shown}
            path="metadata"
          >
            <textarea
              {...described("f-metadata", shown, "metadata", true)}
              class="short"
              rows={2}
              value={metadataText}
              onInput={(e) => setMetadataText(e.currentTarget.value)}
              spellcheck={false}
            />
          </Field>
        </div>
      </div>
      <FormError error={pageError} paths={FIELD_PATHS} />
      <div class="actions">
        <button type="submit" ref={applyButton}>
          Apply filters
        </button>
        {isFiltered(filters) && (
          <a
            class="button secondary"
            href={candidatesHref({})}
            // The link goes with its filters: the new form's Apply button takes the focus, as after Apply.
            onClick={(e) => (applying = e.button === 0 && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.altKey)}
          >
            Clear filters
          </a>
        )}
      </div>
    </form>
  );
}
