/** Typed D1 queries for webhook endpoints and their delivery attempts (migrations/0004). */
import type { NotificationType } from "../notifications/notification";
import type { SqlFragment } from "./idempotency";

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

/** The secrets that sign a delivery at `now`: the current one and those retired less than 24 h ago. */
export function signingSecrets(endpoint: EndpointRow, now: number): string[] {
  const retired = (JSON.parse(endpoint.retired_secrets) as RetiredSecret[]).filter((r) => r.until > now);
  return [endpoint.secret, ...retired.map((r) => r.secret)];
}

/**
 * The statement that creates an endpoint unless the account holds the maximum already (one
 * statement: no race), and, given `held`, only while the request holds its Idempotency-Key.
 */
export function insertEndpointStatement(db: D1Database, e: NewEndpoint, held?: { sql: string; params: (string | number)[] }) {
  return db
    .prepare(
      `INSERT INTO webhook_endpoints (id, account_id, url, description, enabled_events, status, secret, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?5, 'enabled', ?6, ?7, ?7
       WHERE (SELECT COUNT(*) FROM webhook_endpoints WHERE account_id = ?2) < ?8${held ? ` AND ${held.sql}` : ""}`,
    )
    .bind(e.id, e.accountId, e.url, e.description, JSON.stringify(e.enabledEvents), e.secret, e.now, MAX_WEBHOOK_ENDPOINTS, ...(held?.params ?? []));
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
});

export async function listEndpoints(db: D1Database, accountId: string): Promise<EndpointRow[]> {
  const { results } = await db.prepare(`SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY id DESC`).bind(accountId).all<EndpointRow>();
  return results;
}

export async function getEndpoint(db: D1Database, accountId: string, id: string) {
  return db.prepare(`SELECT * FROM webhook_endpoints WHERE account_id = ? AND id = ?`).bind(accountId, id).first<EndpointRow>();
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  enabledEvents?: NotificationType[];
  status?: "enabled" | "disabled";
}

/** Applies the given changes; re-enabling clears the failure streak. Null when there is no such endpoint. */
export async function updateEndpoint(db: D1Database, accountId: string, id: string, c: EndpointChanges, now: number) {
  const changes: [column: string, value: string | number | null][] = [["updated_at", now]];
  if (c.url !== undefined) changes.push(["url", c.url]);
  if (c.description !== undefined) changes.push(["description", c.description]);
  if (c.enabledEvents !== undefined) changes.push(["enabled_events", JSON.stringify(c.enabledEvents)]);
  if (c.status !== undefined) changes.push(["status", c.status]);
  if (c.status === "enabled") changes.push(["failing_since", null]);
  const sets = changes.map(([column]) => `${column} = ?`);
  const params = changes.map(([, value]) => value);
  return db
    .prepare(`UPDATE webhook_endpoints SET ${sets.join(", ")} WHERE account_id = ? AND id = ? RETURNING *`)
    .bind(...params, accountId, id)
    .first<EndpointRow>();
}

/** Deletes the endpoint and its delivery log; false when there is no such endpoint. */
export async function deleteEndpoint(db: D1Database, accountId: string, id: string): Promise<boolean> {
  const [deleted] = await db.batch([
    db.prepare(`DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?`).bind(accountId, id),
    db.prepare(`DELETE FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ?`).bind(accountId, id),
  ]);
  return deleted.meta.changes === 1;
}

/**
 * The statement that rotates an endpoint's secret, as one UPDATE of the row as it is when it
 * runs: the new secret signs from `now` on, the one it replaces keeps signing until
 * `retireUntil`, beside those retired earlier and still in their overlap. Rotations arriving
 * together each apply in turn, none lost. Given `held`, only while the request holds its
 * Idempotency-Key. Returns the rotated row (none: no such endpoint, or the key was lost).
 */
export function rotateSecretStatement(
  db: D1Database,
  endpoint: { account_id: string; id: string },
  secret: string,
  retireUntil: number,
  now: number,
  held?: SqlFragment,
) {
  return db
    .prepare(
      `UPDATE webhook_endpoints SET secret = ?1, updated_at = ?2,
         retired_secrets = (
           SELECT json_group_array(json(retired)) FROM (
             SELECT value AS retired FROM json_each(webhook_endpoints.retired_secrets) WHERE json_extract(value, '$.until') > ?2
             UNION ALL SELECT json_object('secret', webhook_endpoints.secret, 'until', ?3)))
       WHERE account_id = ?4 AND id = ?5${held ? ` AND ${held.sql}` : ""}
       RETURNING *`,
    )
    .bind(secret, now, retireUntil, endpoint.account_id, endpoint.id, ...(held?.params ?? []));
}

/**
 * The endpoint with its secret as the API shows it, as SQL over the row with this id and secret
 * (the answer to a rotation, recorded with it). Its instants are given: they are not the row's
 * epoch milliseconds but their ISO text.
 */
export const endpointWithSecretJson = (id: string, secret: string, createdAt: string, updatedAt: string): SqlFragment => ({
  sql: `(SELECT json_object('id', id, 'url', url, 'description', description, 'enabled_events', json(enabled_events), 'status', status,
                            'created_at', ?, 'updated_at', ?, 'secret', secret)
         FROM webhook_endpoints WHERE id = ? AND secret = ?)`,
  params: [createdAt, updatedAt, id, secret],
});

/** The account's enabled endpoints that take notifications of this type. */
export async function subscribedEndpoints(db: D1Database, accountId: string, type: NotificationType) {
  const { results } = await db
    .prepare(
      `SELECT id FROM webhook_endpoints
       WHERE account_id = ? AND status = 'enabled' AND EXISTS (SELECT 1 FROM json_each(enabled_events) WHERE value = ?)`,
    )
    .bind(accountId, type)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

export interface AttemptRow {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  account_id: string;
  notification_id: string;
  type: NotificationType;
  attempt: number;
  status: "pending" | "succeeded" | "failed";
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  attempted_at: number;
  next_attempt_at: number | null;
}

/** Records an attempt and what it means for its endpoint, in one D1 transaction. */
export async function recordAttempt(db: D1Database, a: AttemptRow, endpoint: { disable: boolean }) {
  const succeeded = a.status === "succeeded";
  await db.batch([
    db
      .prepare(
        // Not for an endpoint deleted while the attempt ran: its log went with it.
        `INSERT INTO webhook_deliveries (id, delivery_id, endpoint_id, account_id, notification_id, type, attempt, status,
                                         response_status, error, duration_ms, attempted_at, next_attempt_at)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
         WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?3)`,
      )
      .bind(a.id, a.delivery_id, a.endpoint_id, a.account_id, a.notification_id, a.type, a.attempt, a.status,
        a.response_status, a.error, a.duration_ms, a.attempted_at, a.next_attempt_at),
    succeeded
      ? db.prepare(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?`).bind(a.endpoint_id)
      : db
          .prepare(
            `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?),
               status = iif(?, 'disabled', status), updated_at = iif(?, ?, updated_at)
             WHERE id = ?`,
          )
          .bind(a.attempted_at, endpoint.disable ? 1 : 0, endpoint.disable ? 1 : 0, a.attempted_at, a.endpoint_id),
  ]);
}

/** Marks the last attempt of a delivery failed (the dead-letter queue's consumer). */
export async function markDeliveryFailed(db: D1Database, deliveryId: string, error: string) {
  await db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = COALESCE(error || '; ', '') || ?
       WHERE delivery_id = ? AND attempt = (SELECT MAX(attempt) FROM webhook_deliveries WHERE delivery_id = ?) AND status = 'pending'`,
    )
    .bind(error, deliveryId, deliveryId)
    .run();
}

/** A page of an endpoint's attempts, newest first; `cursorValid` is false when `after` is none of them. */
export async function attemptsPage(db: D1Database, accountId: string, endpointId: string, after: string | undefined, limit: number) {
  const page = db
    .prepare(
      `SELECT * FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? ${after === undefined ? "" : "AND id < ?"}
       ORDER BY id DESC LIMIT ?`,
    )
    .bind(accountId, endpointId, ...(after === undefined ? [] : [after]), limit + 1);
  const cursor = db.prepare(`SELECT 1 FROM webhook_deliveries WHERE id = ? AND endpoint_id = ? AND account_id = ?`).bind(after ?? "", endpointId, accountId);
  const [rows, found] = await db.batch<AttemptRow>([page, cursor]);
  const results = rows.results;
  return {
    rows: results.slice(0, limit),
    nextCursor: results.length > limit ? results[limit - 1].id : null,
    cursorValid: after === undefined || found.results.length > 0,
  };
}

/** Deletes up to `batch` attempts older than `before`; returns how many went. */
export async function purgeOldAttempts(db: D1Database, before: number, batch = 5000) {
  const result = await db
    .prepare(`DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid FROM webhook_deliveries WHERE attempted_at <= ? LIMIT ?)`)
    .bind(before, batch)
    .run();
  return result.meta.changes;
}
