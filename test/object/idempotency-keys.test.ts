/**
 * Idempotency-Key records in their Durable Objects (IdempotencyKeysObject): takeovers, a request
 * whose lock lapsed while it ran beside the retry that took the key over, expiry by the alarm,
 * and keys spread over an account's objects by bucket.
 */
import { describe, expect, it } from "vitest";
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { answerStatement, noAnswerYet, storedAnswerStatement } from "../../src/db/idempotency";
import { insertSchemaStatement } from "../../src/db/schemas";
import { IDEMPOTENCY_KEEP_MS, keyBucket, keyStore, KEY_BUCKETS, type KeyClaim } from "../../src/idempotency-keys";
import { call, client, contract, createAccount, dbOf, expectStatus, freshAlias, okBody } from "../support/api";
import { useClock } from "../support/clock";
import { inKeyStore } from "../support/key-store";

const claimAt = (accountId: string, key: string, now: number): KeyClaim => ({
  accountId,
  key,
  fingerprint: "same request",
  now,
});

async function claim(c: KeyClaim) {
  const outcome = await keyStore(env, c.accountId, c.key).claim(c);
  if (outcome.kind !== "claimed") throw new Error(`not claimed: ${outcome.kind}`);
  return { key: c.key, fingerprint: c.fingerprint, lockedUntil: outcome.lockedUntil, claimedAt: outcome.claimedAt };
}

/** `n` keys that land in the same bucket (`same`), or each in a bucket of its own. */
function keys(n: number, same: boolean) {
  const found: string[] = [];
  while (found.length < n) {
    const k = `k-${crypto.randomUUID()}`;
    const taken = found.some((f) => keyBucket(f) === keyBucket(k));
    if (found.length === 0 || taken === same) found.push(k);
  }
  return found;
}

const storedKeys = (accountId: string, key: string) =>
  inKeyStore(accountId, key, (sql) =>
    sql
      .exec<{ key: string }>(`SELECT key FROM idempotency_keys ORDER BY created_at`)
      .toArray()
      .map((r) => r.key),
  );

describe("Idempotency-Key takeovers", () => {
  it("keep the key's first instant, so it expires 24 h after first use everywhere", async () => {
    const account = await createAccount();
    const t1 = Date.now();
    const first = await claim(claimAt(account.id, "k", t1));
    const retry = await claim(claimAt(account.id, "k", t1 + 23 * 3_600_000)); // the first never finished
    expect(retry.claimedAt).toBe(t1);
    expect(retry.lockedUntil).not.toBe(first.lockedUntil);
    const afterExpiry = await claim(claimAt(account.id, "k", t1 + 24 * 3_600_000 + 60_000));
    expect(afterExpiry.claimedAt).toBe(t1 + 24 * 3_600_000 + 60_000);
  });

  it("leave the request that lost its lock unable to record a response, and its change and the retry's one change", async () => {
    const account = await createAccount();
    const store = keyStore(env, account.id, "s");
    const t1 = Date.now();
    const slow = await claim(claimAt(account.id, "s", t1));
    const retry = await claim(claimAt(account.id, "s", t1 + 31_000));
    expect(retry.claimedAt).toBe(t1);

    // Both make the schema as the route does; the slow one reaches D1 first, after the retry took
    // the key over (its lock is elsewhere), and makes it; the retry then finds its answer.
    const db = dbOf(account);
    const create = async (held: typeof slow, now: number) => {
      const { row, statement } = insertSchemaStatement(
        db,
        account.id,
        contract() as never,
        null,
        now,
        noAnswerYet(account.id, held, IDEMPOTENCY_KEEP_MS),
      );
      const answer = answerStatement(db, account.id, held, JSON.stringify({ id: row.id }), {
        sql: "EXISTS (SELECT 1 FROM schemas WHERE id = ?)",
        params: [row.id],
      });
      const [made, , stored] = await db.batch<{ body: string }>([
        statement,
        answer,
        storedAnswerStatement(db, account.id, held, IDEMPOTENCY_KEEP_MS),
      ]);
      return { made: made.meta.changes, answer: stored.results[0]?.body };
    };
    const bySlow = await create(slow, t1 + 40_000);
    const byRetry = await create(retry, t1 + 41_000);
    expect(bySlow.made).toBe(1);
    expect(byRetry).toEqual({ made: 0, answer: bySlow.answer });
    const { n } = (await db
      .prepare(`SELECT COUNT(*) AS n FROM schemas WHERE account_id = ?`)
      .bind(account.id)
      .first<{ n: number }>())!;
    expect(n).toBe(1);

    // Only the retry, which holds the key, records the response.
    expect(await store.complete(account.id, slow, { status: 201, body: "{}", bookmark: null })).toBe(false);
    expect(await store.complete(account.id, retry, { status: 201, body: byRetry.answer!, bookmark: null })).toBe(true);
    expect(await store.claim(claimAt(account.id, "s", t1 + 42_000))).toEqual({
      kind: "replay",
      status: 201,
      body: bySlow.answer,
      bookmark: null,
    });
  });
});

describe("Idempotency-Key records", () => {
  it("are deleted 24 hours after the key's first use by their object's alarm, which wakes again for the next", async () => {
    const { alias, account } = await (async () => {
      const account = await createAccount();
      const alias = freshAlias();
      await client(account).post("/v1/candidates", {
        customer_uuid: "c",
        candidate_alias: alias,
        contract: contract({ activity_window: 3 * 86_400 }),
      });
      return { account, alias };
    })();
    const clock = useClock();
    const t0 = clock.now();
    const [older, newer] = keys(2, true);
    const event = (key: string) =>
      call("POST", "/v1/events", {
        token: account.token,
        json: { candidate_alias: alias, type: "x" },
        headers: { "Idempotency-Key": key },
      });
    expect((await event(older)).status).toBe(201);
    clock.advance(3_600_000);
    expect((await event(newer)).status).toBe(201);
    const store = keyStore(env, account.id, older);
    const alarm = () => inKeyStore(account.id, older, (_sql, _instance, state) => state.storage.getAlarm());
    expect(await alarm()).toBe(t0 + IDEMPOTENCY_KEEP_MS);

    clock.set(t0 + IDEMPOTENCY_KEEP_MS - 1); // an alarm early changes nothing
    expect(await runDurableObjectAlarm(store)).toBe(true);
    expect(await storedKeys(account.id, older)).toEqual([older, newer]);
    expect(await alarm()).toBe(t0 + IDEMPOTENCY_KEEP_MS);

    clock.set(t0 + IDEMPOTENCY_KEEP_MS);
    expect(await runDurableObjectAlarm(store)).toBe(true);
    expect(await storedKeys(account.id, older)).toEqual([newer]);
    expect(await alarm()).toBe(t0 + 3_600_000 + IDEMPOTENCY_KEEP_MS);

    clock.set(t0 + 3_600_000 + IDEMPOTENCY_KEEP_MS);
    expect(await runDurableObjectAlarm(store)).toBe(true);
    expect(await storedKeys(account.id, older)).toEqual([]);
    expect(await alarm()).toBeNull();

    // A key used again after that is a new request, and arms the alarm anew.
    const again = await event(older);
    expectStatus(again, 201);
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await alarm()).toBe(clock.now() + IDEMPOTENCY_KEEP_MS);
  });

  it("spread an account's keys over its objects by bucket, each key always in its own", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    await client(account).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const [a, b] = keys(2, false);
    expect(keyBucket(a)).not.toBe(keyBucket(b));
    expect(Math.max(keyBucket(a), keyBucket(b))).toBeLessThan(KEY_BUCKETS);
    const event = (key: string, type: string) =>
      call("POST", "/v1/events", {
        token: account.token,
        json: { candidate_alias: alias, type },
        headers: { "Idempotency-Key": key },
      });
    const first = { a: await event(a, "a"), b: await event(b, "b") };
    expect([first.a.status, first.b.status]).toEqual([201, 201]);
    expect(await storedKeys(account.id, a)).toEqual([a]);
    expect(await storedKeys(account.id, b)).toEqual([b]);
    // Each key replays from its own object, and is refused there for another request.
    for (const [key, type, answer] of [
      [a, "a", first.a],
      [b, "b", first.b],
    ] as const) {
      const again = await event(key, type);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(again.body).toEqual(answer.body);
      expect((await event(key, "other")).body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    }
    expect(okBody(await client(account).get(`/v1/candidates/${alias}`)).events).toHaveLength(2);
  });
});
