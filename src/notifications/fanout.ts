/**
 * The notifications queue's consumer: each notification becomes one delivery message per enabled
 * endpoint of the account that takes its type. Deliveries then retry on their own (delivery.ts),
 * so no endpoint waits on another.
 */
import { uuidv7 } from "uuidv7";
import { subscribedEndpoints } from "../db/webhooks";
import type { NotificationType } from "./notification";
import type { DeliveryMessage } from "./attempt";
import { backoffSeconds } from "./retry-schedule";
import { shardDb, shardNamed, type ShardName } from "../shards";
import { dropUnknownShard } from "./unknown-shard";

/** Sent by the candidate object once a notification is in the feed. */
export interface NotificationMessage {
  id: string;
  account_id: string;
  type: NotificationType;
  /** The account's shard, where its endpoints are; absent in messages queued before shards (shardNamed). */
  shard?: ShardName;
}

export async function fanOut(env: Env, batch: MessageBatch<NotificationMessage>) {
  await Promise.all(
    batch.messages.map(async (message) => {
      const { id, account_id, type } = message.body;
      try {
        const shard = shardNamed(env, message.body.shard);
        const endpoints = await subscribedEndpoints(shardDb(env, shard), account_id, type);
        if (endpoints.length > 0)
          await env.DELIVERIES.sendBatch(
            endpoints.map((endpoint) => ({ body: deliveryMessage(id, account_id, endpoint, shard) })),
          );
        message.ack();
      } catch (error) {
        if (dropUnknownShard(message, error)) return;
        console.error(`notification ${id}: fan-out failed; the queue retries it`, error);
        message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      }
    }),
  );
}

/** One notification to one endpoint: a delivery, whose attempts share its id. */
export const deliveryMessage = (
  notificationId: string,
  accountId: string,
  endpointId: string,
  shard: ShardName,
): DeliveryMessage => ({
  delivery_id: uuidv7(),
  notification_id: notificationId,
  account_id: accountId,
  endpoint_id: endpointId,
  shard,
});

/**
 * The notifications queue's dead letters: fan-outs that kept failing (D1 or the queue down for
 * hours). The notification is in the feed; it goes back on the queue an hour later, so an outage
 * of any length delays its deliveries but never drops them.
 */
export async function redriveNotifications(env: Env, batch: MessageBatch<NotificationMessage>) {
  console.error(`${batch.messages.length} notification fan-outs kept failing; queued again in an hour`);
  await env.NOTIFICATIONS.sendBatch(batch.messages.map((m) => ({ body: m.body, delaySeconds: 3600 })));
  batch.ackAll();
}
