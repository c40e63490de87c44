/** Typed D1 queries for webhook endpoints (migrations/0004, 0006); their attempts are in webhook-deliveries.ts. */
import type { NotificationType } from "../notifications/notification";
import type { SqlFragment } from "./idempotency";
import { numbered } from "./sql-params";
import type { D1 } from "../shards";

export const MAX_WEBHOOK_ENDPOINTS = 16;

export interface EndpointRow {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  enabled_events: string; // JSON array
  status: "enabled" | "disabled";
  secret: string;
  retired_secrets: string; // JSON RetiredSecret[]
  failing_since: number | null;
  created_at: number;
  updated_at: number;
  /** JSON {type: epoch ms}: since when it has taken each type it takes now (notifications/redrive.ts). */
  subscribed_since: string;
}

export interface NewEndpoint {
  id: string;
  accountId: string;
  url: string;
  description: string | null;
  enabledEvents: NotificationType[];
  secret: string;
  now: number;
}

/** A secret replaced by a rotation, which still signs until `until`. */
export interface RetiredSecret {
  secret: string;
  until: number;
}

/**
 * Replaced secrets signing at once, at most. Each adds a signature to every delivery's header,
 * and receivers refuse headers past a few KiB (431), so a rotation that would make one more is
 * refused (each signs its 24 h, as promised, rather than stop early).
 */
export const MAX_RETIRED_SECRETS = 16;

/** The replaced secrets still signing at `now`, oldest first. */
export const retiredSecrets = (endpoint: EndpointRow, now: number): RetiredSecret[] =>
  (JSON.parse(endpoint.retired_secrets) as RetiredSecret[]).filter((r) => r.until > now);

/** The secrets that sign a delivery at `now`: the current one and those retired less than 24 h ago. */
export function signingSecrets(endpoint: EndpointRow, now: number): string[] {
  // The newest MAX_RETIRED_SECRETS: a row rotated before rotations were refused may hold more.
  const retired = retiredSecrets(endpoint, now).slice(-MAX_RETIRED_SECRETS);
  return [endpoint.secret, ...retired.map((r) => r.secret)];
}

/**
 * The statement that creates an endpoint unless the account holds the maximum already (one
 * statement: no race), and, given `onlyIf`, only while that holds (no answer of the request's
 * Idempotency-Key stored yet).
 */
export function insertEndpointStatement(db: D1, e: NewEndpoint, onlyIf?: SqlFragment) {
  return db
    .prepare(
      `INSERT INTO webhook_endpoints (id, account_id, url, description, enabled_events, status, secret, created_at, updated_at, subscribed_since)
       SELECT ?1, ?2, ?3, ?4, ?5, 'enabled', ?6, ?7, ?7, (SELECT json_group_object(value, CAST(?7 AS INTEGER)) FROM json_each(?5))
       WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE account_id = ?2) < ?8${onlyIf ? ` AND ${onlyIf.sql}` : ""}`,
    )
    .bind(
      e.id,
      e.accountId,
      e.url,
      e.description,
      JSON.stringify(e.enabledEvents),
      e.secret,
      e.now,
      MAX_WEBHOOK_ENDPOINTS,
      ...(onlyIf?.params ?? []),
    );
}

/** The row a new endpoint is: what the API shows of it right after its creation. */
export const newEndpointRow = (e: NewEndpoint): EndpointRow => ({
  id: e.id,
  account_id: e.accountId,
  url: e.url,
  description: e.description,
  enabled_events: JSON.stringify(e.enabledEvents),
  status: "enabled",
  secret: e.secret,
  retired_secrets: "[]",
  failing_since: null,
  created_at: e.now,
  updated_at: e.now,
  subscribed_since: JSON.stringify(Object.fromEntries(e.enabledEvents.map((type) => [type, e.now]))),
});

export async function listEndpoints(db: D1, accountId: string): Promise<EndpointRow[]> {
  const { results } = await db
    .prepare(`SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY id DESC`)
    .bind(accountId)
    .all<EndpointRow>();
  return results;
}

export async function getEndpoint(db: D1, accountId: string, id: string) {
  return db
    .prepare(`SELECT * FROM webhook_endpoints WHERE account_id = ? AND id = ?`)
    .bind(accountId, id)
    .first<EndpointRow>();
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: NotificationType[];
  status?: "enabled" | "disabled";
}

/**
 * What the endpoint takes after a change of its status or enabled_events (binds, in order: the new
 * status or null, the instant twice, the new enabled_events or null): a type it took before and still
 * takes, enabled before and after, keeps its instant; any other type it takes starts now. In an
 * UPDATE's SET, the row's columns are its values before the change, so a PATCH that sends what
 * the endpoint already has changes nothing it is owed. (D1 binds a number as REAL: cast, so JSON
 * holds integers, as the column's own rows do.)
 */
const SUBSCRIBED_SINCE_AFTER_CHANGE = `(
  SELECT json_group_object(t.value, iif(status = 'enabled' AND coalesce(?, status) = 'enabled',
    coalesce(json_extract(subscribed_since, '$."' || t.value || '"'), CAST(? AS INTEGER)), CAST(? AS INTEGER)))
  FROM json_each(coalesce(?, enabled_events)) t)`;

/**
 * An endpoint's `updated_at` after a change: strictly later than the one before, even within one
 * millisecond, so that every change has a stamp of its own (a delivery attempt tells by it whether
 * its endpoint changed while it was out: recordFailure in webhook-deliveries.ts).
 */
export const NEXT_STAMP = (now: string) => `max(${now}, updated_at + 1)`;

/**
 * Applies the given changes; re-enabling a disabled endpoint clears its failure streak. A PATCH
 * that changes nothing is no change: `updated_at` stays. Null when there is no such endpoint.
 */
export async function updateEndpoint(db: D1, accountId: string, id: string, c: EndpointChanges, now: number) {
  const changes: [column: string, value: string | number | null][] = [];
  if (c.url !== undefined) changes.push(["url", c.url]);
  if (c.description !== undefined) changes.push(["description", c.description]);
  if (c.enabledEvents !== undefined) changes.push(["enabled_events", JSON.stringify(c.enabledEvents)]);
  if (c.status !== undefined) changes.push(["status", c.status]);
  const differs = changes.map(([column]) => `${column} IS NOT ?`).join(" OR ");
  const sets = [
    `updated_at = iif(${differs}, ${NEXT_STAMP("?")}, updated_at)`,
    ...changes.map(([column]) => `${column} = ?`),
  ];
  // Enabling a disabled endpoint starts a new streak; `enabled` sent to an enabled one (a client
  // re-sending it on a timer, say) leaves the streak running, so a dead endpoint is still disabled.
  if (c.status === "enabled") sets.push(`failing_since = iif(status = 'disabled', NULL, failing_since)`);
  const values = changes.map(([, value]) => value);
  const params: (string | number | null)[] = [...values, now, ...values];
  if (c.enabledEvents !== undefined || c.status !== undefined) {
    sets.push(`subscribed_since = ${SUBSCRIBED_SINCE_AFTER_CHANGE}`);
    params.push(c.status ?? null, now, now, c.enabledEvents ? JSON.stringify(c.enabledEvents) : null);
  }
  return db
    .prepare(`UPDATE webhook_endpoints SET ${sets.join(", ")} WHERE account_id = ? AND id = ? RETURNING *`)
    .bind(...params, accountId, id)
    .first<EndpointRow>();
}

/** Deletes the endpoint and its delivery log; false when there is no such endpoint. */
export async function deleteEndpoint(db: D1, accountId: string, id: string): Promise<boolean> {
  const [deleted] = await db.batch([
    db.prepare(`DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?`).bind(accountId, id),
    db.prepare(`DELETE FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ?`).bind(accountId, id),
  ]);
  return deleted.meta.changes === 1;
}

/**
 * The statement that rotates an endpoint's secret, as one UPDATE of the row, only while what its
 * answer shows besides the secret (url, description, enabled_events, status) is as `endpoint` was
 * read: the answer, with the new secret, is made from that read before the UPDATE runs, so it can
 * be stored sealed (sealed-answers.ts) in the same transaction. The new secret signs from `now`
 * on, the one it replaces keeps signing until `retireUntil`, beside those retired earlier and
 * still in their overlap (oldest first), unless MAX_RETIRED_SECRETS of those are signing already.
 * Rotations arriving together each apply in turn, none lost. Given `onlyIf`, only while that holds too (no
 * answer of the request's Idempotency-Key stored yet). Changes no row when there is no such
 * endpoint, when it changed since the read (a PATCH, a disabling, a rotation that filled the
 * overlap), or when the key's earlier request rotated it.
 */
export function rotateSecretStatement(
  db: D1,
  endpoint: EndpointRow,
  secret: string,
  retireUntil: number,
  now: number,
  onlyIf?: SqlFragment,
) {
  return db
    .prepare(
      `UPDATE webhook_endpoints SET secret = ?1, updated_at = ?2,
         retired_secrets = (
           SELECT json_group_array(json(retired)) FROM (
             SELECT retired FROM (
               SELECT value AS retired, key AS position FROM json_each(webhook_endpoints.retired_secrets)
                 WHERE json_extract(value, '$.until') > ?2
               UNION ALL SELECT json_object('secret', webhook_endpoints.secret, 'until', ?3),
                                json_array_length(webhook_endpoints.retired_secrets)
               ORDER BY position DESC LIMIT ${MAX_RETIRED_SECRETS})
             ORDER BY position))
       WHERE account_id = ?4 AND id = ?5 AND url = ?6 AND description IS ?7 AND enabled_events = ?8
         AND status = ?9
         AND (SELECT COUNT(*) FROM json_each(retired_secrets) WHERE json_extract(value, '$.until') > ?2)
             < ${MAX_RETIRED_SECRETS}${onlyIf ? ` AND ${numbered(onlyIf.sql, 10)}` : ""}`,
    )
    .bind(
      secret,
      now,
      retireUntil,
      endpoint.account_id,
      endpoint.id,
      endpoint.url,
      endpoint.description,
      endpoint.enabled_events,
      endpoint.status,
      ...(onlyIf?.params ?? []),
    );
}

/** The account's enabled endpoints that take notifications of this type. */
export async function subscribedEndpoints(db: D1, accountId: string, type: NotificationType) {
  const { results } = await db
    .prepare(
      `SELECT id FROM webhook_endpoints
       WHERE account_id = ? AND status = 'enabled' AND EXISTS (SELECT 1 FROM json_each(enabled_events) WHERE value = ?)`,
    )
    .bind(accountId, type)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}
