/**
 * An endpoint's delivery log: every attempt, newest first, paged by cursor, filtered by status
 * and notification id (kept in the address, so a link can open one notification's attempts).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, ok, type Models } from "../../api";
import { described, Field } from "../../components/fields";
import { ChangeNotice, Empty, Loading } from "../../components/notes";
import { Pager, useCursor } from "../../components/pager";
import { StatusBadge, Time } from "../../components/values";
import { useLoad } from "../../load";
import { Resend } from "../notifications/resend";
import { FormError } from "../shared/form-error";
import { TableWrap } from "../../components/table-wrap";

type Endpoint = Models["WebhookEndpoint"];
type Status = "pending" | "succeeded" | "failed";
const STATUSES: Status[] = ["pending", "succeeded", "failed"];
const PAGE_SIZE = 25;

export function Deliveries({ endpoint, canWrite }: { endpoint: Endpoint; canWrite: boolean }) {
  const { path, query, route } = useLocation();
  const status = STATUSES.find((s) => s === query.status);
  const notificationId = query.notification_id || undefined;
  const cursor = useCursor();
  const log = useLoad(
    () =>
      ok(
        api.GET("/v1/webhook_endpoints/{id}/deliveries", {
          params: {
            path: { id: endpoint.id },
            query: { after: cursor.after, limit: PAGE_SIZE, status, notification_id: notificationId },
          },
        }),
      ),
    [endpoint.id, cursor.after, status, notificationId],
  );
  const [typed, setTyped] = useState(notificationId ?? "");
  const filterButton = useRef<HTMLButtonElement>(null);
  useEffect(() => setTyped(notificationId ?? ""), [notificationId]);
  // A resend's attempts arrive within seconds: read the log again a little later.
  const later = useRef<number | undefined>(undefined);
  useEffect(() => () => clearTimeout(later.current), []);
  const [resent, setResent] = useState<{ delivery_id: string; notification_id: string } | null>(null);
  const reloadSoon = (answer: { delivery_id: string; notification_id: string }) => {
    setResent(answer);
    clearTimeout(later.current);
    later.current = window.setTimeout(log.reload, 3000);
  };

  const filter = (next: { status?: string; notification_id?: string }) => {
    const q = new URLSearchParams(
      Object.entries({ status, notification_id: notificationId, ...next }).filter((e): e is [string, string] => !!e[1]),
    );
    route(q.size ? `${path}?${q}` : path);
  };

  const attempts = log.data?.data;
  // One Resend per notification on the page, beside its newest attempt.
  const seen = new Set<string>();
  const canResend = canWrite && endpoint.status === "enabled";
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Delivery log</h2>
      <p class="muted">
        Every attempt to deliver a notification here, newest first, kept 30 days. Tests are not logged.
        {canWrite && endpoint.status === "disabled" && " Enable the endpoint to resend."}
      </p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          filter({ notification_id: typed.trim() });
        }}
      >
        <div class="row">
          <Field id="log-status" label="Status">
            <select id="log-status" value={status ?? ""} onChange={(e) => filter({ status: e.currentTarget.value })}>
              <option value="">Any</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </Field>
          <Field id="log-notification" label="Notification id" error={log.error} path="notification_id">
            <input
              {...described("log-notification", log.error, "notification_id")}
              value={typed}
              onInput={(e) => setTyped(e.currentTarget.value)}
              spellcheck={false}
              placeholder="ntf_…"
            />
          </Field>
          <div class="field">
            <button type="submit" ref={filterButton}>
              Filter
            </button>
          </div>
          {(status || notificationId) && (
            <div class="field">
              <button
                type="button"
                class="secondary"
                // It goes with the filters: the focus goes to Filter rather than the page's body.
                onClick={() => (route(path), filterButton.current?.focus())}
              >
                Clear filters
              </button>
            </div>
          )}
          <div class="field">
            <button
              type="button"
              class="secondary"
              onClick={() => !log.loading && log.reload()}
              aria-disabled={log.loading || undefined}
            >
              {log.loading ? "Reading…" : "Refresh"}
            </button>
          </div>
        </div>
      </form>
      {resent && (
        // Focused as it appears: the Resend pressed moves to the new attempt's row when the log is read again.
        <ChangeNotice
          text={`Resent ${resent.notification_id}: delivery ${resent.delivery_id} is queued; its attempts appear below within seconds.`}
          shown={resent}
          onClose={() => setResent(null)}
        />
      )}
      <FormError error={log.error} paths={["notification_id", "status"]} />
      {!attempts && log.loading && <Loading />}
      {attempts && attempts.length === 0 && (
        <Empty title={status || notificationId ? "No attempts match these filters" : "No delivery attempts yet"}>
          <p>
            Attempts appear here when a candidate enters a status this endpoint takes (
            {endpoint.enabled_events.join(", ")}), or after a resend from the Notifications page.
          </p>
        </Empty>
      )}
      {attempts && attempts.length > 0 && (
        <TableWrap label="Delivery attempts">
          <table class="wide xwide">
            <caption class="visually-hidden">Delivery attempts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Notification</th>
                <th scope="col">Type</th>
                <th scope="col" class="num">
                  Attempt
                </th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Response
                </th>
                <th scope="col">Error</th>
                <th scope="col" class="num">
                  Duration
                </th>
                <th scope="col">Attempted</th>
                <th scope="col">Next attempt</th>
                {canResend && <th scope="col">Resend</th>}
              </tr>
            </thead>
            <tbody>
              {attempts.map((a) => {
                const first = !seen.has(a.notification_id);
                seen.add(a.notification_id);
                return (
                  <tr key={a.id}>
                    <td class="id-cell">
                      <button
                        type="button"
                        class="link mono"
                        title="Show only this notification's attempts"
                        onClick={() => filter({ notification_id: a.notification_id })}
                      >
                        {a.notification_id}
                      </button>
                    </td>
                    <td>
                      {/* "candidate.<wbr>confirmed": it may break after the dot, so Resend stays in view. */}
                      <code class="at-dots">
                        {a.type.split(".").map((part, i) => (i === 0 ? part : [".", <wbr key={i} />, part]))}
                      </code>
                    </td>
                    <td class="num">#{a.attempt}</td>
                    <td>
                      <StatusBadge status={a.status} />
                    </td>
                    <td class="num">{a.response_status ?? <span class="muted">—</span>}</td>
                    <td class="wrap">{a.error ?? <span class="muted">—</span>}</td>
                    <td class="num">{a.duration_ms === null ? <span class="muted">—</span> : `${a.duration_ms} ms`}</td>
                    <td>
                      <Time iso={a.attempted_at} />
                    </td>
                    <td>
                      <Time iso={a.next_attempt_at} />
                    </td>
                    {canResend && (
                      <td>
                        {first && (
                          <Resend
                            notificationId={a.notification_id}
                            endpoints={[endpoint]}
                            onSent={reloadSoon}
                            onEndpointsPage
                          />
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager cursor={cursor} next={log.data?.next_cursor ?? null} loading={log.loading} />
    </section>
  );
}
