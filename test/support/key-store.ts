/**
 * The Durable Object that holds an account's Idempotency-Key (IdempotencyKeysObject), for tests
 * that look at a key's record or put it in a state a crash would leave (its table and columns are
 * those D1 had: idempotency_keys(account_id, key, fingerprint, created_at, locked_until, status, body)).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { keyStore, type IdempotencyKeysObject } from "../../src/idempotency-keys";

/** Runs `fn` inside the object that holds the account's key, with its SQL storage. */
export function inKeyStore<R>(
  accountId: string,
  key: string,
  fn: (sql: SqlStorage, instance: IdempotencyKeysObject, state: DurableObjectState) => R | Promise<R>,
): Promise<R> {
  return runInDurableObject(keyStore(env, accountId, key), (instance: IdempotencyKeysObject, state) =>
    fn(state.storage.sql, instance, state),
  );
}

/**
 * As a Worker that died holding the key: nothing more it would do reaches the key's object
 * (recording its outcome, freeing the key, ending its hold early), so the claim stands until its
 * lock lapses. A claim by another request still gets through. `holderRevived` undoes it.
 */
export const holderDied = (accountId: string, key: string) =>
  inKeyStore(accountId, key, (sql) =>
    sql.exec(
      `CREATE TRIGGER die_recording BEFORE UPDATE OF status ON idempotency_keys WHEN NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'worker died'); END;
       CREATE TRIGGER die_releasing BEFORE DELETE ON idempotency_keys BEGIN SELECT RAISE(ABORT, 'worker died'); END;
       CREATE TRIGGER die_unlocking BEFORE UPDATE OF locked_until ON idempotency_keys WHEN NEW.locked_until < OLD.locked_until BEGIN SELECT RAISE(ABORT, 'worker died'); END;`,
    ),
  );

export const holderRevived = (accountId: string, key: string) =>
  inKeyStore(accountId, key, (sql) =>
    sql.exec(`DROP TRIGGER die_recording; DROP TRIGGER die_releasing; DROP TRIGGER die_unlocking;`),
  );

/**
 * As if the request holding the key had not reached its candidate yet: the candidate object's
 * record of the key's result (kept with the change, see idempotency.ts) is removed.
 */
export const candidateHasNoResult = (alias: string, key: string) =>
  runInDurableObject(env.CANDIDATES.getByName(alias), (_instance, state: DurableObjectState) => {
    state.storage.sql.exec(`DELETE FROM requests WHERE key = ?`, key);
  });

/**
 * The answer a change made in D1 alone stored under the key, as each store keeps it: the key's
 * object's record and the copy in `db`'s `idempotent_changes` (the primary for API keys, the
 * account's shard for its own data).
 */
export async function storedAnswers(db: D1Database, accountId: string, key: string): Promise<string[]> {
  const kept = await inKeyStore(accountId, key, (sql) =>
    sql.exec<{ body: string }>(`SELECT body FROM idempotency_keys WHERE key = ?`, key).one(),
  );
  const answer = await db
    .prepare(`SELECT body FROM idempotent_changes WHERE account_id = ? AND key = ?`)
    .bind(accountId, key)
    .first<{ body: string }>();
  return [kept.body, answer!.body];
}
