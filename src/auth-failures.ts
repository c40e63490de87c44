/**
 * The failed-authentication limit per client address (docs/keys-and-permissions.md): every refused
 * credential (a bearer key, a session cookie, a sign-in link's code, a key pasted to sign in, the
 * operator secret) counts here, and an address past the limit is refused before any lookup (but
 * for credentials that authenticated in this isolate lately: auth-cache.ts). A
 * request with no credential at all guesses nothing: it is not counted, and answered 401 as ever.
 * A key that exists but was revoked or has expired guesses nothing and is not counted (`uncounted`).
 * Every 401 says in RateLimit headers how many failures the address has left.
 */
import type { Context } from "hono";
import { ApiError } from "./errors/api-error";
import { rateLimited, rateLimitHeaders, secondsToReset, WindowCounts, type LimitPolicy } from "./rate-limit";
import type { AppEnv } from "./app-env";
import { clientAddress } from "./client-address";

const authFailurePolicy = (env: Env): LimitPolicy => ({
  name: "auth-failures-per-address",
  limit: env.AUTH_FAILURE_LIMIT_REQUESTS,
  periodSeconds: env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS,
});

/** Client address -> until when this isolate refuses its authentication attempts outright. */
const blockedAddresses = new Map<string, number>();
const MAX_BLOCKED_ADDRESSES = 10_000;

/** 429 without any work when the address used up its failures; else nothing. */
export function refuseIfBlocked(c: Context<AppEnv>, now: number) {
  const address = clientAddress(c);
  const until = blockedAddresses.get(address);
  if (until === undefined) return;
  if (until > now) throw rateLimited(authFailurePolicy(c.env), "failed authentication attempts from this address", now);
  blockedAddresses.delete(address);
}

/** Failures per address in this isolate's window, for the RateLimit headers (rate-limit.ts says why counted here). */
const failureCounts = new WindowCounts();

/** The 401 with the address's allowance of failures in its RateLimit headers. */
const withAllowance = (error: ApiError, policy: LimitPolicy, remaining: number, now: number) =>
  new ApiError(error.code, error.message, error.details, {
    ...error.headers,
    ...rateLimitHeaders(policy, remaining, now),
  });

/** Counts a failed attempt against the address; the error to answer with (429 once over the limit). */
export async function failure(c: Context<AppEnv>, error: ApiError): Promise<ApiError> {
  const address = clientAddress(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: address });
  const now = Date.now();
  const policy = authFailurePolicy(c.env);
  if (success) return withAllowance(error, policy, failureCounts.count(policy, address, now), now);
  if (blockedAddresses.size >= MAX_BLOCKED_ADDRESSES) blockedAddresses.clear();
  blockedAddresses.set(address, now + secondsToReset(policy, now) * 1000);
  return rateLimited(policy, "failed authentication attempts from this address", now);
}

/**
 * A refusal that guessed nothing: no credential at all, or an API key that exists but was revoked
 * or has expired (a client still sending the key it was told to stop using). It does not count as
 * a failure, so such a client cannot lock the address's other keys out; it costs no lookup
 * (auth.ts caches a revoked key's refusal), so it needs no block; its 401 tells the address's allowance.
 */
export function uncounted(c: Context<AppEnv>, error: ApiError): ApiError {
  const now = Date.now();
  const policy = authFailurePolicy(c.env);
  return withAllowance(error, policy, failureCounts.remaining(policy, clientAddress(c), now), now);
}
