/**
 * Typed D1 queries for the answers of keyed changes made in D1 alone (a schema or a webhook
 * endpoint created, a secret rotated; migrations/0014_idempotent_changes.sql). Each answer is
 * stored in the same transaction as its change, and the change is made only while no answer of
 * its key is stored: the key's lock lives in another store (IdempotencyKeysObject), so this is
 * what keeps such a change to once per key.
 */
import type { IdempotentRequest } from "../app-env";
import type { D1 } from "../shards";

/** An SQL expression or condition with its parameters. */
export interface SqlFragment {
  sql: string;
  params: (string | number)[];
}

/**
 * Where a key's answers count: those stored less than `keepMs` before its claim, the rule the
 * candidate objects judge their own records by. A key freed and claimed anew within its 24 h
 * (a request that failed after its change) still finds the answer of the change it made.
 */
const ANSWER_OF_KEY = `account_id = ? AND key = ? AND created_at > ?`;
const answerParams = (accountId: string, request: IdempotentRequest, keepMs: number) => [
  accountId,
  request.key,
  request.claimedAt - keepMs,
];

/** SQL that holds while no answer of the request's key is stored: a change made under it happens once. */
export const noAnswerYet = (accountId: string, request: IdempotentRequest, keepMs: number): SqlFragment => ({
  sql: `NOT EXISTS (SELECT 1 FROM idempotent_changes WHERE ${ANSWER_OF_KEY})`,
  params: answerParams(accountId, request, keepMs),
});

/**
 * The statement that stores the change's answer under the key, dated by the key's claim, if the
 * change was made (`madeIf`); an expired answer of the key gives way.
 */
export function answerStatement(
  db: D1,
  accountId: string,
  request: IdempotentRequest,
  body: string,
  madeIf: SqlFragment,
) {
  return db
    .prepare(
      `INSERT INTO idempotent_changes (account_id, key, fingerprint, created_at, body)
       SELECT ?, ?, ?, ?, ? WHERE ${madeIf.sql}
       ON CONFLICT (account_id, key) DO UPDATE SET
         fingerprint = excluded.fingerprint, created_at = excluded.created_at, body = excluded.body`,
    )
    .bind(accountId, request.key, request.fingerprint, request.claimedAt, body, ...madeIf.params);
}

export type StoredAnswer = { fingerprint: string; body: string };

/** The statement that reads the answer stored under the request's key, if any. */
export const storedAnswerStatement = (db: D1, accountId: string, request: IdempotentRequest, keepMs: number) =>
  db
    .prepare(`SELECT fingerprint, body FROM idempotent_changes WHERE ${ANSWER_OF_KEY}`)
    .bind(...answerParams(accountId, request, keepMs));

/** Deletes up to `batch` answers stored before `expiredBefore`; returns how many went. */
export async function purgeExpiredAnswers(db: D1, expiredBefore: number, batch = 5000) {
  const result = await db
    .prepare(
      `DELETE FROM idempotent_changes WHERE rowid IN
         (SELECT rowid FROM idempotent_changes WHERE created_at <= ? LIMIT ?)`,
    )
    .bind(expiredBefore, batch)
    .run();
  return result.meta.changes;
}
