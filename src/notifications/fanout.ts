/**
 * The notifications queue's consumer: each notification becomes one delivery message per enabled
 * endpoint of the account that takes its type. Deliveries then retry on their own (delivery.ts),
 * so no endpoint waits on another.
 */
import { uuidv7 } from "uuidv7";
import { subscribedEndpoints } from "../db/webhooks";
import type { NotificationType } from "./notification";
import type { DeliveryMessage } from "./delivery";

/** Sent by the candidate object once a notification is in the feed. */
export interface NotificationMessage {
  id: string;
  account_id: string;
  type: NotificationType;
}

export async function fanOut(env: Env, batch: MessageBatch<NotificationMessage>) {
  await Promise.all(
    batch.messages.map(async (message) => {
      const { id, account_id, type } = message.body;
      try {
        const endpoints = await subscribedEndpoints(env.DB, account_id, type);
        if (endpoints.length > 0) await env.DELIVERIES.sendBatch(endpoints.map((endpoint) => ({ body: deliveryMessage(id, account_id, endpoint) })));
        message.ack();
      } catch (error) {
        console.error(`notification ${id}: fan-out failed; the queue retries it`, error);
        message.retry();
      }
    }),
  );
}

/** One notification to one endpoint: a delivery, whose attempts share its id. */
export const deliveryMessage = (notificationId: string, accountId: string, endpointId: string): DeliveryMessage => ({
  delivery_id: uuidv7(),
  notification_id: notificationId,
  account_id: accountId,
  endpoint_id: endpointId,
});
