/**
 * The hourly purge: the answers of keyed D1 changes past their 24 hours (the keys' own records
 * expire by their objects' alarms), notifications and delivery attempts past their 30 days (on
 * every database that holds accounts' data: each shard, and the primary for the accounts from
 * before shards), dashboard sessions past their 7 days and old sign-in links (the primary's).
 * Each in batches, so one run stays short (the next takes the rest); a database that fails is
 * logged and left to the next run, the others purged still.
 */
import { purgeExpiredAnswers } from "./db/idempotency";
import { FEED_RETENTION_MS, purgeOldNotifications } from "./db/notifications";
import { purgeOldAttempts } from "./db/webhook-deliveries";
import { purgeEndedSessions } from "./db/sessions";
import { IDEMPOTENCY_KEEP_MS } from "./idempotency";
import { accountDatabases, PRIMARY, shardDb } from "./shards";

type Purge = () => Promise<number>;

async function drain(purges: Purge[], maxBatches: number) {
  for (const purge of purges) {
    for (let batch = 0; batch < maxBatches && (await purge()) > 0; batch++);
  }
}

export async function purgeExpired(env: Env, now: number, maxBatches = 20) {
  const runs = accountDatabases(env).map(async (shard) => {
    const db = shardDb(env, shard);
    const purges: Purge[] = [
      () => purgeExpiredAnswers(db, now - IDEMPOTENCY_KEEP_MS),
      () => purgeOldNotifications(db, now),
      () => purgeOldAttempts(db, now - FEED_RETENTION_MS),
    ];
    if (shard === PRIMARY) purges.push(() => purgeEndedSessions(db, now));
    try {
      await drain(purges, maxBatches);
    } catch (error) {
      console.error(`purge: ${shard} failed; the next run takes it up`, error);
    }
  });
  await Promise.all(runs);
}
