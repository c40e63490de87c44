/**
 * The hourly purge: the answers of keyed D1 changes past their 24 hours (the keys' own records
 * expire by their objects' alarms), notifications and delivery
 * attempts past their 30 days, dashboard sessions past their 7 days, and old sign-in links. Each
 * in batches, so one run stays short (the next takes the rest).
 */
import { purgeExpiredAnswers } from "./db/idempotency";
import { FEED_RETENTION_MS, purgeOldNotifications } from "./db/notifications";
import { purgeOldAttempts } from "./db/webhook-deliveries";
import { purgeEndedSessions } from "./db/sessions";
import { IDEMPOTENCY_KEEP_MS } from "./idempotency";

export async function purgeExpired(db: D1Database, now: number, maxBatches = 20) {
  const purges = [
    () => purgeExpiredAnswers(db, now - IDEMPOTENCY_KEEP_MS),
    () => purgeOldNotifications(db, now),
    () => purgeOldAttempts(db, now - FEED_RETENTION_MS),
    () => purgeEndedSessions(db, now),
  ];
  for (const purge of purges) {
    for (let batch = 0; batch < maxBatches && (await purge()) > 0; batch++);
  }
}
