/** Typed D1 queries for accounts and API tokens, as the API needs them. */

/** The account an active (unrevoked) token belongs to, or null. */
export async function accountForTokenHash(db: D1Database, tokenHash: string): Promise<string | null> {
  const row = await db
    .prepare(`SELECT account_id FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL`)
    .bind(tokenHash)
    .first<{ account_id: string }>();
  return row?.account_id ?? null;
}
