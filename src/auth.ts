/**
 * Bearer-token authentication (token format: tokens.ts). D1 holds only each token's SHA-256.
 * Lookups are cached per isolate for a short time, which bounds how long a revoked token keeps
 * working (decisions.md §5: at most 30 seconds).
 */
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";
import { accountForTokenHash } from "./db/tokens";
import { sha256Hex, TOKEN_PREFIX } from "./tokens";
import type { AppEnv } from "./app-env";

export const TOKEN_CACHE_TTL_MS = 10_000;
const TOKEN_CACHE_MAX_ENTRIES = 10_000;

/**
 * Token -> account id (null for unknown or revoked) and when the entry expires. Keyed by the token
 * itself, which never leaves this isolate's memory, so a cached request hashes nothing.
 */
const cache = new Map<string, { accountId: string | null; expires: number }>();

async function accountForToken(db: D1Database, token: string): Promise<string | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const now = Date.now();
  const hit = cache.get(token);
  if (hit && hit.expires > now) return hit.accountId;
  const accountId = await accountForTokenHash(db, await sha256Hex(token));
  if (cache.size >= TOKEN_CACHE_MAX_ENTRIES) cache.clear();
  cache.set(token, { accountId, expires: now + TOKEN_CACHE_TTL_MS });
  return accountId;
}

const BEARER = /^Bearer +(\S+) *$/i;

/** Sets `accountId` for the request or answers 401. */
export const requireAccount = createMiddleware<AppEnv>(async (c, next) => {
  const match = BEARER.exec(c.req.header("Authorization") ?? "");
  if (!match) {
    throw new ApiError("MISSING_API_TOKEN", "Send your API token as `Authorization: Bearer <token>`.", undefined, {
      "WWW-Authenticate": "Bearer",
    });
  }
  const accountId = await accountForToken(c.env.DB, match[1]);
  if (!accountId) {
    throw new ApiError("INVALID_API_TOKEN", "The API token is unknown or has been revoked.", undefined, {
      "WWW-Authenticate": 'Bearer error="invalid_token"',
    });
  }
  c.set("accountId", accountId);
  await next();
});
