/**
 * Idempotency-Key records in D1 across takeovers: a request whose lock lapsed while it ran, and
 * a retry that took the key over meanwhile, must not both change anything.
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { claimIdempotencyKey, completionStatement, holdsKey, type KeyClaim } from "../../src/db/idempotency";
import { insertSchemaStatement } from "../../src/db/schemas";
import { contract, createAccount } from "../support/api";

const claimAt = (accountId: string, key: string, now: number): KeyClaim => ({
  accountId,
  key,
  fingerprint: "same request",
  now,
  lockMs: 30_000,
  keepMs: 24 * 3_600_000,
});

async function claim(c: KeyClaim) {
  const outcome = await claimIdempotencyKey(env.DB, c);
  if (outcome.kind !== "claimed") throw new Error(`not claimed: ${outcome.kind}`);
  return { key: c.key, fingerprint: c.fingerprint, lockedUntil: outcome.lockedUntil, claimedAt: outcome.claimedAt };
}

describe("Idempotency-Key takeovers", () => {
  it("keep the key's first instant, so it expires 24 h after first use everywhere", async () => {
    const account = await createAccount();
    const t1 = 1_000_000;
    const first = await claim(claimAt(account.id, "k", t1));
    const retry = await claim(claimAt(account.id, "k", t1 + 23 * 3_600_000)); // the first never finished
    expect(retry.claimedAt).toBe(t1);
    expect(retry.lockedUntil).not.toBe(first.lockedUntil);
    const afterExpiry = await claim(claimAt(account.id, "k", t1 + 24 * 3_600_000 + 60_000));
    expect(afterExpiry.claimedAt).toBe(t1 + 24 * 3_600_000 + 60_000);
  });

  it("leave the request that lost its lock unable to create a schema or record a response", async () => {
    const account = await createAccount();
    const t1 = 2_000_000;
    const slow = await claim(claimAt(account.id, "s", t1));
    const retry = await claim(claimAt(account.id, "s", t1 + 31_000));
    expect(await holdsKey(env.DB, account.id, slow)).toBe(false);
    expect(await holdsKey(env.DB, account.id, retry)).toBe(true);

    // The slow request's create, as the route issues it, after the retry took the key over.
    const { row, statement } = insertSchemaStatement(env.DB, account.id, contract() as never, null, t1 + 40_000, slow);
    const completion = completionStatement(env.DB, account.id, slow, 201, "{}", { sql: "EXISTS (SELECT 1 FROM schemas WHERE id = ?)", params: [row.id] });
    const [inserted, completed] = await env.DB.batch([statement, completion]);
    expect(inserted.meta.changes).toBe(0);
    expect(completed.meta.changes).toBe(0);
    // Nor can it record any other response over the retry's claim.
    expect((await completionStatement(env.DB, account.id, slow, 409, "{}").run()).meta.changes).toBe(0);

    // The retry creates the schema and records its response.
    const mine = insertSchemaStatement(env.DB, account.id, contract() as never, null, t1 + 41_000, retry);
    const [ok, recorded] = await env.DB.batch([
      mine.statement,
      completionStatement(env.DB, account.id, retry, 201, "{}", { sql: "EXISTS (SELECT 1 FROM schemas WHERE id = ?)", params: [mine.row.id] }),
    ]);
    expect([ok.meta.changes, recorded.meta.changes]).toEqual([1, 1]);
    const { n } = (await env.DB.prepare(`SELECT COUNT(*) AS n FROM schemas WHERE account_id = ?`).bind(account.id).first<{ n: number }>())!;
    expect(n).toBe(1);
  });
});
