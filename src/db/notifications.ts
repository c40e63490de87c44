/** Typed D1 queries for the notifications feed (migrations/0004_notifications.sql). */
import type { JsonText } from "../domain/json";
import { parseNotificationId, type Notification, type NotificationType } from "../notifications/notification";
import type { D1 } from "../shards";

/** Notifications are kept in the feed this long after they reach it. */
export const FEED_RETENTION_MS = 30 * 24 * 3_600_000;

export interface FeedEntry {
  id: string;
  type: NotificationType;
  payload: string;
  accountId: string;
  alias: string;
}

/** Appends a notification to the feed; a second write of the same id is ignored. */
export function feedInsertStatement(db: D1, n: FeedEntry, now: number) {
  return db
    .prepare(
      `INSERT OR IGNORE INTO notifications (id, account_id, type, candidate_alias, recorded_at, payload) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .bind(n.id, n.accountId, n.type, n.alias, now, n.payload);
}

export interface FeedQuery {
  after?: string;
  type?: NotificationType;
  candidateAlias?: string;
  limit: number;
}

/** A page of the account's feed, oldest first, in the order recorded. */
export async function feedPage(db: D1, accountId: string, q: FeedQuery, now: number) {
  const where = ["account_id = ?1"];
  const params: (string | number)[] = [accountId];
  if (q.type) where.push(`type = ?${params.push(q.type)}`);
  if (q.candidateAlias !== undefined) where.push(`candidate_alias = ?${params.push(q.candidateAlias)}`);
  /** The page after the notification `after` names, or from the oldest kept. */
  const page = (after?: string) =>
    db
      .prepare(
        `SELECT id, payload FROM notifications WHERE ${where.join(" AND ")}
           ${after === undefined ? "" : `AND seq > (SELECT seq FROM notifications WHERE id = ?${params.length + 2} AND account_id = ?1)`}
         ORDER BY seq LIMIT ?${params.length + 1}`,
      )
      .bind(...params, q.limit + 1, ...(after === undefined ? [] : [after]));
  const fromOldest = async () =>
    toPage((await page().all<{ id: string; payload: JsonText<Notification> }>()).results, q.limit, true);
  if (q.after === undefined) return fromOldest();
  const cursor = db.prepare(`SELECT 1 FROM notifications WHERE id = ? AND account_id = ?`).bind(q.after, accountId);
  const [rows, found] = await db.batch<{ id: string; payload: JsonText<Notification> }>([page(q.after), cursor]);
  if (found.results.length > 0) return toPage(rows.results, q.limit, true);
  // An id of this account's that aged out of the feed: everything recorded up to it went with it
  // (the purge goes oldest first), so its reader goes on from the oldest notification kept.
  if (await agedOut(db, accountId, q.after, now)) return fromOldest();
  return toPage([], q.limit, false);
}

/**
 * Whether `id` names a transition one of the account's candidates made more than the retention
 * ago (ids: notification.ts): the candidate's index row says when it entered each status. An id
 * of a transition that never happened, or too recently to have gone, is not a cursor.
 */
async function agedOut(db: D1, accountId: string, id: string, now: number) {
  const named = parseNotificationId(id);
  if (!named) return false;
  // PENDING was entered if a review ran, or may have been for no time at all: a resolve in the very
  // millisecond the candidate became PENDING leaves no review (pending_until = open_until) after
  // its PENDING was notified. Only a contract without a review window never enters it.
  const entered =
    named.status === "PENDING"
      ? "(pending_until > open_until OR json_extract(contract, '$.review_window') > 0) AND open_until <= ?3"
      : "final_status = ?4 AND pending_until <= ?3";
  const row = await db
    .prepare(`SELECT 1 FROM candidates WHERE id = ?1 AND account_id = ?2 AND ${entered}`)
    .bind(named.candidateId, accountId, now - FEED_RETENTION_MS, ...(named.status === "PENDING" ? [] : [named.status]))
    .first();
  return row !== null;
}

function toPage(rows: { id: string; payload: JsonText<Notification> }[], limit: number, cursorValid: boolean) {
  const shown = rows.slice(0, limit);
  return {
    payloads: shown.map((r) => r.payload),
    nextCursor: rows.length > limit ? shown[shown.length - 1].id : null,
    cursorValid,
  };
}

export async function feedEntry(db: D1, accountId: string, id: string) {
  return db
    .prepare(`SELECT id, type, payload FROM notifications WHERE id = ? AND account_id = ?`)
    .bind(id, accountId)
    .first<{ id: string; type: NotificationType; payload: JsonText<Notification> }>();
}

/**
 * Deletes up to `batch` notifications past the retention, in feed order; returns how many went.
 * Only a prefix of the feed goes: everything before the first notification still kept. Feed
 * order is commit order (`seq`), and `recorded_at` is the object's clock before its round trip,
 * so two flushes can commit in the other order than their stamps; deleting by age alone could
 * take a later notification and keep an earlier one, and a reader whose cursor was the one taken
 * would start again from the oldest kept and see it twice. Each account's newest stays, whatever
 * its age: a quiet account's reader tails the feed `after` it. (An id that went still works as
 * `after`: feedPage.)
 */
/** The purge's statement (?1: the oldest instant kept, ?2: at most this many rows). */
export const PURGE_NOTIFICATIONS_SQL = `DELETE FROM notifications WHERE seq IN (
         SELECT seq FROM notifications old
         -- NOT INDEXED: walked in feed order from the oldest, the first row still kept is found
         -- after as many rows as the purge will take (by the age index, it would sort 30 days).
         WHERE seq < COALESCE((SELECT seq FROM notifications NOT INDEXED WHERE recorded_at > ?1 ORDER BY seq LIMIT 1), 9223372036854775807)
           AND seq < (SELECT MAX(seq) FROM notifications newer WHERE newer.account_id = old.account_id)
         ORDER BY seq LIMIT ?2)`;

export async function purgeOldNotifications(db: D1, now: number, batch = 5000) {
  const result = await db
    .prepare(PURGE_NOTIFICATIONS_SQL)
    .bind(now - FEED_RETENTION_MS, batch)
    .run();
  return result.meta.changes;
}
