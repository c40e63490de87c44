/** Typed D1 queries for Idempotency-Key records (see migrations/0002_idempotency_keys.sql). */
import type { D1 } from "../shards";

export interface KeyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  now: number;
  /** How long the claiming request may hold the key before a retry may take it over. */
  lockMs: number;
  /** Records older than this are expired: the key is free again. */
  keepMs: number;
}

export type ClaimOutcome =
  /** `claimedAt`: when the key's record began, which dates both its records (24 h from then). */
  | { kind: "claimed"; claimedAt: number; lockedUntil: number }
  | { kind: "replay"; status: number; body: string }
  | { kind: "mismatch" }
  | { kind: "in_progress"; lockedUntil: number };

interface KeyRow {
  fingerprint: string;
  status: number | null;
  body: string | null;
  locked_until: number;
}

/**
 * Claims the key for this request in one round trip. The key is taken when it is new, expired,
 * or held by an earlier request with the same fingerprint that never finished (it crashed). A
 * takeover keeps the record's creation instant: the key still expires 24 h after it was first
 * used, in D1 and in the candidate objects alike.
 */
export async function claimIdempotencyKey(db: D1, c: KeyClaim): Promise<ClaimOutcome> {
  const [claim, existing] = await db.batch<{ claimed?: number } & Partial<KeyRow>>([
    db
      .prepare(
        `INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at, locked_until)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (account_id, key) DO UPDATE SET
           fingerprint = excluded.fingerprint,
           created_at = iif(idempotency_keys.created_at <= ?6, excluded.created_at, idempotency_keys.created_at),
           locked_until = excluded.locked_until, status = NULL, body = NULL
         WHERE idempotency_keys.created_at <= ?6
            OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= ?4
                AND idempotency_keys.fingerprint = excluded.fingerprint)
         RETURNING created_at AS claimed`,
      )
      .bind(c.accountId, c.key, c.fingerprint, c.now, c.now + c.lockMs, c.now - c.keepMs),
    db
      .prepare(`SELECT fingerprint, status, body, locked_until FROM idempotency_keys WHERE account_id = ? AND key = ?`)
      .bind(c.accountId, c.key),
  ]);
  if (claim.results.length > 0) return { kind: "claimed", claimedAt: claim.results[0].claimed!, lockedUntil: c.now + c.lockMs };
  const row = existing.results[0] as KeyRow;
  if (row.fingerprint !== c.fingerprint) return { kind: "mismatch" };
  if (row.status !== null && row.body !== null) return { kind: "replay", status: row.status, body: row.body };
  return { kind: "in_progress", lockedUntil: row.locked_until };
}

/** The claim a request holds: a later takeover of the same key has another `lockedUntil`. */
export interface Held {
  key: string;
  fingerprint: string;
  lockedUntil: number;
}

/** The key's row while this request's claim holds it; binds account_id, key, fingerprint, locked_until. */
const HELD_BY_THIS_REQUEST = `account_id = ? AND key = ? AND fingerprint = ? AND status IS NULL AND locked_until = ?`;

/** An SQL expression or condition with its parameters. */
export interface SqlFragment {
  sql: string;
  params: (string | number)[];
}

/**
 * The statement that stores the response of the request holding the key (a no-op once a retry
 * has taken the key over). `onlyIf` (SQL with its parameters) makes it conditional, for a batch
 * that records the response in the same transaction as the change it describes, only if that
 * change happened. `body` may be SQL, for a response made of the row the change left.
 */
export function completionStatement(db: D1, accountId: string, held: Held, status: number, body: string | SqlFragment, onlyIf?: SqlFragment) {
  const bodySql = typeof body === "string" ? { sql: "?", params: [body] } : body;
  return db
    .prepare(
      `UPDATE idempotency_keys SET status = ?, body = ${bodySql.sql}, locked_until = NULL
       WHERE ${HELD_BY_THIS_REQUEST}${onlyIf ? ` AND ${onlyIf.sql}` : ""}`,
    )
    .bind(status, ...bodySql.params, accountId, held.key, held.fingerprint, held.lockedUntil, ...(onlyIf?.params ?? []));
}

/**
 * SQL (with its parameters) that holds while this request holds its key: a D1-only change made
 * under this condition cannot happen twice, even if a retry took the key over meanwhile.
 */
export const whileHeld = (accountId: string, held: Held) => ({
  sql: `EXISTS (SELECT 1 FROM idempotency_keys WHERE ${HELD_BY_THIS_REQUEST})`,
  params: [accountId, held.key, held.fingerprint, held.lockedUntil] as (string | number)[],
});

/** Whether this request still holds the key (a retry takes over a claim whose lock lapsed). */
export async function holdsKey(db: D1, accountId: string, held: Held): Promise<boolean> {
  const row = await db
    .prepare(`SELECT 1 FROM idempotency_keys WHERE ${HELD_BY_THIS_REQUEST}`)
    .bind(accountId, held.key, held.fingerprint, held.lockedUntil)
    .first();
  return row !== null;
}

/**
 * Ends this request's hold without recording a response, keeping the key's fingerprint and first
 * instant: the same request sent again takes the key over at once and does what is left undone,
 * while another request with the key is still 409 IDEMPOTENCY_KEY_REUSED.
 */
export async function unlockIdempotencyKey(db: D1, accountId: string, held: Held, now: number) {
  await db
    .prepare(`UPDATE idempotency_keys SET locked_until = ? WHERE ${HELD_BY_THIS_REQUEST}`)
    .bind(now, accountId, held.key, held.fingerprint, held.lockedUntil)
    .run();
}

/** Frees the key when the request's outcome is not one to replay (invalid input, a failure). */
export async function releaseIdempotencyKey(db: D1, accountId: string, held: Held) {
  await db
    .prepare(`DELETE FROM idempotency_keys WHERE ${HELD_BY_THIS_REQUEST}`)
    .bind(accountId, held.key, held.fingerprint, held.lockedUntil)
    .run();
}

/** Deletes up to `batch` expired records; returns how many went. */
export async function purgeExpiredIdempotencyKeys(db: D1, expiredBefore: number, batch = 5000) {
  const result = await db
    .prepare(
      `DELETE FROM idempotency_keys WHERE rowid IN
         (SELECT rowid FROM idempotency_keys WHERE created_at <= ? LIMIT ?)`,
    )
    .bind(expiredBefore, batch)
    .run();
  return result.meta.changes;
}
