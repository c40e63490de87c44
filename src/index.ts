/**
 * Worker entry: the HTTP app, the crons (the sweep every minute, the hourly purge), the queue
 * consumers (notification fan-out, webhook deliveries and their dead letters), and the Durable
 * Object classes bound as CANDIDATES (one per candidate), ENDPOINTS (one per webhook endpoint,
 * which sends its deliveries) and IDEMPOTENCY_KEYS (Idempotency-Keys, per account and bucket).
 */
import { createApp } from "./app";
import { purgeExpired } from "./purge";
import { sweep, SWEEP_CRON } from "./notifications/sweep";
import { fanOut, redriveNotifications, type NotificationMessage } from "./notifications/fanout";
import { handOffBatch, markDeadLetters, type DeliveryMessage } from "./notifications/delivery";
import {
  DELIVERIES_DEAD_LETTER_QUEUE,
  DELIVERIES_QUEUE,
  NOTIFICATIONS_DEAD_LETTER_QUEUE,
  NOTIFICATIONS_QUEUE,
} from "./notifications/queues";

// Only handlers and Durable Object classes may be exported here: workerd takes every export of
// the entry module for an entrypoint.
export { CandidateObject } from "./candidate/object";
export { EndpointObject } from "./notifications/endpoint-object";
export { IdempotencyKeysObject } from "./idempotency-keys";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(controller, env) {
    if (controller.cron === SWEEP_CRON) await sweep(env, Date.now());
    else await purgeExpired(env, Date.now());
  },
  async queue(batch, env) {
    switch (batch.queue) {
      case NOTIFICATIONS_QUEUE:
        return fanOut(env, batch as MessageBatch<NotificationMessage>);
      case NOTIFICATIONS_DEAD_LETTER_QUEUE:
        return redriveNotifications(env, batch as MessageBatch<NotificationMessage>);
      case DELIVERIES_QUEUE:
        return handOffBatch(env, batch as MessageBatch<DeliveryMessage>);
      case DELIVERIES_DEAD_LETTER_QUEUE:
        return markDeadLetters(env, batch as MessageBatch<DeliveryMessage>);
      default:
        console.error(`queue ${batch.queue}: no consumer; ${batch.messages.length} messages retried`);
        batch.retryAll();
    }
  },
} satisfies ExportedHandler<Env>;
