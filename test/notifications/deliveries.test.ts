/**
 * Webhook deliveries (docs/notifications.md), made for real to an HTTP receiver through the real
 * queues and each endpoint's delivery object: retries, the schedule's end, disabling, timeouts,
 * endpoints that hang, resends, dead letters, and the delivery log a person follows.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import worker from "../../src/index";
import type { DeliveryMessage } from "../../src/notifications/delivery";
import { client, createAccount, dbOf, expectStatus, okBody } from "../support/api";
import { useClock } from "../support/clock";
import { deliveryAttemptExample, failedAttemptExample, webhookTestExample } from "../../src/routes/shared/examples";
import { DeliveryAttemptSchema, TestAttemptSchema } from "../../src/routes/webhook-deliveries";
import {
  attempts,
  deliveryOf,
  endpoint,
  handOff,
  pendingCandidate,
  received,
  runAttempts,
  waitForReceived,
} from "../support/webhooks";

const DAY = 24 * 3_600_000;
const schedule = env.WEBHOOK_RETRY_SCHEDULE.split(" ").map((d) => Number(d.replace("s", "")));

let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errorLog.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

/** An endpoint answering 500, and a delivery to it whose first attempt has failed; the clock a day ahead. */
async function afterOneFailure() {
  const account = await createAccount();
  const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
  const { notification } = await pendingCandidate(account);
  const clock = useClock(Date.now() + DAY);
  await handOff(deliveryOf(account, hook.id, notification.id));
  await runAttempts(hook.id);
  return { account, hook, notification, clock };
}

/**
 * An endpoint answering `answers` (late, so the attempt stays out), and a delivery to it whose
 * first attempt the receiver has got; the clock a day ahead. `running`: the attempt, until answered.
 */
async function oneAttemptOut(answers: string) {
  const account = await createAccount();
  const hook = await endpoint(account, answers, { enabled_events: ["candidate.confirmed"] });
  const { notification } = await pendingCandidate(account);
  const clock = useClock(Date.now() + DAY);
  await handOff(deliveryOf(account, hook.id, notification.id));
  const running = runAttempts(hook.id);
  await waitForReceived(hook.name, 1);
  return { account, hook, clock, running };
}

describe("deliveries", () => {
  it("are retried after a failure, and the log shows each attempt of the delivery", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500,200");
    const { notification } = await pendingCandidate(account);
    const [first, second] = await waitForReceived(hook.name, 2);
    expect(first.headers["webhook-id"]).toBe(second.headers["webhook-id"]);
    expect(new Webhook(hook.secret).verify(second.body, second.headers)).toEqual(notification);
    const log = await vi.waitUntil(async () => {
      const rows = await attempts(account, hook.id);
      return rows.length === 2 && rows[0].status !== "pending" && rows;
    });
    expect(log.map((a: any) => [a.attempt, a.status, a.response_status])).toEqual([
      [2, "succeeded", 200],
      [1, "failed", 500],
    ]);
    expect(log[0].delivery_id).toBe(log[1].delivery_id);
    expect(log[1].error).toBe("answered 500, not a 2xx");
    expect(Date.parse(log[1].next_attempt_at!)).toBeGreaterThan(Date.parse(log[1].attempted_at));
    expect(log[0].next_attempt_at).toBeNull();
  });

  it("follow the schedule until it runs out, then the delivery has failed", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "503", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    const clock = useClock(Date.now() + DAY); // the object's own alarms are then a day away
    const delivery = deliveryOf(account, hook.id, notification.id);
    await handOff(delivery);
    for (let attempt = 1; attempt <= schedule.length + 1; attempt++) {
      await runAttempts(hook.id);
      const [latest] = await attempts(account, hook.id);
      expect(latest).toMatchObject({
        attempt,
        delivery_id: delivery.delivery_id,
        status: "failed",
        response_status: 503,
      });
      if (attempt > schedule.length) {
        expect(latest.next_attempt_at).toBeNull();
        break;
      }
      const delay =
        (Date.parse(latest.next_attempt_at!) - Date.parse(latest.attempted_at) - latest.duration_ms!) / 1000;
      expect(delay).toBeGreaterThanOrEqual(schedule[attempt - 1]);
      expect(delay).toBeLessThanOrEqual(Math.ceil(schedule[attempt - 1] * 1.1));
      await runAttempts(hook.id); // not due yet: nothing
      expect(await received(hook.name)).toHaveLength(attempt);
      clock.set(Date.parse(latest.next_attempt_at!));
    }
    clock.advance(DAY);
    await runAttempts(hook.id);
    expect(await received(hook.name)).toHaveLength(schedule.length + 1);
  });

  it("give up on an endpoint that answers 410 Gone: disabled at once, nothing more delivered", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "410");
    await pendingCandidate(account);
    await waitForReceived(hook.name, 1);
    const state = await vi.waitUntil(async () => {
      const e = okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`));
      return e.status === "disabled" && e;
    });
    expect(state.status).toBe("disabled");
    expect((await attempts(account, hook.id))[0]).toMatchObject({
      status: "failed",
      response_status: 410,
      next_attempt_at: null,
    });
    await pendingCandidate(account);
    await new Promise((r) => setTimeout(r, 300));
    expect(await received(hook.name)).toHaveLength(1);
  });

  it("disable an endpoint after 5 days of nothing but failures", async () => {
    const { account, hook, notification, clock } = await afterOneFailure();
    // `enabled` sent to an endpoint already enabled (a client re-sending it) keeps the streak running.
    clock.advance(60_000);
    expectStatus(await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "enabled" }), 200);
    clock.advance(5 * DAY - 120_000);
    await runAttempts(hook.id);
    expect((await attempts(account, hook.id))[0]).toMatchObject({
      attempt: 2,
      status: "failed",
      next_attempt_at: expect.any(String),
    });
    expect(okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).status).toBe("enabled");
    clock.advance(120_000);
    await runAttempts(hook.id);
    expect(okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).status).toBe("disabled");
    expect((await attempts(account, hook.id))[0]).toMatchObject({
      attempt: 3,
      status: "failed",
      next_attempt_at: null,
      error: expect.stringMatching(/5 days/),
    });
    // Enabling it again starts a new streak.
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "enabled" });
    await handOff(deliveryOf(account, hook.id, notification.id));
    await runAttempts(hook.id);
    expect((await attempts(account, hook.id))[0]).toMatchObject({
      attempt: 1,
      status: "failed",
      next_attempt_at: expect.any(String),
    });
  });

  /**
   * Two attempts out at once; the first to answer disables the endpoint, a person re-enables it a
   * second later, then the second answers: it must not undo the re-enable. `answers`: the
   * receiver's statuses (see scripts/lib/webhook-receiver.ts), the slow one last.
   */
  async function reEnabledWhileOut(answers: string, before?: (hookId: string) => Promise<void>) {
    const account = await createAccount();
    const hook = await endpoint(account, answers, { enabled_events: ["candidate.confirmed"] });
    const [a, b] = [await pendingCandidate(account), await pendingCandidate(account)];
    const clock = useClock(Date.now() + DAY);
    await handOff(deliveryOf(account, hook.id, a.notification.id));
    if (before) await before(hook.id);
    await handOff(deliveryOf(account, hook.id, b.notification.id));
    const running = runAttempts(hook.id);
    const get = async () => okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`));
    const disabled = await vi.waitUntil(async () => ((await get()).status === "disabled" ? get() : false), {
      timeout: 3000,
      interval: 20,
    });
    clock.advance(1000);
    const enabled = okBody(await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "enabled" }));
    await running;
    return { account, hook, disabled, enabled, after: await get(), log: await attempts(account, hook.id) };
  }

  it("answered 410 after a re-enable that came while they were out leave the endpoint enabled, and retry", async () => {
    const { disabled, enabled, after, log } = await reEnabledWhileOut("410~100,410~1500");
    expect(after).toMatchObject({ status: "enabled", updated_at: enabled.updated_at });
    expect(Date.parse(disabled.updated_at)).toBeLessThan(Date.parse(enabled.updated_at));
    const byError = Object.fromEntries(log.map((x: any) => [x.error, x.next_attempt_at]));
    expect(byError).toEqual({
      "answered 410 Gone: the endpoint is disabled": null,
      "answered 410, not a 2xx": expect.any(String), // sent before the re-enable: tried again
    });
  });

  it("failing for 5 days, then re-enabled while one is out: its failure starts no new disable", async () => {
    const { after, enabled, log } = await reEnabledWhileOut("500,500~100,500~1500", async (hookId) => {
      await runAttempts(hookId); // the streak begins
      vi.setSystemTime(Date.now() + 6 * DAY);
    });
    expect(after).toMatchObject({ status: "enabled", updated_at: enabled.updated_at });
    expect(log).toHaveLength(3); // the streak's first attempt, then the two that were out together
    expect(
      log
        .slice(0, 2)
        .map((x: any) => [x.error, x.next_attempt_at === null])
        .sort(),
    ).toEqual([
      ["answered 500, not a 2xx", false],
      ["answered 500, not a 2xx; the endpoint failed every attempt for 5 days and is disabled", true],
    ]);
  });

  it("show an attempt pending while the endpoint keeps it waiting, then failed at WEBHOOK_TIMEOUT_SECONDS", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "hang", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    await handOff(deliveryOf(account, hook.id, notification.id));
    await waitForReceived(hook.name, 1);
    const [pending] = await attempts(account, hook.id);
    expect(pending).toMatchObject({
      attempt: 1,
      status: "pending",
      response_status: null,
      error: null,
      duration_ms: null,
      next_attempt_at: null,
    });
    const [timedOut] = await vi.waitUntil(
      async () => {
        const log = await attempts(account, hook.id, `notification_id=${notification.id}&status=failed`);
        return log.length > 0 && log;
      },
      { timeout: 5000, interval: 100 },
    );
    expect(timedOut).toMatchObject({
      id: pending.id,
      attempt: 1,
      response_status: null,
      error: `no response within ${env.WEBHOOK_TIMEOUT_SECONDS} s`,
      next_attempt_at: expect.any(String),
    });
    expect(timedOut.duration_ms).toBeGreaterThanOrEqual(env.WEBHOOK_TIMEOUT_SECONDS * 1000 - 50);
  });

  it("to one endpoint never wait on another's: a hanging endpoint delays nobody else", async () => {
    const account = await createAccount();
    const slow = await endpoint(account, "hang");
    const fast = await endpoint(account);
    const started = Date.now();
    await pendingCandidate(account);
    await waitForReceived(fast.name, 1);
    expect(Date.now() - started).toBeLessThan(env.WEBHOOK_TIMEOUT_SECONDS * 1000);
    await waitForReceived(slow.name, 1);
  });

  it("to a healthy endpoint arrive well under a second after the notification, however many of another account's endpoints hang", async () => {
    const busy = await createAccount();
    const hanging = await Promise.all(
      Array.from({ length: 5 }, () => endpoint(busy, "hang", { enabled_events: ["candidate.pending"] })),
    );
    await pendingCandidate(busy);
    await Promise.all(hanging.map((hook) => waitForReceived(hook.name, 1)));

    const calm = await createAccount();
    const healthy = await endpoint(calm, "200", { enabled_events: ["candidate.pending"] });
    const notified = Date.now();
    const { notification } = await pendingCandidate(calm);
    const [delivery] = await waitForReceived(healthy.name, 1);
    expect(delivery.headers["webhook-id"]).toBe(notification.id);
    expect(delivery.at - notified).toBeLessThan(1000);

    // The hanging ones were attempted all the same, each timed out on its own and logged.
    for (const hook of hanging) {
      const log = await vi.waitUntil(
        async () => {
          const rows = await attempts(busy, hook.id, "status=failed");
          return rows.some((a: any) => a.attempt === 1) && rows;
        },
        { timeout: 8000, interval: 100 },
      );
      expect(log.find((a: any) => a.attempt === 1)).toMatchObject({
        response_status: null,
        error: `no response within ${env.WEBHOOK_TIMEOUT_SECONDS} s`,
      });
    }
  });

  it("to one endpoint are sent at most 6 at once: what one invocation can hold open", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "hang", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    for (let i = 0; i < 8; i++) await handOff(deliveryOf(account, hook.id, notification.id));
    const first = await waitForReceived(hook.name, 6);
    await new Promise((r) => setTimeout(r, 500));
    expect(await received(hook.name)).toHaveLength(6);
    const all = await waitForReceived(hook.name, 8);
    // The 7th started when a slot freed: after the first timed out, and its own timeout ran from then.
    expect(all[6].at - first[0].at).toBeGreaterThanOrEqual(env.WEBHOOK_TIMEOUT_SECONDS * 1000 - 100);
  });

  it("handed to an endpoint's object twice are one delivery", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    useClock(Date.now() + DAY);
    const delivery = deliveryOf(account, hook.id, notification.id);
    const batch = createMessageBatch<DeliveryMessage>("ccs-webhook-deliveries", [
      { id: "m-1", timestamp: new Date(), attempts: 1, body: delivery },
      { id: "m-2", timestamp: new Date(), attempts: 1, body: delivery },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks.sort()).toEqual(["m-1", "m-2"]);
    await runAttempts(hook.id);
    await handOff(delivery); // and once more after it was made
    await runAttempts(hook.id);
    expect(await received(hook.name)).toHaveLength(1);
    expect((await attempts(account, hook.id)).map((a: any) => [a.delivery_id, a.status])).toEqual([
      [delivery.delivery_id, "succeeded"],
    ]);
  });

  it("to an endpoint disabled meanwhile end there, and its log says so", async () => {
    const { account, hook, clock } = await afterOneFailure();
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" });
    clock.advance(60_000);
    await runAttempts(hook.id);
    const log = await attempts(account, hook.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      attempt: 1,
      status: "failed",
      next_attempt_at: null,
      error: "answered 500, not a 2xx; the endpoint is disabled",
    });
    expect(await received(hook.name)).toHaveLength(1);
  });

  it("out when the endpoint is disabled end with their answer, and their log says so: no retry shown", async () => {
    const { account, hook, clock, running } = await oneAttemptOut("500~800");
    clock.advance(100);
    expectStatus(await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" }), 200);
    await running;
    expect(await attempts(account, hook.id)).toMatchObject([
      {
        attempt: 1,
        status: "failed",
        next_attempt_at: null,
        error: "answered 500, not a 2xx; the endpoint is disabled",
      },
    ]);
  });

  it("never attempted before the endpoint was disabled are logged as not sent", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    useClock(Date.now() + DAY);
    const delivery = deliveryOf(account, hook.id, notification.id);
    await handOff(delivery); // queued at the endpoint, not yet attempted
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" });
    await runAttempts(hook.id);
    expect(await attempts(account, hook.id)).toMatchObject([
      {
        delivery_id: delivery.delivery_id,
        attempt: 1,
        status: "failed",
        response_status: null,
        next_attempt_at: null,
        error: "not sent: the endpoint is disabled",
      },
    ]);
    expect(await received(hook.name)).toEqual([]);
  });

  it("answered 410 across a secret rotation leave the endpoint enabled, even in the rotation's millisecond", async () => {
    const { account, hook, clock, running } = await oneAttemptOut("410~800");
    // The rotation stamps the very instant the attempt read: only the new secret tells them apart.
    clock.set(Date.parse(okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).updated_at));
    expectStatus(await client(account).post(`/v1/webhook_endpoints/${hook.id}/rotate_secret`), 200);
    await running;
    expect(okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).status).toBe("enabled");
    expect((await attempts(account, hook.id))[0]).toMatchObject({
      error: "answered 410, not a 2xx",
      next_attempt_at: expect.any(String),
    });
  });

  it("answered 410 while a PATCH that changed nothing came disable the endpoint: no change, no excuse", async () => {
    const { account, hook, clock, running } = await oneAttemptOut("410~800");
    clock.advance(100);
    const before = okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`));
    const same = okBody(await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "enabled" }));
    expect(same.updated_at).toBe(before.updated_at); // nothing changed, so nothing is stamped
    await running;
    expect(okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).status).toBe("disabled");
  });

  it("stop for a deleted endpoint: nothing sent, nothing logged", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    useClock(Date.now() + DAY);
    await client(account).delete(`/v1/webhook_endpoints/${hook.id}`);
    await handOff(deliveryOf(account, hook.id, notification.id));
    await runAttempts(hook.id);
    expect(await received(hook.name)).toEqual([]);
    const { results } = await dbOf(account)
      .prepare(`SELECT id FROM webhook_deliveries WHERE endpoint_id = ?`)
      .bind(hook.id)
      .all();
    expect(results).toEqual([]);
  });

  it("whose hand-off kept failing are marked failed by the dead-letter queue's consumer", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    useClock(Date.now() + DAY);
    const retried = deliveryOf(account, hook.id, notification.id); // attempted once, to be retried
    await handOff(retried);
    await runAttempts(hook.id);
    const neverHanded = deliveryOf(account, hook.id, notification.id);
    const batch = createMessageBatch<DeliveryMessage>("ccs-webhook-deliveries-dlq", [
      { id: "dead-1", timestamp: new Date(), attempts: 1, body: retried },
      { id: "dead-2", timestamp: new Date(), attempts: 1, body: neverHanded },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["dead-1", "dead-2"]);
    const log = await attempts(account, hook.id);
    expect(log.find((a: any) => a.delivery_id === retried.delivery_id)).toMatchObject({
      attempt: 1,
      status: "failed",
      response_status: 500,
      next_attempt_at: null,
    });
    expect(log.find((a: any) => a.delivery_id === neverHanded.delivery_id)).toMatchObject({
      attempt: 1,
      status: "failed",
      response_status: null,
      next_attempt_at: null,
      error: expect.stringMatching(/^not sent: /),
    });
  });
});

describe("resends", () => {
  it("are one more delivery of the same notification, now, whose attempts carry the delivery_id answered", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] }); // not the pending type
    const { notification } = await pendingCandidate(account);
    const res = await client(account).post(`/v1/notifications/${notification.id}/resend`, {
      webhook_endpoint_id: hook.id,
    });
    expectStatus(res, 202);
    expect(res.body).toEqual({
      delivery_id: expect.any(String),
      notification_id: notification.id,
      webhook_endpoint_id: hook.id,
    });
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(new Webhook(hook.secret).verify(delivery.body, delivery.headers)).toEqual(notification);
    const [attempt] = await vi.waitUntil(async () => {
      const log = await attempts(account, hook.id, "status=succeeded");
      return log.length > 0 && log;
    });
    expect(attempt).toMatchObject({ delivery_id: res.body.delivery_id, notification_id: notification.id, attempt: 1 });

    const other = await createAccount();
    const theirs = await endpoint(other);
    const cases: [string, { webhook_endpoint_id: string }, string][] = [
      [notification.id, { webhook_endpoint_id: theirs.id }, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["ntf_missing", { webhook_endpoint_id: hook.id }, "NOTIFICATION_NOT_FOUND"],
    ];
    for (const [id, body, code] of cases) {
      const refused = await client(account).post(`/v1/notifications/${id}/resend`, body);
      expectStatus(refused, 404);
      expect(refused.body.error.code).toBe(code);
    }
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" });
    const disabled = await client(account).post(`/v1/notifications/${notification.id}/resend`, {
      webhook_endpoint_id: hook.id,
    });
    expectStatus(disabled, 409);
    expect(disabled.body.error.code).toBe("INVALID_STATE");
  });
});

describe("the delivery log", () => {
  it("filters by notification and by status, each page newest first", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500,200");
    const first = (await pendingCandidate(account)).notification;
    await waitForReceived(hook.name, 2);
    const second = (await pendingCandidate(account)).notification;
    await waitForReceived(hook.name, 3);
    const log = await vi.waitUntil(async () => {
      const rows = await attempts(account, hook.id);
      return rows.length === 3 && rows.every((a: any) => a.status !== "pending") && rows;
    });
    const shape = (rows: any[]) => rows.map((a) => [a.notification_id, a.attempt, a.status]);
    expect(shape(log)).toEqual([
      [second.id, 1, "succeeded"],
      [first.id, 2, "succeeded"],
      [first.id, 1, "failed"],
    ]);
    expect(shape(await attempts(account, hook.id, `notification_id=${first.id}`))).toEqual([
      [first.id, 2, "succeeded"],
      [first.id, 1, "failed"],
    ]);
    expect(shape(await attempts(account, hook.id, "status=failed"))).toEqual([[first.id, 1, "failed"]]);
    expect(shape(await attempts(account, hook.id, "status=succeeded&limit=1"))).toEqual([[second.id, 1, "succeeded"]]);
    const next = okBody(
      await client(account).get(
        `/v1/webhook_endpoints/${hook.id}/deliveries?status=succeeded&limit=1&after=${log[0].id}`,
      ),
    );
    expect(shape(next.data)).toEqual([[first.id, 2, "succeeded"]]);
    expect(await attempts(account, hook.id, `notification_id=${second.id}&status=failed`)).toEqual([]);
    expect(await attempts(account, hook.id, "notification_id=ntf_unknown")).toEqual([]);
  });

  it("refuses a filter it does not know, in its own words, and changes nothing", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] });
    for (const [query, path] of [
      ["status=done", "status"],
      ["status=FAILED", "status"],
      ["status=failed&status=pending", "status"],
      ["notification_id=", "notification_id"],
      [`notification_id=${"n".repeat(256)}`, "notification_id"],
      ["type=candidate.pending", "type"],
    ]) {
      const res = await client(account).get(`/v1/webhook_endpoints/${hook.id}/deliveries?${query}`);
      expectStatus(res, 400, query);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      const detail = res.body.error.details?.find((d) => d.path === path);
      expect(detail, query).toBeDefined();
      expect(detail!.message, query).not.toMatch(/Invalid|expected|received \w+ \(/);
    }
    const bad = await client(account).get(`/v1/webhook_endpoints/${hook.id}/deliveries?status=done`);
    expectStatus(bad, 400);
    expect(bad.body.error.details).toEqual([
      { path: "status", message: "must be one of `pending`, `succeeded`, `failed`; received `done`" },
    ]);
  });
});

describe("the documented examples", () => {
  it("are what the schemas describe", () => {
    for (const example of [deliveryAttemptExample, failedAttemptExample])
      expect(DeliveryAttemptSchema.parse(example)).toEqual(example);
    expect(TestAttemptSchema.parse(webhookTestExample)).toEqual(webhookTestExample);
  });
});
