/**
 * The deliveries queue's consumer: one signed POST per message (Standard Webhooks), its attempt
 * recorded; not a 2xx within the timeout means a retry on the schedule, until the schedule runs
 * out and the delivery is `failed`. `410 Gone` disables the endpoint at once, and so do 5 days of
 * nothing but failures. The dead-letter queue's consumer marks what the queue gave up on failed.
 */
import { uuidv7 } from "uuidv7";
import { feedEntry } from "../db/notifications";
import { getEndpoint, markDeliveryFailed, recordAttempt, signingSecrets, type AttemptRow } from "../db/webhooks";
import { backoffSeconds, parseRetrySchedule, retryDelaySeconds } from "./retry-schedule";
import { webhookHeaders } from "./signing";

export interface DeliveryMessage {
  delivery_id: string;
  notification_id: string;
  account_id: string;
  endpoint_id: string;
}

/** An endpoint failing every attempt for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

export async function deliverBatch(env: Env, batch: MessageBatch<DeliveryMessage>) {
  // Each message on its own: one slow endpoint holds up no other delivery's outcome.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const { retryInSeconds } = await deliver(env, message.body, message.attempts);
        if (retryInSeconds === undefined) message.ack();
        else message.retry({ delaySeconds: retryInSeconds });
      } catch (error) {
        console.error(`delivery ${message.body.delivery_id}: attempt could not be made or recorded; the queue retries it`, error);
        message.retry({ delaySeconds: backoffSeconds(message.attempts) });
      }
    }),
  );
}

/**
 * Attempt `attempt` (1-based) of a delivery: sends it unless its endpoint is gone or disabled,
 * records the attempt, and says whether (and when) to try again.
 */
export async function deliver(env: Env, delivery: DeliveryMessage, attempt: number): Promise<{ retryInSeconds?: number }> {
  const endpoint = await getEndpoint(env.DB, delivery.account_id, delivery.endpoint_id);
  const notification = await feedEntry(env.DB, delivery.account_id, delivery.notification_id);
  if (!endpoint) return {}; // deleted, its log with it: nothing to send or record
  if (endpoint.status !== "enabled" || !notification) {
    // The delivery ends here: its last attempt, if it had one, says so.
    await markDeliveryFailed(env.DB, delivery.delivery_id, endpoint.status !== "enabled" ? "the endpoint is disabled" : "the notification is no longer kept");
    return {};
  }

  const now = Date.now();
  const headers = await webhookHeaders(signingSecrets(endpoint, now), notification.id, Math.floor(now / 1000), notification.payload);
  const timeoutSeconds = Number(env.WEBHOOK_TIMEOUT_SECONDS);
  let responseStatus: number | null = null;
  let error: string | null = null;
  try {
    const response = await fetch(endpoint.url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "user-agent": "candidate-contract-service-webhooks/1" },
      body: notification.payload,
      redirect: "manual", // a redirect is not a delivery
      signal: AbortSignal.timeout(timeoutSeconds * 1000),
    });
    responseStatus = response.status;
    await response.body?.cancel();
  } catch (failure) {
    const name = (failure as Error).name;
    error = name === "TimeoutError" || name === "AbortError" ? `no response within ${timeoutSeconds} s` : `request failed: ${(failure as Error).message}`;
  }
  const finished = Date.now();

  const delivered = responseStatus !== null && responseStatus >= 200 && responseStatus < 300;
  const gone = responseStatus === 410;
  const failingFor = endpoint.failing_since === null ? 0 : finished - endpoint.failing_since;
  const disable = !delivered && (gone || failingFor >= DISABLE_AFTER_FAILING_MS);
  const retryInSeconds = delivered || disable ? null : retryDelaySeconds(parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE), attempt, Math.random());
  if (!delivered && error === null) {
    error = gone ? "410 Gone: the endpoint is disabled" : `answered ${responseStatus}, not a 2xx`;
  }
  if (disable && !gone) error += "; the endpoint failed every attempt for 5 days and is disabled";

  const row: AttemptRow = {
    id: uuidv7(),
    delivery_id: delivery.delivery_id,
    endpoint_id: endpoint.id,
    account_id: delivery.account_id,
    notification_id: notification.id,
    type: notification.type,
    attempt,
    status: delivered ? "succeeded" : retryInSeconds === null ? "failed" : "pending",
    response_status: responseStatus,
    error,
    duration_ms: finished - now,
    attempted_at: now,
    next_attempt_at: retryInSeconds === null ? null : finished + retryInSeconds * 1000,
  };
  await recordAttempt(env.DB, row, { disable });
  return retryInSeconds === null ? {} : { retryInSeconds };
}

/** The dead-letter queue: deliveries the queue gave up on (their consumer kept failing). */
export async function markDeadLetters(env: Env, batch: MessageBatch<DeliveryMessage>) {
  for (const message of batch.messages) {
    await markDeliveryFailed(env.DB, message.body.delivery_id, "the delivery could not be completed");
    message.ack();
  }
}
