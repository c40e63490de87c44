/**
 * The dashboard's pages through the worker: the one HTML page of the dashboard's build, served to a
 * signed-in browser under every page address with the dashboard's headers; a signed-out browser
 * is sent to sign-in, and back after; the page runs no inline script and loads nothing from elsewhere.
 */
import { describe, expect, it } from "vitest";
import { env, SELF } from "cloudflare:test";
import { addKey, createAccount } from "../support/api";
import { createSignInLink } from "../../src/operator/store";
import { startOfWindow } from "../support/clock";

const ORIGIN = "https://api.test";

const page = (path: string, cookie?: string, headers: Record<string, string> = {}) =>
  SELF.fetch(`${ORIGIN}${path}`, {
    redirect: "manual",
    headers: { ...headers, ...(cookie ? { Cookie: cookie } : {}) },
  });

/** The sign-in page's `data-notice`, decoded, or null when it has none. */
async function signInNotice(res: Response): Promise<string | null> {
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).not.toContain("data-session");
  const notice = /<div id="app" data-notice="([^"]*)"><\/div>/.exec(html)?.[1];
  return notice === undefined
    ? null
    : notice.replace(
        /&(quot|#39|lt|gt|amp);/g,
        (_, e: string) => ({ quot: '"', "#39": "'", lt: "<", gt: ">", amp: "&" })[e]!,
      );
}

async function signedIn(json: { code: string } | { key: string }) {
  const res = await SELF.fetch(`${ORIGIN}/dashboard/session`, {
    method: "POST",
    headers: { Origin: ORIGIN, "Content-Type": "application/json" },
    body: JSON.stringify(json),
  });
  expect(res.status).toBe(201);
  return res.headers.get("Set-Cookie")!.split(";")[0];
}

async function linkCookie() {
  const account = await createAccount();
  const { url } = await createSignInLink(env.DB, account.id, ORIGIN, Date.now());
  return { account, cookie: await signedIn({ code: url.split("#code=")[1] }) };
}

describe("dashboard pages", () => {
  it("answer every page address with the dashboard's page to a signed-in browser", async () => {
    const { cookie } = await linkCookie();
    for (const path of [
      "/dashboard/",
      "/dashboard/candidates",
      "/dashboard/candidates/order%2F2026-0001",
      "/dashboard/billing?month=2026-11",
      "/dashboard/no-such-page",
      "/dashboard/candidates/%E0",
    ]) {
      const res = await page(path, cookie);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("Content-Type"), path).toMatch(/^text\/html/);
      expect(res.headers.get("Cache-Control"), path).toBe("no-store");
      expect(res.headers.get("Content-Security-Policy"), path).toContain("script-src 'self'");
      expect(res.headers.get("Content-Security-Policy"), path).toContain("frame-ancestors 'none'");
      const html = await res.text();
      expect(html, path).toMatch(/<div id="app" data-session="[^"<>]+"><\/div>/);
    }
  });

  it("load only this origin's files, and run no inline script", async () => {
    const { cookie } = await linkCookie();
    const html = await (await page("/dashboard/", cookie)).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(body.trim()).toBe("");
      expect(attributes).toMatch(/src="\/dashboard\/assets\/[^"]+\.js"/);
    }
    expect(
      [...html.matchAll(/(?:src|href)="([^"]*)"/g)]
        .map((m) => m[1])
        .filter((url) => !url.startsWith("/dashboard/assets/") && !url.startsWith("data:")),
    ).toEqual([]);
    expect(html).not.toMatch(/\sstyle=|\son[a-z]+=/i);
  });

  it("give anyone the build's scripts and styles, cached for good, and a 404 cached nowhere for any other file", async () => {
    const { cookie } = await linkCookie();
    const html = await (await page("/dashboard/", cookie)).text();
    const files = [...html.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(files.some((f) => f.endsWith(".js")) && files.some((f) => f.endsWith(".css"))).toBe(true);
    for (const file of files) {
      const res = await page(file); // no session: the sign-in page loads them too
      expect(res.status).toBe(200);
      expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
      expect((await res.text()).length).toBeGreaterThan(0);
    }
    // A name the build did not make, or one of its files spelled another way (which the platform
    // would redirect, cached for a year).
    for (const path of ["/dashboard/assets/index-00000000.js", files[0].replace("/assets/", "/assets//")]) {
      const missing = await page(path);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("Cache-Control")).toBe("no-store");
      expect(missing.headers.get("Content-Security-Policy")).toContain("script-src 'self'");
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    }
  });

  it("send a signed-out browser to sign-in with the page to return to; the sign-in page needs no session", async () => {
    const res = await page("/dashboard/candidates?status=OPEN");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(
      `${ORIGIN}/dashboard/sign-in?next=${encodeURIComponent("/dashboard/candidates?status=OPEN")}`,
    );
    expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    const signIn = await page("/dashboard/sign-in");
    expect(signIn.status).toBe(200);
    expect(await signIn.text()).toContain('<div id="app"></div>');
    // A cookie that matches no session is as signed out, and the sign-in page is told the session ended.
    const ended = await page("/dashboard/", "__Host-ccs_session=not-a-session");
    expect(ended.status).toBe(302);
    expect(ended.headers.get("Location")).toBe(`${ORIGIN}/dashboard/sign-in?next=%2Fdashboard%2F&ended=1`);
  });

  it("send to sign-in once the key that signed the session in is revoked", async () => {
    const account = await createAccount();
    const key = await addKey(account, { name: "dashboard" });
    const cookie = await signedIn({ key: key.token });
    expect((await page("/dashboard/", cookie)).status).toBe(200);
    const revoked = await SELF.fetch(`${ORIGIN}/v1/api_keys/${key.tokenId}/revoke`, {
      method: "POST",
      headers: { Authorization: `Bearer ${account.token}` },
    });
    expect(revoked.status).toBe(200);
    const ended = await page("/dashboard/", cookie);
    expect(ended.status).toBe(302);
    expect(ended.headers.get("Location")).toMatch(/&ended=1$/);
    // The sign-in page it is sent to says why, in the API's words, once: it clears the cookie.
    const told = await page(new URL(ended.headers.get("Location")!).pathname, cookie);
    expect(told.headers.get("Set-Cookie")).toMatch(/^__Host-ccs_session=; Max-Age=0;/);
    expect(await signInNotice(told)).toBe(
      "The session ended when the API key it signed in with was revoked. Sign in again.",
    );
    // Without a cookie, or with one that signs in, it says nothing.
    expect(await signInNotice(await page("/dashboard/sign-in"))).toBeNull();
  });

  it("send an address blocked for failed sign-ins to the sign-in page, which says so: never the API's JSON", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS);
    const address = { "CF-Connecting-IP": `198.51.100.${Math.floor(Math.random() * 250)}` };
    const guesses = Array.from({ length: env.AUTH_FAILURE_LIMIT_REQUESTS + 1 }, () =>
      SELF.fetch(`${ORIGIN}/dashboard/session`, {
        method: "POST",
        headers: { Origin: ORIGIN, "Content-Type": "application/json", ...address },
        body: JSON.stringify({ key: `cct_${crypto.randomUUID().replaceAll("-", "")}${"B".repeat(11)}` }),
      }),
    );
    expect((await Promise.all(guesses)).at(-1)!.status).toBe(429);
    // A cookie this isolate has not seen would need a lookup, which the block refuses.
    const cookie = `__Host-ccs_session=${"A".repeat(43)}`;
    const res = await page("/dashboard/candidates", cookie, address);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("Location")!);
    expect(location.pathname).toBe("/dashboard/sign-in");
    expect(location.searchParams.get("next")).toBe("/dashboard/candidates");
    expect(location.searchParams.has("ended"), "the session may be fine: nothing ended").toBe(false);
    const notice = await signInNotice(await page("/dashboard/sign-in", cookie, address));
    expect(notice).toMatch(
      /^Too many failed authentication attempts from this address: at most \d+ every \d+ seconds\. Try again in \d+ seconds\.$/,
    );
  }, 30_000);

  it("count a cookie that signs in no more as a failed attempt, as /v1 does: page loads are no way around the limit", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS);
    const address = {
      "CF-Connecting-IP": `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    };
    const guesses = await Promise.all(
      Array.from({ length: env.AUTH_FAILURE_LIMIT_REQUESTS }, () =>
        page(
          "/dashboard/sign-in",
          `__Host-ccs_session=${crypto.randomUUID().replaceAll("-", "").padEnd(43, "x")}`,
          address,
        ),
      ),
    );
    for (const res of guesses)
      expect(await signInNotice(res)).toBe("The session cookie matches no session. Sign in again.");
    const over = await page("/dashboard/sign-in", `__Host-ccs_session=${"z".repeat(43)}`, address);
    expect(await signInNotice(over)).toMatch(/^Too many failed authentication attempts from this address/);
  }, 30_000);

  it("carry their session as GET /dashboard/session answers it, escaped in an attribute", async () => {
    const account = await createAccount();
    // Markup, and what String.replace would read as patterns ($& the match, $` and $' around it).
    const name = `"><script>alert(1)</script>&amp;' $& $\` $' $$`;
    const key = await addKey(account, { name, permissions: ["billing:read"] });
    const cookie = await signedIn({ key: key.token });
    const html = await (await page("/dashboard/billing", cookie)).text();
    expect(html).not.toContain("<script>alert");
    const attribute = /<div id="app" data-session="([^"]*)"><\/div>/.exec(html)![1];
    const decoded = attribute.replace(
      /&(quot|#39|lt|gt|amp);/g,
      (_, e: string) => ({ quot: '"', "#39": "'", lt: "<", gt: ">", amp: "&" })[e]!,
    );
    const session = await SELF.fetch(`${ORIGIN}/dashboard/session`, { headers: { Cookie: cookie } });
    expect(JSON.parse(decoded)).toEqual(await session.json());
    expect(JSON.parse(decoded)).toMatchObject({
      account_id: account.id,
      account_name: "test",
      permissions: ["billing:read"],
      api_key: { name },
    });
    // The sign-in page carries it too, so it can ask before a link replaces it.
    expect(await (await page("/dashboard/sign-in", cookie)).text()).toContain(`data-session="${attribute}"`);
  });

  it("have one address each: /dashboard is /dashboard/", async () => {
    const res = await page("/dashboard");
    expect(res.status).toBe(308);
    expect(res.headers.get("Location")).toBe(`${ORIGIN}/dashboard/`);
  });
});
