/**
 * A new candidate, as POST /v1/candidates makes it: an alias, a customer, and a contract from one
 * of the account's schemas; optional metadata. Opens the candidate's page once made.
 */
import { candidatePath } from "../../paths";
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { useLoad } from "../../load";
import { described, Field } from "../../components/fields";
import { ErrorNote } from "../../components/notes";
import { useFocusOnShow } from "../../components/page";
import { api, CandidateContractError, ok, type Models } from "../../api";
import { parseMetadataLines } from "./metadata-lines";
import { FormError, localError } from "../shared/form-error";
import { useCan } from "../../session";
import { useCall } from "../../components/use-call";

/** What a candidate made from the schema will carry, in a line. */
const contractLine = (c: Models["Contract"]) =>
  `Price ${c.price}; activity window ${c.activity_window} s; review window ${c.review_window} s; unfulfilled at the window's end: ${c.timeout_outcome}.`;

/** Refusals that are one field's problem (an unknown schema, an alias taken): shown there, tied to it for screen readers. */
const FIELD_OF: Record<string, string> = { SCHEMA_NOT_FOUND: "schema_id", CANDIDATE_ALIAS_TAKEN: "candidate_alias" };
function atItsField(error: unknown): unknown {
  const path = error instanceof CandidateContractError ? FIELD_OF[error.code] : undefined;
  if (path === undefined) return error;
  const { code, message, status, requestId } = error as CandidateContractError;
  return new CandidateContractError(code, message, status, [{ path, message }], requestId);
}

export function NewCandidate({ onCancel }: { onCancel: () => void }) {
  const { route } = useLocation();
  // No limit: every schema of the account, for the picker. A session that may not list them types an id, or none.
  const canList = useCan()("schemas:read");
  const schemas = useLoad(() => (canList ? ok(api.GET("/v1/schemas")) : Promise.resolve(null)), [canList]);
  const heading = useFocusOnShow<HTMLHeadingElement>();
  const [alias, setAlias] = useState("");
  const [customer, setCustomer] = useState("");
  const [schemaId, setSchemaId] = useState("");
  const [metadata, setMetadata] = useState("");
  const { busy, error, setError, run } = useCall();

  const list = schemas.data?.data ?? [];
  const noSchema = canList && schemas.data !== undefined && list.length === 0;
  const submit = async (e: Event) => {
    e.preventDefault();
    const parsed = parseMetadataLines(metadata);
    if (typeof parsed === "string") return setError(localError("metadata", parsed));
    await run(
      async () => {
        const chosen = schemaId.trim() || list[0]?.id;
        const created = await ok(
          api.POST("/v1/candidates", {
            body: {
              candidate_alias: alias,
              customer_uuid: customer,
              ...(chosen ? { schema_id: chosen } : {}),
              ...(Object.keys(parsed).length ? { metadata: parsed } : {}),
            },
          }),
        );
        route(candidatePath(created.candidate_alias));
      },
      { leaving: true, asError: atItsField, exclusive: true },
    );
  };

  const chosen = list.find((schema) => schema.id === (schemaId || list[0]?.id));
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-candidate-title">
      <h2 id="new-candidate-title" class="panel-title" tabIndex={-1} ref={heading}>
        New candidate
      </h2>
      {schemas.error ? <ErrorNote error={schemas.error} /> : null}
      {noSchema && (
        <p class="notice">
          A candidate takes its contract from a schema: <a href="/dashboard/schemas">create a schema</a> first.
        </p>
      )}
      <div class="row">
        <Field
          id="nc-alias"
          label="Alias"
          hint="8 to 255 characters, unique across all accounts."
          error={error}
          path="candidate_alias"
        >
          <input
            {...described("nc-alias", error, "candidate_alias", true)}
            value={alias}
            onInput={(e) => setAlias(e.currentTarget.value)}
            required
          />
        </Field>
        <Field id="nc-customer" label="Customer" error={error} path="customer_uuid">
          <input
            {...described("nc-customer", error, "customer_uuid")}
            value={customer}
            onInput={(e) => setCustomer(e.currentTarget.value)}
            required
          />
        </Field>
        {canList ? (
          <Field
            id="nc-schema"
            label="Schema"
            hint={chosen && contractLine(chosen.contract)}
            error={error}
            path="schema_id"
          >
            <select
              {...described("nc-schema", error, "schema_id", chosen !== undefined)}
              value={schemaId || list[0]?.id}
              onChange={(e) => setSchemaId(e.currentTarget.value)}
            >
              {list.map((schema, i) => (
                <option key={schema.id} value={schema.id}>
                  {schema.name ?? schema.id}
                  {i === 0 ? " (newest)" : ""}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <Field
            id="nc-schema"
            label="Schema id (optional)"
            hint="Empty: the account’s newest schema. This session lacks schemas:read, so it cannot list them."
            error={error}
            path="schema_id"
          >
            <input
              {...described("nc-schema", error, "schema_id", true)}
              value={schemaId}
              onInput={(e) => setSchemaId(e.currentTarget.value)}
              spellcheck={false}
              autocomplete="off"
            />
          </Field>
        )}
      </div>
      <Field
        id="nc-metadata"
        label="Metadata (optional)"
        hint='One key=value per line; "quote" a key or value to keep spaces at its ends.'
        error={error}
        path="metadata"
      >
        <textarea
          {...described("nc-metadata", error, "metadata", true)}
          rows={3}
          value={metadata}
          onInput={(e) => setMetadata(e.currentTarget.value)}
        />
      </Field>
      <FormError error={error} paths={["candidate_alias", "customer_uuid", "schema_id", "metadata"]} />
      <div class="actions">
        <button type="submit" disabled={noSchema} aria-disabled={busy || undefined}>
          Create candidate
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
