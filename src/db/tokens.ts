/** Typed D1 queries for API keys (the `api_tokens` table: migrations 0001, 0010 and 0016). */
import type { ShardName } from "../shards.ts";
import { numbered } from "./sql-params.ts";

/**
 * An SQL condition with its parameters, bare `?` each (db/idempotency.ts's SqlFragment, restated:
 * the scripts' type check, which reads this file for the accounts CLI, would reach that file's
 * imports without extensions).
 */
type SqlCondition = { sql: string; params: (string | number)[] };

/**
 * At most this many keys not revoked per account (decisions §5): expired keys count too, until
 * revoked, and so does a key a roll replaced (docs/keys-and-permissions.md).
 */
export const MAX_KEYS_PER_ACCOUNT = 100;
/** last_used_at is written at most this often per key. */
export const LAST_USED_PRECISION_MS = 60_000;

export interface KeyRow {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  last4: string | null;
  /** JSON array text; null: full access. */
  permissions: string | null;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  /** The key a roll replaced it with: a replaced key is not rolled again. */
  replaced_by: string | null;
}

export const KEY_COLUMNS =
  "id, account_id, name, prefix, last4, permissions, created_at, expires_at, last_used_at, revoked_at, replaced_by";

export type KeyStatus = "active" | "expired" | "revoked";

/** SQL for a key's status at `?now` (a bound parameter named by `now`). */
const STATUS_WHERE: Record<KeyStatus, (now: string) => string> = {
  active: (now) => `revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`,
  expired: (now) => `revoked_at IS NULL AND expires_at <= ${now}`,
  revoked: () => `revoked_at IS NOT NULL`,
};

/** What authentication needs of a key, by its token's hash, with its account's shard; null when none. */
export async function keyForTokenHash(db: D1Database, tokenHash: string) {
  return db
    .prepare(
      `SELECT k.id, k.account_id, k.permissions, k.expires_at, k.revoked_at, a.shard FROM api_tokens k JOIN accounts a ON a.id = k.account_id
       WHERE k.token_hash = ?`,
    )
    .bind(tokenHash)
    .first<Pick<KeyRow, "id" | "account_id" | "permissions" | "expires_at" | "revoked_at"> & { shard: ShardName }>();
}

/** Records a use, unless one was recorded less than a minute before (by any isolate). */
export async function touchLastUsed(db: D1Database, id: string, now: number) {
  await db
    .prepare(
      `UPDATE api_tokens SET last_used_at = ?2 WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at <= ?2 - ?3)`,
    )
    .bind(id, now, LAST_USED_PRECISION_MS)
    .run();
}

export interface NewKey {
  id: string;
  accountId: string;
  name: string;
  hash: string;
  prefix: string;
  last4: string;
  permissions: string | null;
  expiresAt: number | null;
  now: number;
}

/**
 * The statement inserting `key` only while `where` holds (SQL with `key`'s values bound as ?1 id,
 * ?2 account, ?9 its instant, and `params` from ?10 on) and, given `onlyIf`, while that holds too
 * (no answer of the request's Idempotency-Key stored yet).
 */
function insertKeyWhere(db: D1Database, key: NewKey, where: string, params: unknown[], onlyIf?: SqlCondition) {
  // `onlyIf`'s bare `?` numbered after `params`, whichever of those `where` names.
  const condition = onlyIf ? ` AND ${numbered(onlyIf.sql, 10 + params.length)}` : "";
  return db
    .prepare(
      `INSERT INTO api_tokens (id, account_id, token_hash, prefix, last4, name, permissions, expires_at, created_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9 WHERE ${where}${condition}`,
    )
    .bind(
      key.id,
      key.accountId,
      key.hash,
      key.prefix,
      key.last4,
      key.name,
      key.permissions,
      key.expiresAt,
      key.now,
      ...params,
      ...(onlyIf?.params ?? []),
    );
}

/** SQL: whether the account (`account`, a parameter) has fewer keys not revoked than `limit` (one). */
export const roomForOneMoreKey = (account: string, limit: string) =>
  `(SELECT COUNT(*) FROM api_tokens WHERE account_id = ${account} AND revoked_at IS NULL) < ${limit}`;
const ROOM_FOR_ONE_MORE = roomForOneMoreKey("?2", "?10");

/** Inserts the key only while the account has fewer than the maximum of keys not revoked. */
export const insertKeyStatement = (db: D1Database, key: NewKey, onlyIf?: SqlCondition) =>
  insertKeyWhere(db, key, ROOM_FOR_ONE_MORE, [MAX_KEYS_PER_ACCOUNT], onlyIf);

export const newKeyRow = (key: NewKey): KeyRow => ({
  id: key.id,
  account_id: key.accountId,
  name: key.name,
  prefix: key.prefix,
  last4: key.last4,
  permissions: key.permissions,
  created_at: key.now,
  expires_at: key.expiresAt,
  last_used_at: null,
  revoked_at: null,
  replaced_by: null,
});

export async function getKey(db: D1Database, accountId: string, id: string) {
  return db
    .prepare(`SELECT ${KEY_COLUMNS} FROM api_tokens WHERE account_id = ? AND id = ?`)
    .bind(accountId, id)
    .first<KeyRow>();
}

/**
 * A page of the account's keys, newest first (ties by id), after the key `afterId`, with that
 * status at `now`; null when `afterId` is not one of the account's keys.
 */
export async function keyPage(
  db: D1Database,
  accountId: string,
  options: { afterId?: string; status?: KeyStatus; now: number; limit: number },
) {
  const after =
    options.afterId === undefined
      ? ""
      : `AND (created_at, id) < (SELECT created_at, id FROM api_tokens WHERE account_id = ?1 AND id = ?2)`;
  const status = options.status ? `AND ${STATUS_WHERE[options.status]("?3")}` : "";
  const page = db
    .prepare(
      `SELECT ${KEY_COLUMNS} FROM api_tokens WHERE account_id = ?1 ${after} ${status} ORDER BY created_at DESC, id DESC LIMIT ?4`,
    )
    .bind(accountId, options.afterId ?? null, options.now, options.limit);
  if (options.afterId === undefined) return (await page.all<KeyRow>()).results;
  const [cursor, rows] = await db.batch<KeyRow | { found: number }>([
    db.prepare(`SELECT 1 AS found FROM api_tokens WHERE account_id = ? AND id = ?`).bind(accountId, options.afterId),
    page,
  ]);
  return cursor.results.length > 0 ? (rows.results as KeyRow[]) : null;
}

export async function renameKey(db: D1Database, accountId: string, id: string, name: string) {
  return db
    .prepare(`UPDATE api_tokens SET name = ? WHERE account_id = ? AND id = ? RETURNING ${KEY_COLUMNS}`)
    .bind(name, accountId, id)
    .first<KeyRow>();
}

/** Revokes the key (a revoked key keeps its first revocation instant). */
export async function revokeKey(db: D1Database, accountId: string, id: string, now: number) {
  return db
    .prepare(
      `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE account_id = ? AND id = ? RETURNING ${KEY_COLUMNS}`,
    )
    .bind(now, accountId, id)
    .first<KeyRow>();
}

/**
 * The two statements of a roll of `oldId`, to run in one transaction, in order: the first inserts
 * `key` (the old key's name, permissions and expiry, as read) only while the old key is active and
 * not yet replaced, and the account stays within its limit (the old key, expired or not, still
 * counts until revoked), and, given `onlyIf`, only while that holds; the
 * second then marks the old key replaced and moves its expiry to `until` (never later than it
 * was). The roll was made when the first changed a row. The name is the one read before: a rename
 * landing between that read and the roll renames the old key only.
 */
export function rollKeyStatements(db: D1Database, oldId: string, key: NewKey, until: number, onlyIf?: SqlCondition) {
  const rollable = `EXISTS (SELECT 1 FROM api_tokens WHERE id = ?11 AND account_id = ?2 AND replaced_by IS NULL AND ${STATUS_WHERE.active("?9")})`;
  return [
    insertKeyWhere(db, key, `${rollable} AND ${ROOM_FOR_ONE_MORE}`, [MAX_KEYS_PER_ACCOUNT, oldId], onlyIf),
    db
      .prepare(
        `UPDATE api_tokens SET expires_at = MIN(COALESCE(expires_at, ?2), ?2), replaced_by = ?3
         WHERE id = ?1 AND EXISTS (SELECT 1 FROM api_tokens WHERE id = ?3)`,
      )
      .bind(oldId, until, key.id),
  ] as const;
}
