/**
 * The dashboard's sign-in and session (docs/keys-and-permissions.md), through the worker: sign-in
 * by a one-time link's code or a pasted API key, the cookie and its flags, the cookie on /v1 with
 * the permissions of what signed it in, cross-site refusal, the session's ends, and the headers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env, SELF } from "cloudflare:test";
import {
  addKey,
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  okBody,
  type ApiResponse,
  type TestAccount,
  dbOf,
} from "../support/api";
import { iso, useClock, startOfWindow } from "../support/clock";
import { TOKEN_CACHE_TTL_MS } from "../../src/auth";
import { PERMISSIONS } from "../../src/domain/permissions";
import { createSignInLink, SIGN_IN_LINK_TTL_MS } from "../../src/operator/store";
import { sha256Hex } from "../../src/hash";
import { purgeExpired } from "../../src/purge";
import { MAX_LIVE_SESSIONS } from "../../src/db/sessions";

const ORIGIN = "https://api.test";
const HOUR = 3600_000;

/** Each test its own client address, so the failed attempts of one never limit another. */
let address = "";
let addresses = 0;
beforeEach(() => {
  address = `198.51.100.${++addresses}`;
});
afterEach(() => vi.restoreAllMocks());

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, status });
  return res.body.error;
}

/** A fresh sign-in link's code for the account, made as the operator's tool makes it. */
async function linkCode(account: TestAccount, now = Date.now()) {
  const { url } = await createSignInLink(env.DB, account.id, ORIGIN, now);
  return url.split("#code=")[1];
}

/** POST /dashboard/session from the service's own page (unless `headers` say otherwise). */
const signIn = (json: unknown, headers: Record<string, string> = {}) =>
  call("POST", "/dashboard/session", { json, headers: { Origin: ORIGIN, "CF-Connecting-IP": address, ...headers } });

/** The `name=value` of a response's Set-Cookie, and the cookie's attributes. */
function cookieOf(res: ApiResponse) {
  const header = res.headers.get("Set-Cookie") ?? "";
  const [pair, ...attributes] = header.split(";").map((part) => part.trim());
  return { pair, name: pair.split("=")[0], value: pair.slice(pair.indexOf("=") + 1), attributes };
}

/** Signs in and answers the cookie to send (`__Host-ccs_session=...`). */
async function session(json: unknown) {
  const res = await signIn(json);
  expectStatus(res, 201, JSON.stringify(res.body));
  return cookieOf(res).pair;
}

/** A request with the session cookie, from the service's own origin unless `headers` say otherwise. */
const withCookie = (
  cookie: string,
  method: string,
  path: string,
  options: { json?: unknown; headers?: Record<string, string> } = {},
) =>
  call(method, path, {
    json: options.json,
    headers: { Cookie: cookie, Origin: ORIGIN, "CF-Connecting-IP": address, ...options.headers },
  });

const schemaCount = async (account: TestAccount) =>
  (await dbOf(account)
    .prepare(`SELECT count(*) AS n FROM schemas WHERE account_id = ?`)
    .bind(account.id)
    .first<number>("n"))!;

const lastSeen = async (cookie: string) =>
  (await env.DB.prepare(`SELECT last_seen_at FROM sessions WHERE id_hash = ?`)
    .bind(await sha256Hex(cookie.split("=")[1]))
    .first<number>("last_seen_at"))!;

describe("sign-in with a one-time link", () => {
  it("signs in once, for the link's account, with full access; the cookie then reaches /v1", async () => {
    const account = await createAccount();
    const schema = okBody(await client(account).post("/v1/schemas", { contract: contract() }));
    const code = await linkCode(account);

    const res = await signIn({ code });
    expectStatus(res, 201, JSON.stringify(res.body));
    expect(res.body).toMatchObject({
      account_id: account.id,
      signed_in_with: "sign_in_link",
      api_key: null,
      permissions: [...PERMISSIONS],
    });
    const cookie = cookieOf(res).pair;
    const listed = await withCookie(cookie, "GET", "/v1/schemas");
    expectStatus(listed, 200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([schema.id]);
    // What the browser read with its cookie is kept by no cache, and not sniffed as another type.
    expect(listed.headers.get("Cache-Control")).toBe("private, no-store");
    expect(listed.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect((await withCookie(cookie, "GET", "/dashboard/session")).body).toEqual(res.body);

    const usedTwice = await signIn({ code });
    const again = expectError(usedTwice, 401, "INVALID_SIGN_IN_LINK");
    expect(again).toMatchObject({ type: "authentication_error" });
    expect(usedTwice.headers.get("WWW-Authenticate")).toBe("Bearer");
    expect(usedTwice.headers.get("RateLimit-Policy")).toMatch(/^"auth-failures-per-address";/);
    expect(again.message).toContain("already used");
    const unknown = expectError(await signIn({ code: `${code.slice(0, -4)}AAAA` }), 401, "INVALID_SIGN_IN_LINK");
    expect(unknown.message).toContain("unknown");
    for (const refused of [again, unknown]) expect(JSON.stringify(refused)).not.toContain(account.id);
    expect(
      await env.DB.prepare(`SELECT count(*) AS n FROM sessions WHERE account_id = ?`).bind(account.id).first("n"),
    ).toBe(1);
  });

  it("works until 15 minutes after the link was made, not at 15 minutes", async () => {
    const account = await createAccount();
    const clock = useClock();
    const [early, late] = [await linkCode(account, clock.now()), await linkCode(account, clock.now())];
    clock.advance(SIGN_IN_LINK_TTL_MS - 1);
    expect((await signIn({ code: early })).status).toBe(201);
    clock.advance(1);
    const expired = expectError(await signIn({ code: late }), 401, "INVALID_SIGN_IN_LINK");
    expect(expired.message).toContain(`expired at ${iso(clock.now())}`);
  });

  it("refuses a body that is not exactly one code or key, at its field", async () => {
    for (const body of [{}, { code: "a", key: "b" }, { code: "" }, { code: 7 }, { code: "a", extra: 1 }]) {
      expectError(await signIn(body), 400, "VALIDATION_ERROR");
    }
    expectError(
      await call("POST", "/dashboard/session", {
        raw: "code=x",
        headers: { Origin: ORIGIN, "Content-Type": "application/x-www-form-urlencoded" },
      }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });
});

describe("sign-in with a pasted API key", () => {
  it("carries exactly the key's permissions: an events-only session cannot read the summary", async () => {
    const account = await createAccount();
    const events = await addKey(account, { name: "Checkout events", permissions: ["events:write"] });
    const res = await signIn({ key: events.token });
    expectStatus(res, 201, JSON.stringify(res.body));
    expect(res.body).toMatchObject({
      account_id: account.id,
      signed_in_with: "api_key",
      api_key: {
        id: events.tokenId,
        name: "Checkout events",
        redacted: `cct_…${events.token.slice(-4)}`,
        expires_at: null,
      },
      permissions: ["events:write"],
      full_access: false,
    });
    const cookie = cookieOf(res).pair;
    const denied = expectError(await withCookie(cookie, "GET", "/v1/summary"), 403, "PERMISSION_DENIED");
    expect(denied.message).toContain("`billing:read`");
    // What the key may do, the session may do: the event reaches the candidate lookup (404), not a 403.
    expectError(
      await withCookie(cookie, "POST", "/v1/events", {
        json: { candidate_alias: "nobody-here", type: "purchase", value: 1 },
      }),
      404,
      "CANDIDATE_NOT_FOUND",
    );
    // And it cannot give a key more than the key it signed in with.
    expectError(await withCookie(cookie, "POST", "/v1/api_keys", { json: { name: "more" } }), 403, "PERMISSION_DENIED");
  });

  it("refuses unknown, revoked and expired keys, as a bearer key is refused", async () => {
    const account = await createAccount();
    const revoked = await addKey(account);
    await env.DB.prepare(`UPDATE api_tokens SET revoked_at = 1 WHERE id = ?`).bind(revoked.tokenId).run();
    const expired = await addKey(account, { expiresAt: Date.now() - 1 });
    expectError(await signIn({ key: `cct_${"A".repeat(43)}` }), 401, "INVALID_API_TOKEN");
    expectError(await signIn({ key: "not a key" }), 401, "INVALID_API_TOKEN");
    expectError(await signIn({ key: revoked.token }), 401, "INVALID_API_TOKEN");
    expectError(await signIn({ key: expired.token }), 401, "EXPIRED_API_TOKEN");
    expect(
      await env.DB.prepare(`SELECT count(*) AS n FROM sessions WHERE account_id = ?`).bind(account.id).first("n"),
    ).toBe(0);
  });

  it("counts refused codes and keys on the failed-authentication limit per address (429 past it)", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS);
    const limit = env.AUTH_FAILURE_LIMIT_REQUESTS;
    const account = await createAccount();
    const unknownKey = () => `cct_${crypto.randomUUID().replaceAll("-", "")}${"B".repeat(11)}`;
    const attempts = await Promise.all(
      Array.from({ length: limit }, (_, i) =>
        signIn(i % 2 ? { key: unknownKey() } : { code: `${"C".repeat(11)}${crypto.randomUUID().replaceAll("-", "")}` }),
      ),
    );
    for (const res of attempts) expectStatus(res, 401);
    const over = await signIn({ key: unknownKey() });
    expect(expectError(over, 429, "RATE_LIMITED").type).toBe("rate_limit_error");
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    // Now even a good key or code from that address is refused, before any lookup.
    expectError(await signIn({ key: account.token }), 429, "RATE_LIMITED");
    expectError(await signIn({ code: await linkCode(account) }), 429, "RATE_LIMITED");
    // Another address signs in.
    expect((await signIn({ key: account.token }, { "CF-Connecting-IP": "198.18.7.7" })).status).toBe(201);
  }, 30_000);

  it("keeps a session that authenticated lately working from a blocked address (a shared one): new sign-ins wait", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS, 30);
    const account = await createAccount();
    const cookie = await session({ code: await linkCode(account) });
    expectStatus(await withCookie(cookie, "GET", "/v1/schemas"), 200);
    // Another browser behind the same address guesses codes until the address is blocked.
    for (let i = 0; i <= env.AUTH_FAILURE_LIMIT_REQUESTS; i++)
      await signIn({ code: `${"C".repeat(11)}${crypto.randomUUID().replaceAll("-", "")}` });
    expectError(await signIn({ code: await linkCode(account) }), 429, "RATE_LIMITED");
    // Even with a key that authenticated lately: the session it would make could not be used from here.
    expectStatus(await call("GET", "/v1/schemas", { token: account.token }), 200);
    expectError(await signIn({ key: account.token }), 429, "RATE_LIMITED");
    // Past the cache's lifetime the session is looked up again, and still answered.
    useClock().advance(TOKEN_CACHE_TTL_MS + 1);
    expectStatus(await withCookie(cookie, "GET", "/v1/schemas"), 200);
    // Signed out, it is no longer spared: refused unlooked-up like any guess.
    expectStatus(await withCookie(cookie, "DELETE", "/dashboard/session"), 204);
    expectError(await withCookie(cookie, "GET", "/v1/schemas"), 429, "RATE_LIMITED");
  }, 30_000);
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Strict, Path=/, Secure and __Host- on https, for 7 days", async () => {
    const account = await createAccount();
    const { name, value, attributes } = cookieOf(await signIn({ code: await linkCode(account) }));
    expect(name).toBe("__Host-ccs_session");
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits
    expect(attributes.sort()).toEqual(["HttpOnly", "Max-Age=604800", "Path=/", "SameSite=Strict", "Secure"]);
  });

  it("has no Secure or __Host- on plain http (local development), and each scheme reads only its own", async () => {
    const account = await createAccount();
    const res = await SELF.fetch("http://api.test/dashboard/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: "http://api.test", "CF-Connecting-IP": address },
      body: JSON.stringify({ code: await linkCode(account) }),
    });
    expectStatus(res, 201);
    const { pair, name, attributes } = cookieOf({ status: res.status, headers: res.headers, body: await res.text() });
    expect(name).toBe("ccs_session");
    expect(attributes.sort()).toEqual(["HttpOnly", "Max-Age=604800", "Path=/", "SameSite=Strict"]);
    const overHttp = await SELF.fetch("http://api.test/v1/schemas", { headers: { Cookie: pair } });
    expectStatus(overHttp, 200);
    // A cookie set over plain http never authenticates on https, where only __Host- is read.
    expectError(await withCookie(pair, "GET", "/v1/schemas"), 401, "MISSING_API_TOKEN");
  });

  it("is stored only as its SHA-256", async () => {
    const account = await createAccount();
    const { value } = cookieOf(await signIn({ code: await linkCode(account) }));
    const rows = await env.DB.prepare(`SELECT * FROM sessions WHERE account_id = ?`).bind(account.id).all();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0].id_hash).toBe(await sha256Hex(value));
    expect(JSON.stringify(rows.results)).not.toContain(value);
  });

  it("yields to a bearer key when both are sent; neither is MISSING_API_TOKEN; a bad cookie is refused and cleared", async () => {
    const [mine, theirs] = [await createAccount(), await createAccount()];
    await client(theirs).post("/v1/schemas", { contract: contract() });
    const cookie = await session({ code: await linkCode(mine) });
    const both = await call("GET", "/v1/schemas", { token: theirs.token, headers: { Cookie: cookie } });
    expect(both.body.data).toHaveLength(1); // theirs, not mine
    expectError(
      await call("GET", "/v1/schemas", { headers: { "CF-Connecting-IP": address } }),
      401,
      "MISSING_API_TOKEN",
    );
    const bad = await withCookie(`__Host-ccs_session=${"x".repeat(43)}`, "GET", "/v1/schemas");
    expect(expectError(bad, 401, "INVALID_SESSION").type).toBe("authentication_error");
    expect(cookieOf(bad).attributes).toContain("Max-Age=0");
    expectError(await withCookie("__Host-ccs_session=junk", "GET", "/v1/schemas"), 401, "INVALID_SESSION");
  });

  it("answers another account's ids as not found, as its keys do", async () => {
    const [mine, theirs] = [await createAccount(), await createAccount()];
    const schema = okBody(await client(theirs).post("/v1/schemas", { contract: contract() }));
    const cookie = await session({ code: await linkCode(mine) });
    expectError(await withCookie(cookie, "GET", `/v1/schemas/${schema.id}`), 404, "SCHEMA_NOT_FOUND");
    expectError(await withCookie(cookie, "DELETE", `/v1/schemas/${schema.id}`), 404, "SCHEMA_NOT_FOUND");
    expectError(await withCookie(cookie, "GET", `/v1/api_keys/${theirs.tokenId}`), 404, "API_KEY_NOT_FOUND");
    expect(await schemaCount(theirs)).toBe(1);
  });
  it("refuses a page showing another account, doing nothing and keeping the cookie (another tab signed in since)", async () => {
    const [shown, now] = [await createAccount(), await createAccount()];
    const cookie = await session({ code: await linkCode(now) });
    const fromStalePage = { headers: { "Dashboard-Account": shown.id } };
    const refused = await withCookie(cookie, "POST", "/v1/schemas", {
      json: { contract: contract() },
      ...fromStalePage,
    });
    expect(expectError(refused, 401, "INVALID_SESSION").message).toMatch(/another tab signed in since/);
    expect(refused.headers.get("Set-Cookie")).toBeNull(); // the browser's session is still good
    // Like every 401, it says how the address stands with failed authentications (it is not one).
    expect(refused.headers.get("RateLimit-Policy")).toMatch(/^"auth-failures-per-address";/);
    expect(refused.headers.get("WWW-Authenticate")).toBe("Bearer");
    expectError(await withCookie(cookie, "GET", "/v1/schemas", fromStalePage), 401, "INVALID_SESSION");
    expect([await schemaCount(shown), await schemaCount(now)]).toEqual([0, 0]);
    // A page showing the cookie's account, and any call naming none, go on.
    const ok = await withCookie(cookie, "POST", "/v1/schemas", {
      json: { contract: contract() },
      headers: { "Dashboard-Account": now.id },
    });
    expectStatus(ok, 201);
    expectStatus(await withCookie(cookie, "GET", "/v1/schemas"), 200);
    expect(await schemaCount(now)).toBe(1);
    // Nor does such a page sign out the session the browser holds now: the other tab's.
    expectError(await withCookie(cookie, "DELETE", "/dashboard/session", fromStalePage), 401, "INVALID_SESSION");
    expectStatus(await withCookie(cookie, "GET", "/dashboard/session"), 200);
    expectStatus(
      await withCookie(cookie, "DELETE", "/dashboard/session", { headers: { "Dashboard-Account": now.id } }),
      204,
    );
    const signedOut = await withCookie(cookie, "GET", "/dashboard/session");
    expectError(signedOut, 401, "INVALID_SESSION");
    expect(signedOut.headers.get("RateLimit-Policy")).toMatch(/^"auth-failures-per-address";/);
  });

  it("replays a keyed API key create to the same session only: not to another session, nor a key", async () => {
    const account = await createAccount();
    const code = await linkCode(account);
    const cookie = await session({ code });
    const create = (headers: Record<string, string>, token?: string) =>
      token === undefined
        ? withCookie(cookie, "POST", "/v1/api_keys", { json: { name: "from the dashboard" }, headers })
        : call("POST", "/v1/api_keys", { token, json: { name: "from the dashboard" }, headers });
    const made = await create({ "Idempotency-Key": "dash-1" });
    expectStatus(made, 201);
    const again = await create({ "Idempotency-Key": "dash-1" });
    expectStatus(again, 201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body.secret).toBe(made.body.secret);
    // The account's own key, and a second session of the same person, are other callers.
    const otherSession = await session({ code: await linkCode(account) });
    for (const refused of [
      await create({ "Idempotency-Key": "dash-1" }, account.token),
      await withCookie(otherSession, "POST", "/v1/api_keys", {
        json: { name: "from the dashboard" },
        headers: { "Idempotency-Key": "dash-1" },
      }),
    ]) {
      expectStatus(refused, 409);
      expect(refused.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect(JSON.stringify(refused.body)).not.toContain(made.body.secret);
    }
    const names = okBody(await client(account).get("/v1/api_keys")).data.map((k: { name: string }) => k.name);
    expect(names.filter((n: string) => n === "from the dashboard")).toHaveLength(1);
  });
});

describe("cross-site requests", () => {
  it("refuses a cookie-authenticated change from another origin, changing nothing; bearer keys are unaffected", async () => {
    const account = await createAccount();
    const cookie = await session({ code: await linkCode(account) });
    const body = { contract: contract() };
    for (const headers of [
      { Origin: "https://evil.test" },
      { Origin: "null" },
      { Origin: "http://api.test" }, // another scheme is another origin
      { Origin: undefined as unknown as string, "Sec-Fetch-Site": "cross-site" },
      { Origin: undefined as unknown as string, "Sec-Fetch-Site": "same-site" },
      { Origin: undefined as unknown as string }, // neither header
      { Origin: ORIGIN, "Sec-Fetch-Site": "cross-site" }, // contradicting each other
    ]) {
      const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined));
      const res = await call("POST", "/v1/schemas", { json: body, headers: { Cookie: cookie, ...sent } });
      const error = expectError(res, 403, "CROSS_SITE_REQUEST");
      expect(error.type, JSON.stringify(sent)).toBe("permission_error");
    }
    expectError(
      await withCookie(cookie, "DELETE", "/v1/api_keys/x", { headers: { Origin: "https://evil.test" } }),
      403,
      "CROSS_SITE_REQUEST",
    );
    expect(await schemaCount(account)).toBe(0);

    // From its own origin it goes through, by either header...
    expect((await withCookie(cookie, "POST", "/v1/schemas", { json: body })).status).toBe(201);
    expect(
      (await call("POST", "/v1/schemas", { json: body, headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin" } }))
        .status,
    ).toBe(201);
    // ...reads need no check, and a bearer key is never refused for its origin.
    expect(
      (
        await withCookie(cookie, "GET", "/v1/schemas", {
          headers: { Origin: "https://evil.test", "Sec-Fetch-Site": "cross-site" },
        })
      ).status,
    ).toBe(200);
    const bearer = await call("POST", "/v1/schemas", {
      token: account.token,
      json: body,
      headers: { Origin: "https://evil.test", "Sec-Fetch-Site": "cross-site" },
    });
    expectStatus(bearer, 201);
    expect(await schemaCount(account)).toBe(3);
  });

  it("refuses signing in or out from another origin", async () => {
    const account = await createAccount();
    const code = await linkCode(account);
    const refused = expectError(await signIn({ code }, { Origin: "https://evil.test" }), 403, "CROSS_SITE_REQUEST");
    // It names the cause: signing in, not a session cookie (none was sent).
    expect(refused.message).toMatch(
      /^Signing in to the dashboard or out of it changes a browser's session, so it must come from/,
    );
    expectError(
      await signIn({ key: account.token }, { Origin: "https://evil.test", "Sec-Fetch-Site": "cross-site" }),
      403,
      "CROSS_SITE_REQUEST",
    );
    expect(
      await env.DB.prepare(`SELECT count(*) AS n FROM sessions WHERE account_id = ?`).bind(account.id).first("n"),
    ).toBe(0);
    const cookie = await session({ code }); // the refused attempt did not spend the code
    expectError(
      await withCookie(cookie, "DELETE", "/dashboard/session", { headers: { Origin: "https://evil.test" } }),
      403,
      "CROSS_SITE_REQUEST",
    );
    expect((await withCookie(cookie, "GET", "/v1/schemas")).status).toBe(200);
  });
});

describe("the session's end", () => {
  it("ends at sign-out: revoked server-side and the cookie cleared", async () => {
    const account = await createAccount();
    const cookie = await session({ code: await linkCode(account) });
    expect((await withCookie(cookie, "GET", "/v1/schemas")).status).toBe(200);
    const out = await withCookie(cookie, "DELETE", "/dashboard/session");
    expectStatus(out, 204);
    expect(cookieOf(out)).toMatchObject({ name: "__Host-ccs_session", value: "" });
    expect(cookieOf(out).attributes).toContain("Max-Age=0");
    const row = await env.DB.prepare(`SELECT revoked_at FROM sessions WHERE account_id = ?`)
      .bind(account.id)
      .first<number | null>("revoked_at");
    expect(row).not.toBeNull();
    const after = expectError(await withCookie(cookie, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect(after.message).toContain("signed out");
    const signedOut = await withCookie(cookie, "GET", "/dashboard/session");
    expectError(signedOut, 401, "INVALID_SESSION");
    expect(signedOut.headers.get("RateLimit-Policy")).toMatch(/^"auth-failures-per-address";/);
    const noCookie = await call("GET", "/dashboard/session");
    expectError(noCookie, 401, "INVALID_SESSION");
    expect(noCookie.headers.get("RateLimit-Policy")).toMatch(/^"auth-failures-per-address";/);
    expect(noCookie.headers.get("WWW-Authenticate")).toBe("Bearer");
  });

  it("ends after 12 hours without use; each use (recorded at most once a minute) restarts the 12 hours", async () => {
    const account = await createAccount();
    const clock = useClock();
    const start = clock.now();
    const [idle, used] = [
      await session({ code: await linkCode(account) }),
      await session({ code: await linkCode(account) }),
    ];
    clock.advance(HOUR);
    expect((await withCookie(used, "GET", "/v1/schemas")).status).toBe(200);
    await vi.waitFor(async () => expect(await lastSeen(used)).toBe(start + HOUR));
    clock.advance(30_000);
    expect((await withCookie(used, "GET", "/v1/schemas")).status).toBe(200); // within the minute: no write
    clock.set(start + 12 * HOUR);
    const ended = expectError(await withCookie(idle, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect(ended.message).toContain("12 hours without use");
    expect(await lastSeen(used)).toBe(start + HOUR);
    clock.set(start + 13 * HOUR - 1);
    expect((await withCookie(used, "GET", "/v1/schemas")).status).toBe(200);
    await vi.waitFor(async () => expect(await lastSeen(used)).toBe(start + 13 * HOUR - 1));
    clock.set(start + 25 * HOUR - 1);
    expectError(await withCookie(used, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
  });

  it("ends 7 days after sign-in, however much it is used", async () => {
    const account = await createAccount();
    const clock = useClock();
    const start = clock.now();
    const cookie = await session({ code: await linkCode(account) });
    const week = 7 * 24 * HOUR;
    for (let at = 11 * HOUR; at < week; at += 11 * HOUR) {
      clock.set(start + at);
      expect((await withCookie(cookie, "GET", "/v1/schemas")).status, `after ${at / HOUR} hours`).toBe(200);
      await vi.waitFor(async () => expect(await lastSeen(cookie)).toBe(start + at));
    }
    clock.set(start + week - 1);
    expect((await withCookie(cookie, "GET", "/v1/schemas")).status).toBe(200);
    clock.set(start + week);
    const ended = expectError(await withCookie(cookie, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect(ended.message).toContain("7 days after sign-in");
  });

  it("ends within 10 seconds of the signing key's revocation, at once where it was revoked", async () => {
    const account = await createAccount();
    const [elsewhere, here] = [await addKey(account), await addKey(account)];
    const clock = useClock();
    const [viaElsewhere, viaHere] = [await session({ key: elsewhere.token }), await session({ key: here.token })];
    expect((await withCookie(viaElsewhere, "GET", "/v1/schemas")).status).toBe(200);
    expect((await withCookie(viaHere, "GET", "/v1/schemas")).status).toBe(200);

    // Revoked by another isolate (straight in D1): the cached session holds at most 10 seconds.
    await env.DB.prepare(`UPDATE api_tokens SET revoked_at = ? WHERE id = ?`)
      .bind(clock.now(), elsewhere.tokenId)
      .run();
    clock.advance(TOKEN_CACHE_TTL_MS - 1);
    expect((await withCookie(viaElsewhere, "GET", "/v1/schemas")).status).toBe(200);
    clock.advance(1);
    const ended = expectError(await withCookie(viaElsewhere, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect(ended.message).toContain("revoked");

    // Revoked through the API in this isolate: at once.
    expect((await withCookie(viaHere, "GET", "/v1/schemas")).status).toBe(200);
    expect((await client(account).post(`/v1/api_keys/${here.tokenId}/revoke`)).status).toBe(200);
    expectError(await withCookie(viaHere, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
  });

  it("ends at the instant the signing key expires, and says so", async () => {
    const account = await createAccount();
    const clock = useClock();
    const key = await addKey(account, { expiresAt: clock.now() + HOUR });
    const res = await signIn({ key: key.token });
    expect(res.body.expires_at).toBe(iso(clock.now() + HOUR));
    expect(res.body.api_key.expires_at).toBe(iso(clock.now() + HOUR)); // a key it makes must expire no later
    const cookie = cookieOf(res).pair;
    clock.advance(HOUR - 1);
    expect((await withCookie(cookie, "GET", "/v1/schemas")).status).toBe(200);
    clock.advance(1);
    const ended = expectError(await withCookie(cookie, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect(ended.message).toContain(`expired at ${iso(clock.now())}`);
  });

  it("ends the browser's previous session when it signs in again", async () => {
    const account = await createAccount();
    const first = await session({ code: await linkCode(account) });
    const res = await signIn({ code: await linkCode(account) }, { Cookie: first });
    expectStatus(res, 201);
    expectError(await withCookie(first, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect((await withCookie(cookieOf(res).pair, "GET", "/v1/schemas")).status).toBe(200);
  });
});

describe("an account's sessions", () => {
  it("are at most MAX_LIVE_SESSIONS live per credential: a sign-in beyond them signs out that credential's oldest", async () => {
    const clock = useClock();
    const account = await createAccount();
    const full = await session({ code: await linkCode(account) });
    const byKey = await session({ key: account.token });
    const other = await createAccount();
    const theirs = await session({ code: await linkCode(other) });
    // A key that may only send events signs in again and again: it ends its own oldest, nobody else's.
    const restricted = await addKey(account, { name: "events only", permissions: ["events:write"] });
    const cookies: string[] = [];
    for (let i = 0; i <= MAX_LIVE_SESSIONS; i++) cookies.push(await session({ key: restricted.token }));
    const pushedOut = await withCookie(cookies[0], "GET", "/dashboard/session");
    expectError(pushedOut, 401, "INVALID_SESSION");
    // Said as what happened: not "signed out", which its user did not do.
    expect(pushedOut.body.error.message).toBe(
      `The session ended when a newer sign-in with the same API key passed the limit of ${MAX_LIVE_SESSIONS} live sessions. Sign in to the dashboard again.`,
    );
    for (const cookie of [cookies[1], cookies[MAX_LIVE_SESSIONS], full, byKey, theirs])
      expect((await withCookie(cookie, "GET", "/dashboard/session")).status).toBe(200);
    // The sign-in links are one credential: the same cap, their oldest first.
    for (let i = 1; i <= MAX_LIVE_SESSIONS; i++) await session({ code: await linkCode(account) });
    clock.advance(TOKEN_CACHE_TTL_MS); // `full` was read above: an isolate may hold it that long
    const linkPushedOut = await withCookie(full, "GET", "/dashboard/session");
    expectError(linkPushedOut, 401, "INVALID_SESSION");
    expect(linkPushedOut.body.error.message).toMatch(
      /^The session ended when a newer sign-in with the same sign-in links/,
    );
    expect((await withCookie(byKey, "GET", "/dashboard/session")).status).toBe(200);
    const live = await env.DB.prepare(
      `SELECT count(*) AS n FROM sessions WHERE account_id = ? AND revoked_at IS NULL GROUP BY key_id ORDER BY n`,
    )
      .bind(account.id)
      .all<{ n: number }>();
    expect(live.results.map((r) => r.n)).toEqual([1, MAX_LIVE_SESSIONS, MAX_LIVE_SESSIONS]);
  });

  it("count only live sessions: those ended by 12 hours idle leave room", async () => {
    const clock = useClock();
    const account = await createAccount();
    const restricted = await addKey(account, { name: "events only", permissions: ["events:write"] });
    const kept = await session({ key: restricted.token });
    for (let i = 1; i < MAX_LIVE_SESSIONS; i++) await session({ key: restricted.token });
    clock.advance(11 * HOUR);
    expect((await withCookie(kept, "GET", "/dashboard/session")).status).toBe(200); // used: not idle
    clock.advance(HOUR + TOKEN_CACHE_TTL_MS); // the other 49 have now been idle 12 hours
    await session({ key: restricted.token });
    expect((await withCookie(kept, "GET", "/dashboard/session")).status).toBe(200);
  });
});

describe("the hourly purge", () => {
  it("deletes sessions past their 7 days, and sign-in links a day after they expired", async () => {
    const account = await createAccount();
    const clock = useClock();
    const start = clock.now();
    const old = await session({ code: await linkCode(account) }); // its link expires 15 minutes on
    clock.set(start + 7 * 24 * HOUR - 1);
    const recent = await session({ code: await linkCode(account) });
    const count = async (table: string) =>
      (await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`)
        .bind(account.id)
        .first<number>("n"))!;
    expect([await count("sessions"), await count("sign_in_links")]).toEqual([2, 2]);
    clock.set(start + 7 * 24 * HOUR);
    await purgeExpired(env, clock.now());
    expect([await count("sessions"), await count("sign_in_links")]).toEqual([1, 1]);
    expectError(await withCookie(old, "GET", "/v1/schemas"), 401, "INVALID_SESSION");
    expect((await withCookie(recent, "GET", "/v1/schemas")).status).toBe(200);
  });
});

describe("GET /dashboard/session", () => {
  it("answers who is signed in, or 401 when no one is", async () => {
    const account = await createAccount();
    const clock = useClock();
    const res = await signIn({ code: await linkCode(account) });
    const shown = await withCookie(cookieOf(res).pair, "GET", "/dashboard/session");
    expectStatus(shown, 200);
    expect(shown.body).toEqual({
      account_id: account.id,
      account_name: "test",
      signed_in_with: "sign_in_link",
      api_key: null,
      permissions: [...PERMISSIONS],
      full_access: true,
      created_at: iso(clock.now()),
      expires_at: iso(clock.now() + 7 * 24 * HOUR),
    });
    expectError(await call("GET", "/dashboard/session"), 401, "INVALID_SESSION");
    // A bearer key is not a dashboard session.
    expectError(await call("GET", "/dashboard/session", { token: account.token }), 401, "INVALID_SESSION");
  });
});

describe("dashboard responses", () => {
  const CSP =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

  it("carry the security headers, the session endpoints no-store too", async () => {
    const account = await createAccount();
    const signedIn = await signIn({ code: await linkCode(account) });
    const cookie = cookieOf(signedIn).pair;
    const cookie2 = cookieOf(await signIn({ code: await linkCode(account) })).pair;
    const answers: [string, ApiResponse, boolean][] = [
      ["sign-in", signedIn, true],
      ["refused sign-in", await signIn({ code: "nope" }), true],
      ["session", await withCookie(cookie, "GET", "/dashboard/session"), true],
      ["no session", await call("GET", "/dashboard/session"), true],
      ["sign-out", await withCookie(cookie, "DELETE", "/dashboard/session"), true],
      ["405", await call("PUT", "/dashboard/session"), true],
      ["/dashboard", await call("GET", "/dashboard"), false],
      ["/dashboard/sign-in", await call("GET", "/dashboard/sign-in"), false],
      ["a page, signed out", await call("GET", "/dashboard/candidates"), false],
      ["a page, signed in", await withCookie(cookie2, "GET", "/dashboard/candidates"), false],
      ["a page's 405", await call("POST", "/dashboard/candidates", { headers: { Origin: ORIGIN } }), false],
    ];
    for (const [what, res, noStore] of answers) {
      expect(res.headers.get("Content-Security-Policy"), what).toBe(CSP);
      expect(res.headers.get("X-Content-Type-Options"), what).toBe("nosniff");
      expect(res.headers.get("Referrer-Policy"), what).toBe("same-origin");
      expect(res.headers.get("X-Frame-Options"), what).toBe("DENY");
      if (noStore) expect(res.headers.get("Cache-Control"), what).toBe("no-store");
    }
    expectError(answers[5][1], 405, "METHOD_NOT_ALLOWED");
    expectError(answers[10][1], 404, "NOT_FOUND");
  });

  it("never carry a secret after sign-in, nor log one: not the cookie's value, the key or the code", async () => {
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
    }
    const account = await createAccount();
    const code = await linkCode(account);
    const byCode = await signIn({ code });
    const byKey = await signIn({ key: account.token });
    const secrets = [code, account.token, cookieOf(byCode).value, cookieOf(byKey).value];
    const bodies = [byCode, byKey];
    for (const cookie of [cookieOf(byCode).pair, cookieOf(byKey).pair]) {
      bodies.push(await withCookie(cookie, "GET", "/dashboard/session"));
      bodies.push(await withCookie(cookie, "GET", "/v1/api_keys"));
      bodies.push(await withCookie(cookie, "DELETE", "/dashboard/session"));
      bodies.push(await withCookie(cookie, "GET", "/v1/schemas"));
    }
    bodies.push(await signIn({ code })); // spent: refused
    for (const res of bodies) {
      for (const secret of secrets) expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    for (const secret of secrets) expect(logged.join("\n")).not.toContain(secret);
  });
});
