/**
 * Per-account rate limiting with the Workers rate-limiting binding (limits in wrangler.toml).
 *
 * The binding answers only allowed or not, so the allowance reported in the RateLimit headers is
 * counted here, per isolate, in the same wall-clock-aligned windows the binding uses. Locally (one
 * isolate) it is exact; on Cloudflare, where the binding's own counts are per location and
 * approximate, it is this isolate's view.
 */
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";
import type { AppEnv } from "./app-env";

const MAX_TRACKED_ACCOUNTS = 10_000;
/** Account id -> requests this isolate let through in the current window. */
const windows = new Map<string, { window: number; count: number }>();

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const limit = c.env.RATE_LIMIT_REQUESTS;
  const periodMs = c.env.RATE_LIMIT_PERIOD_SECONDS * 1000;
  const accountId = c.var.accountId;
  const { success } = await c.env.RATE_LIMITER.limit({ key: accountId });

  const now = Date.now();
  const window = Math.floor(now / periodMs);
  let seen = windows.get(accountId);
  if (!seen || seen.window !== window) {
    if (windows.size >= MAX_TRACKED_ACCOUNTS) windows.clear();
    seen = { window, count: 0 };
    windows.set(accountId, seen);
  }
  if (success) seen.count++;
  const remaining = success ? Math.max(0, limit - seen.count) : 0;
  const reset = Math.max(1, Math.ceil(((window + 1) * periodMs - now) / 1000));

  // draft-ietf-httpapi-ratelimit-headers: the structured fields, and the widely used older trio.
  const headers = {
    "RateLimit-Policy": `"per-account";q=${limit};w=${periodMs / 1000}`,
    RateLimit: `"per-account";r=${remaining};t=${reset}`,
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(remaining),
    "RateLimit-Reset": String(reset),
  };
  if (!success) {
    throw new ApiError("RATE_LIMITED", `Too many requests: at most ${limit} every ${periodMs / 1000} seconds per account.`, undefined, {
      ...headers,
      "Retry-After": String(reset),
    });
  }
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
