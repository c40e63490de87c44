import { describe, expect, it, vi } from "vitest";
import { createScheduledController, env } from "cloudflare:test";
import worker from "../../src/index";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  okBody,
  type TestAccount,
  dbOf,
} from "../support/api";
import { useClock } from "../support/clock";
import { gate, firstAnswerLost, interceptD1Batch } from "../support/d1-faults";
import { candidateHasNoResult, holderDied, holderRevived, inKeyStore } from "../support/key-store";
import { requestFingerprint } from "../../src/idempotency";

const post = (account: TestAccount, path: string, json: unknown, key?: string) =>
  call("POST", path, { token: account.token, json, headers: key ? { "Idempotency-Key": key } : {} });

const eventCount = async (account: TestAccount, alias: string) =>
  okBody(await client(account).get(`/v1/candidates/${alias}`)).events.length;

async function withCandidate(over: Record<string, unknown> = {}) {
  const account = await createAccount();
  const alias = freshAlias();
  const res = await post(account, "/v1/candidates", {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract(over),
  });
  expectStatus(res, 201);
  return { account, alias };
}

const key = () => `key-${crypto.randomUUID()}`;

/** A keyed schema create that D1 makes but whose answer is lost: the request fails (500). */
async function schemaMadeAnswerLost(account: TestAccount, body: unknown, k: string) {
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  const first = await interceptD1Batch(/INSERT INTO schemas/, firstAnswerLost, () =>
    post(account, "/v1/schemas", body, k),
  ).finally(() => errors.mockRestore());
  expectStatus(first, 500);
}

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
    expect(okBody(await api.get("/v1/schemas")).data).toHaveLength(1);
    expect(okBody(await api.get("/v1/candidates")).data).toHaveLength(1);
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(read.events).toHaveLength(1);
    expect(read.status).toBe("FAILED");
  });

  it("refuses the same key with another body, path or method target: 409 IDEMPOTENCY_KEY_REUSED", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    expect((await post(account, "/v1/events", { candidate_alias: alias, type: "a" }, k)).status).toBe(201);
    const otherBody = await post(account, "/v1/events", { candidate_alias: alias, type: "b" }, k);
    expectStatus(otherBody, 409);
    expect(otherBody.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    const otherPath = await post(account, "/v1/schemas", { contract: contract() }, k);
    expect(otherPath.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await eventCount(account, alias)).toBe(1);
    expect(okBody(await client(account).get("/v1/schemas")).data).toEqual([]);
  });

  it("refuses a key used on one candidate for another: 409 IDEMPOTENCY_KEY_REUSED, even once the first's hold lapsed", async () => {
    const { account, alias } = await withCandidate();
    const other = freshAlias();
    expect(
      (await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: other, contract: contract() }))
        .status,
    ).toBe(201);
    const clock = useClock();
    for (const died of [false, true]) {
      const k = key();
      const first = await post(account, "/v1/events", { candidate_alias: alias, type: "a" }, k);
      expectStatus(first, 201);
      if (died) {
        // The first request died before recording its response, and its lock has lapsed.
        await inKeyStore(account.id, k, (sql) =>
          sql.exec(
            `UPDATE idempotency_keys SET status = NULL, body = NULL, locked_until = ? WHERE key = ?`,
            clock.now() - 1,
            k,
          ),
        );
        clock.advance(1000);
      }
      const elsewhere = await post(account, "/v1/events", { candidate_alias: other, type: "a" }, k);
      expectStatus(elsewhere, 409, `died: ${died}`);
      expect(elsewhere.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      const again = await post(account, "/v1/events", { candidate_alias: alias, type: "a" }, k);
      expect(again.body).toEqual(first.body);
    }
    expect(await eventCount(account, alias)).toBe(2);
    expect(await eventCount(account, other)).toBe(0);
  });

  it("treats a body with other whitespace as the same request", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const headers = { "Idempotency-Key": k, "Content-Type": "application/json" };
    const body = { candidate_alias: alias, type: "a", value: { x: 1 } };
    const first = await call("POST", "/v1/events", { token: account.token, headers, raw: JSON.stringify(body) });
    const again = await call("POST", "/v1/events", {
      token: account.token,
      headers,
      raw: JSON.stringify(body, null, 2),
    });
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("scopes keys to the account", async () => {
    const a = await createAccount();
    const b = await createAccount();
    const k = key();
    const first = await post(a, "/v1/schemas", { contract: contract() }, k);
    const second = await post(b, "/v1/schemas", { contract: contract() }, k);
    expectStatus(second, 201);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.user_id).toBe(b.id);
  });

  it("does not store validation failures: the key stays free for the corrected request", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const bad = await post(account, "/v1/events", { candidate_alias: alias, type: "" }, k);
    expectStatus(bad, 400);
    const good = await post(account, "/v1/events", { candidate_alias: alias, type: "ok" }, k);
    expectStatus(good, 201);
    expect(good.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("replays a 404 as it was first answered", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    const k = key();
    const body = { candidate_alias: alias, type: "purchase", value: 150 };
    const first = await post(account, "/v1/events", body, k);
    expectStatus(first, 404);
    await post(account, "/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const again = await post(account, "/v1/events", body, k);
    expectStatus(again, 404);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    // The body names the request that made the answer; so does the header, as on every response.
    expect(again.headers.get("Request-Id")).toBe(first.body.request_id);
    expect(first.headers.get("Request-Id")).toBe(first.body.request_id);
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
    await inKeyStore(account.id, k, (sql) =>
      sql.exec(
        `UPDATE idempotency_keys SET status = NULL, body = NULL, locked_until = ? WHERE key = ?`,
        clock.now() + 20_000,
        k,
      ),
    );
    await candidateHasNoResult(alias, k);
    const res = await post(account, "/v1/events", body, k);
    expectStatus(res, 409);
    expect(res.body.error.code).toBe("IDEMPOTENCY_KEY_IN_USE");
    // When to retry: by then the first has completed, or its hold has lapsed.
    expect(res.headers.get("Retry-After")).toBe("20");
    clock.advance(19_500);
    expect((await post(account, "/v1/events", body, k)).headers.get("Retry-After")).toBe("1");
    expect(await eventCount(account, alias)).toBe(1);
  });

  describe("on a candidate's change, whose result the candidate keeps", () => {
    const keyRecord = (account: TestAccount, k: string) =>
      inKeyStore(account.id, k, (sql) =>
        sql
          .exec<{ status: number | null; body: string | null }>(
            `SELECT status, body FROM idempotency_keys WHERE key = ?`,
            k,
          )
          .one(),
      );

    it("replays an event from the candidate, not from a second copy in the key's object", async () => {
      const { account, alias } = await withCandidate();
      const k = key();
      const body = { candidate_alias: alias, type: "click" }; // fulfils nothing: no index write, no bookmark
      const first = await post(account, "/v1/events", body, k);
      expect(first.status).toBe(201);
      expect(await keyRecord(account, k)).toEqual({ status: null, body: null });
      // Within the first's lock, and after it lapsed (the retry then takes the key over).
      const clock = useClock();
      for (const wait of [1_000, 40_000]) {
        clock.advance(wait);
        const again = await post(account, "/v1/events", body, k);
        expect(again.status).toBe(201);
        expect(again.body).toEqual(first.body);
        expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      }
      expect(await eventCount(account, alias)).toBe(1);
      // The key still belongs to that request: another body, or another candidate, is refused.
      const other = await withCandidate();
      for (const json of [
        { ...body, type: "view" },
        { ...body, candidate_alias: other.alias },
      ]) {
        expect((await post(account, "/v1/events", json, k)).body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      }
    });

    it("keeps the first response's bookmark in the key's object when the change wrote the index", async () => {
      const { account, alias } = await withCandidate();
      const k = key();
      const first = await post(account, "/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }, k);
      expect(first.status).toBe(201);
      expect(first.body.candidate.status).toBe("PENDING");
      expect((await keyRecord(account, k)).status).toBe(201);
    });

    it("answers 409 IN_USE, changing nothing, while the holder has not reached the candidate", async () => {
      const { account, alias } = await withCandidate();
      const clock = useClock();
      const fresh = freshAlias();
      for (const [path, body] of [
        ["/v1/events", { candidate_alias: alias, type: "purchase", value: 150 }],
        [`/v1/candidates/${alias}/resolve`, { outcome: "FAILED" }],
        ["/v1/candidates", { customer_uuid: "c", candidate_alias: fresh, contract: contract() }],
        ["/v1/events", { candidate_alias: freshAlias(), type: "purchase" }], // no such candidate
      ] as const) {
        const k = key();
        // Claimed by the same request, still on its way to the candidate: nothing stored anywhere.
        const fingerprint = await requestFingerprint("POST", path, body);
        await inKeyStore(account.id, k, (sql) =>
          sql.exec(
            `INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at, locked_until) VALUES (?, ?, ?, ?, ?)`,
            account.id,
            k,
            fingerprint,
            clock.now(),
            clock.now() + 20_000,
          ),
        );
        const res = await post(account, path, body, k);
        expect(res.status, path).toBe(409);
        expect(res.body.error.code, path).toBe("IDEMPOTENCY_KEY_IN_USE");
        expect(res.headers.get("Retry-After"), path).toBe("20");
      }
      const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
      expect(read.events).toHaveLength(0);
      expect(read.status).toBe("OPEN");
      expect((await client(account).get(`/v1/candidates/${fresh}`)).status).toBe(404);
    });
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
      await inKeyStore(account.id, k, (sql) =>
        sql.exec(
          `UPDATE idempotency_keys SET status = NULL, body = NULL, locked_until = ? WHERE key = ?`,
          clock.now() - 1,
          k,
        ),
      );
      clock.advance(1000);
      const retry = await post(account, path, body, k);
      expect(retry.status).toBe(first.status);
      expect(retry.body).toEqual(first.body);
    }
    const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
    expect(read.events).toHaveLength(1);
    expect(read.status).toBe("CONFIRMED");
  });

  it("creates a schema once when the request dies between the schema and recording its response", async () => {
    const account = await createAccount();
    const clock = useClock();
    const k = key();
    const body = { contract: contract({ price: 7 }) };
    // A Worker dying right after the schema write: D1 committed the schema (and its answer under
    // the key), the Worker never heard back, and nothing more reaches the key's object.
    await holderDied(account.id, k);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let first;
    try {
      first = await interceptD1Batch(/INSERT INTO schemas/, firstAnswerLost, () =>
        post(account, "/v1/schemas", body, k),
      );
    } finally {
      await holderRevived(account.id, k);
      errors.mockRestore();
    }
    expectStatus(first, 500);
    clock.advance(31_000); // past the lock: a retry may take the key over
    const retry = await post(account, "/v1/schemas", body, k);
    expectStatus(retry, 201);
    const again = await post(account, "/v1/schemas", body, k);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(retry.body);
    expect(okBody(await client(account).get("/v1/schemas")).data.map((s: any) => s.id)).toEqual([retry.body.id]);
  });

  it("replays a create whose schema was deleted since, within the hold and after a takeover", async () => {
    const account = await createAccount();
    const clock = useClock();
    const k = key();
    const schema = okBody(await client(account).post("/v1/schemas", { contract: contract() })).id;
    const body = { customer_uuid: "c", candidate_alias: freshAlias(), schema_id: schema };
    // The Worker made the candidate and died before recording its response.
    await holderDied(account.id, k);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    let first;
    try {
      first = await post(account, "/v1/candidates", body, k);
    } finally {
      await holderRevived(account.id, k);
      errors.mockRestore();
    }
    expectStatus(first, 201);
    expectStatus(await client(account).delete(`/v1/schemas/${schema}`), 204);
    // Within the hold, and after it lapsed: the candidate's answer, not the schema's 404.
    const held = await post(account, "/v1/candidates", body, k);
    expectStatus(held, 201);
    expect(held.headers.get("Idempotent-Replayed")).toBe("true");
    expect(held.body).toEqual(first.body);
    clock.advance(31_000);
    const takenOver = await post(account, "/v1/candidates", body, k);
    expectStatus(takenOver, 201);
    expect(takenOver.body).toEqual(first.body);
    // Another request under the key, on a deleted schema, is still refused as such.
    const other = await post(account, "/v1/candidates", { ...body, customer_uuid: "d" }, k);
    expectStatus(other, 409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // Without a key, the deleted schema is a 404 as ever, and stores nothing.
    const unkeyed = await post(account, "/v1/candidates", { ...body, candidate_alias: freshAlias() });
    expectStatus(unkeyed, 404);
  });

  it("answers a keyed create on another account's alias, its schema missing, as on an alias no one has", async () => {
    const owner = await createAccount();
    const taken = freshAlias();
    await client(owner).post("/v1/candidates", { customer_uuid: "c", candidate_alias: taken, contract: contract() });
    const other = await createAccount();
    const answers = [];
    for (const alias of [taken, freshAlias()]) {
      const k = key();
      const body = { customer_uuid: "c", candidate_alias: alias, schema_id: crypto.randomUUID() };
      // The first request's answer is never recorded: the second finds the key held.
      await holderDied(other.id, k);
      const errors = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        const first = await post(other, "/v1/candidates", body, k);
        const second = await post(other, "/v1/candidates", body, k);
        answers.push([first.status, first.body.error.code, second.status, second.body.error.code]);
      } finally {
        await holderRevived(other.id, k);
        errors.mockRestore();
      }
    }
    expect(answers[0]).toEqual([404, "SCHEMA_NOT_FOUND", 409, "IDEMPOTENCY_KEY_IN_USE"]);
    expect(answers[1]).toEqual(answers[0]);
  });

  it("creates a schema once when the request that made it failed, its answer lost", async () => {
    const account = await createAccount();
    const k = key();
    const body = { contract: contract({ price: 8 }) };
    await schemaMadeAnswerLost(account, body, k);
    // The key is claimed anew, and the schema's answer, stored with it, is what the retry gets.
    const retry = await post(account, "/v1/schemas", body, k);
    expectStatus(retry, 201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(okBody(await client(account).get("/v1/schemas")).data.map((s: any) => s.id)).toEqual([retry.body.id]);
    const other = await post(account, "/v1/schemas", { contract: contract({ price: 9 }) }, k);
    expectStatus(other, 409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("keeps a key whose request failed (5xx) for that request: another, on any route, is refused", async () => {
    const { account, alias } = await withCandidate();
    const k = key();
    const body = { contract: contract({ price: 11 }) };
    await schemaMadeAnswerLost(account, body, k); // a 500, after a change that was made
    // Another request with the key, here an event on a candidate that knows nothing of it.
    const other = await post(account, "/v1/events", { candidate_alias: alias, type: "view" }, k);
    expectStatus(other, 409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await eventCount(account, alias)).toBe(0);
    // The same request, sent again at once, takes the key over and gets the schema that was made.
    const retry = await post(account, "/v1/schemas", body, k);
    expectStatus(retry, 201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(okBody(await client(account).get("/v1/schemas")).data.map((s: any) => s.id)).toEqual([retry.body.id]);
  });

  it("lets two holders of a key create one schema: the first to reach D1 makes it, the other answers it", async () => {
    const clock = useClock();
    for (const first of ["the slow holder", "the retry"]) {
      const account = await createAccount();
      const k = key();
      const body = { contract: contract({ price: 5 }) };
      const [arrived, released] = [
        [gate(), gate()],
        [gate(), gate()],
      ];
      const order = first === "the slow holder" ? [0, 1] : [1, 0];
      const [slow, retry] = await interceptD1Batch(
        /INSERT INTO schemas/,
        async (run, nth) => {
          arrived[nth].open();
          await released[nth].opened();
          return run();
        },
        async () => {
          const slow = post(account, "/v1/schemas", body, k);
          await arrived[0].opened(); // the first request holds the key, its change on the way to D1...
          clock.advance(31_000); // ...for longer than its lock
          const retry = post(account, "/v1/schemas", body, k); // takes the key over
          await arrived[1].opened();
          const answers = [slow, retry];
          released[order[0]].open();
          await answers[order[0]];
          released[order[1]].open();
          return Promise.all(answers);
        },
      );
      const [maker, other] = first === "the slow holder" ? [slow, retry] : [retry, slow];
      expectStatus(maker, 201, first);
      expect(maker.headers.get("Idempotent-Replayed"), first).toBeNull();
      expectStatus(other, 201, first);
      expect(other.headers.get("Idempotent-Replayed"), first).toBe("true");
      expect(other.body, first).toEqual(maker.body);
      const again = await post(account, "/v1/schemas", body, k);
      expect(again.headers.get("Idempotent-Replayed"), first).toBe("true");
      expect(again.body, first).toEqual(maker.body);
      expect(
        okBody(await client(account).get("/v1/schemas")).data.map((s: any) => s.id),
        first,
      ).toEqual([maker.body.id]);
    }
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
    expectStatus(later, 201);
    expect(later.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await eventCount(account, alias)).toBe(2);
  });

  it("validates the key's length", async () => {
    const account = await createAccount();
    for (const k of ["", "k".repeat(256)]) {
      const res = await call("POST", "/v1/schemas", {
        token: account.token,
        json: { contract: contract() },
        headers: { "Idempotency-Key": k },
      });
      expectStatus(res, 400);
      expect(res.body.error.details).toEqual([{ path: "Idempotency-Key", message: expect.any(String) }]);
    }
    expect(okBody(await client(account).get("/v1/schemas")).data).toEqual([]);
    const longest = await post(account, "/v1/schemas", { contract: contract() }, "k".repeat(255));
    expectStatus(longest, 201);
  });

  it("purges the answers of keyed D1 changes older than 24 hours from the hourly cron", async () => {
    const account = await createAccount();
    const clock = useClock();
    const old = key();
    await post(account, "/v1/schemas", { contract: contract() }, old);
    clock.advance(24 * 3_600_000 + 1);
    const fresh = key();
    await post(account, "/v1/schemas", { contract: contract() }, fresh);
    await worker.scheduled(createScheduledController(), env);
    const { results } = await dbOf(account)
      .prepare(`SELECT key FROM idempotent_changes WHERE account_id = ?`)
      .bind(account.id)
      .all();
    expect(results.map((r) => r.key)).toEqual([fresh]);
  });
});
