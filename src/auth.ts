/**
 * Who is asking: the one place that decides (docs/keys-and-permissions.md). A request authenticates
 * with `Authorization: Bearer <key>` when it sends that header, else with the dashboard's session
 * cookie (session.ts); either way it gets the same `apiKey` (what it may do, checked per route by
 * routes/shared/route.ts) and `accountId`, and the same errors.
 *
 * Abuse is bounded before it costs anything: a string that is not a well-formed token or cookie is
 * refused without a lookup; only credentials that authenticated are cached (auth-cache.ts), for
 * CREDENTIAL_CACHE_TTL_MS, which bounds how long a revocation goes unseen; every refusal of a guess
 * counts on the failed-authentication limit per address (auth-failures.ts), past which nothing is
 * looked up but a credential that authenticated in this isolate lately. A key that exists but was
 * revoked or expired is no guess: refused, not counted, and a revoked one's refusal is cached
 * apart, so sending it again costs no lookup.
 * A cookie never authenticates a cross-site request that changes something (same-origin.ts).
 */
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import { ApiError } from "./errors/api-error";
import { CREDENTIAL_CACHE_TTL_MS, CredentialCache, entryBytes, SPARED_AFTER_AUTHENTICATING_MS } from "./auth-cache";
import { failure, refuseIfBlocked, uncounted } from "./auth-failures";
import { keyForTokenHash, LAST_USED_PRECISION_MS, touchLastUsed } from "./db/tokens";
import { isWellFormedToken } from "./tokens";
import { sha256Hex } from "./hash";
import { grantOfStored } from "./domain/permissions";
import { isoTime } from "./domain/iso-time";
import { forgetSessionsOfKey, recordSeen, sessionCookie, sessionCookieHeader, sessionOf } from "./session";
import { isSafeMethod, requireSameOrigin } from "./same-origin";
import { knownShard } from "./shards";
import type { AppEnv, RequestKey } from "./app-env";

export const TOKEN_CACHE_TTL_MS = CREDENTIAL_CACHE_TTL_MS;
/** What the token cache may hold, counted as UTF-16 bytes of keys and values plus overhead. */
export const TOKEN_CACHE_MAX_BYTES = 2 * 1024 * 1024;

type BearerKey = RequestKey & { id: string };

/**
 * Authenticated token -> its key. Keyed by the token itself, which never leaves this isolate's
 * memory, so a cached request hashes nothing. The key's own expiry travels with it and is checked
 * on every request, so a cached key still expires at the instant.
 */
const cache = new CredentialCache<BearerKey>(TOKEN_CACHE_TTL_MS, TOKEN_CACHE_MAX_BYTES);

/**
 * Drops this isolate's cached entries of a key that was just revoked or rolled (and of the
 * sessions it signed in), so the change holds at once here; other isolates see it within
 * TOKEN_CACHE_TTL_MS.
 */
export function forgetKey(keyId: string) {
  cache.deleteWhere((key) => key.id === keyId);
  forgetSessionsOfKey(keyId);
}

/**
 * Tokens of revoked keys, refused again without a lookup. Revocation is final, so an entry is never
 * wrong; apart from `cache`, so a flood of revoked keys cannot evict keys that authenticate.
 */
const revokedTokens = new CredentialCache<true>(TOKEN_CACHE_TTL_MS, TOKEN_CACHE_MAX_BYTES / 4);

const unknownOrRevoked = () =>
  new ApiError("INVALID_API_TOKEN", "The API token is unknown or has been revoked.", undefined, {
    "WWW-Authenticate": 'Bearer error="invalid_token"',
  });

/** For tests: what the cache holds now. */
export const tokenCacheStats = () => cache.stats();

/** The key of a token the cache does not hold, from D1: cached when it authenticates, "revoked" when it did once. */
async function lookUp(db: D1Database, token: string, now: number): Promise<BearerKey | "revoked" | null> {
  const row = await keyForTokenHash(db, await sha256Hex(token));
  if (!row || row.revoked_at !== null) {
    cache.delete(token);
    if (row) revokedTokens.set(token, true, entryBytes(token), now);
    return row ? "revoked" : null;
  }
  const key = {
    id: row.id,
    accountId: row.account_id,
    shard: row.shard,
    grant: grantOfStored(row.permissions),
    expiresAt: row.expires_at,
  };
  cache.set(token, key, entryBytes(token, row.id, row.account_id, row.shard, row.permissions), now);
  return key;
}

/** Key id -> when this isolate last recorded its use: bounds the writes to one a minute per key. */
const lastRecorded = new Map<string, number>();
const MAX_RECORDED_KEYS = 10_000;

/**
 * Records the key's use in D1 at its first use in this isolate, then at most once a minute, after
 * the response (waitUntil): a request never waits for it, and most requests write nothing.
 */
function recordUse(c: Context<AppEnv>, keyId: string, now: number) {
  const last = lastRecorded.get(keyId);
  // A clock that went back (a test's, or a host's correction) records again rather than never.
  if (last !== undefined && now - last < LAST_USED_PRECISION_MS && now >= last) return;
  if (lastRecorded.size >= MAX_RECORDED_KEYS) lastRecorded.clear();
  lastRecorded.set(keyId, now);
  c.executionCtx.waitUntil(
    touchLastUsed(c.env.DB, keyId, now).catch((error: unknown) =>
      console.error(`could not record the use of key ${keyId}`, error),
    ),
  );
}

/**
 * The key of a token (from a bearer header, or pasted to sign in to the dashboard), or the 401
 * (429 once the address failed too often) to answer with.
 */
export async function authenticateKey(c: Context<AppEnv>, token: string, now: number): Promise<BearerKey> {
  let key = cache.get(token, now) ?? null;
  if (!key) {
    // Blocked, a token is refused unlooked-up (a revoked one too: a block answers all alike) unless it authenticated here lately.
    if (!cache.authenticatedWithin(token, SPARED_AFTER_AUTHENTICATING_MS, now)) refuseIfBlocked(c, now);
    if (revokedTokens.get(token, now)) throw uncounted(c, unknownOrRevoked());
    const found = isWellFormedToken(token) ? await lookUp(c.env.DB, token, now) : null;
    if (found === "revoked") throw uncounted(c, unknownOrRevoked());
    if (!found) throw await failure(c, unknownOrRevoked());
    key = found;
  }
  if (key.expiresAt !== null && key.expiresAt <= now) {
    throw uncounted(
      c,
      new ApiError("EXPIRED_API_TOKEN", `The API key expired at ${isoTime(key.expiresAt)}.`, undefined, {
        "WWW-Authenticate": 'Bearer error="invalid_token", error_description="The API key expired"',
      }),
    );
  }
  recordUse(c, key.id, now);
  return key;
}

const BEARER = /^Bearer +(\S+) *$/i;

async function bearerCaller(c: Context<AppEnv>, authorization: string | undefined, now: number): Promise<RequestKey> {
  const token = BEARER.exec(authorization ?? "")?.[1];
  if (token !== undefined) return authenticateKey(c, token, now);
  throw uncounted(
    c,
    new ApiError("MISSING_API_TOKEN", "Send your API token as `Authorization: Bearer <token>`.", undefined, {
      "WWW-Authenticate": "Bearer",
    }),
  );
}

/** Sent by the dashboard's pages with each call: the id of the account the page shows. */
export const DASHBOARD_ACCOUNT_HEADER = "Dashboard-Account";

/**
 * A tab of the dashboard names the account it shows: the cookie is the browser's, and may since
 * have been replaced by another tab's sign-in to another account. Nothing is done for that tab.
 */
export function refuseOtherAccount(c: Context<AppEnv>, sessionAccountId: string) {
  const shown = c.req.header(DASHBOARD_ACCOUNT_HEADER);
  if (shown === undefined || shown === sessionAccountId) return;
  // A stale tab, not a guess: not counted as a failure, but its 401 tells the address's allowance.
  throw uncounted(
    c,
    new ApiError(
      "INVALID_SESSION",
      "This page was signed in to another account than the one this browser is signed in to now (another tab signed " +
        "in since). Nothing was done. Sign in again, or go on as the account now signed in.",
      undefined,
      { "WWW-Authenticate": "Bearer" },
    ),
  );
}

/**
 * The caller of a session cookie. A cross-site request that changes something is refused first,
 * before any lookup: the browser sends the cookie whoever made the page.
 */
export async function sessionCaller(c: Context<AppEnv>, value: string, now: number): Promise<RequestKey> {
  if (!isSafeMethod(c.req.method)) requireSameOrigin(c, "This request uses the dashboard's session cookie");
  const cached = await sessionOf(c.env.DB, value, now, () => refuseIfBlocked(c, now));
  if (typeof cached === "string") {
    throw await failure(
      c,
      new ApiError("INVALID_SESSION", `${cached} Sign in to the dashboard again.`, undefined, {
        "WWW-Authenticate": "Bearer",
        "Set-Cookie": sessionCookieHeader(c, "", 0),
      }),
    );
  }
  refuseOtherAccount(c, cached.accountId);
  recordSeen(c, cached, now);
  if (cached.key) recordUse(c, cached.key.id, now);
  return {
    id: cached.key?.id ?? null,
    accountId: cached.accountId,
    shard: cached.accountShard,
    grant: cached.grant,
    expiresAt: cached.key?.expiresAt ?? null,
    session: cached,
  };
}

/**
 * The secret the request authenticated with: its API key, or its session cookie's value. Only its
 * caller knows it (the service keeps each as a hash), so what is sealed with it (sealed-answers.ts)
 * is the caller's alone. Call only after `requireAccount`.
 */
export function callerSecret(c: Context<AppEnv>): string {
  const authorization = c.req.header("Authorization");
  return authorization === undefined ? sessionCookie(c)! : BEARER.exec(authorization)![1];
}

/**
 * Sets the request's `apiKey`, `accountId` and `shard` (where its data lives), or answers 401 (429 once an address fails too
 * often; 403 CROSS_SITE_REQUEST for a cookie sent cross-site). What the caller may do is the
 * route's check (routes/shared/route.ts).
 */
export const requireAccount = createMiddleware<AppEnv>(async (c, next) => {
  const now = Date.now();
  const authorization = c.req.header("Authorization");
  const cookie = authorization === undefined ? sessionCookie(c) : undefined;
  const caller = cookie === undefined ? await bearerCaller(c, authorization, now) : await sessionCaller(c, cookie, now);
  c.set("apiKey", caller);
  c.set("accountId", caller.accountId);
  c.set("shard", knownShard(c.env, caller.shard)); // a bad accounts.shard fails here, saying so, not deep in a route
  await next();
  // What a browser read with its cookie is that account's: kept by no cache, never sniffed as another type.
  if (cookie !== undefined) {
    c.res.headers.set("Cache-Control", "private, no-store");
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  }
});
