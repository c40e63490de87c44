/**
 * One attempt of a delivery (one notification to one endpoint), made by the endpoint's object:
 * nothing for a deleted endpoint; the delivery ends at a disabled one, its log saying so; else the
 * attempt is logged `pending`, sent signed with every secret in its overlap, and logged with what
 * it got.
 */
import { feedEntry } from "../db/notifications";
import { getEndpoint, signingSecrets } from "../db/webhooks";
import { endDelivery, recordAttempt, recordAttemptStart, recordFailure } from "../db/webhook-deliveries";
import { DISABLE_AFTER_FAILING_MS, isDelivered, judgeAttempt } from "./attempt-outcome";
import { parseRetrySchedule } from "./retry-schedule";
import { sendSigned } from "./send";
import { shardDb, shardNamed, type ShardName } from "../shards";

/** A delivery: what the deliveries queue carries to the endpoint's object. */
export interface DeliveryMessage {
  delivery_id: string;
  notification_id: string;
  account_id: string;
  endpoint_id: string;
  /** The account's shard, where the endpoint, the feed and the delivery log are; absent (or null, stored) before shards. */
  shard?: ShardName | null;
}

/**
 * Makes attempt number `attempt` (1-based) of the delivery, logged under `attemptId`. Returns
 * when the next attempt is due, or nothing: the delivery has ended.
 */
export async function attemptDelivery(
  env: Env,
  delivery: DeliveryMessage,
  attempt: number,
  attemptId: string,
): Promise<{ retryAt?: number }> {
  const db = shardDb(env, shardNamed(env, delivery.shard));
  const [endpoint, notification] = await Promise.all([
    getEndpoint(db, delivery.account_id, delivery.endpoint_id),
    feedEntry(db, delivery.account_id, delivery.notification_id),
  ]);
  if (!endpoint) return {}; // deleted, its log with it: nothing to send or record
  if (endpoint.status !== "enabled" || !notification) {
    // Its last attempt says so; a delivery never attempted gets a row saying it was not sent.
    await endDelivery(
      db,
      {
        attemptId,
        deliveryId: delivery.delivery_id,
        notificationId: delivery.notification_id,
        accountId: delivery.account_id,
        endpointId: delivery.endpoint_id,
      },
      endpoint.status !== "enabled" ? "the endpoint is disabled" : "the notification is no longer kept",
      Date.now(),
    );
    return {};
  }

  const logged = {
    id: attemptId,
    delivery_id: delivery.delivery_id,
    endpoint_id: endpoint.id,
    account_id: delivery.account_id,
    notification_id: notification.id,
    type: notification.type,
    attempt,
    attempted_at: Date.now(),
  };
  await recordAttemptStart(db, logged);
  const sent = await sendSigned(
    env,
    endpoint.url,
    signingSecrets(endpoint, logged.attempted_at),
    notification.id,
    notification.payload,
  );
  const finished = sent.startedAt + sent.durationMs;
  const disabledBy = isDelivered(sent)
    ? null
    : await recordFailure(db, endpoint.id, {
        readUpdatedAt: endpoint.updated_at,
        readSecret: endpoint.secret,
        startedAt: logged.attempted_at,
        finishedAt: finished,
        gone: sent.responseStatus === 410,
        disableAfterMs: DISABLE_AFTER_FAILING_MS,
        now: Date.now(),
      });
  const judged = judgeAttempt(sent, {
    attempt,
    disabledBy,
    schedule: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE),
    random: Math.random(),
  });
  const retryAt = judged.retryInSeconds === null ? undefined : finished + judged.retryInSeconds * 1000;
  // Written after the endpoint's part: a crash between leaves this attempt pending, and its retry
  // finds the endpoint disabled and ends the delivery there (or sends it again).
  await recordAttempt(db, {
    ...logged,
    status: judged.status,
    response_status: sent.responseStatus,
    error: judged.error,
    duration_ms: sent.durationMs,
    next_attempt_at: retryAt ?? null,
  });
  return retryAt === undefined ? {} : { retryAt };
}
