/**
 * Webhook test helpers: endpoints at the tests' real HTTP receiver (test/global-setup.ts), what it
 * received, notifications to deliver, and the endpoints' delivery objects driven by hand.
 */
import { inject, vi } from "vitest";
import { env, runDurableObjectAlarm } from "cloudflare:test";
import type { DeliveryMessage } from "../../src/notifications/delivery";
import { client, contract, expectStatus, freshAlias, okBody, type Schemas, type TestAccount } from "./api";

const receiver = inject("webhookReceiver");

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** When the receiver got it (epoch ms). */
  at: number;
}

export const received = async (name: string): Promise<Received[]> =>
  (await fetch(`${receiver}/received/${name}`)).json();
export const waitForReceived = (name: string, count: number, timeout = 8000) =>
  vi.waitUntil(async () => ((await received(name)).length >= count ? received(name) : false), {
    timeout,
    interval: 50,
  });

/** A receiver path of its own; `statuses` is what it answers, in turn (the last repeats; `hang` never answers). */
export const hookUrl = (statuses = "200") => {
  const name = `h${crypto.randomUUID().replaceAll("-", "")}`;
  return { name, url: `${receiver}/${name}/${statuses}` };
};

export async function endpoint(
  account: TestAccount,
  statuses = "200",
  over: Partial<Schemas["CreateWebhookEndpointBody"]> = {},
) {
  const hook = hookUrl(statuses);
  const res = await client(account).post("/v1/webhook_endpoints", { url: hook.url, ...over });
  expectStatus(res, 201, JSON.stringify(res.body));
  return { ...hook, id: res.body.id, secret: res.body.secret };
}

/** A candidate driven to PENDING by an event: one candidate.pending notification. */
export async function pendingCandidate(account: TestAccount) {
  const alias = freshAlias();
  await client(account).post("/v1/candidates", {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract({ review_window: 600 }),
  });
  await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
  const [notification] = okBody(await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).data;
  return { alias, notification };
}

/** The endpoint's delivery log, newest first (first page); `query` without its "?". */
export const attempts = async (account: TestAccount, endpointId: string, query?: string) => {
  const path = `/v1/webhook_endpoints/${endpointId}/deliveries` as const;
  return okBody(await client(account).get(query === undefined ? path : `${path}?${query}`)).data;
};

/** A delivery of the notification to the endpoint, as the fan-out makes one. */
export const deliveryOf = (account: TestAccount, endpointId: string, notificationId: string): DeliveryMessage => ({
  delivery_id: crypto.randomUUID(),
  notification_id: notificationId,
  account_id: account.id,
  endpoint_id: endpointId,
  shard: account.shard,
});

const endpointObject = (endpointId: string) =>
  env.ENDPOINTS.getByName(endpointId) as unknown as DurableObjectStub & { enqueue(d: DeliveryMessage): Promise<void> };

/** Hands a delivery to its endpoint's object, as the deliveries queue's consumer does. */
export const handOff = (delivery: DeliveryMessage) => endpointObject(delivery.endpoint_id).enqueue(delivery);

/**
 * Runs the endpoint object's alarm now: the attempts due, until they are answered. Tests that
 * drive it run the clock ahead first, so the alarm set for "now" never fires by itself.
 */
export const runAttempts = (endpointId: string) => runDurableObjectAlarm(endpointObject(endpointId));
