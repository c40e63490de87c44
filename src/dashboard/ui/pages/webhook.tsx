/**
 * One webhook endpoint (/dashboard/webhooks/:id): its facts, what can be done to it, and its
 * delivery log. An id the account has no endpoint for says so, with the way back.
 */
import { useRoute } from "preact-iso";
import { BASE } from "../paths";
import { api, CandidateContractError, ok } from "../api";
import { ErrorNote, Loading } from "../components/notes";
import { Page } from "../components/page";
import { StatusBadge, Time } from "../components/values";
import { useLoad } from "../load";
import { useCan } from "../session";
import { EndpointActions } from "./webhook/actions";
import { Deliveries } from "./webhook/deliveries";

export function WebhookPage() {
  const { id } = useRoute().params;
  const canWrite = useCan()("webhooks:write");
  const read = useLoad(() => ok(api.GET("/v1/webhook_endpoints/{id}", { params: { path: { id } } })), [id]);
  const endpoint = read.data;

  if (read.error instanceof CandidateContractError && read.error.code === "WEBHOOK_ENDPOINT_NOT_FOUND") {
    return (
      <Page title="Webhook endpoint not found">
        <p>
          This account has no webhook endpoint with the id <code>{id}</code>: it may have been deleted.
        </p>
        <p>
          <a href={`${BASE}/webhooks`}>Back to the webhook endpoints</a>
        </p>
      </Page>
    );
  }
  return (
    <Page title="Webhook endpoint">
      <p>
        <a href={`${BASE}/webhooks`}>← All webhook endpoints</a>
      </p>
      <ErrorNote error={read.error} />
      {!endpoint && read.loading && <Loading />}
      {endpoint && (
        <>
          <section class="panel" aria-label="Endpoint">
            <dl class="facts">
              <dt>URL</dt>
              <dd class="mono">{endpoint.url}</dd>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={endpoint.status} />
              </dd>
              <dt>Description</dt>
              <dd>{endpoint.description ?? <span class="muted">—</span>}</dd>
              <dt>Notification types</dt>
              <dd>
                {endpoint.enabled_events.map((t, i) => (
                  <span key={t}>
                    {i > 0 && ", "}
                    <code>{t}</code>
                  </span>
                ))}
              </dd>
              <dt>Id</dt>
              <dd class="mono">{endpoint.id}</dd>
              <dt>Created</dt>
              <dd>
                <Time iso={endpoint.created_at} />
              </dd>
              <dt>Changed</dt>
              <dd>
                <Time iso={endpoint.updated_at} />
              </dd>
            </dl>
          </section>
          {canWrite && <EndpointActions key={endpoint.id} endpoint={endpoint} onChanged={read.reload} />}
          <Deliveries key={endpoint.id} endpoint={endpoint} canWrite={canWrite} />
        </>
      )}
    </Page>
  );
}
