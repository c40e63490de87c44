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
import { accountForTokenHash } from "./db/tokens";
import { isWellFormedToken, sha256Hex } from "./tokens";
import { rateLimited, secondsToReset, type LimitPolicy } from "./rate-limit";
import type { AppEnv } from "./app-env";

export const TOKEN_CACHE_TTL_MS = 10_000;
/** What the token cache may hold, counted as UTF-16 bytes of keys and values plus overhead. */
export const TOKEN_CACHE_MAX_BYTES = 2 * 1024 * 1024;
const ENTRY_OVERHEAD_BYTES = 64;

/**
 * Authenticated token -> its account and when the entry expires. Keyed by the token itself, which
 * never leaves this isolate's memory, so a cached request hashes nothing. Map order is insertion
 * order, so the first entry is the oldest: evicted first when the cache is full.
 */
const cache = new Map<string, { accountId: string; expires: number }>();
let cacheBytes = 0;
const entryBytes = (token: string, accountId: string) => 2 * (token.length + accountId.length) + ENTRY_OVERHEAD_BYTES;

function remember(token: string, accountId: string, now: number) {
  forget(token);
  const bytes = entryBytes(token, accountId);
  for (const [oldest, entry] of cache) {
    if (cacheBytes + bytes <= TOKEN_CACHE_MAX_BYTES) break;
    forget(oldest, entry.accountId);
  }
  cache.set(token, { accountId, expires: now + TOKEN_CACHE_TTL_MS });
  cacheBytes += bytes;
}

function forget(token: string, accountId = cache.get(token)?.accountId) {
  if (accountId === undefined) return;
  cache.delete(token);
  cacheBytes -= entryBytes(token, accountId);
}

/** For tests: what the cache holds now. */
export const tokenCacheStats = () => ({ entries: cache.size, bytes: cacheBytes });

/** The account of a token the cache does not hold, from D1; cached when there is one. */
async function lookUp(db: D1Database, token: string, now: number): Promise<string | null> {
  const accountId = await accountForTokenHash(db, await sha256Hex(token));
  if (accountId) remember(token, accountId, now);
  else forget(token);
  return accountId;
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

/** Sets `accountId` for the request or answers 401 (429 once an address fails too often). */
export const requireAccount = createMiddleware<AppEnv>(async (c, next) => {
  const now = Date.now();
  const match = BEARER.exec(c.req.header("Authorization") ?? "");
  const token = match?.[1];
  const hit = token !== undefined ? cache.get(token) : undefined;
  if (hit && hit.expires > now) {
    c.set("accountId", hit.accountId);
    return next();
  }
  refuseIfBlocked(c, now);
  if (token === undefined) {
    throw await failure(
      c,
      new ApiError("MISSING_API_TOKEN", "Send your API token as `Authorization: Bearer <token>`.", undefined, {
        "WWW-Authenticate": "Bearer",
      }),
    );
  }
  const accountId = isWellFormedToken(token) ? await lookUp(c.env.DB, token, now) : null;
  if (!accountId) {
    throw await failure(
      c,
      new ApiError("INVALID_API_TOKEN", "The API token is unknown or has been revoked.", undefined, {
        "WWW-Authenticate": 'Bearer error="invalid_token"',
      }),
    );
  }
  c.set("accountId", accountId);
  await next();
});
