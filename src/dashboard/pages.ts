/**
 * The dashboard's pages: every address under /dashboard/ answers the one HTML page the dashboard's
 * build made (public/dashboard/index.html, a static asset), which reads the address and shows the
 * page it names. The Worker serves it (wrangler.toml's `run_worker_first`) so that it carries the
 * dashboard's headers (headers.ts), is never cached stale, and is only served to a signed-in browser:
 * without a session, a page redirects to the sign-in page, which returns to it after. The script
 * and style files it loads, under /dashboard/assets/, are served by the platform without the Worker.
 */
import { Hono, type Context } from "hono";
import { ApiError } from "../errors";
import { refuseIfBlocked } from "../auth-failures";
import { sessionCookie, sessionOf } from "../session";
import type { AppEnv } from "../app-env";

export const SIGN_IN_PATH = "/dashboard/sign-in";

async function signedIn(c: Context<AppEnv>): Promise<boolean> {
  const value = sessionCookie(c);
  if (value === undefined) return false;
  const now = Date.now();
  return typeof (await sessionOf(c.env.DB, value, now, () => refuseIfBlocked(c, now))) !== "string";
}

export const dashboardPagesRouter = new Hono<AppEnv>()
  // One address per page: /dashboard is /dashboard/, where the overview is.
  .get("/", (c) => c.redirect(`${new URL(c.req.url).origin}/dashboard/`, 308))
  .get("/*", async (c) => {
    const url = new URL(c.req.url);
    if (url.pathname !== SIGN_IN_PATH && !(await signedIn(c))) {
      // Back to this page after signing in: a path of this dashboard only (sign-in.tsx checks it too).
      const next = new URLSearchParams({ next: url.pathname + url.search });
      return c.redirect(`${url.origin}${SIGN_IN_PATH}?${next}`, 302);
    }
    const page = await c.env.ASSETS.fetch(new URL("/dashboard/", c.req.url));
    if (!page.ok) {
      // Only where the dashboard was never built (`npm ci` builds it; `npm run dashboard:build` does it again).
      console.error(`the dashboard's page is missing from the static assets (${page.status}): run npm run dashboard:build`);
      throw new ApiError("NOT_FOUND", "The dashboard is not built on this server.");
    }
    return c.html(await page.text(), 200, { "Cache-Control": "no-cache" });
  });
