/**
 * Creating an account with its first token through a D1 binding, for the tests and the benchmark
 * to set up data. Accounts are otherwise made by the operator API (src/operator/store.ts); this
 * writes only the first migration's columns, so the migration tests can use it on an old database.
 */
import { uuidv7 } from "uuidv7";
// With its extension: Node scripts (the benchmark) import this file too.
import { mintToken } from "../tokens.ts";

export interface NewAccount {
  id: string;
  tokenId: string;
  token: string;
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
    .prepare(`INSERT INTO api_tokens (id, account_id, token_hash, prefix, last4, name, permissions, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
    .bind(key.id, accountId, key.hash, key.prefix, key.last4, options.name ?? "First key", options.permissions ? JSON.stringify(options.permissions) : null, options.expiresAt ?? null, now);
}

/** Another key of the account, inserted as POST /v1/api_keys would make it (without its checks). */
export async function insertKey(db: D1Database, accountId: string, options: KeyOptions = {}, now = Date.now()): Promise<{ id: string; token: string }> {
  const key = await mintKey();
  await keyStatement(db, accountId, key, options, now).run();
  return { id: key.id, token: key.token };
}

export async function insertAccountWithToken(db: D1Database, name: string, now = Date.now(), key: KeyOptions = {}): Promise<NewAccount> {
  const id = uuidv7();
  const minted = await mintKey();
  await db.batch([db.prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)`).bind(id, name, now), keyStatement(db, id, minted, key, now)]);
  return { id, tokenId: minted.id, token: minted.token };
}
