/**
 * Webhook endpoints that need a look: the enabled ones whose newest answered attempt failed (one
 * bounded read per endpoint: an account has at most 16; one whose newest succeeded has recovered),
 * and the disabled ones, which receive nothing. A failure from before the endpoint last changed
 * (enabled again, its URL fixed) says nothing of it now, as for its failure streak
 * (docs/notifications.md): it waits for its next answer.
 */
import { api, ok, type Models } from "../../api";
import { useLoad } from "../../load";
import { Empty, ErrorNote, Loading } from "../../components/notes";
import { countOf, Time } from "../../components/values";
import { BASE } from "../../paths";

type Endpoint = Models["WebhookEndpoint"];
type Attempt = Models["WebhookDeliveryAttempt"];

/** More than an account may have (16): a bound on the calls should that limit ever grow. */
const MAX_ENDPOINTS = 20;
/** Attempts read per endpoint, newest first: the newest answered one is among them unless as many are under way. */
const NEWEST = 20;

/** `signal`: the overview is left; the endpoints' logs (one call each) are not asked for. */
async function readFailing(signal: AbortSignal) {
  const endpoints = (await ok(api.GET("/v1/webhook_endpoints", { signal }))).data;
  const enabled = endpoints.filter((e) => e.status === "enabled").slice(0, MAX_ENDPOINTS);
  const newestAnswered = await Promise.all(
    enabled.map((endpoint) =>
      ok(
        api.GET("/v1/webhook_endpoints/{id}/deliveries", {
          signal,
          params: { path: { id: endpoint.id }, query: { limit: NEWEST } },
        }),
      ).then((page) => ({
        endpoint,
        attempt: page.data.find((a) => a.status !== "pending") ?? null,
      })),
    ),
  );
  const failing = newestAnswered.filter(
    (f): f is { endpoint: Endpoint; attempt: Attempt } =>
      f.attempt?.status === "failed" && Date.parse(f.attempt.attempted_at) >= Date.parse(f.endpoint.updated_at),
  );
  failing.sort((a, b) => b.attempt.attempted_at.localeCompare(a.attempt.attempted_at));
  return { endpoints, enabled: enabled.length, failing, disabled: endpoints.filter((e) => e.status === "disabled") };
}

const endpointHref = (endpoint: Endpoint) => `${BASE}/webhooks/${encodeURIComponent(endpoint.id)}`;

export function FailingEndpoints() {
  const loaded = useLoad(readFailing, []);
  const data = loaded.data;
  return (
    <section class="panel overview-part" aria-labelledby="h-failing">
      <h3 id="h-failing">Webhook endpoints</h3>
      <ErrorNote error={loaded.error} />
      {!data ? (
        !loaded.error && <Loading />
      ) : data.endpoints.length === 0 ? (
        <Empty title="No webhook endpoints">
          <p>
            <a href={`${BASE}/webhooks`}>Add an endpoint</a> to hear of every status change as it happens, signed,
            instead of polling.
          </p>
        </Empty>
      ) : (
        <>
          {data.failing.length === 0 && data.disabled.length === 0 && (
            <p>
              {data.enabled === 1
                ? "The enabled endpoint is not failing: its newest answered attempt succeeded, or it has none since it last changed."
                : `None of the ${data.enabled} enabled endpoints is failing: each one's newest answered attempt succeeded, or it has none since it last changed.`}{" "}
              <a href={`${BASE}/webhooks`}>Webhooks</a>
            </p>
          )}
          {(data.failing.length > 0 || data.disabled.length > 0) && (
            <p class="muted">
              Failing now (the newest answered attempt since the endpoint last changed failed): {data.failing.length} of{" "}
              {countOf(data.enabled, "enabled endpoint")}
              {data.disabled.length ? `; ${data.disabled.length} disabled` : ""}. Each endpoint's page has its delivery
              log.
            </p>
          )}
          <ul class="attention">
            {data.failing.map(({ endpoint, attempt }) => (
              <li key={endpoint.id}>
                <a href={endpointHref(endpoint)} class="mono">
                  {endpoint.url}
                </a>
                <span>
                  Newest answered attempt failed <Time iso={attempt.attempted_at} />:{" "}
                  {attempt.response_status !== null ? `HTTP ${attempt.response_status}` : "no answer"}
                  {attempt.error ? ` — ${attempt.error}` : ""} (attempt {attempt.attempt} of{" "}
                  <span class="mono">{attempt.type}</span>
                  {attempt.next_attempt_at ? (
                    <>
                      , next try <Time iso={attempt.next_attempt_at} />
                    </>
                  ) : (
                    ", no more retries"
                  )}
                  ).
                </span>
              </li>
            ))}
            {data.disabled.map((endpoint) => (
              <li key={endpoint.id}>
                <a href={endpointHref(endpoint)} class="mono">
                  {endpoint.url}
                </a>
                <span>
                  <span class="badge status-disabled">disabled</span> it receives nothing (disabled by a caller, a 410
                  Gone or 5 days of failures); enable it on its page.
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
