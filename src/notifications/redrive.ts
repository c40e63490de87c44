/**
 * Deliveries a queue lost, made again: notifications in the feed whose delivery an enabled
 * endpoint taking their type never received (its object holds no record of it), where the
 * endpoint took its type then and has since (`subscribed_since`, per type: one disabled or
 * subscribed to other types then was right to get nothing; a new description, URL or secret, or a
 * type added beside it, changes nothing it is owed).
 *
 * Cloudflare's queues keep a message once it is sent. Miniflare's live in memory: a notification
 * recorded in the second before `npm run dev` stops is in the feed but reaches no endpoint. The
 * restarted dev server runs this once it has settled (scripts/dev.ts, through the operator API),
 * for the notifications recorded before it was ready: anything recorded since went through this
 * run's queues, and may still be on its way.
 */
import { accountDatabases, shardDb, type ShardName } from "../shards";
import { deliveryMessage } from "./fanout";
import { endpointObject } from "./endpoint-object";
import type { DeliveryMessage } from "./attempt";

/**
 * How far back it looks: an endpoint's object remembers a delivery for 24 h after it ended (after
 * it was recorded, then): an hour less, so none it received is taken for lost.
 */
export const REDRIVE_WINDOW_MS = 23 * 3_600_000;
/** At most this many (notification, endpoint) pairs per database in one run. */
const REDRIVE_LIMIT = 10_000;

type Pair = { notification_id: string; account_id: string; endpoint_id: string };

/**
 * Queues again every delivery lost of a notification recorded from REDRIVE_WINDOW_MS before `now`
 * until `before`, on every database; answers how many.
 */
export async function redriveLostDeliveries(env: Env, before: number, now: number): Promise<number> {
  let queued = 0;
  for (const shard of accountDatabases(env)) {
    const lost = await lostOn(env, shard, now - REDRIVE_WINDOW_MS, Math.min(before, now));
    for (let i = 0; i < lost.length; i += 100)
      await env.DELIVERIES.sendBatch(lost.slice(i, i + 100).map((body) => ({ body })));
    queued += lost.length;
  }
  return queued;
}

async function lostOn(env: Env, shard: ShardName, since: number, before: number): Promise<DeliveryMessage[]> {
  const { results } = await shardDb(env, shard)
    .prepare(
      `SELECT n.id AS notification_id, n.account_id, e.id AS endpoint_id
       FROM notifications n INDEXED BY notifications_by_age
       JOIN webhook_endpoints e ON e.account_id = n.account_id
       WHERE n.recorded_at >= ?1 AND n.recorded_at < ?2
         AND e.status = 'enabled'
         AND json_extract(e.subscribed_since, '$."' || n.type || '"') <= n.recorded_at
       LIMIT ?3`,
    )
    .bind(since, before, REDRIVE_LIMIT)
    .all<Pair>();
  const byEndpoint = Map.groupBy(results, (pair) => pair.endpoint_id);
  const lost: DeliveryMessage[] = [];
  for (const [endpointId, pairs] of byEndpoint) {
    const unknown = new Set(await endpointObject(env, endpointId).neverReceived(pairs.map((p) => p.notification_id)));
    for (const pair of pairs)
      if (unknown.has(pair.notification_id))
        lost.push(deliveryMessage(pair.notification_id, pair.account_id, endpointId, shard));
  }
  return lost;
}
