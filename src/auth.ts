/**
 * Bearer-token authentication (token format: tokens.ts). D1 holds only each token's SHA-256.
 *
 * Abuse is bounded before it costs anything: a string that is not a well-formed token is refused
 * without a lookup; only tokens that authenticated are cached (per isolate, bounded in bytes, for
 * TOKEN_CACHE_TTL_MS, which bounds how long a revoked token keeps working: decisions.md §5), so a
 * flood of bad tokens can neither fill memory nor evict real accounts; and failed authentication
 * is rate limited per client address, a refused attempt doing no lookup at all.
 */
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import { ApiError } from "./errors";
import { keyForTokenHash, LAST_USED_PRECISION_MS, touchLastUsed } from "./db/tokens";
import { isWellFormedToken, sha256Hex } from "./tokens";
import { grantOfStored } from "./domain/permissions";
import { rateLimited, secondsToReset, type LimitPolicy } from "./rate-limit";
import type { AppEnv, RequestKey } from "./app-env";

export const TOKEN_CACHE_TTL_MS = 10_000;
/** What the token cache may hold, counted as UTF-16 bytes of keys and values plus overhead. */
export const TOKEN_CACHE_MAX_BYTES = 2 * 1024 * 1024;
const ENTRY_OVERHEAD_BYTES = 160;

/**
 * Authenticated token -> its key and when the entry expires. Keyed by the token itself, which
 * never leaves this isolate's memory, so a cached request hashes nothing. Map order is insertion
 * order, so the first entry is the oldest: evicted first when the cache is full. The key's own
 * expiry travels with it and is checked on every request, so a cached key still expires at the
 * instant.
 */
const cache = new Map<string, { key: RequestKey; bytes: number; until: number }>();
let cacheBytes = 0;

function remember(token: string, key: RequestKey, bytes: number, now: number) {
  forget(token);
  for (const [oldest] of cache) {
    if (cacheBytes + bytes <= TOKEN_CACHE_MAX_BYTES) break;
    forget(oldest);
  }
  cache.set(token, { key, bytes, until: now + TOKEN_CACHE_TTL_MS });
  cacheBytes += bytes;
}

function forget(token: string) {
  const entry = cache.get(token);
  if (!entry) return;
  cache.delete(token);
  cacheBytes -= entry.bytes;
}

/**
 * Drops this isolate's cached entries of a key that was just revoked or rolled, so the change
 * holds at once here; other isolates see it within TOKEN_CACHE_TTL_MS.
 */
export function forgetKey(keyId: string) {
  for (const [token, entry] of cache) if (entry.key.id === keyId) forget(token);
}

/** For tests: what the cache holds now. */
export const tokenCacheStats = () => ({ entries: cache.size, bytes: cacheBytes });

/** The key of a token the cache does not hold, from D1; cached when there is one. */
async function lookUp(db: D1Database, token: string, now: number): Promise<RequestKey | null> {
  const row = await keyForTokenHash(db, await sha256Hex(token));
  if (!row) {
    forget(token);
    return null;
  }
  const key = { id: row.id, accountId: row.account_id, grant: grantOfStored(row.permissions), expiresAt: row.expires_at };
  const bytes = 2 * (token.length + row.id.length + row.account_id.length + (row.permissions?.length ?? 0)) + ENTRY_OVERHEAD_BYTES;
  remember(token, key, bytes, now);
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
    touchLastUsed(c.env.DB, keyId, now).catch((error: unknown) => console.error(`could not record the use of key ${keyId}`, error)),
  );
}

const authFailurePolicy = (env: Env): LimitPolicy => ({
  name: "auth-failures-per-address",
  limit: env.AUTH_FAILURE_LIMIT_REQUESTS,
  periodSeconds: env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS,
});

/** Client address -> until when this isolate refuses its authentication attempts outright. */
const blockedAddresses = new Map<string, number>();
const MAX_BLOCKED_ADDRESSES = 10_000;

/**
 * The client's address as the limit counts it: an IPv4 address, or an IPv6 /64 (one host usually
 * holds a whole /64, so counting single IPv6 addresses would let it rotate past the limit).
 */
function clientAddress(c: Context<AppEnv>): string {
  const address = c.req.header("CF-Connecting-IP") ?? "unknown";
  if (!address.includes(":")) return address;
  const [head, tail = ""] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/** 429 without any work when the address used up its failures; else nothing. (Also the operator API's.) */
export function refuseIfBlocked(c: Context<AppEnv>, now: number) {
  const address = clientAddress(c);
  const until = blockedAddresses.get(address);
  if (until === undefined) return;
  if (until > now) throw rateLimited(authFailurePolicy(c.env), "failed authentication attempts from this address", now);
  blockedAddresses.delete(address);
}

/**
 * Counts a failed attempt against the address; the error to answer with (429 once over the limit).
 * The operator API counts its failures here too, on the same limit.
 */
export async function failure(c: Context<AppEnv>, error: ApiError): Promise<ApiError> {
  const address = clientAddress(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: address });
  if (success) return error;
  const now = Date.now();
  const policy = authFailurePolicy(c.env);
  if (blockedAddresses.size >= MAX_BLOCKED_ADDRESSES) blockedAddresses.clear();
  blockedAddresses.set(address, now + secondsToReset(policy, now) * 1000);
  return rateLimited(policy, "failed authentication attempts from this address", now);
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Sets the request's `apiKey` and `accountId`, or answers 401 (429 once an address fails too
 * often). What the key may do is the route's check (routes/route.ts).
 */
export const requireAccount = createMiddleware<AppEnv>(async (c, next) => {
  const now = Date.now();
  const match = BEARER.exec(c.req.header("Authorization") ?? "");
  const token = match?.[1];
  const hit = token !== undefined ? cache.get(token) : undefined;
  let key = hit && hit.until > now ? hit.key : null;
  if (!key) {
    refuseIfBlocked(c, now);
    if (token === undefined) {
      throw await failure(
        c,
        new ApiError("MISSING_API_TOKEN", "Send your API token as `Authorization: Bearer <token>`.", undefined, {
          "WWW-Authenticate": "Bearer",
        }),
      );
    }
    key = isWellFormedToken(token) ? await lookUp(c.env.DB, token, now) : null;
    if (!key) {
      throw await failure(
        c,
        new ApiError("INVALID_API_TOKEN", "The API token is unknown or has been revoked.", undefined, {
          "WWW-Authenticate": 'Bearer error="invalid_token"',
        }),
      );
    }
  }
  if (key.expiresAt !== null && key.expiresAt <= now) {
    throw await failure(
      c,
      new ApiError("EXPIRED_API_TOKEN", `The API key expired at ${new Date(key.expiresAt).toISOString()}.`, undefined, {
        "WWW-Authenticate": 'Bearer error="invalid_token", error_description="The API key expired"',
      }),
    );
  }
  c.set("apiKey", key);
  c.set("accountId", key.accountId);
  recordUse(c, key.id, now);
  await next();
});
