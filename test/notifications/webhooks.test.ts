/**
 * Webhook endpoints (docs/notifications.md), their secrets and signatures, and test sends:
 * delivered for real to an HTTP receiver (test/global-setup.ts) and verified with the
 * `standardwebhooks` package, as a receiver would. Retries, timeouts and the delivery log:
 * deliveries.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createExecutionContext, env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import worker from "../../src/index";
import { addKey, call, client, createAccount, dbOf, expectStatus, okBody, type TestAccount } from "../support/api";
import { useClock } from "../support/clock";
import { firstAnswerLost, interceptD1Batch } from "../support/d1-faults";
import { MAX_RETIRED_SECRETS } from "../../src/db/webhooks";
import { holderDied, holderRevived, storedAnswers } from "../support/key-store";
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
    const second = await api.post("/v1/webhook_endpoints", {
      url: "https://example.com/hooks",
      description: "billing",
      enabled_events: ["candidate.confirmed"],
    });
    expectStatus(second, 201);
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

    const list = okBody(await api.get("/v1/webhook_endpoints")).data;
    expect(list.map((e: any) => e.id)).toEqual([second.body.id, first.id]);
    expect(JSON.stringify(list)).not.toContain("whsec_");
    const { secret: _secret, ...withoutSecret } = second.body;
    expect((await api.get(`/v1/webhook_endpoints/${second.body.id}`)).body).toEqual(withoutSecret);

    const patched = await api.patch(`/v1/webhook_endpoints/${second.body.id}`, {
      description: null,
      enabled_events: ["candidate.failed", "candidate.pending"],
      status: "disabled",
    });
    expectStatus(patched, 200);
    expect(patched.body).toMatchObject({
      description: null,
      enabled_events: ["candidate.failed", "candidate.pending"],
      status: "disabled",
      url: "https://example.com/hooks",
    });
    expect(JSON.stringify(patched.body)).not.toContain("whsec_");
    // A PATCH that changes nothing is no change; each change is stamped later than the one before,
    // even within a millisecond.
    useClock(); // one millisecond, frozen
    const same = okBody(await api.patch(`/v1/webhook_endpoints/${second.body.id}`, { status: "disabled" }));
    expect(same.updated_at).toBe(patched.body.updated_at);
    const stamps: number[] = [];
    for (const description of ["one", "two", "three"])
      stamps.push(
        Date.parse(okBody(await api.patch(`/v1/webhook_endpoints/${second.body.id}`, { description })).updated_at),
      );
    expect(stamps[1]).toBe(stamps[0] + 1);
    expect(stamps[2]).toBe(stamps[0] + 2);

    expect((await api.delete(`/v1/webhook_endpoints/${second.body.id}`)).status).toBe(204);
    const gone = await api.get(`/v1/webhook_endpoints/${second.body.id}`);
    expectStatus(gone, 404);
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
      [{ url: "https://example.com:0/hooks" }, "url"],
      [{}, "url"],
      [{ url: "https://example.com", enabled_events: [] }, "enabled_events"],
      [{ url: "https://example.com", enabled_events: ["candidate.open"] }, "enabled_events.0"],
      [{ url: "https://example.com", enabled_events: ["candidate.failed", "candidate.failed"] }, "enabled_events"],
      [{ url: "https://example.com", secret: "mine" }, "secret"],
      // Never into the network the service runs in: private, link-local, shared and unspecified addresses.
      ...[
        "https://169.254.169.254/latest",
        "https://10.0.0.1/x",
        "https://192.168.1.1/",
        "https://172.16.5.4/",
        "https://100.64.0.1/",
        "https://0.0.0.0/",
        "https://[fd00::1]/",
        "https://[fe80::1]/",
        "https://[::ffff:10.0.0.1]/",
        "https://0xa000001/",
        "http://10.0.0.1/",
        "https://[::a00:1]/",
        "https://[::7f00:1]/",
        "https://[64:ff9b::a00:1]/",
      ].map((url) => [{ url }, "url"] as [Record<string, unknown>, string]),
    ];
    for (const [body, path] of refused) {
      const res = await api.raw.post("/v1/webhook_endpoints", body);
      expectStatus(res, 400, JSON.stringify(body).slice(0, 80));
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
    // An empty URL is one problem, said once.
    const empty = await api.raw.post("/v1/webhook_endpoints", { url: "" });
    expect(empty.body.error.details).toEqual([{ path: "url", message: expect.stringMatching(/empty/) }]);
    // A URL's problem is listed with the body's others, on create and on change.
    const both = { url: "https://exa mple.com", enabled_events: ["candidate.created"], description: 5 };
    const made = okBody(await api.post("/v1/webhook_endpoints", { url: "https://example.com/both" }));
    for (const res of [
      await api.raw.post("/v1/webhook_endpoints", both),
      await api.raw.patch(`/v1/webhook_endpoints/${made.id}`, both),
    ]) {
      expectStatus(res, 400);
      expect(res.body.error.details.map((d: any) => d.path).sort()).toEqual(["description", "enabled_events.0", "url"]);
    }
    expect(okBody(await api.get(`/v1/webhook_endpoints/${made.id}`)).url).toBe("https://example.com/both");
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://localhost/x",
      "http://[::1]:8080/x",
      "http://127.1/x",
      "https://app.localhost/x",
      "https://8.8.8.8/hooks",
      "https://[2606:4700::1111]/hooks",
    ]) {
      expect((await api.post("/v1/webhook_endpoints", { url })).status, url).toBe(201);
    }
    // Where loopback is not allowed (production), no loopback host is, over http:// or https://;
    // on create and change alike, listed with the body's other problems.
    const strictly = async (method: string, path: string, body: unknown) => {
      const res = await worker.fetch(
        new Request(`https://api.test${path}`, {
          method,
          headers: { Authorization: `Bearer ${account.token}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }),
        { ...env, WEBHOOK_ALLOW_LOOPBACK: "false" },
        createExecutionContext(),
      );
      expectStatus(res, 400, JSON.stringify(body));
      return ((await res.json()) as any).error.details as { path: string; message: string }[];
    };
    for (const url of [
      "http://127.0.0.1:9/x",
      "https://127.0.0.1/x",
      "https://localhost/x",
      "https://[::1]/x",
      "https://LOCALHOST./x",
      "https://app.localhost./x",
    ]) {
      expect(await strictly("POST", "/v1/webhook_endpoints", { url }), url).toEqual([
        { path: "url", message: expect.stringMatching(/loopback/) },
      ]);
    }
    const existing = okBody(await api.post("/v1/webhook_endpoints", { url: "https://example.com/strict" }));
    for (const [method, path] of [
      ["POST", "/v1/webhook_endpoints"],
      ["PATCH", `/v1/webhook_endpoints/${existing.id}`],
    ]) {
      const details = await strictly(method, path, { url: "http://localhost/x", enabled_events: ["candidate.open"] });
      expect(details.map((d) => d.path).sort(), method).toEqual(["enabled_events.0", "url"]);
    }
    const nothing = await api.raw.patch(`/v1/webhook_endpoints/${(await endpoint(account)).id}`, {});
    expectStatus(nothing, 400);
    expect(nothing.body.error.details).toEqual([
      { path: "", message: "must change at least one field; received an empty object" },
    ]);
    const unknown = await api.raw.patch(`/v1/webhook_endpoints/${(await endpoint(account)).id}`, { secret: "whsec_x" });
    expectStatus(unknown, 400);
    expect(unknown.body.error.details).toEqual([
      { path: "secret", message: expect.stringMatching(/^is not a known field/) },
    ]);
  });

  it("take a description of one line, up to 1,024 characters counted as code points", async () => {
    const api = client(await createAccount());
    const url = "https://example.com/hooks";
    const NOT_ONE_LINE =
      "must not contain control characters (such as a line break or a tab) or bidirectional formatting characters";
    const refused: [unknown, string][] = [
      ["Billing\nsystem", `${NOT_ONE_LINE}; received U+000A at character 8`],
      ["Billing\u0000", `${NOT_ONE_LINE}; received U+0000 at character 8`],
      ["\u{1F9FE}Billing\u2029", `${NOT_ONE_LINE}; received U+2029 at character 9`],
      ["\u202Emetsys gnillib", `${NOT_ONE_LINE}; received U+202E at character 1`],
      ["d".repeat(1025), "must be at most 1024 characters; received 1025"],
      ["\u{1F9FE}".repeat(1025), "must be at most 1024 characters; received 1025"],
      [42, expect.any(String)],
    ];
    for (const [description, message] of refused) {
      const res = await api.raw.post("/v1/webhook_endpoints", { url, description });
      expectStatus(res, 400, JSON.stringify(description).slice(0, 40));
      expect(res.body.error.details).toEqual([{ path: "description", message }]);
    }
    expect(okBody(await api.get("/v1/webhook_endpoints")).data).toEqual([]);
    // An emoji is one character: 1,024 of them (2,048 UTF-16 units) fit.
    const long = "\u{1F9FE}".repeat(1024);
    const made = await api.post("/v1/webhook_endpoints", { url, description: long });
    expectStatus(made, 201);
    expect(made.body.description).toBe(long);
    const patched = await api.raw.patch(`/v1/webhook_endpoints/${made.body.id}`, { description: "a\tb" });
    expectStatus(patched, 400);
    expect(patched.body.error.details[0].path).toBe("description");
    expect(okBody(await api.get(`/v1/webhook_endpoints/${made.body.id}`)).description).toBe(long);
    // An empty description is none, as null: at creation, and to clear one.
    const blank = await api.post("/v1/webhook_endpoints", { url, description: "" });
    expectStatus(blank, 201);
    expect(blank.body.description).toBeNull();
    const cleared = await api.patch(`/v1/webhook_endpoints/${made.body.id}`, { description: "" });
    expect(okBody(cleared).description).toBeNull();
    expect(okBody(await api.get(`/v1/webhook_endpoints/${made.body.id}`)).description).toBeNull();
  });

  it("are at most 16 per account: 409 WEBHOOK_ENDPOINT_LIMIT_REACHED", async () => {
    const account = await createAccount();
    for (let i = 0; i < 16; i++)
      expect((await client(account).post("/v1/webhook_endpoints", { url: `https://example.com/${i}` })).status).toBe(
        201,
      );
    const over = await client(account).post("/v1/webhook_endpoints", { url: "https://example.com/17" });
    expectStatus(over, 409);
    expect(over.body.error.code).toBe("WEBHOOK_ENDPOINT_LIMIT_REACHED");
    expect(okBody(await client(account).get("/v1/webhook_endpoints")).data).toHaveLength(16);
    expect(
      (await client(await createAccount()).post("/v1/webhook_endpoints", { url: "https://example.com/other" })).status,
    ).toBe(201);
  });
});

describe("a keyed endpoint create", () => {
  it("makes one endpoint, its secret shown in the answer that is replayed, even if the first request died", async () => {
    const account = await createAccount();
    const clock = useClock();
    const headers = { "Idempotency-Key": `ep-${crypto.randomUUID()}` };
    const body = { url: "https://example.com/keyed" };
    // The Worker dies right after the endpoint's write: D1 committed it (and its answer under the
    // key), the Worker never heard back, and nothing more reaches the key's object.
    await holderDied(account.id, headers["Idempotency-Key"]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let first;
    try {
      first = await interceptD1Batch(/INSERT INTO webhook_endpoints/, firstAnswerLost, () =>
        call("POST", "/v1/webhook_endpoints", { token: account.token, json: body, headers }),
      );
    } finally {
      await holderRevived(account.id, headers["Idempotency-Key"]);
      errors.mockRestore();
    }
    expectStatus(first, 500);
    clock.advance(31_000);
    const retry = await call("POST", "/v1/webhook_endpoints", { token: account.token, json: body, headers });
    expectStatus(retry, 201);
    const again = await call("POST", "/v1/webhook_endpoints", { token: account.token, json: body, headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(retry.body);
    expect(retry.body.secret).toMatch(/^whsec_/);
    expect(okBody(await client(account).get("/v1/webhook_endpoints")).data.map((e: any) => e.id)).toEqual([
      retry.body.id,
    ]);
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
    expect(() =>
      new Webhook(hook.secret).verify(delivery.body.replace("PENDING", "FAILED"), delivery.headers),
    ).toThrow();
    const otherSecret = (await endpoint(account, "200", { enabled_events: ["candidate.failed"] })).secret;
    expect(() => new Webhook(otherSecret).verify(delivery.body, delivery.headers)).toThrow();

    const [attempt] = await vi.waitUntil(async () => {
      const log = await attempts(account, hook.id);
      return log[0]?.status === "succeeded" && log;
    });
    expect(attempt).toEqual({
      id: expect.any(String),
      delivery_id: expect.any(String),
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

  it("are signed by both secrets for 24 hours after a rotation, then by the new one alone", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotated = await call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token });
    expectStatus(rotated, 200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const { notification } = await pendingCandidate(account);
    const [during] = await waitForReceived(hook.name, 1);
    expect(during.headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(hook.secret).verify(during.body, during.headers)).toEqual(notification);
    expect(new Webhook(rotated.body.secret).verify(during.body, during.headers)).toEqual(notification);

    useClock(Date.now() + 24 * 3_600_000 + 1000);
    await handOff(deliveryOf(account, hook.id, notification.id));
    await runAttempts(hook.id);
    const [, after] = await received(hook.name);
    expect(after.headers["webhook-signature"].split(" ")).toHaveLength(1);
    expect(new Webhook(rotated.body.secret).verify(after.body, after.headers)).toEqual(notification);
    expect(() => new Webhook(hook.secret).verify(after.body, after.headers)).toThrow();
  });

  it("are signed by every secret still in its overlap, however many rotations", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotate = async () =>
      (await call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token })).body
        .secret as string;
    const [second, third] = [await rotate(), await rotate()];
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(3);
    for (const secret of [hook.secret, second, third])
      expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);
  });

  it("rotate in turn when many rotations arrive at once: each succeeds, and every replaced secret keeps signing", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotations = await Promise.all(
      Array.from({ length: 12 }, () =>
        call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token }),
      ),
    );
    expect(
      rotations.map((r) => r.status),
      JSON.stringify(rotations.find((r) => r.status !== 200)?.body),
    ).toEqual(Array(12).fill(200));
    const secrets = [hook.secret, ...rotations.map((r) => r.body.secret as string)];
    expect(new Set(secrets).size).toBe(13);
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(13);
    for (const secret of secrets)
      expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);
  });

  it(`refuse a rotation while ${MAX_RETIRED_SECRETS} replaced secrets still sign: none stops before its 24 hours`, async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const rotate = () => call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token });
    const secrets = [hook.secret];
    for (let i = 0; i < MAX_RETIRED_SECRETS; i++) {
      const rotated = await rotate();
      expectStatus(rotated, 200);
      secrets.push(rotated.body.secret);
    }
    // One more, alone or several at once: each refused, saying when the oldest replaced secret stops.
    const refused = await Promise.all([rotate(), rotate(), rotate()]);
    for (const res of refused) {
      expectStatus(res, 409);
      expect(res.body.error.code).toBe("INVALID_STATE");
      expect(res.body.error.message).toMatch(
        new RegExp(`has ${MAX_RETIRED_SECRETS} replaced secrets still signing.*stops at \\d{4}-\\d\\d-\\d\\dT`),
      );
    }
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(MAX_RETIRED_SECRETS + 1);
    for (const secret of secrets)
      expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);

    // Once the oldest replaced secret's 24 hours are over, a rotation goes through again.
    await dbOf(account)
      .prepare(`UPDATE webhook_endpoints SET retired_secrets = json_set(retired_secrets, '$[0].until', ?) WHERE id = ?`)
      .bind(Date.now() - 1, hook.id)
      .run();
    expectStatus(await rotate(), 200);

    // An endpoint rotated more often before rotations were refused signs with its newest ones only.
    const older = Array.from({ length: 4 }, () => `whsec_${btoa(crypto.randomUUID())}`);
    await dbOf(account)
      .prepare(
        `UPDATE webhook_endpoints SET retired_secrets = (SELECT json_group_array(json(value)) FROM
           (SELECT value FROM json_each(?) UNION ALL SELECT value FROM json_each(retired_secrets))) WHERE id = ?`,
      )
      .bind(JSON.stringify(older.map((secret) => ({ secret, until: Date.now() + 3_600_000 }))), hook.id)
      .run();
    const test = await call("POST", `/v1/webhook_endpoints/${hook.id}/test`, { token: account.token });
    expectStatus(test, 200);
    const [, sent] = await waitForReceived(hook.name, 2);
    expect(sent.headers["webhook-signature"].split(" ")).toHaveLength(MAX_RETIRED_SECRETS + 1);
    for (const secret of older) expect(() => new Webhook(secret).verify(sent.body, sent.headers)).toThrow();
  });

  it("rotate once per Idempotency-Key: a retry replays the same new secret", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.pending"] });
    const headers = { "Idempotency-Key": `rotate-${crypto.randomUUID()}` };
    const rotate = () =>
      call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token, headers });
    const first = await rotate();
    expectStatus(first, 200);
    const again = await rotate();
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const { notification } = await pendingCandidate(account);
    const [delivery] = await waitForReceived(hook.name, 1);
    expect(delivery.headers["webhook-signature"].split(" ")).toHaveLength(2);
    for (const secret of [hook.secret, first.body.secret])
      expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toEqual(notification);
  });
});

describe("a webhook secret under an Idempotency-Key", () => {
  const keyed = (who: TestAccount, path: string, k: string, json?: unknown) =>
    call("POST", path, {
      token: who.token,
      headers: { "Idempotency-Key": k },
      ...(json === undefined ? {} : { json }),
    });

  it("is replayed to the same API key only, and kept sealed: at creation and at rotation", async () => {
    const account = await createAccount();
    const other = await addKey(account); // full access too
    const body = { url: "https://example.com/hooks/sealed" };
    const made = await keyed(account, "/v1/webhook_endpoints", "hook-1", body);
    expectStatus(made, 201);
    const rotated = await keyed(account, `/v1/webhook_endpoints/${made.body.id}/rotate_secret`, "rotate-1");
    expectStatus(rotated, 200);
    expect(rotated.body).toMatchObject({ id: made.body.id, url: body.url, status: "enabled" });

    for (const [path, k, json, first] of [
      ["/v1/webhook_endpoints", "hook-1", body, made],
      [`/v1/webhook_endpoints/${made.body.id}/rotate_secret`, "rotate-1", undefined, rotated],
    ] as const) {
      const again = await keyed(account, path, k, json);
      expectStatus(again, first.status);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(again.body).toEqual(first.body); // the secret included
      const refused = await keyed(other, path, k, json);
      expectStatus(refused, 409);
      expect(refused.body.error).toMatchObject({
        code: "IDEMPOTENCY_KEY_REUSED",
        message: expect.stringMatching(/another API key or dashboard session\. Use a new key/),
      });
      expect(JSON.stringify(refused.body)).not.toContain("whsec_");
    }
    // One endpoint, rotated once: its first secret and the rotated one sign, and no other.
    const endpoints = okBody(await client(account).get("/v1/webhook_endpoints")).data;
    expect(endpoints.map((e: { id: string }) => e.id)).toEqual([made.body.id]);
    const row = await dbOf(account)
      .prepare(`SELECT secret, retired_secrets FROM webhook_endpoints WHERE id = ?`)
      .bind(made.body.id)
      .first<{ secret: string; retired_secrets: string }>();
    expect(row!.secret).toBe(rotated.body.secret);
    expect(JSON.parse(row!.retired_secrets).map((r: { secret: string }) => r.secret)).toEqual([made.body.secret]);

    // An id sent in capitals names the same endpoint: its answer is kept in D1 all the same (the
    // copy a retry finds once the key's own record is lost).
    const upper = await keyed(account, `/v1/webhook_endpoints/${made.body.id.toUpperCase()}/rotate_secret`, "rotate-2");
    expectStatus(upper, 200);
    expect(upper.body.id).toBe(made.body.id);

    // Neither store of the answers holds the secret readably: the key's object, D1's answers.
    for (const [k, secret] of [
      ["hook-1", made.body.secret],
      ["rotate-1", rotated.body.secret],
      ["rotate-2", upper.body.secret],
    ]) {
      for (const stored of await storedAnswers(dbOf(account), account.id, k)) {
        expect(stored).toMatch(/^sealed\.v1\.[A-Za-z0-9+/]+=*$/);
        expect(stored).not.toContain(secret.slice(6, 22));
      }
    }
  });

  it("is answered with the endpoint as rotated when a change lands between the rotation's read and its write", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200");
    const rotated = await interceptD1Batch(
      /UPDATE webhook_endpoints SET secret/,
      async (run, nth) => {
        if (nth === 0) {
          // A PATCH made after the rotation read the endpoint: this write no longer applies.
          await dbOf(account)
            .prepare(`UPDATE webhook_endpoints SET description = 'changed meanwhile', status = 'disabled' WHERE id = ?`)
            .bind(hook.id)
            .run();
        }
        return run();
      },
      () => keyed(account, `/v1/webhook_endpoints/${hook.id}/rotate_secret`, "rotate-raced"),
    );
    expectStatus(rotated, 200);
    expect(rotated.body).toMatchObject({ description: "changed meanwhile", status: "disabled" });
    const { secret: _secret, updated_at: _at, ...shown } = rotated.body;
    const { updated_at: _now, ...stored } = okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`));
    expect(shown).toEqual(stored);
    const row = await dbOf(account)
      .prepare(`SELECT secret, retired_secrets FROM webhook_endpoints WHERE id = ?`)
      .bind(hook.id)
      .first<{ secret: string; retired_secrets: string }>();
    expect(row!.secret).toBe(rotated.body.secret);
    expect(JSON.parse(row!.retired_secrets)).toHaveLength(1); // rotated once
    const again = await keyed(account, `/v1/webhook_endpoints/${hook.id}/rotate_secret`, "rotate-raced");
    expect(again.body).toEqual(rotated.body);
  });
  it("is refused with 409 INVALID_STATE, nothing rotated, when the endpoint keeps changing under the rotation", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200");
    let changes = 0;
    const refused = await interceptD1Batch(
      /UPDATE webhook_endpoints SET secret/,
      async (run) => {
        await dbOf(account)
          .prepare(`UPDATE webhook_endpoints SET description = ? WHERE id = ?`)
          .bind(`change ${++changes}`, hook.id)
          .run();
        return run();
      },
      () => keyed(account, `/v1/webhook_endpoints/${hook.id}/rotate_secret`, "rotate-contended"),
    );
    expectStatus(refused, 409);
    expect(refused.body.error).toMatchObject({
      code: "INVALID_STATE",
      message: `The webhook endpoint '${hook.id}' kept changing while its secret was being rotated. Send the request again.`,
    });
    expect(changes).toBe(3);
    const row = await dbOf(account)
      .prepare(`SELECT secret, retired_secrets FROM webhook_endpoints WHERE id = ?`)
      .bind(hook.id)
      .first<{ secret: string; retired_secrets: string }>();
    expect(row).toEqual({ secret: hook.secret, retired_secrets: "[]" });
    // The key was freed with nothing done: the same request now rotates.
    const retried = await keyed(account, `/v1/webhook_endpoints/${hook.id}/rotate_secret`, "rotate-contended");
    expectStatus(retried, 200);
    expect(retried.body).toMatchObject({ description: "change 3" });
  });
});

describe("a test send", () => {
  const test = (
    account: { token: string },
    id: string,
    options: { headers?: Record<string, string>; json?: unknown } = {},
  ) => call("POST", `/v1/webhook_endpoints/${id}/test`, { token: account.token, ...options });

  it("signs a webhook.test event with the endpoint's secrets, sends it now and answers the attempt", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "200", { enabled_events: ["candidate.confirmed"] });
    const rotated = (await call("POST", `/v1/webhook_endpoints/${hook.id}/rotate_secret`, { token: account.token }))
      .body.secret;
    const before = Date.now();
    const res = await test(account, hook.id);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      event_id: expect.stringMatching(/^test_[0-9a-f]{32}$/),
      type: "webhook.test",
      webhook_endpoint_id: hook.id,
      status: "succeeded",
      response_status: 200,
      error: null,
      duration_ms: expect.any(Number),
      attempted_at: expect.any(String),
    });
    expect(Date.parse(res.body.attempted_at)).toBeGreaterThanOrEqual(before);
    const [sent] = await received(hook.name);
    expect(sent.headers["webhook-id"]).toBe(res.body.event_id);
    for (const secret of [hook.secret, rotated]) {
      expect(new Webhook(secret).verify(sent.body, sent.headers)).toEqual({
        id: res.body.event_id,
        type: "webhook.test",
        timestamp: expect.any(String),
        data: { webhook_endpoint_id: hook.id },
      });
    }
    // Not a notification: not in the feed, not in the delivery log.
    expect(okBody(await client(account).get("/v1/notifications")).data).toEqual([]);
    expect(await attempts(account, hook.id)).toEqual([]);
  });

  it("goes to a disabled endpoint too, answers a failure as it came, and neither retries nor changes the endpoint", async () => {
    const account = await createAccount();
    const hook = await endpoint(account, "410");
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "disabled" });
    const res = await test(account, hook.id, { json: {} });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: "failed", response_status: 410, error: "answered 410, not a 2xx" });
    await client(account).patch(`/v1/webhook_endpoints/${hook.id}`, { status: "enabled" });
    const failing = await test(account, hook.id);
    expect(failing.body).toMatchObject({ status: "failed", response_status: 410 });
    await new Promise((r) => setTimeout(r, 1500)); // past the first retry's due time: none comes
    expect(await received(hook.name)).toHaveLength(2);
    expect(okBody(await client(account).get(`/v1/webhook_endpoints/${hook.id}`)).status).toBe("enabled");
    expect(await attempts(account, hook.id)).toEqual([]);

    const unreachable = okBody(
      await client(account).post("/v1/webhook_endpoints", { url: "http://127.0.0.1:9/closed" }),
    );
    const refused = await test(account, unreachable.id);
    expect(refused.body).toMatchObject({
      status: "failed",
      response_status: null,
      error: expect.stringMatching(
        /^request failed, no HTTP response \(DNS, connection, TLS or an answer that was not HTTP\)(: .+)?$/,
      ),
    });
    // In the service's words: not the runtime's opaque "internal error; reference = …".
    expect(refused.body.error).not.toMatch(/internal error|reference =|Network connection lost/i);
  });

  it("is sent once per Idempotency-Key, and refuses a body, another account's endpoint or a malformed id", async () => {
    const account = await createAccount();
    const hook = await endpoint(account);
    const headers = { "Idempotency-Key": `test-${crypto.randomUUID()}` };
    const first = await test(account, hook.id, { headers });
    const again = await test(account, hook.id, { headers });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    expect(await received(hook.name)).toHaveLength(1);

    const bad = await test(account, hook.id, { json: { url: "https://example.com" } });
    expectStatus(bad, 400);
    expect(bad.body.error.details).toEqual([{ path: "url", message: "is not a known field" }]);
    const other = await createAccount();
    for (const id of [hook.id, "not-a-uuid", crypto.randomUUID()]) {
      const res = await test(other, id);
      expectStatus(res, 404, id);
      expect(res.body.error.code).toBe("WEBHOOK_ENDPOINT_NOT_FOUND");
    }
    expect(await received(hook.name)).toHaveLength(1);
  });
});
