/**
 * Headers of every /dashboard response (docs/dashboard.md), the JSON endpoints' and errors' too:
 * a Content-Security-Policy that allows no inline script and nothing from another origin (so an
 * injected string cannot run, and the pages talk only to this service), no framing, no MIME
 * sniffing, no Referer beyond the origin. The session endpoints are never cached anywhere.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join("; ");

const HEADERS = {
  "Content-Security-Policy": DASHBOARD_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
};

/**
 * Set before the handler, so the answer the error handler makes carries them too (a 404 or 405
 * thrown past this middleware never returns through it), and again on what the handler answered,
 * for a response it made itself rather than through the context.
 */
export const dashboardHeaders = createMiddleware<AppEnv>(async (c, next) => {
  const headers: Record<string, string> = {
    ...HEADERS,
    ...(c.req.path === "/dashboard/session" ? { "Cache-Control": "no-store" } : {}),
  };
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
