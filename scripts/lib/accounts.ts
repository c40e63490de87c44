/** Accounts and API tokens, as the accounts CLI and the dev server's first start create them. */
import { randomUUID } from "node:crypto";
import { mintToken } from "../../src/tokens.ts";
import { query, sql, type D1Target } from "./d1.ts";

export interface IssuedToken {
  account_id: string;
  token_id: string;
  token: string;
}

export interface TokenListing {
  token_id: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

function insertToken(accountId: string, tokenId: string, hash: string, prefix: string, now: number) {
  return `INSERT INTO api_tokens (id, account_id, token_hash, prefix, created_at)
          VALUES (${sql(tokenId)}, ${sql(accountId)}, ${sql(hash)}, ${sql(prefix)}, ${sql(now)})`;
}

/** Creates an account and its first token; the token is returned once and stored only hashed. */
export async function createAccount(target: D1Target, name: string): Promise<IssuedToken> {
  const accountId = randomUUID();
  const tokenId = randomUUID();
  const { token, hash, prefix } = await mintToken();
  const now = Date.now();
  await query(target, [
    `INSERT INTO accounts (id, name, created_at) VALUES (${sql(accountId)}, ${sql(name)}, ${sql(now)})`,
    insertToken(accountId, tokenId, hash, prefix, now),
  ]);
  return { account_id: accountId, token_id: tokenId, token };
}

export async function accountExists(target: D1Target, accountId: string): Promise<boolean> {
  const [rows] = await query(target, [`SELECT id FROM accounts WHERE id = ${sql(accountId)}`]);
  return rows.length > 0;
}

/** A new token for an existing account, or null when there is no such account. */
export async function createToken(target: D1Target, accountId: string): Promise<IssuedToken | null> {
  if (!(await accountExists(target, accountId))) return null;
  const tokenId = randomUUID();
  const { token, hash, prefix } = await mintToken();
  await query(target, [insertToken(accountId, tokenId, hash, prefix, Date.now())]);
  return { account_id: accountId, token_id: tokenId, token };
}

export async function listTokens(target: D1Target, accountId: string): Promise<TokenListing[]> {
  const [rows] = await query<{ id: string; prefix: string; created_at: number; revoked_at: number | null }>(target, [
    `SELECT id, prefix, created_at, revoked_at FROM api_tokens WHERE account_id = ${sql(accountId)} ORDER BY created_at, id`,
  ]);
  const iso = (ms: number) => new Date(ms).toISOString();
  return rows.map((r) => ({
    token_id: r.id,
    prefix: r.prefix,
    created_at: iso(r.created_at),
    revoked_at: r.revoked_at === null ? null : iso(r.revoked_at),
  }));
}

/** Revokes a token; "not_found" when no token has that id, "already" when it was revoked before. */
export async function revokeToken(target: D1Target, tokenId: string): Promise<"revoked" | "already" | "not_found"> {
  const [before] = await query<{ revoked_at: number | null }>(target, [
    `SELECT revoked_at FROM api_tokens WHERE id = ${sql(tokenId)}`,
    `UPDATE api_tokens SET revoked_at = ${sql(Date.now())} WHERE id = ${sql(tokenId)} AND revoked_at IS NULL`,
  ]);
  if (before.length === 0) return "not_found";
  return before[0].revoked_at === null ? "revoked" : "already";
}

/** Whether the token with this hash exists and is not revoked. */
export async function tokenIsActive(target: D1Target, hash: string): Promise<boolean> {
  const [rows] = await query(target, [`SELECT id FROM api_tokens WHERE token_hash = ${sql(hash)} AND revoked_at IS NULL`]);
  return rows.length > 0;
}
