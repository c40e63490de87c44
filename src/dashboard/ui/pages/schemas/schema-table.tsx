/** The schemas of one page: their contract at a glance, the whole of it on demand, edit and delete. */
import type { Models } from "../../api";
import { Time } from "../../components/values";
import { ConfirmInline } from "../shared/confirm-inline";
import { candidateCurl, duration } from "./text";
import { readableJson } from "../../components/bidi";
import { TableWrap } from "../../components/table-wrap";

type Schema = Models["Schema"];

export function SchemaTable({
  schemas,
  canWrite,
  editing,
  onEdit,
  onDelete,
}: {
  schemas: Schema[];
  canWrite: boolean;
  editing: string | null;
  onEdit: (schema: Schema) => void;
  onDelete: (schema: Schema) => Promise<void>;
}) {
  return (
    <TableWrap label="Schemas">
      <table class="wide">
        <caption class="visually-hidden">Schemas, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Name and id</th>
            <th scope="col" class="num">
              Price
            </th>
            <th scope="col">Activity window</th>
            <th scope="col">Review window</th>
            <th scope="col">Timeout outcome</th>
            <th scope="col">Created</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {schemas.map((s) => (
            <tr key={s.id} class={editing === s.id ? "selected" : undefined}>
              <td class="id-cell">
                {s.name ?? <span class="muted">(no name)</span>}
                <br />
                <code class="muted">{s.id}</code>
                <details class="contract-details">
                  <summary>Contract and use</summary>
                  <pre class="mono">{readableJson(s.contract, 2)}</pre>
                  <p class="muted">A candidate from this schema:</p>
                  <pre class="mono">{candidateCurl(s.id)}</pre>
                </details>
              </td>
              {/* The price as the API wrote it: a JSON number of at most 15 digits prints back unchanged. */}
              <td class="num">{String(s.contract.price)}</td>
              <td>
                {String(s.contract.activity_window)} s{" "}
                <span class="muted">({duration(s.contract.activity_window)})</span>
              </td>
              <td>
                {String(s.contract.review_window)} s <span class="muted">({duration(s.contract.review_window)})</span>
              </td>
              <td>{s.contract.timeout_outcome}</td>
              <td>
                <Time iso={s.created_at} />
                {s.updated_at !== s.created_at && (
                  <small class="muted block">
                    changed <Time iso={s.updated_at} />
                  </small>
                )}
              </td>
              {canWrite && (
                <td>
                  <div class="actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => onEdit(s)}
                      aria-label={`Edit ${s.name ?? s.id}`}
                    >
                      Edit
                    </button>
                    <ConfirmInline
                      label="Delete"
                      labelFull={`Delete ${s.name ?? s.id}`}
                      question={`Delete ${s.name ? `“${s.name}”` : "this schema"}? Its candidates keep their contract.`}
                      confirmLabel="Delete"
                      onConfirm={() => onDelete(s)}
                    />
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
