/**
 * Webhook endpoints and deliveries (decisions.md §8), delivered for real to an HTTP receiver
 * (test/global-setup.ts) through the real queues, and verified with the `standardwebhooks`
 * package, as a receiver would.
 */
import { afterEach, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import worker from "../../src/index";
import { deliver, type DeliveryMessage } from "../../src/notifications/delivery";
import { call, client, contract, createAccount, freshAlias, type TestAccount } from "../support/api";
import { useClock } from "../support/clock";

const receiver = inject("webhookReceiver");
interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}
const received = async (name: string): Promise<Received[]> => (await fetch(`${receiver}/received/${name}`)).json();
const waitForReceived = (name: string, count: number, timeout = 8000) =>
  vi.waitUntil(async () => ((await received(name)).length >= count ? received(name) : false), { timeout, interval: 50 });

/** A receiver path of its own; `statuses` is what it answers, in turn (the last repeats). */
const hookUrl = (statuses = "200") => {
  const name = `h${crypto.randomUUID().replaceAll("-", "")}`;
  return { name, url: `${receiver}/${name}/${statuses}` };
};

async function endpoint(account: TestAccount, statuses = "200", over: Record<string, unknown> = {}) {
  const hook = hookUrl(statuses);
  const res = await client(account).post("/v1/webhook_endpoints", { url: hook.url, ...over });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { ...hook, id: res.body.id as string, secret: res.body.secret as string };
}

/** A candidate driven to PENDING by an event: one candidate.pending notification. */
async function pendingCandidate(account: TestAccount) {
  const alias = freshAlias();
  await client(account).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract({ review_window: 600 }) });
  await client(account).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
  const [notification] = (await client(account).get(`/v1/notifications?candidate_alias=${alias}`)).body.data;
  return { alias, notification };
}

const attempts = async (account: TestAccount, endpointId: string) =>
  (await client(account).get(`/v1/webhook_endpoints/${endpointId}/deliveries`)).body.data;

let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errorLog.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

describe("webhook endpoints", () => {
  it("are created with a secret shown once, listed newest first, read, changed and deleted", async () => {
    const account = await createAccount();
    const api = client(account);
    const first = await endpoint(account);
    const second = await api.post("/v1/webhook_endpoints", { url: "https://example.com/hooks", description: "billing", enabled_events: ["candidate.confirmed"] });
    expect(second.status).toBe(201);
    expect(second.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: "https://example.com/hooks",
      description: "billing",
      enabled_events: ["candidate.confirmed"],
      status: "enabled",
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(first.secret).not.toBe(second.body.secret);

    const list = (await api.get("/v1/webhook_endpoints")).body.data;
    expect(list.map((e: any) => e.id)).toEqual([second.body.id, first.id]);
    expect(JSON.stringify(list)).not.toContain("whsec_");
    const { secret: _secret, ...withoutSecret } = second.body;
    expect((await api.get(`/v1/webhook_endpoints/${second.body.id}`)).body).toEqual(withoutSecret);

    const patched = await api.patch(`/v1/webhook_endpoints/${second.body.id}`, { description: null, enabled_events: ["candidate.failed", "candidate.pending"], status: "disabled" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: null, enabled_events: ["candidate.failed", "candidate.pending"], status: "disabled", url: "https://example.com/hooks" });
    expect(JSON.stringify(patched.body)).not.toContain("whsec_");

    expect((await api.delete(`/v1/webhook_endpoints/${second.body.id}`)).status).toBe(204);
    const gone = await api.get(`/v1/webhook_endpoints/${second.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND");
    expect((await api.delete(`/v1/webhook_endpoints/${second.body.id}`)).status).toBe(404);
    expect((await api.get("/v1/webhook_endpoints/not-a-uuid")).status).toBe(404);
  });

  it("take https:// URLs, and http:// to loopback only where allowed; refuse the rest with the path", async () => {
    const account = await createAccount();
    const api = client(account);
    const refused: [unknown, string][] = [
      [{ url: "http://example.com/hooks" }, "url"],
      [{ url: "ftp://example.com/hooks" }, "url"],
      [{ url: "not a url" }, "url"],
      [{ url: "https://user:secret@example.com/hooks" }, "url"],
      [{ url: `https://example.com/${"p".repeat(2048)}` }, "url"],
      [{}, "url"],
      [{ url: "https://example.com", enabled_events: [] }, "enabled_events"],
      [{ url: "https://example.com", enabled_events: ["candidate.open"] }, "enabled_events.0"],
      [{ url: "https://example.com", enabled_events: ["candidate.failed", "candidate.failed"] }, "enabled_events"],
      [{ url: "https://example.com", secret: "mine" }, "secret"],
      // Never into the network the service runs in: private, link-local, shared and unspecified addresses.
      ...["https://169.254.169.254/latest", "https://10.0.0.1/x", "https://192.168.1.1/", "https://172.16.5.4/", "https://100.64.0.1/",
        "https://0.0.0.0/", "https://[fd00::1]/", "https://[fe80::1]/", "https://[::ffff:10.0.0.1]/", "https://0xa000001/", "http://10.0.0.1/", "https://[::a00:1]/", "https://[::7f00:1]/", "https://[64:ff9b::a00:1]/"].map(
        (url) => [{ url }, "url"] as [Record<string, unknown>, string],
      ),
    ];
    for (const [body, path] of refused) {
      const res = await api.post("/v1/webhook_endpoints", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
    for (const url of ["http://127.0.0.1:9/x", "http://localhost/x", "http://[::1]:8080/x", "http://127.1/x", "https://app.localhost/x", "https://8.8.8.8/hooks", "https://[2606:4700::1111]/hooks"]) {
      expect((await api.post("/v1/webhook_endpoints", { url })).status, url).toBe(201);
    }
    // Where loopback is not allowed (production), no loopback host is, over http:// or https://.
    for (const url of ["http://127.0.0.1:9/x", "https://127.0.0.1/x", "https://localhost/x", "https://[::1]/x", "https://LOCALHOST./x", "https://app.localhost./x"]) {
      const strict = await worker.fetch(
        new Request("https://api.test/v1/webhook_endpoints", {
          method: "POST",
          headers: { Authorization: `Bearer ${account.token}`, "Content-Type": "application/json" },
          body: JSON.stringify({ url }),
        }),
        { ...env, WEBHOOK_ALLOW_LOOPBACK: "false" },
        createExecutionContext(),
      );
      expect(strict.status, url).toBe(400);
      expect(((await strict.json()) as any).error.details[0], url).toMatchObject({ path: "url", message: expect.stringMatching(/loopback/) });
    }
    expect((await api.patch(`/v1/webhook_endpoints/${(await endpoint(account)).id}`, {})).status).toBe(400);
  });

  it("are at most 16 per account: 409 WEBHOOK_ENDPOINT_LIMIT_REACHED", async () => {
    const account = await createAccount();
    for (let i = 0; i < 16; i++) expect((await client(account).post("/v1/webhook_endpoints", { url: `https://example.com/${i}` })).status).toBe(201);
    const over = await client(account).post("/v1/webhook_endpoints", { url: "https://example.com/17" });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("WEBHOOK_ENDPOINT_LIMIT_REACHED");
    expect((await client(account).get("/v1/webhook_endpoints")).body.data).toHaveLength(16);
    expect((await client(await createAccount()).post("/v1/webhook_endpoints", { url: "https://example.com/other" })).status).toBe(201);
  });
});

describe("a keyed endpoint create", () => {
  it("makes one endpoint, its secret shown in the answer that is replayed, even if the first request died", async () => {
    const account = await createAccount();
    const clock = useClock();
    const headers = { "Idempotency-Key": `ep-${crypto.randomUUID()}` };
    const body = { url: "https://example.com/keyed" };
    await env.DB.exec(
      `CREATE TRIGGER die_recording BEFORE UPDATE OF status ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'worker died'); END`,
    );
    let first;
    try {
      first = await call("POST", "/v1/webhook_endpoints", { token: account.token, json: body, headers });
    } finally {
      await env.DB.exec(`DROP TRIGGER die_recording`);
    }
    expect(first.status).toBe(500);
    clock.advance(31_000);
    const retry = await call("POST", "/v1/webhook_endpoints", { token: account.token, json: body, headers });
    expect(retry.status).toBe(201);
    const again = await call("POST", "/v1/webhook_endpoints", { token: account.token, json: body, headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(retry.body);
    expect(retry.body.secret).toMatch(/^whsec_/);
    expect((await client(account).get("/v1/webhook_endpoints")).body.data.map((e: any) => e.id)).toEqual([retry.body.id]);
  });
});

describe("deliveries", () => {
  it("are signed per Standard Webhooks: the standardwebhooks package verifies them", async () => {
    const account = await createAccount();
    const hook = await endpoint(account);
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-id"]).toBe(notification.id);
    expect(delivery.headers["content-type"]).toBe("application/json");
    expect(Math.abs(Number(delivery.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    const verified = new Webhook(hook.secret).verify(delivery.body, delivery.headers);
    expect(verified).toEqual(notification);
    expect(() => new Webhook(hook.secret).verify(delivery.body.replace("PENDING", "FAILED"), delivery.headers)).toThrow();
    const otherSecret = (await endpoint(account, "200", { enabled_events: ["candidate.failed"] })).secret;
    expect(() => new Webhook(otherSecret).verify(delivery.body, delivery.headers)).toThrow();

    const [attempt] = await vi.waitUntil(async () => {
      const log = await attempts(account, hook.id);
      return log.length > 0 && log;
    });
    expect(attempt).toEqual({
      id: expect.any(String),
      notification_id: notification.id,
      type: "candidate.pending",
      attempt: 1,
      status: "succeeded",
      response_status: 200,
      error: null,
      duration_ms: expect.any(Number),
      attempted_at: expect.any(String),
      next_attempt_at: null,
    });
  });

  it("go only to enabled endpoints that take the type, and each endpoint gets its own", async () => {
    const account = await createAccount();
    const pendingOnly = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const confirmedOnly = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] });
    const disabled = await endpoint(account);
    await client(account).patch(`/v1/webhook_endpoints/${disabled.id}`, { status: "disabled" });
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(pendingOnly.name, 1);
    expect(delivery.headers["webhook-id"]).toBe(notification.id);
    await new Promise((r) => setTimeout(r, 300));
    expect(await received(confirmedOnly.name)).toEqual([]);
    expect(await received(disabled.name)).toEqual([]);
  });

  it("are retried after a failure, and the log shows each attempt", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500,200");
    const { notification } = await pendingCandidate(account);
    const [first, second] = await waitForReceived(hook.name, 2);
    expect(first.headers["webhook-id"]).toBe(second.headers["webhook-id"]);
    expect(new Webhook(hook.secret).verify(second.body, second.headers)).toEqual(notification);
    const log = await vi.waitUntil(async () => {
      const rows = await attempts(account, hook.id);
      return rows.length === 2 && rows;
    });
    expect(log.map((a: any) => [a.attempt, a.status, a.response_status])).toEqual([
      [2, "succeeded", 200],
      [1, "pending", 500],
    ]);
    expect(log[1].error).toMatch(/500/);
    expect(Date.parse(log[1].next_attempt_at)).toBeGreaterThan(Date.parse(log[1].attempted_at));
  });

  it("follow the schedule until it runs out, then the delivery is failed", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "503");
    const { notification } = await pendingCandidate(account);
    await waitForReceived(hook.name, 1);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    const schedule = env.WEBHOOK_RETRY_SCHEDULE.split(" ").map((d) => Number(d.replace("s", "")));
    for (let attempt = 1; attempt <= schedule.length; attempt++) {
      const { retryInSeconds } = await deliver(env, message, attempt);
      expect(retryInSeconds).toBeGreaterThanOrEqual(schedule[attempt - 1]);
      expect(retryInSeconds).toBeLessThanOrEqual(Math.ceil(schedule[attempt - 1] * 1.1));
    }
    expect(await deliver(env, message, schedule.length + 1)).toEqual({});
    const log = (await attempts(account, hook.id)).filter((a: any) => a.attempt > 0);
    const last = log.find((a: any) => a.attempt === schedule.length + 1);
    expect(last).toMatchObject({ status: "failed", next_attempt_at: null, response_status: 503 });
  });

  it("give up on an endpoint that answers 410 Gone: disabled at once, nothing more delivered", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "410");
    await pendingCandidate(account);
    await waitForReceived(hook.name, 1);
    const state = await vi.waitUntil(async () => {
      const e = (await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).body;
      return e.status === "disabled" && e;
    });
    expect(state.status).toBe("disabled");
    expect((await attempts(account, hook.id))[0]).toMatchObject({ status: "failed", response_status: 410, next_attempt_at: null });
    await pendingCandidate(account);
    await new Promise((r) => setTimeout(r, 300));
    expect(await received(hook.name)).toHaveLength(1);
  });

  it("disable an endpoint after 5 days of nothing but failures", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    const clock = useClock();
    expect((await deliver(env, message, 1)).retryInSeconds).toBeGreaterThan(0);
    clock.advance(5 * 24 * 3_600_000 - 60_000);
    expect((await deliver(env, message, 2)).retryInSeconds).toBeGreaterThan(0);
    expect((await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).body.status).toBe("enabled");
    clock.advance(120_000);
    expect(await deliver(env, message, 3)).toEqual({});
    expect((await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).body.status).toBe("disabled");
    expect((await attempts(account, hook.id))[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/5 days/) });
    // Enabling it again starts a new streak.
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "enabled" });
    expect((await deliver(env, message, 1)).retryInSeconds).toBeGreaterThan(0);
  });

  it("time out after WEBHOOK_TIMEOUT_SECONDS without an answer", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "hang", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    const outcome = await deliver(env, message, 1);
    expect(outcome.retryInSeconds).toBeGreaterThan(0);
    expect((await attempts(account, hook.id))[0]).toMatchObject({ status: "pending", response_status: null, error: `no response within ${env.WEBHOOK_TIMEOUT_SECONDS} s` });
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

  it("are signed by both secrets for 24 hours after a rotation, then by the new one alone", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotated = await call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const { notification } = await pendingCandidate(account);
    const [during] = await waitForReceived(hook.name, 1);
    expect(during.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(hook.secret).verify(during.body, during.headers)).toEqual(notification);
    expect(new Webhook(rotated.body.secret).verify(during.body, during.headers)).toEqual(notification);

    const clock = useClock();
    clock.advance(24 * 3_600_000 + 1000);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    await deliver(env, message, 1);
    const [, after] = await received(hook.name);
    expect(after.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(new Webhook(rotated.body.secret).verify(after.body, after.headers)).toEqual(notification);
    expect(() => new Webhook(hook.secret).verify(after.body, after.headers)).toThrow();
  });

  it("are signed by every secret still in its overlap, however many rotations", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotate = async () => (await call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token })).body.secret as string;
    const [second, third] = [await rotate(), await rotate()];
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(3);
    for (const secret of [hook.secret, second, third]) expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);
  });

  it("rotate in turn when many rotations arrive at once: each succeeds, and every replaced secret keeps signing", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotations = await Promise.all(
      Array.from({ length: 12 }, () => call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token })),
    );
    expect(rotations.map((r) => r.status), JSON.stringify(rotations.find((r) => r.status !== 200)?.body)).toEqual(Array(12).fill(200));
    const secrets = [hook.secret, ...rotations.map((r) => r.body.secret as string)];
    expect(new Set(secrets).size).toBe(13);
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(13);
    for (const secret of secrets) expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);
  });

  it("rotate once per Idempotency-Key: a retry replays the same new secret", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const headers = { "Idempotency-Key": `rotate-${crypto.randomUUID()}` };
    const rotate = () => call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token, headers });
    const first = await rotate();
    expect(first.status).toBe(200);
    const again = await rotate();
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(2);
    for (const secret of [hook.secret, first.body.secret]) expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);
  });

  it("to an endpoint disabled meanwhile end there, and its log says so", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    await deliver(env, message, 1);
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" });
    expect(await deliver(env, message, 2)).toEqual({});
    const log = await attempts(account, hook.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ attempt: 1, status: "failed", next_attempt_at: null, error: expect.stringMatching(/500.*; the endpoint is disabled$/) });
    const badCursor = await client(account).get(`/v1/webhook_endpoints/${hook.id}/deliveries?after=${crypto.randomUUID()}`);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.details[0].path).toBe("after");
  });

  it("can be resent: one more delivery of the same notification, now", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] }); // not the pending type
    const { notification } = await pendingCandidate(account);
    const res = await client(account).post(`/v1/notifications/${notification.id}/resend`, { webhook_endpoint_id: hook.id });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ delivery_id: expect.any(String), notification_id: notification.id, webhook_endpoint_id: hook.id });
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(new Webhook(hook.secret).verify(delivery.body, delivery.headers)).toEqual(notification);

    const other = await createAccount();
    const theirs = await endpoint(other);
    const cases: [string, unknown, string][] = [
      [notification.id, { webhook_endpoint_id: theirs.id }, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["ntf_missing", { webhook_endpoint_id: hook.id }, "NOTIFICATION_NOT_FOUND"],
    ];
    for (const [id, body, code] of cases) {
      const refused = await client(account).post(`/v1/notifications/${id}/resend`, body);
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe(code);
    }
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" });
    const disabled = await client(account).post(`/v1/notifications/${notification.id}/resend`, { webhook_endpoint_id: hook.id });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe("INVALID_STATE");
  });

  it("that the queue gives up on are marked failed by the dead-letter queue's consumer", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    await deliver(env, message, 1);
    expect((await attempts(account, hook.id))[0].status).toBe("pending");
    const batch = createMessageBatch<DeliveryMessage>("ccs-webhook-deliveries-dlq", [{ id: "dead-1", timestamp: new Date(), attempts: 1, body: message }]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env);
    expect((await getQueueResult(batch, ctx)).explicitAcks).toEqual(["dead-1"]);
    expect((await attempts(account, hook.id))[0]).toMatchObject({ status: "failed", next_attempt_at: null });
  });

  it("stop for a deleted endpoint", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "500", { enabled_events: ["candidate.confirmed"] });
    const { notification } = await pendingCandidate(account);
    await client(account).delete(`/v1/webhook_endpoints/${hook.id}`);
    const message: DeliveryMessage = { delivery_id: crypto.randomUUID(), notification_id: notification.id, account_id: account.id, endpoint_id: hook.id };
    expect(await deliver(env, message, 2)).toEqual({});
    expect(await received(hook.name)).toEqual([]);
  });
});
