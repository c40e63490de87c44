/**
 * Placing a new account on its shard (docs/scale.md), for the operator API
 * (src/operator/store.ts), and creating an account with its first token through a D1 binding, for
 * the tests and the benchmark to set up data. Without shards given, the latter writes only the first
 * migration's columns, so the migration tests can use it on an old database.
 */
import { uuidv7 } from "uuidv7";
// With their extension: Node scripts (the benchmark, the accounts CLI) import this file too.
import { mintToken } from "../tokens.ts";
import { PRIMARY, type D1, type ShardName, type Shards } from "../shards.ts";

export interface NewAccount {
  id: string;
  tokenId: string;
  token: string;
  /** Where its data lives: `DB` (the primary) when made without shards. */
  shard: ShardName;
}

/**
 * The shard a new account goes on: the one with the fewest accounts, the first of them on a tie.
 * So accounts spread evenly, a shard just added takes the new accounts until it has caught up,
 * and the order accounts are made in says where they go (tests rely on it). No shards: the primary.
 */
export async function chooseShard(primary: D1, names: ShardName[]): Promise<ShardName> {
  if (names.length === 0) return PRIMARY;
  const { results } = await primary
    .prepare(`SELECT shard, COUNT(*) AS n FROM accounts WHERE shard <> ? GROUP BY shard`)
    .bind(PRIMARY)
    .all<{ shard: string; n: number }>();
  const count = new Map(results.map((r) => [r.shard, r.n]));
  return names.reduce((fewest, name) => ((count.get(name) ?? 0) < (count.get(fewest) ?? 0) ? name : fewest));
}

/**
 * Chooses the new account's shard and writes its row there first: the anchor of the shard's
 * foreign keys (its schemas, candidates, feed and endpoints name it). Returns the shard and the
 * statement that makes the account in the primary, to run after (with its first key): an anchor
 * whose account was never made is an unreachable row, while the reverse order could leave an
 * account whose data has nowhere to go.
 */
export async function placeAccount(
  primary: D1,
  shards: Shards,
  account: { id: string; name: string; createdAt: number },
) {
  const shard = await chooseShard(primary, [...shards.keys()]);
  const insert = `INSERT INTO accounts (id, name, created_at, shard) VALUES (?, ?, ?, ?)`;
  if (shard !== PRIMARY)
    await shards.get(shard)!.prepare(insert).bind(account.id, account.name, account.createdAt, shard).run();
  return { shard, statement: primary.prepare(insert).bind(account.id, account.name, account.createdAt, shard) };
}

export interface KeyOptions {
  name?: string;
  /** Null or left out: full access. */
  permissions?: string[] | null;
  /** Epoch ms; null or left out: never. */
  expiresAt?: number | null;
}

type MintedKey = { id: string } & Awaited<ReturnType<typeof mintToken>>;
const mintKey = async (): Promise<MintedKey> => ({ id: uuidv7(), ...(await mintToken()) });

function keyStatement(db: D1Database, accountId: string, key: MintedKey, options: KeyOptions, now: number) {
  return db
    .prepare(
      `INSERT INTO api_tokens (id, account_id, token_hash, prefix, last4, name, permissions, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      key.id,
      accountId,
      key.hash,
      key.prefix,
      key.last4,
      options.name ?? "First key",
      options.permissions ? JSON.stringify(options.permissions) : null,
      options.expiresAt ?? null,
      now,
    );
}

/** Another key of the account, inserted as POST /v1/api_keys would make it (without its checks). */
export async function insertKey(
  db: D1Database,
  accountId: string,
  options: KeyOptions = {},
  now = Date.now(),
): Promise<{ id: string; token: string }> {
  const key = await mintKey();
  await keyStatement(db, accountId, key, options, now).run();
  return { id: key.id, token: key.token };
}

/** An account and its first key; with `shards`, placed on one as the operator API places accounts. */
export async function insertAccountWithToken(
  db: D1Database,
  name: string,
  now = Date.now(),
  key: KeyOptions = {},
  shards?: Shards,
): Promise<NewAccount> {
  const id = uuidv7();
  const minted = await mintKey();
  const placed = shards
    ? await placeAccount(db, shards, { id, name, createdAt: now })
    : {
        shard: PRIMARY,
        statement: db.prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)`).bind(id, name, now),
      };
  await db.batch([placed.statement, keyStatement(db, id, minted, key, now)]);
  return { id, tokenId: minted.id, token: minted.token, shard: placed.shard };
}
