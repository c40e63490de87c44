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

export async function insertAccountWithToken(db: D1Database, name: string, now = Date.now()): Promise<NewAccount> {
  const id = uuidv7();
  const tokenId = uuidv7();
  const { token, hash, prefix } = await mintToken();
  await db.batch([
    db.prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?)`).bind(id, name, now),
    db
      .prepare(`INSERT INTO api_tokens (id, account_id, token_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)`)
      .bind(tokenId, id, hash, prefix, now),
  ]);
  return { id, tokenId, token };
}
