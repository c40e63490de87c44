/**
 * A delivery a queue lost (Miniflare's queues live in memory: a notification sent just before
 * `npm run dev` stops is in the feed but reaches no endpoint) is queued again by the operator's
 * POST /operator/v1/redeliveries, which the restarted dev server calls: once, and only for the
 * endpoints that never received it.
 */
import { describe, expect, it } from "vitest";
import { env, SELF } from "cloudflare:test";
import { client, contract, createAccount, freshAlias, inCandidate, okBody, type TestAccount } from "../support/api";
import { endpoint, received, waitForReceived } from "../support/webhooks";

/** Redrives what was recorded before `recordedBefore` (as the restarted dev server asks: before it was ready). */
const redeliver = async (recordedBefore = new Date()) => {
  const res = await SELF.fetch("https://api.test/operator/v1/redeliveries", {
    method: "POST",
    headers: { Authorization: `Bearer ${env.OPERATOR_SECRET}`, "Content-Type": "application/json" },
    body: JSON.stringify({ recorded_before: recordedBefore.toISOString() }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { queued: number }).queued;
};

/** A candidate made PENDING whose notification the queue drops (sendBatch succeeds, nothing is sent). */
async function pendingWithLostNotification(account: TestAccount) {
  const alias = freshAlias();
  const api = client(account);
  await api.post("/v1/candidates", {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract({ review_window: 600 }),
  });
  await inCandidate(alias, (instance: any) => {
    instance.env = { ...instance.env, NOTIFICATIONS: { sendBatch: async () => undefined } };
  });
  await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
  const [notification] = okBody(await api.get(`/v1/notifications?candidate_alias=${alias}`)).data;
  return notification;
}

describe("deliveries a queue lost", () => {
  it("are queued again, once, to the endpoints that never received them", async () => {
    const account = await createAccount();
    const hook = await endpoint(account);
    const notification = await pendingWithLostNotification(account);
    await new Promise((r) => setTimeout(r, 1500)); // past the queues' batch time: nothing comes
    expect(await received(hook.name)).toEqual([]);

    // Recorded after the instant asked about: it may still be on its way, and is left alone.
    expect(await redeliver(new Date(Date.parse(notification.timestamp) - 1))).toBe(0);
    expect(await redeliver()).toBe(1);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(JSON.parse(delivery.body)).toMatchObject({ id: notification.id, type: "candidate.pending" });
    // Its endpoint's object has it now: a second run queues nothing.
    await new Promise((r) => setTimeout(r, 500));
    expect(await redeliver()).toBe(0);
    expect(await received(hook.name)).toHaveLength(1);

    // The next lost notification goes to each endpoint enabled for its type then and still: not to
    // one disabled then (enabled again since), nor one that took other types then. One given a new
    // description, URL or secret since, one sent what it already had (status and types), and one
    // that took the type then and another type besides since, are owed it as before.
    const later = await endpoint(account);
    const renamed = await endpoint(account);
    const resent = await endpoint(account);
    const widened = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const off = await endpoint(account);
    const other = await endpoint(account, "200", { enabled_events: ["candidate.failed"] });
    await client(account).patch(`/v1/webhook_endpoints/${off.id}`, { status: "disabled" });
    await pendingWithLostNotification(account);
    const api = client(account);
    await api.patch(`/v1/webhook_endpoints/${off.id}`, { status: "enabled" });
    await api.patch(`/v1/webhook_endpoints/${other.id}`, { enabled_events: ["candidate.pending"] });
    await api.patch(`/v1/webhook_endpoints/${renamed.id}`, { description: "renamed after the stop" });
    await api.post(`/v1/webhook_endpoints/${renamed.id}/rotate_secret`, {});
    await api.patch(`/v1/webhook_endpoints/${resent.id}`, {
      status: "enabled",
      enabled_events: ["candidate.pending", "candidate.confirmed", "candidate.failed"],
    });
    await api.patch(`/v1/webhook_endpoints/${widened.id}`, {
      enabled_events: ["candidate.failed", "candidate.pending"],
    });
    expect(await redeliver()).toBe(5);
    await waitForReceived(hook.name, 2);
    for (const owed of [later, renamed, resent, widened]) await waitForReceived(owed.name, 1);
    expect(await received(off.name)).toEqual([]);
    expect(await received(other.name)).toEqual([]);
  });
});
