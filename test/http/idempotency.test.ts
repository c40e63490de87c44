import { describe, expect, it, vi } from "vitest";
import { createScheduledController, env } from "cloudflare:test";
import worker from "../../src/index";
import { call, client, contract, createAccount, freshAlias, type TestAccount, dbOf } from "../support/api";
import { useClock } from "../support/clock";

const post = (account: TestAccount, path: string, json: unknown, key?: string) =>
  call("POST", path, { token: account.token, json, headers: key ? { "Idempotency-Key": key } : {} });

const eventCount = async (account: TestAccount, alias: string) =>
  (await client(account).get(`/v1/candidates/${alias}`)).body.events.length;

async function withCandidate(over: Record<string, unknown> = {}) {
  const account = await createAccount();
  const alias = freshAlias();
  const res = await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract(over) });
  expect(res.status).toBe(201);
  return { account, alias };
}

const key = () => `key-${crypto.randomUUID()}`;

describe("Idempotency-Key", () => {
  it("replays the first response of every POST, changing nothing twice", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    const requests: [string, unknown][] = [
      ["/v1/schemas", { contract: contract() }],
      ["/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract({ review_window: 600 }) }],
      ["/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }],
      [`/v1/candidates/${alias}/resolve`, { outcome: "FAILED" }],
    ];
    for (const [path, body] of requests) {
      const k = key();
      const first = await post(account, path, body, k);
      expect(first.status, path).toBeLessThan(300);
      expect(first.headers.get("Idempotent-Replayed")).toBeNull();
      const again = await post(account, path, body, k);
      expect(again.status, path).toBe(first.status);
      expect(again.body, path).toEqual(first.body);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(again.headers.get("Request-Id")).not.toBe(first.headers.get("Request-Id"));
    }
    const api = client(account);
    expect((await api.get("/v1/schemas")).body.data).toHaveLength(1);
    expect((await api.get("/v1/candidates")).body.data).toHaveLength(1);
    const read = (await api.get(`/v1/candidates/${alias}`)).body;
    expect(read.events).toHaveLength(1);
    expect(read.status).toBe("FAILED");
  });

  it("refuses the same key with another body, path or method target: 409 IDEMPOTENCY_KEY_REUSED", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    expect((await post(account, "/v1/events", { candidate_alias: alias, type: "a" }, k)).status).toBe(201);
    const otherBody = await post(account, "/v1/events", { candidate_alias: alias, type: "b" }, k);
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    const otherPath = await post(account, "/v1/schemas", { contract: contract() }, k);
    expect(otherPath.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await eventCount(account, alias)).toBe(1);
    expect((await client(account).get("/v1/schemas")).body.data).toEqual([]);
  });

  it("treats a body with other whitespace as the same request", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const headers = { "Idempotency-Key": k, "Content-Type": "application/json" };
    const body = { candidate_alias: alias, type: "a", value: { x: 1 } };
    const first = await call("POST", "/v1/events", { token: account.token, headers, raw: JSON.stringify(body) });
    const again = await call("POST", "/v1/events", { token: account.token, headers, raw: JSON.stringify(body, null, 2) });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("scopes keys to the account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const k = key();
    const first = await post(a, "/v1/schemas", { contract: contract() }, k);
    const second = await post(b, "/v1/schemas", { contract: contract() }, k);
    expect(second.status).toBe(201);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.user_id).toBe(b.id);
  });

  it("does not store validation failures: the key stays free for the corrected request", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const bad = await post(account, "/v1/events", { candidate_alias: alias, type: "" }, k);
    expect(bad.status).toBe(400);
    const good = await post(account, "/v1/events", { candidate_alias: alias, type: "ok" }, k);
    expect(good.status).toBe(201);
    expect(good.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("replays a 404 as it was first answered", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    const k = key();
    const body = { candidate_alias: alias, type: "purchase", value: 150 };
    expect((await post(account, "/v1/events", body, k)).status).toBe(404);
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const again = await post(account, "/v1/events", body, k);
    expect(again.status).toBe(404);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await eventCount(account, alias)).toBe(0);
  });

  it("executes concurrent requests with one key once: the others replay or get 409 IN_USE", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const body = { candidate_alias: alias, type: "purchase", value: 150 };
    const results = await Promise.all(Array.from({ length: 10 }, () => post(account, "/v1/events", body, k)));
    const executed = results.filter((r) => r.status === 201 && r.headers.get("Idempotent-Replayed") === null);
    expect(executed).toHaveLength(1);
    for (const r of results) {
      if (r.status === 201) expect(r.body).toEqual(executed[0].body);
      else expect(r.body.error.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    }
    expect(await eventCount(account, alias)).toBe(1);
  });

  it("answers 409 IN_USE while the first request holds the key", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const body = { candidate_alias: alias, type: "purchase" };
    await post(account, "/v1/events", body, k);
    // As if the first request were still running: no result recorded, lock in the future.
    const clock = useClock();
    await dbOf(account).prepare(`UPDATE idempotency_keys SET status = NULL, body = NULL, locked_until = ? WHERE key = ?`)
      .bind(clock.now() + 20_000, k)
      .run();
    const res = await post(account, "/v1/events", body, k);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    // When to retry: by then the first has completed, or its hold has lapsed.
    expect(res.headers.get("Retry-After")).toBe("20");
    clock.advance(19_500);
    expect((await post(account, "/v1/events", body, k)).headers.get("Retry-After")).toBe("1");
    expect(await eventCount(account, alias)).toBe(1);
  });

  it("never applies a change twice when the first request died before recording its response", async () => {
    const { account, alias } = await withCandidate();
    const clock = useClock();
    for (const [path, body] of [
      ["/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }],
      [`/v1/candidates/${alias}/resolve`, { outcome: "CONFIRMED" }],
    ] as const) {
      const k = key();
      const first = await post(account, path, body, k);
      expect(first.status).toBeLessThan(300);
      // The change happened, but the response was never recorded and the lock has lapsed.
      await dbOf(account).prepare(`UPDATE idempotency_keys SET status = NULL, body = NULL, locked_until = ? WHERE key = ?`)
        .bind(clock.now() - 1, k)
        .run();
      clock.advance(1000);
      const retry = await post(account, path, body, k);
      expect(retry.status).toBe(first.status);
      expect(retry.body).toEqual(first.body);
    }
    const read = (await client(account).get(`/v1/candidates/${alias}`)).body;
    expect(read.events).toHaveLength(1);
    expect(read.status).toBe("CONFIRMED");
  });

  it("creates a schema once when the request dies between the schema and recording its response", async () => {
    const account = await createAccount();
    const clock = useClock();
    const k = key();
    const body = { contract: contract({ price: 7 }) };
    // Recording the key's response fails, as a Worker dying right after the schema write would.
    await dbOf(account).exec(
      `CREATE TRIGGER die_recording BEFORE UPDATE OF status ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'worker died'); END`,
    );
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let first;
    try {
      first = await post(account, "/v1/schemas", body, k);
    } finally {
      await dbOf(account).exec(`DROP TRIGGER die_recording`);
      errors.mockRestore();
    }
    expect(first.status).toBe(500);
    clock.advance(31_000); // past the lock: a retry may take the key over
    const retry = await post(account, "/v1/schemas", body, k);
    expect(retry.status).toBe(201);
    const again = await post(account, "/v1/schemas", body, k);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(retry.body);
    expect((await client(account).get("/v1/schemas")).body.data.map((s: any) => s.id)).toEqual([retry.body.id]);
  });

  it("keeps a key 24 hours: after that the same key is a new request", async () => {
    const { account, alias } = await withCandidate({ activity_window: 3 * 86_400 });
    const clock = useClock();
    const k = key();
    const body = { candidate_alias: alias, type: "ping" };
    await post(account, "/v1/events", body, k);
    clock.advance(24 * 3_600_000 - 1000);
    expect((await post(account, "/v1/events", body, k)).headers.get("Idempotent-Replayed")).toBe("true");
    clock.advance(2000);
    const later = await post(account, "/v1/events", body, k);
    expect(later.status).toBe(201);
    expect(later.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await eventCount(account, alias)).toBe(2);
  });

  it("validates the key's length", async () => {
    const account = await createAccount();
    for (const k of ["", "k".repeat(256)]) {
      const res = await call("POST", "/v1/schemas", { token: account.token, json: { contract: contract() }, headers: { "Idempotency-Key": k } });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([{ path: "Idempotency-Key", message: expect.any(String) }]);
    }
    expect((await client(account).get("/v1/schemas")).body.data).toEqual([]);
    const longest = await post(account, "/v1/schemas", { contract: contract() }, "k".repeat(255));
    expect(longest.status).toBe(201);
  });

  it("purges records older than 24 hours from the hourly cron", async () => {
    const account = await createAccount();
    const clock = useClock();
    const old = key();
    await post(account, "/v1/schemas", { contract: contract() }, old);
    clock.advance(24 * 3_600_000 + 1);
    const fresh = key();
    await post(account, "/v1/schemas", { contract: contract() }, fresh);
    await worker.scheduled(createScheduledController(), env);
    const { results } = await dbOf(account).prepare(`SELECT key FROM idempotency_keys WHERE account_id = ?`).bind(account.id).all();
    expect(results.map((r) => r.key)).toEqual([fresh]);
  });
});
