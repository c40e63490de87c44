/**
 * Queue messages that name no shard of this Worker's, or whose shard's D1 fails, through the real
 * consumers: each message is handled alone, so one bad message never holds back its batch-mates.
 * One naming no known shard can never succeed and is acknowledged (logged); another failure is
 * retried; the rest are acknowledged.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import worker from "../../src/index";
import type { DeliveryMessage } from "../../src/notifications/delivery";
import type { NotificationMessage } from "../../src/notifications/fanout";
import { createAccount, type TestAccount } from "../support/api";
import { attempts, deliveryOf, endpoint, pendingCandidate } from "../support/webhooks";

const HOSTILE = ["ASSETS", "__proto__", "constructor", "toString", "IDEMPOTENCY_KEYS", "SHARD_9", "SHARD_01", 7];

let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errorLog.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

/** The bindings with `shard`'s D1 failing every call: one shard down, the others up. */
const withShardDown = (shard: string): Env => {
  const fail = () => {
    throw new Error(`D1 ${shard} is unavailable`);
  };
  return { ...env, [shard]: { prepare: fail, batch: fail, withSession: fail } } as Env;
};

async function consume<T>(queue: string, bodies: T[], bindings: Env = env) {
  const batch = createMessageBatch<T>(
    queue,
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch, bindings);
  const result = await getQueueResult(batch, ctx);
  return { acked: [...result.explicitAcks].sort(), retried: result.retryMessages.map((m) => m.msgId).sort() };
}

async function twoShardsWithDeliveries() {
  const a = await createAccount();
  const b = await createAccount();
  expect(a.shard).not.toBe(b.shard);
  const deliveryOn = async (account: TestAccount) => {
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    return { hook, delivery: deliveryOf(account, hook.id, notification.id) };
  };
  return { a, b, onA: await deliveryOn(a), onB: await deliveryOn(b) };
}

describe("the dead-letter consumer", () => {
  it("marks each delivery failed alone: an unknown shard is dropped, a failing shard retried, the rest done", async () => {
    const { a, b, onA, onB } = await twoShardsWithDeliveries();
    const unknown = HOSTILE.map(
      (shard) => ({ ...onA.delivery, delivery_id: crypto.randomUUID(), shard }) as unknown as DeliveryMessage,
    );
    // m0: on A's shard, which is down; m1: on B's; then one per hostile name.
    const result = await consume(
      "ccs-webhook-deliveries-dlq",
      [onA.delivery, onB.delivery, ...unknown],
      withShardDown(a.shard),
    );
    expect(result.retried).toEqual(["m0"]);
    expect(result.acked).toEqual(["m1", ...unknown.map((_, i) => `m${i + 2}`)].sort());
    expect(await attempts(b, onB.hook.id)).toEqual([
      expect.objectContaining({ delivery_id: onB.delivery.delivery_id, status: "failed" }),
    ]);
    expect(await attempts(a, onA.hook.id)).toEqual([]);
    expect(errorLog.filter((line) => /is no shard of this Worker/.test(line))).toHaveLength(HOSTILE.length);
  });
});

describe("the deliveries consumer", () => {
  it("drops a delivery naming no shard of this Worker's and hands its batch-mates over", async () => {
    const { onB } = await twoShardsWithDeliveries();
    const unknown = HOSTILE.map(
      (shard) => ({ ...onB.delivery, delivery_id: crypto.randomUUID(), shard }) as unknown as DeliveryMessage,
    );
    const result = await consume("ccs-webhook-deliveries", [...unknown, onB.delivery]);
    expect(result).toEqual({ acked: [...unknown, onB.delivery].map((_, i) => `m${i}`).sort(), retried: [] });
    expect(errorLog.filter((line) => /is no shard of this Worker/.test(line))).toHaveLength(HOSTILE.length);
  });
});

describe("the notifications consumer", () => {
  it("fans out each notification alone: an unknown shard is dropped, a failing shard retried, the rest done", async () => {
    const { a, b, onA, onB } = await twoShardsWithDeliveries();
    const notification = (account: TestAccount, id: string, shard: unknown) =>
      ({ id, account_id: account.id, type: "candidate.confirmed", shard }) as NotificationMessage;
    const bodies = [
      notification(a, onA.delivery.notification_id, a.shard),
      notification(b, onB.delivery.notification_id, b.shard),
      ...HOSTILE.map((shard) => notification(b, onB.delivery.notification_id, shard)),
    ];
    const result = await consume("ccs-notifications", bodies, withShardDown(a.shard));
    expect(result.retried).toEqual(["m0"]);
    expect(result.acked).toEqual(
      bodies
        .slice(1)
        .map((_, i) => `m${i + 1}`)
        .sort(),
    );
    expect(errorLog.filter((line) => /is no shard of this Worker/.test(line))).toHaveLength(HOSTILE.length);
  });
});
