/** Bench accounts: made in a service instance's D1 as the operator API makes them, and copied to the others. */
import { insertAccountWithToken } from "../../../src/db/accounts.ts";
import { PRIMARY, type ShardName } from "../../../src/shards.ts";
import type { Databases } from "./workers.ts";

/** The instance's shards (its databases but the primary), as the Worker sees them. */
const shardsOf = (dbs: Databases) => new Map([...dbs].filter(([name]) => name !== PRIMARY));

/** An account, placed on a shard as the operator API places it. */
export async function newAccount(dbs: Databases, name: string) {
  return insertAccountWithToken(dbs.get(PRIMARY)!, name, Date.now(), {}, shardsOf(dbs));
}

/**
 * The same accounts and token hashes in another instance, so one token works on both; each account
 * on the shard of the same name there, or on `onShard` (an instance with fewer shards).
 */
export async function copyAccounts(from: Databases, to: Databases, onShard?: ShardName) {
  const [primary, target] = [from.get(PRIMARY)!, to.get(PRIMARY)!];
  const accounts = (
    await primary
      .prepare(`SELECT * FROM accounts`)
      .all<{ id: string; name: string; created_at: number; shard: ShardName }>()
  ).results;
  const tokens = (await primary.prepare(`SELECT * FROM api_tokens`).all()).results;
  const insert = `INSERT INTO accounts (id, name, created_at, shard) VALUES (?, ?, ?, ?)`;
  for (const a of accounts) {
    const shard = onShard ?? a.shard;
    if (shard !== PRIMARY) await to.get(shard)!.prepare(insert).bind(a.id, a.name, a.created_at, shard).run();
    await target.prepare(insert).bind(a.id, a.name, a.created_at, shard).run();
  }
  await target.batch(
    tokens.map((t) =>
      target
        .prepare(`INSERT INTO api_tokens (id, account_id, token_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)`)
        .bind(t.id, t.account_id, t.token_hash, t.prefix, t.created_at),
    ),
  );
}

/** The database an account's data is on, in an instance. */
export async function accountDb(dbs: Databases, accountId: string): Promise<D1Database> {
  const row = await dbs
    .get(PRIMARY)!
    .prepare(`SELECT shard FROM accounts WHERE id = ?`)
    .bind(accountId)
    .first<{ shard: ShardName }>();
  return dbs.get(row!.shard)!;
}

/** A new account in the instance, with the database its data is on. */
export async function newAccountWithDb(dbs: Databases, name: string) {
  const account = await newAccount(dbs, name);
  return { ...account, db: await accountDb(dbs, account.id) };
}
