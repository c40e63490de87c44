/**
 * The candidate's notifications (one per status it entered) and, for each, every delivery attempt
 * to each of the account's webhook endpoints (at most 16 endpoints, so the calls stay bounded),
 * with a resend to a chosen endpoint.
 */
import { useState } from "preact/hooks";
import { api, ok, type Models } from "../../api";
import { useLoad } from "../../load";
import { useCan } from "../../session";
import { ErrorNote, Loading } from "../../components/notes";
import { StatusBadge, Time } from "../../components/values";
import { BASE } from "../../paths";
import { TableWrap } from "../../components/table-wrap";
import { takersFirst } from "../notifications/takers-first";
import { Resend } from "../notifications/resend";

type Notification = Models["Notification"];
type Endpoint = Models["WebhookEndpoint"];
type Attempt = Models["WebhookDeliveryAttempt"];

const MAX_ENDPOINTS = 16;

/** `fn` over `items`, at most `limit` at a time, answers in the items' order. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** `signal`: the page is left or read again; its calls (a log per notification and endpoint) stop. */
async function readNotifications(alias: string, withDeliveries: boolean, signal: AbortSignal) {
  const [page, endpoints] = await Promise.all([
    ok(api.GET("/v1/notifications", { signal, params: { query: { candidate_alias: alias, limit: 100 } } })),
    withDeliveries
      ? ok(api.GET("/v1/webhook_endpoints", { signal })).then((r) => r.data.slice(0, MAX_ENDPOINTS))
      : Promise.resolve(null),
  ]);
  const pairs = endpoints ? page.data.flatMap((n) => endpoints.map((endpoint) => ({ n, endpoint }))) : [];
  const attempts = await mapLimited(pairs, 4, ({ n, endpoint }) =>
    ok(
      api.GET("/v1/webhook_endpoints/{id}/deliveries", {
        signal,
        params: { path: { id: endpoint.id }, query: { notification_id: n.id, limit: 100 } },
      }),
    ).then((r) => r.data.map((attempt) => ({ attempt, endpoint }))),
  );
  const byNotification = new Map<string, { attempt: Attempt; endpoint: Endpoint }[]>();
  pairs.forEach(({ n }, i) => byNotification.set(n.id, [...(byNotification.get(n.id) ?? []), ...attempts[i]]));
  return { notifications: page.data, more: page.next_cursor !== null, endpoints, byNotification };
}

const CAUSES: Record<string, string> = {
  activity_window_ended: "the activity window ended",
  review_window_ended: "the review window ended",
  resolved: "it was resolved through the API (confirmed or voided)",
};

export function Notifications({ alias, version }: { alias: string; version: number }) {
  const can = useCan();
  const [resent, setResent] = useState(0);
  const loaded = useLoad(
    (signal) =>
      can("notifications:read") ? readNotifications(alias, can("webhooks:read"), signal) : Promise.resolve(null),
    [alias, version, resent],
  );
  if (!can("notifications:read"))
    return <p class="muted">This session lacks notifications:read, which the notifications need.</p>;
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (!loaded.data) return <Loading />;
  const { notifications, more, endpoints, byNotification } = loaded.data;
  if (notifications.length === 0) {
    return (
      <p class="muted">
        No notifications yet: one is recorded each time the candidate enters PENDING, CONFIRMED or FAILED (kept 30
        days).
      </p>
    );
  }
  return (
    <>
      {endpoints === null && <p class="muted">This session lacks webhooks:read, so the deliveries are not shown.</p>}
      {endpoints?.length === 0 && (
        <p class="muted">
          The account has no webhook endpoints, so nothing was delivered. <a href={`${BASE}/webhooks`}>Add one</a> to
          hear of every change.
        </p>
      )}
      {notifications.map((n) => (
        <NotificationItem
          key={n.id}
          notification={n}
          endpoints={endpoints}
          attempts={byNotification.get(n.id) ?? []}
          onResent={() => setTimeout(() => setResent((r) => r + 1), 1500)}
        />
      ))}
      {more && <p class="muted">Only the first 100 are shown.</p>}
    </>
  );
}

function NotificationItem({
  notification: n,
  endpoints,
  attempts,
  onResent,
}: {
  notification: Notification;
  endpoints: Endpoint[] | null;
  attempts: { attempt: Attempt; endpoint: Endpoint }[];
  onResent: () => void;
}) {
  const can = useCan();
  const cause = n.data.cause;
  return (
    <article class="panel note-item" aria-labelledby={`n-${n.id}`}>
      <h3 id={`n-${n.id}`}>
        <span class="mono">{n.type}</span> <Time iso={n.timestamp} />
      </h3>
      <p class="muted">
        Because{" "}
        {cause.kind === "event" ? (
          <>
            event <span class="mono">{cause.event_id}</span> met the condition
          </>
        ) : (
          CAUSES[cause.kind]
        )}
        . Id <span class="mono">{n.id}</span>
      </p>
      {endpoints &&
        endpoints.length > 0 &&
        (attempts.length === 0 ? (
          <p class="muted">No delivery attempts to the account's endpoints.</p>
        ) : (
          <AttemptsTable attempts={attempts} label={`Delivery attempts of ${n.type}`} />
        ))}
      {endpoints && can("webhooks:write") && (
        <ResendTo notificationId={n.id} endpoints={endpoints} type={n.type} onResent={onResent} />
      )}
    </article>
  );
}

function AttemptsTable({ attempts, label }: { attempts: { attempt: Attempt; endpoint: Endpoint }[]; label: string }) {
  return (
    // A narrow screen scrolls it sideways rather than wrap an endpoint's URL a few letters a line.
    <TableWrap label={label}>
      <table class="wide">
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Attempt</th>
            <th scope="col">Status</th>
            <th scope="col">Answer</th>
            <th scope="col">Attempted</th>
            <th scope="col">Next attempt</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map(({ attempt: a, endpoint }) => (
            <tr key={a.id}>
              <td class="wrap">
                <a href={`${BASE}/webhooks/${encodeURIComponent(endpoint.id)}`} class="mono">
                  {endpoint.url}
                </a>
              </td>
              <td class="num">{a.attempt}</td>
              <td>
                <StatusBadge status={a.status} />
              </td>
              <td>
                {a.response_status !== null && <span class="mono">HTTP {a.response_status}</span>}{" "}
                {a.error && <span>{a.error}</span>}
                {a.response_status === null && !a.error && <span class="muted">—</span>}
              </td>
              <td>
                <Time iso={a.attempted_at} />
              </td>
              <td>
                <Time iso={a.next_attempt_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/** The shared Resend, to an enabled endpoint taking the type first; says what it queued. */
function ResendTo({
  notificationId,
  endpoints,
  type,
  onResent,
}: {
  notificationId: string;
  endpoints: Endpoint[];
  type: string;
  onResent: () => void;
}) {
  const [deliveryId, setDeliveryId] = useState<string | null>(null);
  const enabled = takersFirst(
    endpoints.filter((e) => e.status === "enabled"),
    type,
  );
  // With no endpoint at all, the list above says so once; here only that none is enabled.
  if (enabled.length === 0)
    return endpoints.length === 0 ? null : <p class="muted">No enabled endpoint to resend to.</p>;
  return (
    <>
      <Resend
        notificationId={notificationId}
        endpoints={enabled}
        onSent={(answer) => {
          setDeliveryId(answer.delivery_id);
          onResent();
        }}
      />
      {deliveryId && (
        <p role="status" class="muted">
          Sent again as delivery <span class="mono">{deliveryId}</span>; its attempts appear above.
        </p>
      )}
    </>
  );
}
