/**
 * The deliveries queue's consumer: hands each delivery to its endpoint's object (endpoint-object.ts),
 * which makes and retries its attempts, so the consumer never waits on an endpoint. A hand-off
 * that fails (the object unreachable) is retried by the queue; the dead-letter queue's consumer
 * marks the deliveries it kept failing for as failed.
 */
import { uuidv7 } from "uuidv7";
import { endDelivery } from "../db/webhook-deliveries";
import type { DeliveryMessage } from "./attempt";
import { endpointObject } from "./endpoint-object";
import { backoffSeconds } from "./retry-schedule";
import { shardDb, shardNamed } from "../shards";
import { dropUnknownShard } from "./unknown-shard";

export type { DeliveryMessage } from "./attempt";

export async function handOffBatch(env: Env, batch: MessageBatch<DeliveryMessage>) {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        shardNamed(env, message.body.shard); // its endpoint's object could never make an attempt
        await endpointObject(env, message.body.endpoint_id).enqueue(message.body);
        message.ack();
      } catch (error) {
        if (dropUnknownShard(message, error)) return;
        console.error(
          `delivery ${message.body.delivery_id}: could not be handed to its endpoint's object; the queue retries it`,
          error,
        );
        message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      }
    }),
  );
}

/**
 * The dead-letter queue: deliveries whose hand-off kept failing, each marked failed on its shard.
 * One message's failure (its shard's D1 down) leaves the others' marks made: it alone is retried.
 */
export async function markDeadLetters(env: Env, batch: MessageBatch<DeliveryMessage>) {
  await Promise.all(
    batch.messages.map(async (message) => {
      const body = message.body;
      const delivery = {
        attemptId: uuidv7(),
        deliveryId: body.delivery_id,
        notificationId: body.notification_id,
        accountId: body.account_id,
        endpointId: body.endpoint_id,
      };
      try {
        await endDelivery(
          shardDb(env, shardNamed(env, body.shard)),
          delivery,
          "the delivery could not be handed to its endpoint's sender",
          Date.now(),
        );
        message.ack();
      } catch (error) {
        if (dropUnknownShard(message, error)) return;
        console.error(`delivery ${body.delivery_id}: could not be marked failed; the queue retries it`, error);
        message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      }
    }),
  );
}
