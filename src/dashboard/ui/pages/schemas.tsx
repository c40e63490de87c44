/**
 * Schemas: the account's contract templates, newest first and paged by cursor; a new one, a change
 * (PATCH: the name and/or the whole contract), a delete. Writes need `schemas:write`.
 */
import { isExactNumber } from "../exact-json";
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, ok, type Models } from "../api";
import { ChangeNotice, Empty, ErrorNote, Loading } from "../components/notes";
import { Page, focusPageHeading, useFocusOnShow } from "../components/page";
import { Pager, useCursor } from "../components/pager";
import { useLoad } from "../load";
import { useCan } from "../session";
import { ContractForm, type SchemaInput } from "./schemas/contract-form";
import { SchemaTable } from "./schemas/schema-table";
import { candidateCurl } from "./schemas/text";
import { useCall } from "../components/use-call";

type Schema = Models["Schema"];
type Editing = { kind: "new" } | { kind: "edit"; schema: Schema } | null;

const PAGE_SIZE = 25;

export function Schemas() {
  const canWrite = useCan()("schemas:write");
  const cursor = useCursor();
  const list = useLoad(
    () => ok(api.GET("/v1/schemas", { params: { query: { after: cursor.after, limit: PAGE_SIZE } } })),
    [cursor.after],
  );
  const [editing, setEditing] = useState<Editing>(null);
  const [notice, setNotice] = useState<{ text: string; created?: Schema } | null>(null);
  const deleting = useCall();

  const create = async (input: SchemaInput) => {
    const created = await ok(
      api.POST("/v1/schemas", {
        body: { contract: input.contract, ...(input.name === null ? {} : { name: input.name }) },
      }),
    );
    setEditing(null);
    setNotice({ text: `Schema ${created.name ? `“${created.name}” ` : ""}created.`, created });
    // A new schema is listed first: to the first page, read again.
    if (!cursor.toFirst()) list.reload();
  };

  const update = async (schema: Schema, input: SchemaInput) => {
    const body: Models["UpdateSchemaBody"] = {};
    if (input.name !== schema.name) body.name = input.name;
    if (canonical(input.contract) !== canonical(schema.contract)) body.contract = input.contract;
    if (Object.keys(body).length === 0) {
      setEditing(null);
      return setNotice({ text: "Nothing changed: the schema is as it was." });
    }
    const changed = await ok(api.PATCH("/v1/schemas/{id}", { params: { path: { id: schema.id } }, body }));
    setEditing(null);
    setNotice({
      text: `Schema ${changed.name ? `“${changed.name}” ` : ""}changed. Candidates created before keep the contract they were created with.`,
    });
    list.reload();
  };

  const remove = (schema: Schema) =>
    deleting.run(async () => {
      await api.DELETE("/v1/schemas/{id}", { params: { path: { id: schema.id } } });
      if (editing?.kind === "edit" && editing.schema.id === schema.id) setEditing(null);
      setNotice({
        text: `Schema ${schema.name ? `“${schema.name}” ` : ""}deleted. Its candidates keep their contract.`,
      });
      list.reload();
    });

  const schemas = list.data?.data;
  return (
    <Page
      title="Schemas"
      actions={
        canWrite &&
        editing?.kind !== "new" && (
          <button type="button" onClick={() => (setNotice(null), setEditing({ kind: "new" }))}>
            New schema
          </button>
        )
      }
    >
      <p class="muted">
        A schema is a contract template: a price, an activity window in which events can fulfil its condition, a review
        window, and what happens when nothing does. Candidates are created from it.
      </p>
      {notice && <Notice notice={notice} onClose={() => setNotice(null)} />}
      {editing && (
        <EditPanel
          title={
            editing.kind === "new"
              ? "New schema"
              : `Edit ${editing.schema.name ? `“${editing.schema.name}”` : "schema"}`
          }
        >
          {editing.kind === "edit" && (
            <p class="muted">
              A change applies to candidates created from now on; existing candidates keep the contract they were
              created with.
            </p>
          )}
          <ContractForm
            key={editing.kind === "new" ? "new" : editing.schema.id}
            idPrefix={editing.kind === "new" ? "new-schema" : "edit-schema"}
            schema={editing.kind === "edit" ? editing.schema : undefined}
            submitLabel={editing.kind === "new" ? "Create schema" : "Save changes"}
            onSubmit={editing.kind === "new" ? create : (input) => update(editing.schema, input)}
            onCancel={() => {
              setEditing(null);
              focusPageHeading();
            }}
          />
        </EditPanel>
      )}
      <ErrorNote error={list.error ?? deleting.error} />
      {!schemas && list.loading && <Loading />}
      {schemas && schemas.length === 0 && !cursor.hasPrevious && (
        <NoSchemas canWrite={canWrite} onNew={editing ? undefined : () => setEditing({ kind: "new" })} />
      )}
      {schemas && schemas.length === 0 && cursor.hasPrevious && <p class="muted">No schemas on this page any more.</p>}
      {schemas && schemas.length > 0 && (
        <SchemaTable
          schemas={schemas}
          canWrite={canWrite}
          editing={editing?.kind === "edit" ? editing.schema.id : null}
          onEdit={(schema) => (setNotice(null), setEditing({ kind: "edit", schema }))}
          onDelete={remove}
        />
      )}
      <Pager cursor={cursor} next={list.data?.next_cursor ?? null} loading={list.loading} />
    </Page>
  );
}

/** The form's panel, its heading focused when it opens so keyboard users land on it. */
function EditPanel({ title, children }: { title: string; children: ComponentChildren }) {
  const heading = useFocusOnShow<HTMLHeadingElement>([title]);
  return (
    <section class="panel" aria-labelledby="schema-form-title">
      <h2 id="schema-form-title" ref={heading} tabIndex={-1} class="panel-title">
        {title}
      </h2>
      {children}
    </section>
  );
}

/** What the last change did: for a schema just made, its id and how to use it. */
function Notice({ notice, onClose }: { notice: { text: string; created?: Schema }; onClose: () => void }) {
  return (
    <ChangeNotice text={notice.text} shown={notice} onClose={onClose}>
      {notice.created && (
        <>
          <p>
            Its id is <code>{notice.created.id}</code>. Create a candidate from it:
          </p>
          <pre class="mono">{candidateCurl(notice.created.id)}</pre>
        </>
      )}
    </ChangeNotice>
  );
}

function NoSchemas({ canWrite, onNew }: { canWrite: boolean; onNew?: () => void }) {
  return (
    <Empty title="No schemas yet">
      <p>
        Create one here{canWrite ? "" : " (with a key that has schemas:write)"} or with the API, then create candidates
        from it by its id:
      </p>
      <pre class="mono left">{`curl -s -X POST ${location.origin}/v1/schemas \\
  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
  -d '{ "name": "Purchase of 100 or more", "contract": { "price": 49.5,
        "activity_window": 604800, "review_window": 86400, "timeout_outcome": "fail",
        "fulfillment_condition": { "event": "purchase", "field": "total", "gte": 100 } } }'

${candidateCurl("<the schema's id>")}`}</pre>
      {canWrite && onNew && (
        <button type="button" onClick={onNew}>
          New schema
        </button>
      )}
    </Empty>
  );
}

/** JSON with keys sorted, to tell whether a contract changed whatever order its keys were typed in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) && !isExactNumber(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
