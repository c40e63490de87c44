/**
 * Cross-site request forgery (docs/keys-and-permissions.md): a browser attaches the dashboard's
 * session cookie to a request whatever page made it (SameSite=Strict aside, which older browsers
 * and same-site subdomains do not honour as one might hope), so a cookie-authenticated request that
 * changes something must show that it comes from this service's own origin. Bearer keys are never
 * sent by a browser on its own, so they need no such check.
 */
import type { Context } from "hono";
import { ApiError } from "./errors/api-error";
import type { AppEnv } from "./app-env";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Methods that change nothing; every other method (POST, PUT, PATCH, DELETE, any other) is checked. */
export const isSafeMethod = (method: string) => SAFE_METHODS.has(method.toUpperCase());

/**
 * 403 CROSS_SITE_REQUEST unless the browser vouches for the request's origin: `Origin` equal to
 * the service's own, or `Sec-Fetch-Site: same-origin`, and neither header saying otherwise (a
 * request that sends neither is refused: every browser sends at least `Origin` on these methods).
 * `because` says why this request must: its refusal names the cause the caller can act on.
 */
export function requireSameOrigin(c: Context<AppEnv>, because: string) {
  const own = new URL(c.req.url).origin;
  const origin = c.req.header("Origin");
  const site = c.req.header("Sec-Fetch-Site");
  const vouched = origin === own || site === "same-origin";
  const contradicted = (origin !== undefined && origin !== own) || (site !== undefined && site !== "same-origin");
  if (vouched && !contradicted) return;
  throw new ApiError(
    "CROSS_SITE_REQUEST",
    `${because}, so it must come from the service's own pages (${own}): its Origin and Sec-Fetch-Site headers do not show that it does. Nothing was changed.`,
  );
}
