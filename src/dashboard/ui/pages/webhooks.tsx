/**
 * Webhook endpoints: where the account's notifications are POSTed, signed. The list (at most 16,
 * newest first), and a new endpoint, whose signing secret is shown this once and kept nowhere.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { BASE } from "../paths";
import { api, ok, type Models } from "../api";
import { ChangeNotice, Empty, ErrorNote, Loading } from "../components/notes";
import { Page, focusPageHeading, useFocusOnShow } from "../components/page";
import { SecretOnce, StatusBadge, Time } from "../components/values";
import { useLoad } from "../load";
import { useCan } from "../session";
import { EndpointForm, type EndpointInput } from "./webhooks/endpoint-form";
import { TableWrap } from "../components/table-wrap";

type Created = Models["WebhookEndpointWithSecret"];
const LIMIT = 16;

/** Set by an endpoint's page as it deletes the endpoint and comes back here: the list says so, once. */
let deletedUrl: string | null = null;
export const cameBackFromDeleting = (url: string) => void (deletedUrl = url);

export function Webhooks() {
  const canWrite = useCan()("webhooks:write");
  const list = useLoad(() => ok(api.GET("/v1/webhook_endpoints")), []);
  const [creating, setCreating] = useState(false);
  // The new endpoint with its secret: in this component's state only, dropped at "Done" or when the page changes.
  const [created, setCreated] = useState<Created | null>(null);
  const [deleted, setDeleted] = useState(() => {
    const url = deletedUrl;
    deletedUrl = null;
    return url;
  });

  const create = async (input: EndpointInput) => {
    const body = {
      url: input.url,
      enabled_events: input.enabled_events,
      ...(input.description === null ? {} : { description: input.description }),
    };
    setCreated(await ok(api.POST("/v1/webhook_endpoints", { body })));
    setCreating(false);
    list.reload();
  };

  const endpoints = list.data?.data;
  const full = endpoints !== undefined && endpoints.length >= LIMIT;
  return (
    <Page
      title="Webhooks"
      actions={
        canWrite &&
        !creating && (
          <button type="button" disabled={full} onClick={() => (setCreated(null), setCreating(true))}>
            New endpoint
          </button>
        )
      }
    >
      <p class="muted">
        Every status a candidate enters (<code>candidate.pending</code>, <code>candidate.confirmed</code>,{" "}
        <code>candidate.failed</code>) is POSTed to your endpoints, signed (Standard Webhooks), and retried for about
        27.5 hours until a 2xx answers.
        {endpoints && ` ${endpoints.length} of ${LIMIT} endpoints in use.`}
      </p>
      {deleted && (
        <ChangeNotice
          text={`Deleted the endpoint ${deleted}: nothing more is sent to it.`}
          shown={deleted}
          onClose={() => setDeleted(null)}
        />
      )}
      {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
      {creating && (
        <CreatePanel>
          <EndpointForm
            idPrefix="new-endpoint"
            submitLabel="Create endpoint"
            onSubmit={create}
            onCancel={() => (setCreating(false), focusPageHeading())}
          />
        </CreatePanel>
      )}
      <ErrorNote error={list.error} />
      {!endpoints && list.loading && <Loading />}
      {endpoints && endpoints.length === 0 && (
        <NoEndpoints canWrite={canWrite} onNew={creating ? undefined : () => setCreating(true)} />
      )}
      {endpoints && endpoints.length > 0 && (
        <TableWrap label="Webhook endpoints">
          <table class="wide">
            <caption class="visually-hidden">Webhook endpoints, newest first</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Status</th>
                <th scope="col">Description</th>
                <th scope="col">Notification types</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((e) => (
                <tr key={e.id}>
                  <td class="id-cell">
                    <a class="mono" href={`${BASE}/webhooks/${e.id}`}>
                      {e.url}
                    </a>
                  </td>
                  <td>
                    <StatusBadge status={e.status} />
                  </td>
                  <td>{e.description ?? <span class="muted">—</span>}</td>
                  <td>
                    <ul class="plain">
                      {e.enabled_events.map((t) => (
                        <li key={t}>
                          <code class="nowrap">{t}</code>
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>
                    <Time iso={e.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {full && <p class="muted">The account has {LIMIT} endpoints, the most it may have: delete one to add another.</p>}
    </Page>
  );
}

function CreatePanel({ children }: { children: ComponentChildren }) {
  const heading = useFocusOnShow<HTMLHeadingElement>();
  return (
    <section class="panel" aria-labelledby="new-endpoint-title">
      <h2 id="new-endpoint-title" class="panel-title" tabIndex={-1} ref={heading}>
        New endpoint
      </h2>
      {children}
    </section>
  );
}

/** The new endpoint's secret, focused as it appears, with where to go next. */
/** The secret takes the focus (SecretOnce), as a rotated one does; what was made is said as it appears. */
function NewSecret({ created, onDone }: { created: Created; onDone: () => void }) {
  return (
    <div>
      <p role="status">
        Endpoint created: <a href={`${BASE}/webhooks/${created.id}`}>{created.url}</a>. Configure your receiver with its
        signing secret, then send it a test from its page.
      </p>
      <SecretOnce label="Signing secret" secret={created.secret} onDone={onDone} />
    </div>
  );
}

function NoEndpoints({ canWrite, onNew }: { canWrite: boolean; onNew?: () => void }) {
  return (
    <Empty title="No webhook endpoints yet">
      <p>
        Add the URL that should receive notifications{canWrite ? "" : " (with a key that has webhooks:write)"}, or with
        the API:
      </p>
      <pre class="mono">{`curl -s -X POST ${location.origin}/v1/webhook_endpoints \\
  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
  -d '{ "url": "https://example.com/hooks/candidates" }'`}</pre>
      <p class="muted">
        Meanwhile every notification is kept 30 days in the <a href={`${BASE}/notifications`}>notifications feed</a>.
      </p>
      {canWrite && onNew && (
        <button type="button" onClick={onNew}>
          New endpoint
        </button>
      )}
    </Empty>
  );
}
