/**
 * The dashboard's pages: every address under /dashboard/ answers the one HTML page the dashboard's
 * build made (public/dashboard/index.html, a static asset), which reads the address and shows the
 * page it names. The Worker serves it (wrangler.toml's `run_worker_first`) so that it carries the
 * dashboard's headers (headers.ts), is never cached, and is only served to a signed-in browser:
 * without a session, a page redirects to the sign-in page, which returns to it after. The page
 * carries its session, so its first call is for what it shows. The script
 * and style files it loads, under /dashboard/assets/, are served by the platform without the Worker.
 */
import { Hono, type Context } from "hono";
import { html } from "hono/html";
import { ApiError } from "../errors/api-error";
import { refuseIfBlocked } from "../auth-failures";
import { sessionCookie, sessionOf, type Session } from "../session";
import { sessionView } from "./session-routes";
import type { AppEnv } from "../app-env";

export const SIGN_IN_PATH = "/dashboard/sign-in";

/**
 * The browser's session, or why its cookie does not sign in (`notice`: the reason a request with
 * it would be answered 401 or 429 with, and what to do), or neither when it sent no cookie.
 */
async function signedIn(c: Context<AppEnv>): Promise<{ session: Session | null; notice: string | null }> {
  const value = sessionCookie(c);
  if (value === undefined) return { session: null, notice: null };
  const now = Date.now();
  try {
    const session = await sessionOf(c.env.DB, value, now, () => refuseIfBlocked(c, now));
    return typeof session === "string"
      ? { session: null, notice: `${session} Sign in again.` }
      : { session, notice: null };
  } catch (error) {
    // An address blocked for failed sign-ins: a page, not the API's JSON, says so (sign-in.tsx).
    if (!(error instanceof ApiError) || error.code !== "RATE_LIMITED") throw error;
    const retryAfter = error.headers?.["Retry-After"];
    return { session: null, notice: `${error.message}${retryAfter ? ` Try again in ${retryAfter} seconds.` : ""}` };
  }
}

/**
 * The page, with what GET /dashboard/session would answer in its root element's `data-session`
 * (escaped: an attribute, not a script), so the page's first read is its own data, not the session;
 * or, on the sign-in page, why the browser's cookie no longer signs in (`data-notice`).
 */
async function pageWith(template: string, session: Session | null, notice: string | null): Promise<string> {
  const root =
    session !== null
      ? await html`<div id="app" data-session="${JSON.stringify(sessionView(session))}"></div>`
      : notice !== null
        ? await html`<div id="app" data-notice="${notice}"></div>`
        : null;
  // A function, so a `$&` or `$'` in a name is text, not a replacement pattern.
  return root === null ? template : template.replace('<div id="app"></div>', () => root.toString());
}

export const dashboardPagesRouter = new Hono<AppEnv>()
  // One address per page: /dashboard is /dashboard/, where the overview is.
  .get("/", (c) => c.redirect(`${new URL(c.req.url).origin}/dashboard/`, 308))
  .get("/*", async (c) => {
    const url = new URL(c.req.url);
    // The sign-in page gets it too: it asks before a link replaces a session the browser has.
    const { session, notice } = await signedIn(c);
    const signingIn = url.pathname === SIGN_IN_PATH;
    if (!signingIn && session === null) {
      // Back to this page after signing in: a path of this dashboard only (app.tsx checks it too).
      // A cookie that no longer signs in: the sign-in page says the session ended.
      const next = new URLSearchParams({
        next: url.pathname + url.search,
        ...(sessionCookie(c) === undefined ? {} : { ended: "1" }),
      });
      return c.redirect(`${url.origin}${SIGN_IN_PATH}?${next}`, 302);
    }
    const page = await c.env.ASSETS.fetch(new URL("/dashboard/", c.req.url));
    if (!page.ok) {
      // Only where the dashboard was never built (`npm ci` builds it; `npm run dashboard:build` does it again).
      console.error(
        `the dashboard's page is missing from the static assets (${page.status}): run npm run dashboard:build`,
      );
      throw new ApiError("NOT_FOUND", "The dashboard is not built on this server.");
    }
    return c.html(await pageWith(await page.text(), session, signingIn ? notice : null), 200, {
      "Cache-Control": "no-store",
    });
  });
