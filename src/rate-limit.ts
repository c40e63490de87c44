/**
 * Rate limits, enforced by the Workers rate-limiting binding (limits in wrangler.toml), and the
 * RateLimit headers that report them (draft-ietf-httpapi-ratelimit-headers, and the widely used
 * older trio).
 *
 * - per account: every authenticated /v1 request, with its allowance on every response;
 * - per client address: failed authentication (auth-failures.ts), so guessing tokens is slow and
 *   a flood of bad tokens costs no database lookups; every 401 carries what is left of it;
 * - per client address: the OpenAPI document, the one /v1 response that needs no key.
 *
 * The binding answers only allowed or not, so the allowance reported is counted here, per
 * isolate, in the same wall-clock-aligned windows the binding uses. Locally (one isolate) it is
 * exact; on Cloudflare, where the binding's own counts are per location and approximate, it is
 * this isolate's view.
 */
import type { Context, Next } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors/api-error";
import type { AppEnv } from "./app-env";
import { clientAddress } from "./client-address";

export interface LimitPolicy {
  name: string;
  limit: number;
  periodSeconds: number;
}

const MAX_TRACKED_KEYS = 10_000;

/** Counts of what one policy let through in the current window, per key, in this isolate. */
export class WindowCounts {
  private counts = new Map<string, { window: number; count: number }>();

  /** Counts one allowed request for `key`; the allowance left in this window. */
  count(policy: LimitPolicy, key: string, now: number): number {
    const window = windowOf(policy, now);
    let seen = this.counts.get(key);
    if (!seen || seen.window !== window) {
      if (this.counts.size >= MAX_TRACKED_KEYS) this.counts.clear();
      seen = { window, count: 0 };
      this.counts.set(key, seen);
    }
    seen.count++;
    return Math.max(0, policy.limit - seen.count);
  }

  /** The allowance left for `key` in this window, counting nothing. */
  remaining(policy: LimitPolicy, key: string, now: number): number {
    const seen = this.counts.get(key);
    return seen?.window === windowOf(policy, now) ? Math.max(0, policy.limit - seen.count) : policy.limit;
  }
}

const windowOf = (policy: LimitPolicy, now: number) => Math.floor(now / (policy.periodSeconds * 1000));

/** Seconds until the current window of `policy` ends (at least 1). */
export function secondsToReset(policy: LimitPolicy, now: number): number {
  const periodMs = policy.periodSeconds * 1000;
  return Math.max(1, Math.ceil(((windowOf(policy, now) + 1) * periodMs - now) / 1000));
}

export function rateLimitHeaders(policy: LimitPolicy, remaining: number, now: number): Record<string, string> {
  const reset = secondsToReset(policy, now);
  return {
    "RateLimit-Policy": `"${policy.name}";q=${policy.limit};w=${policy.periodSeconds}`,
    RateLimit: `"${policy.name}";r=${remaining};t=${reset}`,
    "RateLimit-Limit": String(policy.limit),
    "RateLimit-Remaining": String(remaining),
    "RateLimit-Reset": String(reset),
  };
}

/** The 429 of every policy: its headers, `Retry-After`, and what the limit is. */
export function rateLimited(policy: LimitPolicy, what: string, now: number): ApiError {
  return new ApiError(
    "RATE_LIMITED",
    `Too many ${what}: at most ${policy.limit} every ${policy.periodSeconds} seconds.`,
    undefined,
    { ...rateLimitHeaders(policy, 0, now), "Retry-After": String(secondsToReset(policy, now)) },
  );
}

/**
 * Counts the request against `policy` for `key` (its binding decides) before anything else runs:
 * a refused request does no work. The response carries the allowance left.
 */
async function limitThen(
  c: Context<AppEnv>,
  next: Next,
  limit: { policy: LimitPolicy; binding: RateLimit; counts: WindowCounts; key: string; what: string },
) {
  const { success } = await limit.binding.limit({ key: limit.key });
  const now = Date.now();
  if (!success) throw rateLimited(limit.policy, limit.what, now);
  const headers = rateLimitHeaders(limit.policy, limit.counts.count(limit.policy, limit.key, now), now);
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
}

const accountCounts = new WindowCounts();

/** Every authenticated /v1 request, per account. */
export const rateLimit = createMiddleware<AppEnv>((c, next) =>
  limitThen(c, next, {
    policy: { name: "per-account", limit: c.env.RATE_LIMIT_REQUESTS, periodSeconds: c.env.RATE_LIMIT_PERIOD_SECONDS },
    binding: c.env.RATE_LIMITER,
    counts: accountCounts,
    key: c.get("accountId"),
    what: "requests for this account",
  }),
);

const publicCounts = new WindowCounts();

/** The public OpenAPI document, which takes no key: per client address. */
export const publicRateLimit = createMiddleware<AppEnv>((c, next) =>
  limitThen(c, next, {
    policy: {
      name: "public-per-address",
      limit: c.env.PUBLIC_LIMIT_REQUESTS,
      periodSeconds: c.env.PUBLIC_LIMIT_PERIOD_SECONDS,
    },
    binding: c.env.PUBLIC_LIMITER,
    counts: publicCounts,
    key: clientAddress(c),
    what: "requests for the public document from this address",
  }),
);
