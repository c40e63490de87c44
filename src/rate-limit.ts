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

/** Reads change nothing, so they run while the limiter answers (and are discarded if over). */
const SAFE_METHODS = new Set(["GET", "HEAD"]);

export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const verdict = c.env.RATE_LIMITER.limit({ key: c.var.accountId });
  let headers: Record<string, string>;
  if (SAFE_METHODS.has(c.req.method)) {
    await next();
    headers = countRequest(c.env, c.var.accountId, (await verdict).success);
  } else {
    headers = countRequest(c.env, c.var.accountId, (await verdict).success);
    await next();
  }
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});

/** Counts the request in this isolate's window; the RateLimit headers, or 429 when refused. */
function countRequest(env: Env, accountId: string, allowed: boolean): Record<string, string> {
  const limit = env.RATE_LIMIT_REQUESTS;
  const periodMs = env.RATE_LIMIT_PERIOD_SECONDS * 1000;
  const now = Date.now();
  const window = Math.floor(now / periodMs);
  let seen = windows.get(accountId);
  if (!seen || seen.window !== window) {
    if (windows.size >= MAX_TRACKED_ACCOUNTS) windows.clear();
    seen = { window, count: 0 };
    windows.set(accountId, seen);
  }
  if (allowed) seen.count++;
  const remaining = allowed ? Math.max(0, limit - seen.count) : 0;
  const reset = Math.max(1, Math.ceil(((window + 1) * periodMs - now) / 1000));

  // draft-ietf-httpapi-ratelimit-headers: the structured fields, and the widely used older trio.
  const headers = {
    "RateLimit-Policy": `"per-account";q=${limit};w=${periodMs / 1000}`,
    RateLimit: `"per-account";r=${remaining};t=${reset}`,
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(remaining),
    "RateLimit-Reset": String(reset),
  };
  if (!allowed) {
    throw new ApiError("RATE_LIMITED", `Too many requests: at most ${limit} every ${periodMs / 1000} seconds per account.`, undefined, {
      ...headers,
      "Retry-After": String(reset),
    });
  }
  return headers;
}
