/**
 * IdempotencyKeysObject: the claims and outcomes of Idempotency-Keys (docs/idempotency.md), one
 * SQLite-backed Durable Object per account and bucket of keys, so a key always reaches the same
 * object: its input gate serialises the requests that share a key, and a key costs the shared
 * D1 database nothing (docs/scale.md). A key's record expires 24 h after its first use; the
 * object's alarm deletes what expired.
 */
import { DurableObject } from "cloudflare:workers";

export const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;
/** A request holding a key longer than this is presumed dead, and a retry may take the key. */
export const IDEMPOTENCY_LOCK_MS = 30_000;

/**
 * Objects per account. Never change it: a key would move to another object, which knows
 * nothing of its claim or outcome.
 */
export const KEY_BUCKETS = 32;

/** The key's bucket: FNV-1a of its UTF-16 code units, mod KEY_BUCKETS. */
export function keyBucket(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % KEY_BUCKETS;
}

/** The object that holds this account's key. */
export const keyStore = (env: Env, accountId: string, key: string) =>
  env.IDEMPOTENCY_KEYS.getByName(`${accountId}:${keyBucket(key)}`);

export interface KeyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  now: number;
}

export type ClaimOutcome =
  /** `claimedAt`: when the key's record began, which dates every record of its outcome (24 h from then). */
  | { kind: "claimed"; claimedAt: number; lockedUntil: number }
  | { kind: "replay"; status: number; body: string; bookmark: string | null }
  | { kind: "mismatch" }
  /** Held by a request still running, or one that died before its lock lapsed; `claimedAt` as above. */
  | { kind: "in_progress"; claimedAt: number; lockedUntil: number };

/** The claim a request holds: a later takeover of the same key has another `lockedUntil`. */
export interface Held {
  key: string;
  fingerprint: string;
  lockedUntil: number;
}

const TABLES = `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    account_id   TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL, -- SHA-256 of method, path and body
    created_at   INTEGER NOT NULL,
    locked_until INTEGER,       -- while the claiming request runs
    status       INTEGER,       -- its response, once complete
    body         TEXT,
    bookmark     TEXT,          -- its Bookmark header, if any: a replay reads what the first wrote
    PRIMARY KEY (account_id, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_by_age ON idempotency_keys (created_at);`;

type KeyRow = {
  fingerprint: string;
  created_at: number;
  status: number | null;
  body: string | null;
  bookmark: string | null;
  locked_until: number;
};

/** The key's row while this request's claim holds it; binds account_id, key, fingerprint, locked_until. */
const HELD_BY_THIS_REQUEST = `account_id = ? AND key = ? AND fingerprint = ? AND status IS NULL AND locked_until = ?`;

export class IdempotencyKeysObject extends DurableObject<Env> {
  private readonly sql = this.ctx.storage.sql;
  /** Whether an alarm is known to be set (undefined: not yet looked). */
  private armed: boolean | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql.exec(TABLES);
  }

  /**
   * Claims the key for this request. The key is taken when it is new, expired, or held by an
   * earlier request with the same fingerprint that never finished (it crashed). A takeover keeps
   * the record's creation instant: the key still expires 24 h after it was first used, here and
   * in every store that dates a result by the claim.
   */
  async claim(c: KeyClaim): Promise<ClaimOutcome> {
    const lockedUntil = c.now + IDEMPOTENCY_LOCK_MS;
    const [claimed] = this.sql
      .exec<{ claimed: number }>(
        `INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at, locked_until)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (account_id, key) DO UPDATE SET
           fingerprint = excluded.fingerprint,
           created_at = iif(idempotency_keys.created_at <= ?6, excluded.created_at, idempotency_keys.created_at),
           locked_until = excluded.locked_until, status = NULL, body = NULL, bookmark = NULL
         WHERE idempotency_keys.created_at <= ?6
            OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= ?4
                AND idempotency_keys.fingerprint = excluded.fingerprint)
         RETURNING created_at AS claimed`,
        c.accountId,
        c.key,
        c.fingerprint,
        c.now,
        lockedUntil,
        c.now - IDEMPOTENCY_KEEP_MS,
      )
      .toArray();
    if (claimed) {
      await this.armFor(claimed.claimed);
      return { kind: "claimed", claimedAt: claimed.claimed, lockedUntil };
    }
    const row = this.sql
      .exec<KeyRow>(
        `SELECT fingerprint, created_at, status, body, bookmark, locked_until FROM idempotency_keys WHERE account_id = ? AND key = ?`,
        c.accountId,
        c.key,
      )
      .one();
    if (row.fingerprint !== c.fingerprint) return { kind: "mismatch" };
    if (row.status !== null && row.body !== null)
      return { kind: "replay", status: row.status, body: row.body, bookmark: row.bookmark };
    return { kind: "in_progress", claimedAt: row.created_at, lockedUntil: row.locked_until };
  }

  /** Stores the response of the request holding the key; false (nothing stored) once a retry took the key over. */
  async complete(
    accountId: string,
    held: Held,
    response: { status: number; body: string; bookmark: string | null },
  ): Promise<boolean> {
    const stored = this.sql.exec(
      `UPDATE idempotency_keys SET status = ?, body = ?, bookmark = ?, locked_until = NULL WHERE ${HELD_BY_THIS_REQUEST} RETURNING 1`,
      response.status,
      response.body,
      response.bookmark,
      accountId,
      held.key,
      held.fingerprint,
      held.lockedUntil,
    );
    return stored.toArray().length > 0;
  }

  /**
   * Ends this request's hold without recording a response, keeping the key's fingerprint and first
   * instant: the same request sent again takes the key over at once and does what is left undone,
   * while another request with the key is still 409 IDEMPOTENCY_KEY_REUSED.
   */
  async unlock(accountId: string, held: Held, now: number): Promise<void> {
    this.sql.exec(
      `UPDATE idempotency_keys SET locked_until = ? WHERE ${HELD_BY_THIS_REQUEST}`,
      now,
      accountId,
      held.key,
      held.fingerprint,
      held.lockedUntil,
    );
  }

  /** Frees the key when the request's outcome is not one to replay (invalid input, a failure). */
  async release(accountId: string, held: Held): Promise<void> {
    this.sql.exec(
      `DELETE FROM idempotency_keys WHERE ${HELD_BY_THIS_REQUEST}`,
      accountId,
      held.key,
      held.fingerprint,
      held.lockedUntil,
    );
  }

  /** Deletes the records past their 24 hours, and wakes again when the oldest left expires. */
  async alarm(): Promise<void> {
    this.sql.exec(`DELETE FROM idempotency_keys WHERE created_at <= ?`, Date.now() - IDEMPOTENCY_KEEP_MS);
    const { oldest } = this.sql
      .exec<{ oldest: number | null }>(`SELECT MIN(created_at) AS oldest FROM idempotency_keys`)
      .one();
    if (oldest !== null) await this.ctx.storage.setAlarm(oldest + IDEMPOTENCY_KEEP_MS);
    this.armed = oldest !== null;
  }

  /**
   * Makes sure an alarm will delete a record created at `createdAt`. One already set is for an
   * older record (give or take the clocks of the Workers that claimed), and re-arms for the rest.
   */
  private async armFor(createdAt: number) {
    if (this.armed) return;
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(createdAt + IDEMPOTENCY_KEEP_MS);
    this.armed = true;
  }
}
