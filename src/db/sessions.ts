/**
 * Typed D1 queries for dashboard sessions (migration 0011) and the sign-in links that start them
 * (migration 0010). Sessions and codes are found only by the SHA-256 of their secret.
 */
import type { ShardName } from "../shards";

/** What authentication needs of a session: the session, and the key that signed it in, if any. */
export interface SessionRow {
  account_id: string;
  account_name: string;
  account_shard: ShardName;
  key_id: string | null;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** Why it was signed out: null by its user, 'limit' by a newer sign-in past MAX_LIVE_SESSIONS. */
  ended_by: "limit" | null;
  /** The signing key's columns; all null for a sign-in link's session (or a key since deleted). */
  key_found: number | null;
  key_name: string | null;
  key_prefix: string | null;
  key_last4: string | null;
  key_permissions: string | null;
  key_expires_at: number | null;
  key_revoked_at: number | null;
}

export async function sessionForHash(db: D1Database, idHash: string) {
  return db
    .prepare(
      `SELECT s.account_id, a.name AS account_name, a.shard AS account_shard, s.key_id, s.created_at, s.last_seen_at, s.expires_at, s.revoked_at, s.ended_by,
              k.id IS NOT NULL AS key_found, k.name AS key_name, k.prefix AS key_prefix, k.last4 AS key_last4,
              k.permissions AS key_permissions, k.expires_at AS key_expires_at, k.revoked_at AS key_revoked_at
       FROM sessions s JOIN accounts a ON a.id = s.account_id
            LEFT JOIN api_tokens k ON k.id = s.key_id AND k.account_id = s.account_id
       WHERE s.id_hash = ?`,
    )
    .bind(idHash)
    .first<SessionRow>();
}

export interface NewSession {
  idHash: string;
  accountId: string;
  keyId: string | null;
  now: number;
  expiresAt: number;
}

const insertSession = (db: D1Database, s: NewSession) =>
  db
    .prepare(
      `INSERT INTO sessions (id_hash, account_id, key_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`,
    )
    .bind(s.idHash, s.accountId, s.keyId, s.now, s.now, s.expiresAt);

/** A session unused this long has ended (its last_seen_at is written at most once a minute). */
export const SESSION_IDLE_MS = 12 * 3600_000;

/**
 * Each credential of an account (an API key; or the sign-in links, together) keeps at most this
 * many live sessions: a sign-in beyond them signs out that credential's oldest. Per credential, so
 * a restricted key signing in again and again ends only its own sessions, never a full-access one;
 * and an account's rows stay bounded (its active keys, plus one, times this).
 */
export const MAX_LIVE_SESSIONS = 50;

/** Signs out the live sessions of session `idHash`'s credential beyond its newest MAX_LIVE_SESSIONS. */
const capSessions = (db: D1Database, idHash: string, now: number) =>
  db
    .prepare(
      `UPDATE sessions SET revoked_at = ?2, ended_by = 'limit'
       WHERE rowid IN (SELECT s.rowid FROM sessions s JOIN sessions me ON me.id_hash = ?1
                       WHERE s.account_id = me.account_id AND s.key_id IS me.key_id
                         AND s.revoked_at IS NULL AND s.expires_at > ?2 AND s.last_seen_at > ?2 - ?4
                       ORDER BY s.created_at DESC, s.rowid DESC LIMIT -1 OFFSET ?3)`,
    )
    .bind(idHash, now, MAX_LIVE_SESSIONS, SESSION_IDLE_MS);

/** A session signed in with an API key (already authenticated by the caller). */
export async function createKeySession(db: D1Database, session: NewSession & { keyId: string }) {
  await db.batch([insertSession(db, session), capSessions(db, session.idHash, session.now)]);
}

export interface SignInLinkRow {
  account_id: string;
  expires_at: number;
  used_at: number | null;
}

/**
 * Spends the link's code and starts a session for its account, in one transaction: the session is
 * made only if the code is unused and unexpired, and the code is marked used only then, so two
 * concurrent uses of one code cannot both sign in. Null when nothing was made; then the link (if
 * any) says why.
 */
export async function spendSignInLink(
  db: D1Database,
  codeHash: string,
  session: Omit<NewSession, "accountId" | "keyId">,
): Promise<{ accountId: string } | { refused: SignInLinkRow | null }> {
  const usable = `code_hash = ?2 AND used_at IS NULL AND expires_at > ?3`;
  const [made, , , link] = await db.batch<{ account_id: string } | SignInLinkRow>([
    db
      .prepare(
        `INSERT INTO sessions (id_hash, account_id, key_id, created_at, last_seen_at, expires_at)
         SELECT ?1, account_id, NULL, ?3, ?3, ?4 FROM sign_in_links WHERE ${usable} RETURNING account_id`,
      )
      .bind(session.idHash, codeHash, session.now, session.expiresAt),
    capSessions(db, session.idHash, session.now),
    db.prepare(`UPDATE sign_in_links SET used_at = ?3 WHERE ${usable}`).bind(null, codeHash, session.now),
    db.prepare(`SELECT account_id, expires_at, used_at FROM sign_in_links WHERE code_hash = ?`).bind(codeHash),
  ]);
  const account = made.results[0] as { account_id: string } | undefined;
  if (account) return { accountId: account.account_id };
  return { refused: (link.results[0] as SignInLinkRow | undefined) ?? null };
}

/** Records activity, unless some isolate recorded it less than `precisionMs` before. */
export async function touchSession(db: D1Database, idHash: string, now: number, precisionMs: number) {
  await db
    .prepare(`UPDATE sessions SET last_seen_at = ?2 WHERE id_hash = ?1 AND last_seen_at <= ?2 - ?3`)
    .bind(idHash, now, precisionMs)
    .run();
}

/** Signs the session out (the first sign-out's instant is kept). */
export async function revokeSession(db: D1Database, idHash: string, now: number) {
  await db
    .prepare(`UPDATE sessions SET revoked_at = COALESCE(revoked_at, ?) WHERE id_hash = ?`)
    .bind(now, idHash)
    .run();
}

/** How long a spent or expired sign-in link is kept, so using it again says why it is refused. */
const LINK_KEEP_MS = 24 * 3600_000;

/** Deletes a batch of sessions past their absolute expiry, and of old sign-in links; how many went. */
export async function purgeEndedSessions(db: D1Database, now: number, batch = 5000) {
  const [sessions, links] = await db.batch([
    db
      .prepare(`DELETE FROM sessions WHERE rowid IN (SELECT rowid FROM sessions WHERE expires_at <= ? LIMIT ?)`)
      .bind(now, batch),
    db
      .prepare(
        `DELETE FROM sign_in_links WHERE rowid IN (SELECT rowid FROM sign_in_links WHERE expires_at <= ? LIMIT ?)`,
      )
      .bind(now - LINK_KEEP_MS, batch),
  ]);
  return sessions.meta.changes + links.meta.changes;
}
