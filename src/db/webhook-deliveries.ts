/**
 * Typed D1 queries for the delivery log: one row per attempt (migrations/0004, 0009). An attempt
 * is written `pending` when its request starts and completed when it is answered, so a person
 * watching an endpoint that keeps a request waiting sees it.
 */
import type { NotificationType } from "../notifications/notification";
import type { DisabledBy } from "../notifications/attempt-outcome";
import type { D1 } from "../shards";
import { NEXT_STAMP } from "./webhooks";

export type AttemptStatus = "pending" | "succeeded" | "failed";
export const ATTEMPT_STATUSES = ["pending", "succeeded", "failed"] as const satisfies readonly AttemptStatus[];

export interface AttemptRow {
  id: string;
  delivery_id: string;
  endpoint_id: string;
  account_id: string;
  notification_id: string;
  type: NotificationType;
  attempt: number;
  status: AttemptStatus;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  attempted_at: number;
  next_attempt_at: number | null;
}

/**
 * Writes an attempt, or completes the one with its id (an attempt interrupted before its answer
 * was recorded is made again under the same id, so it leaves no stale `pending` row). Not for an
 * endpoint deleted meanwhile: its log went with it.
 */
function upsertAttempt(db: D1, a: AttemptRow) {
  return db
    .prepare(
      `INSERT INTO webhook_deliveries (id, delivery_id, endpoint_id, account_id, notification_id, type, attempt, status,
                                       response_status, error, duration_ms, attempted_at, next_attempt_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13
       WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?3)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, response_status = excluded.response_status, error = excluded.error,
         duration_ms = excluded.duration_ms, attempted_at = excluded.attempted_at, next_attempt_at = excluded.next_attempt_at`,
    )
    .bind(
      a.id,
      a.delivery_id,
      a.endpoint_id,
      a.account_id,
      a.notification_id,
      a.type,
      a.attempt,
      a.status,
      a.response_status,
      a.error,
      a.duration_ms,
      a.attempted_at,
      a.next_attempt_at,
    );
}

/** An attempt whose request is starting: `pending` until it is answered. */
export async function recordAttemptStart(
  db: D1,
  a: Omit<AttemptRow, "status" | "response_status" | "error" | "duration_ms" | "next_attempt_at">,
) {
  await upsertAttempt(db, {
    ...a,
    status: "pending",
    response_status: null,
    error: null,
    duration_ms: null,
    next_attempt_at: null,
  }).run();
}

/** Records an answered attempt; a success also ends its endpoint's failure streak, in the same transaction. */
export async function recordAttempt(db: D1, a: AttemptRow) {
  await db.batch([
    upsertAttempt(db, a),
    ...(a.status === "succeeded"
      ? [db.prepare(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ?`).bind(a.endpoint_id)]
      : []),
  ]);
}

/**
 * What a failed attempt, started at `startedAt` and answered at `finishedAt`, means for its
 * endpoint, decided against the endpoint as it is now (not as it was read before sending): it
 * starts or extends the failure streak, and disables the endpoint on `gone` (410) or once the
 * streak is `disableAfterMs` long. An endpoint changed since the attempt read it (its `updated_at`
 * or its secret no longer those read: re-enabled, edited, rotated) is left as it is: the failure
 * was of what it was before, and a person has acted since. Says whether, and why, the endpoint is now disabled: by this failure, or
 * already (a person, or another attempt, disabled it while this one was out).
 */
export async function recordFailure(
  db: D1,
  endpointId: string,
  f: {
    readUpdatedAt: number;
    readSecret: string;
    startedAt: number;
    finishedAt: number;
    gone: boolean;
    disableAfterMs: number;
    now: number;
  },
): Promise<DisabledBy> {
  // What was read, not a clock: exact, whichever machine stamped a change. A PATCH stamps a time
  // later than the last; a rotation stamps its own instant, and changes the secret.
  const unchanged = `id = ?1 AND status = 'enabled' AND updated_at = ?2 AND secret = ?7`;
  const [, disabled, current] = await db.batch<{ id?: string; status?: string }>([
    db
      .prepare(`UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?3) WHERE ${unchanged}`)
      .bind(endpointId, f.readUpdatedAt, f.startedAt, null, null, null, f.readSecret),
    db
      .prepare(
        `UPDATE webhook_endpoints SET status = 'disabled', updated_at = ${NEXT_STAMP("?5")}
         WHERE ${unchanged} AND (?3 OR ?4 - failing_since >= ?6) RETURNING id`,
      )
      .bind(endpointId, f.readUpdatedAt, f.gone ? 1 : 0, f.finishedAt, f.now, f.disableAfterMs, f.readSecret),
    db.prepare(`SELECT status FROM webhook_endpoints WHERE id = ?`).bind(endpointId),
  ]);
  if (disabled.results.length > 0) return f.gone ? "gone" : "failing";
  return current.results[0]?.status === "disabled" ? "already" : null;
}

const endDeliveryStatement = (db: D1, deliveryId: string, reason: string) =>
  db
    .prepare(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = COALESCE(error || '; ', '') || ?
       WHERE delivery_id = ? AND attempt = (SELECT MAX(attempt) FROM webhook_deliveries WHERE delivery_id = ?)
         AND (next_attempt_at IS NOT NULL OR status = 'pending')`,
    )
    .bind(reason, deliveryId, deliveryId);

/**
 * Ends a delivery that will not be attempted (again): its endpoint is disabled, its notification no
 * longer kept, or it could not be handed to its endpoint's sender (the dead-letter queue). Its last
 * attempt, if it was to be retried (or never answered), says so and points to no next attempt;
 * when it never had one, a failed attempt that was never sent says so (so a delivery a resend
 * answered always shows in the log). Nothing for an endpoint deleted meanwhile.
 */
export async function endDelivery(
  db: D1,
  d: { attemptId: string; deliveryId: string; notificationId: string; accountId: string; endpointId: string },
  reason: string,
  now: number,
) {
  await db.batch([
    endDeliveryStatement(db, d.deliveryId, reason),
    db
      .prepare(
        `INSERT INTO webhook_deliveries (id, delivery_id, endpoint_id, account_id, notification_id, type, attempt, status,
                                         response_status, error, duration_ms, attempted_at, next_attempt_at)
         SELECT ?1, ?2, ?3, ?4, n.id, n.type, 1, 'failed', NULL, ?5, NULL, ?6, NULL FROM notifications n
         WHERE n.id = ?7 AND n.account_id = ?4
           AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?3 AND account_id = ?4)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE delivery_id = ?2)`,
      )
      .bind(d.attemptId, d.deliveryId, d.endpointId, d.accountId, `not sent: ${reason}`, now, d.notificationId),
  ]);
}

export interface AttemptFilters {
  notificationId?: string;
  status?: AttemptStatus;
}

/**
 * The query of a page of an endpoint's attempts, newest first: one index range scan in page
 * order whatever the filters (migrations/0009 indexes the notification and the status).
 */
export function attemptsPageQuery(
  accountId: string,
  endpointId: string,
  filters: AttemptFilters,
  after: string | undefined,
  limit: number,
) {
  const where: [condition: string, param: string][] = [
    ["endpoint_id = ?", endpointId],
    ["account_id = ?", accountId],
  ];
  if (filters.notificationId !== undefined) where.push(["notification_id = ?", filters.notificationId]);
  if (filters.status !== undefined) where.push(["status = ?", filters.status]);
  if (after !== undefined) where.push(["id < ?", after]);
  const conditions = where.map(([condition]) => condition);
  const params: (string | number)[] = where.map(([, param]) => param);
  // One notification's attempts are few, one status's may be nearly all: with both filters, the
  // notification's index (SQLite's planner, without statistics, may take the status's).
  const index = filters.notificationId !== undefined ? " INDEXED BY webhook_deliveries_by_notification" : "";
  return [
    `SELECT * FROM webhook_deliveries${index} WHERE ${conditions.join(" AND ")} ORDER BY id DESC LIMIT ?`,
    [...params, limit + 1],
  ] as const;
}

/** A page of an endpoint's attempts, newest first; `cursorValid` is false when `after` is none of them. */
export async function attemptsPage(
  db: D1,
  accountId: string,
  endpointId: string,
  filters: AttemptFilters,
  after: string | undefined,
  limit: number,
) {
  const [sql, params] = attemptsPageQuery(accountId, endpointId, filters, after, limit);
  const cursor = db
    .prepare(`SELECT 1 FROM webhook_deliveries WHERE id = ? AND endpoint_id = ? AND account_id = ?`)
    .bind(after ?? "", endpointId, accountId);
  const [rows, found] = await db.batch<AttemptRow>([db.prepare(sql).bind(...params), cursor]);
  const results = rows.results;
  return {
    rows: results.slice(0, limit),
    nextCursor: results.length > limit ? results[limit - 1].id : null,
    cursorValid: after === undefined || found.results.length > 0,
  };
}

/** Deletes up to `batch` attempts older than `before`; returns how many went. */
export async function purgeOldAttempts(db: D1, before: number, batch = 5000) {
  const result = await db
    .prepare(
      `DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid FROM webhook_deliveries WHERE attempted_at <= ? LIMIT ?)`,
    )
    .bind(before, batch)
    .run();
  return result.meta.changes;
}
