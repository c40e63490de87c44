/**
 * The dashboard's pages: every address under /dashboard/ answers the one HTML page the dashboard's
 * build made (public/dashboard/index.html, a static asset), which reads the address and shows the
 * page it names. The Worker serves it (wrangler.toml's `run_worker_first`) so that it carries the
 * dashboard's headers (headers.ts), is never cached, and is only served to a signed-in browser:
 * without a session, a page redirects to the sign-in page, which returns to it after. The page
 * carries its session, so its first call is for what it shows. The script and style files it
 * loads, under /dashboard/assets/, pass through the Worker too, to anyone: what the build made, with
 * the dashboard's headers and cached for good (their names hold their content's hash); any other
 * address under it is a 404 cached nowhere, which the platform's own would have been for a year.
 */
import { Hono, type Context } from "hono";
import { html } from "hono/html";
import { ApiError } from "../errors/api-error";
import { failure, refuseIfBlocked } from "../auth-failures";
import { sessionCookie, sessionCookieHeader, sessionOf, type Session } from "../session";
import { sessionView } from "./session-routes";
import type { AppEnv } from "../app-env";

export const SIGN_IN_PATH = "/dashboard/sign-in";

/** What a page load's cookie says: its session, or why it does not sign in. */
interface Browser {
  session: Session | null;
  /** Why the cookie does not sign in (as a request with it would be answered 401 or 429), and what to do. */
  notice: string | null;
  /** The cookie signs in no more: the sign-in page is told the session ended, and clears it. */
  ended: boolean;
}

/** The 429 of a blocked address, as the sign-in page says it. */
function blockedNotice(error: ApiError): string {
  const retryAfter = error.headers?.["Retry-After"];
  return `${error.message}${retryAfter ? ` Try again in ${retryAfter} seconds.` : ""}`;
}

/**
 * The browser's session. A cookie that does not sign in counts as a failed attempt from its
 * address, as it would on /v1 (auth.ts): a page load is no way around the limit.
 */
async function signedIn(c: Context<AppEnv>): Promise<Browser> {
  const value = sessionCookie(c);
  if (value === undefined) return { session: null, notice: null, ended: false };
  const now = Date.now();
  try {
    const session = await sessionOf(c.env.DB, value, now, () => refuseIfBlocked(c, now));
    if (typeof session !== "string") return { session, notice: null, ended: false };
    const refused = await failure(c, new ApiError("INVALID_SESSION", session));
    const notice = refused.code === "RATE_LIMITED" ? blockedNotice(refused) : `${session} Sign in again.`;
    return { session: null, notice, ended: true };
  } catch (error) {
    // An address blocked for failed sign-ins: a page, not the API's JSON, says so (sign-in.tsx);
    // the session itself may be fine.
    if (!(error instanceof ApiError) || error.code !== "RATE_LIMITED") throw error;
    return { session: null, notice: blockedNotice(error), ended: false };
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
  .get("/assets/*", async (c) => {
    const asset = await c.env.ASSETS.fetch(c.req.raw);
    // A file, or "not modified" for one: anything else (a redirect of an address spelled another
    // way, say) is no file of the build's, and must not be kept as long as one.
    if (!asset.ok && asset.status !== 304)
      throw new ApiError("NOT_FOUND", "No such file in the dashboard's build.", undefined, {
        "Cache-Control": "no-store",
      });
    const response = new Response(asset.body, asset); // its headers, made changeable: the dashboard's are set on it
    response.headers.set("Request-Id", c.get("requestId"));
    return response;
  })
  .get("/*", async (c) => {
    const url = new URL(c.req.url);
    // The sign-in page gets it too: it asks before a link replaces a session the browser has.
    const { session, notice, ended } = await signedIn(c);
    const signingIn = url.pathname === SIGN_IN_PATH;
    if (!signingIn && session === null) {
      // Back to this page after signing in: a path of this dashboard only (app.tsx checks it too).
      // A cookie that no longer signs in: the sign-in page says the session ended.
      const next = new URLSearchParams({ next: url.pathname + url.search, ...(ended ? { ended: "1" } : {}) });
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
      // Said once: a cookie that signs in no more is sent no more, and counts no more.
      ...(signingIn && ended ? { "Set-Cookie": sessionCookieHeader(c, "", 0) } : {}),
    });
  });
