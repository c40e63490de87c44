import { beforeEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { call, type ApiResponse } from "../support/api";
import { useClock, startOfWindow } from "../support/clock";
import { createApp } from "../../src/app";
import { TOKEN_CACHE_TTL_MS } from "../../src/auth";
import { sha256Hex } from "../../src/hash";
import { PERMISSIONS } from "../../src/domain/permissions";
import { SIGN_IN_LINK_TTL_MS } from "../../src/operator/store";
import { MAX_KEYS_PER_ACCOUNT } from "../../src/db/tokens";

const SECRET = env.OPERATOR_SECRET!;
/** Each test its own client address, so failed attempts of one never limit another. */
let address = "";
let addresses = 0;
beforeEach(() => {
  address = `198.51.100.${++addresses}`;
});

function operator(method: string, path: string, json?: unknown, secret: string | null = SECRET) {
  return call(method, `/operator/v1${path}`, {
    json,
    headers: { "CF-Connecting-IP": address, ...(secret === null ? {} : { Authorization: `Bearer ${secret}` }) },
  });
}

function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, status });
  return res.body.error;
}

const newAccount = async (name = "Acme") => {
  const res = await operator("POST", "/accounts", { name });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

describe("the operator API's door", () => {
  it("is absent where no OPERATOR_SECRET is set: 404 exactly as a path nothing serves", async () => {
    const app = createApp();
    const without = { ...env, OPERATOR_SECRET: undefined };
    const answer = async (method: string, path: string, headers: Record<string, string> = {}) => {
      const res = await app.request(path, { method, headers }, without);
      const body: any = await res.json();
      return {
        status: res.status,
        allow: res.headers.get("Allow"),
        error: { ...body.error, message: body.error.message.replace(path, "PATH") },
      };
    };
    const unknown = await answer("GET", "/nothing-here");
    expect(unknown.status).toBe(404);
    const withSecret = { Authorization: `Bearer ${SECRET}` };
    for (const [method, path] of [
      ["GET", "/operator/v1/accounts"],
      ["POST", "/operator/v1/accounts"],
      ["DELETE", "/operator/v1/accounts"], // a 405 would tell the path exists
      ["POST", "/operator/v1/keys/x/revoke"],
      ["GET", "/operator/v1/nope"],
    ]) {
      for (const headers of [{}, withSecret]) {
        const res = await answer(method, path, headers);
        expect(res, `${method} ${path}`).toEqual({
          ...unknown,
          error: { ...unknown.error, message: unknown.error.message.replace("GET", method) },
        });
      }
    }
    // And with the secret set, the same request is served.
    expect((await app.request("/operator/v1/accounts", { headers: withSecret }, env)).status).toBe(200);
  });

  it("refuses a missing or wrong secret with 401, changing nothing", async () => {
    const before = await env.DB.prepare(`SELECT count(*) AS n FROM accounts`).first<number>("n");
    for (const [secret, code] of [
      [null, "MISSING_API_TOKEN"],
      ["", "MISSING_API_TOKEN"],
      ["wrong", "INVALID_API_TOKEN"],
      [SECRET.slice(0, -1), "INVALID_API_TOKEN"],
      [`${SECRET}x`, "INVALID_API_TOKEN"],
      [SECRET.toUpperCase(), "INVALID_API_TOKEN"],
    ] as const) {
      const res = await operator("POST", "/accounts", { name: "Mallory" }, secret);
      expect(expectError(res, 401, code).type).toBe("authentication_error");
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
    }
    // An API key is no operator secret, either.
    const { key } = await newAccount();
    expectError(await operator("GET", "/accounts", undefined, key.token), 401, "INVALID_API_TOKEN");
    expect(await env.DB.prepare(`SELECT count(*) AS n FROM accounts`).first<number>("n")).toBe(before! + 1);
  });

  it("compares the secret in constant time, over digests of equal length", async () => {
    const spy = vi.spyOn(crypto.subtle, "timingSafeEqual");
    try {
      expect((await operator("GET", "/accounts")).status).toBe(200);
      expect((await operator("GET", "/accounts", undefined, "short")).status).toBe(401);
      expect(spy).toHaveBeenCalledTimes(2);
      for (const [a, b] of spy.mock.calls) {
        expect((a as ArrayBuffer).byteLength).toBe(32);
        expect((b as ArrayBuffer).byteLength).toBe(32);
      }
      expect(spy.mock.results.map((r) => r.value)).toEqual([true, false]);
    } finally {
      spy.mockRestore();
    }
  });

  it("rate limits failures per client address, on the same limit as failed API-key authentication", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS);
    const limit = env.AUTH_FAILURE_LIMIT_REQUESTS;
    address = `203.0.113.${100 + Math.floor(Math.random() * 150)}`;
    // Half the allowance spent guessing API keys, the rest guessing the operator secret.
    const half = Math.floor(limit / 2);
    const keyGuesses = Array.from({ length: half }, () =>
      call("GET", "/v1/schemas", { token: `cct_${"B".repeat(43)}`, headers: { "CF-Connecting-IP": address } }),
    );
    const secretGuesses = Array.from({ length: limit - half }, (_, i) =>
      operator("GET", "/accounts", undefined, `guess-${i}`),
    );
    for (const res of await Promise.all([...keyGuesses, ...secretGuesses])) expect(res.status).toBe(401);
    const over = await operator("GET", "/accounts", undefined, "one-more");
    expectError(over, 429, "RATE_LIMITED");
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    // Blocked: even the right secret is refused from that address until the window ends...
    expectError(await operator("GET", "/accounts"), 429, "RATE_LIMITED");
    // ...while other addresses carry on.
    address = "198.18.0.7";
    expect((await operator("GET", "/accounts")).status).toBe(200);
  }, 30_000);
});

describe("the operator API", () => {
  it("creates an account and its first key, which authenticates on /v1 and is stored only hashed", async () => {
    const created = await newAccount("  Acme Ltd  ");
    expect(created).toMatchObject({
      name: "Acme Ltd",
      key: {
        account_id: created.account_id,
        name: "First key",
        permissions: [...PERMISSIONS],
        full_access: true,
        status: "active",
        expires_at: null,
      },
    });
    expect(created.key.token).toMatch(/^cct_[\w-]{43}$/);
    expect(created.key.redacted).toBe(`cct_…${created.key.token.slice(-4)}`);
    expect((await call("GET", "/v1/schemas", { token: created.key.token })).status).toBe(200);
    // The key as the API shows it: the same permissions, the same full access.
    const listed = (await call("GET", "/v1/api_keys", { token: created.key.token })).body.data[0];
    expect({ permissions: listed.permissions, full_access: listed.full_access }).toEqual({
      permissions: created.key.permissions,
      full_access: created.key.full_access,
    });
    const row = await env.DB.prepare(`SELECT * FROM api_tokens WHERE id = ?`)
      .bind(created.key.token_id)
      .first<Record<string, unknown>>();
    expect(row).toMatchObject({
      account_id: created.account_id,
      token_hash: await sha256Hex(created.key.token),
      permissions: null,
    });
    expect(JSON.stringify(row)).not.toContain(created.key.token.slice(4, 20));
    // It names the shard it was placed on, as the primary records it.
    expect(created.shard).toMatch(/^SHARD_\d+$/);
    const placed = await env.DB.prepare(`SELECT shard FROM accounts WHERE id = ?`)
      .bind(created.account_id)
      .first("shard");
    expect(created.shard).toBe(placed);

    for (const [body, path] of [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(201) }, "name"],
      [{ name: "A", plan: "gold" }, "plan"],
    ] as const) {
      const error = expectError(await operator("POST", "/accounts", body), 400, "VALIDATION_ERROR");
      expect(error.details.map((d: any) => d.path)).toEqual([path]);
    }
    expectError(await operator("POST", "/accounts", undefined), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("lists accounts oldest first, a page at a time", async () => {
    const made = [await newAccount("L1"), await newAccount("L2"), await newAccount("L3")];
    const seen: any[] = [];
    let after: string | null = null;
    do {
      const res: ApiResponse = await operator("GET", `/accounts?limit=2${after ? `&starting_after=${after}` : ""}`);
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.data);
      after = res.body.next;
    } while (after);
    const ids = seen.map((a) => a.account_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(-3)).toEqual(made.map((a) => a.account_id));
    expect(seen.at(-1)).toEqual({
      account_id: made[2].account_id,
      name: "L3",
      created_at: made[2].created_at,
      shard: made[2].shard,
    });
    expectError(await operator("GET", "/accounts?limit=0"), 400, "VALIDATION_ERROR");
    expectError(await operator("GET", "/accounts?limit=1e2"), 400, "VALIDATION_ERROR");
    expectError(await operator("GET", "/accounts?starting_after=nobody"), 404, "ACCOUNT_NOT_FOUND");
  });

  it("creates keys with a name, permissions and an expiry, validated", async () => {
    const { account_id } = await newAccount();
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await operator("POST", `/accounts/${account_id}/keys`, {
      name: "CI",
      permissions: ["schemas:read", "billing:read"],
      expires_at: expiresAt,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      account_id,
      name: "CI",
      permissions: ["schemas:read", "billing:read"],
      expires_at: expiresAt,
      status: "active",
      revoked_at: null,
    });
    expect((await call("GET", "/v1/schemas", { token: res.body.token })).status).toBe(200);
    const row = await env.DB.prepare(`SELECT permissions, expires_at, last4 FROM api_tokens WHERE id = ?`)
      .bind(res.body.token_id)
      .first();
    expect(row).toEqual({
      permissions: '["schemas:read","billing:read"]',
      expires_at: Date.parse(expiresAt),
      last4: res.body.token.slice(-4),
    });

    // No body at all: a full-access key with a name of its own.
    const plain = await call("POST", `/operator/v1/accounts/${account_id}/keys`, {
      headers: { Authorization: `Bearer ${SECRET}`, "CF-Connecting-IP": address },
    });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({
      permissions: [...PERMISSIONS],
      full_access: true,
      expires_at: null,
      name: expect.stringMatching(/^Key created \d{4}-\d\d-\d\d$/),
    });
    // As the keys API: a key that may do nothing is refused (leave `permissions` out for full access).
    expect(
      (await operator("POST", `/accounts/${account_id}/keys`, { permissions: [] })).body.error.details[0].path,
    ).toBe("permissions");
    expect((await operator("POST", `/accounts/${account_id}/keys`, { permissions: [...PERMISSIONS] })).status).toBe(
      201,
    );

    for (const [body, paths] of [
      [{ permissions: ["schemas:read", "schemas:admin", "billing:write"] }, ["permissions.1", "permissions.2"]],
      [{ permissions: ["schemas:read", "billing:read", "schemas:read"] }, ["permissions.2"]],
      [{ permissions: "schemas:read" }, ["permissions"]],
      [{ expires_at: new Date(Date.now() - 1000).toISOString() }, ["expires_at"]],
      [{ expires_at: "tomorrow" }, ["expires_at"]],
      [{ name: "" }, ["name"]],
      [{ name: "n".repeat(101) }, ["name"]],
      // The API's rules for a key's name: one line, not only spaces, counted in characters.
      [{ name: "   " }, ["name"]],
      [{ name: "ops\tkey" }, ["name"]],
      [{ name: "ops\u202Ekey" }, ["name"]],
      [{ name: "x", scopes: [] }, ["scopes"]],
    ] as const) {
      const error = expectError(await operator("POST", `/accounts/${account_id}/keys`, body), 400, "VALIDATION_ERROR");
      expect(
        error.details.map((d: any) => d.path),
        JSON.stringify(body),
      ).toEqual(paths);
    }
    const emoji = await operator("POST", `/accounts/${account_id}/keys`, { name: "\u{1F511}".repeat(100) });
    expect(emoji.status, "100 characters, 200 UTF-16 units").toBe(201);
    const unknown = expectError(await operator("POST", "/accounts/nobody/keys", {}), 404, "ACCOUNT_NOT_FOUND");
    expect(unknown.message).toContain("nobody");
  });

  it(`refuses a key beyond ${MAX_KEYS_PER_ACCOUNT} not revoked`, async () => {
    const { account_id, key } = await newAccount();
    const more = Array.from({ length: MAX_KEYS_PER_ACCOUNT - 1 }, () =>
      operator("POST", `/accounts/${account_id}/keys`, {}),
    );
    for (const res of await Promise.all(more)) expect(res.status).toBe(201);
    expectError(await operator("POST", `/accounts/${account_id}/keys`, {}), 409, "API_KEY_LIMIT_REACHED");
    expect((await operator("POST", `/keys/${key.token_id}/revoke`)).status).toBe(200);
    expect((await operator("POST", `/accounts/${account_id}/keys`, {})).status).toBe(201);
  });

  it("lists an account's keys newest first, with their status and never their secrets", async () => {
    const { account_id, key: first } = await newAccount();
    const clock = useClock();
    clock.advance(1000);
    const second = (
      await operator("POST", `/accounts/${account_id}/keys`, {
        name: "short",
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      })
    ).body;
    clock.advance(1000);
    const third = (await operator("POST", `/accounts/${account_id}/keys`, { name: "gone" })).body;
    await operator("POST", `/keys/${third.token_id}/revoke`);
    clock.advance(60_000);
    const res = await operator("GET", `/accounts/${account_id}/keys`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((k: any) => [k.token_id, k.status])).toEqual([
      [third.token_id, "revoked"],
      [second.token_id, "expired"],
      [first.token_id, "active"],
    ]);
    const listed = JSON.stringify(res.body);
    for (const key of [first, second, third]) expect(listed).not.toContain(key.token);
    expect(res.body.data[2]).toEqual({ ...first, token: undefined, created_at: first.created_at });
    expectError(await operator("GET", "/accounts/nobody/keys"), 404, "ACCOUNT_NOT_FOUND");
  });

  it("revokes a key: it stops authenticating within the token cache's lifetime, for good", async () => {
    const { key } = await newAccount();
    const clock = useClock();
    expect((await call("GET", "/v1/schemas", { token: key.token })).status).toBe(200);
    const revoked = await operator("POST", `/keys/${key.token_id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      token_id: key.token_id,
      status: "revoked",
      revoked_at: new Date(clock.now()).toISOString(),
    });
    clock.advance(TOKEN_CACHE_TTL_MS);
    expectError(await call("GET", "/v1/schemas", { token: key.token }), 401, "INVALID_API_TOKEN");
    // Revoking again changes nothing.
    clock.advance(5000);
    expect((await operator("POST", `/keys/${key.token_id}/revoke`)).body.revoked_at).toBe(revoked.body.revoked_at);
    expectError(await operator("POST", "/keys/nothing/revoke"), 404, "API_KEY_NOT_FOUND");
  });

  it("makes one-time sign-in links: the code in the fragment, stored only hashed, expiring in 15 minutes", async () => {
    const { account_id } = await newAccount();
    const clock = useClock();
    const res = await operator("POST", `/accounts/${account_id}/sign_in_links`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { url, expires_at } = res.body;
    const code = url.match(/^https:\/\/api\.test\/dashboard\/sign-in#code=([\w-]{43})$/)?.[1];
    expect(code).toBeDefined();
    expect(SIGN_IN_LINK_TTL_MS).toBe(15 * 60_000);
    expect(expires_at).toBe(new Date(clock.now() + SIGN_IN_LINK_TTL_MS).toISOString());
    const stored = await env.DB.prepare(`SELECT * FROM sign_in_links WHERE account_id = ?`).bind(account_id).all();
    expect(stored.results).toEqual([
      {
        code_hash: await sha256Hex(code!),
        account_id,
        created_at: clock.now(),
        expires_at: clock.now() + SIGN_IN_LINK_TTL_MS,
        used_at: null,
      },
    ]);
    // Each link is a code of its own.
    const again = await operator("POST", `/accounts/${account_id}/sign_in_links`);
    expect(again.body.url).not.toBe(url);
    expectError(await operator("POST", "/accounts/nobody/sign_in_links"), 404, "ACCOUNT_NOT_FOUND");
  });

  it("is no part of the account API's OpenAPI document", async () => {
    const doc = await call("GET", "/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(JSON.stringify(doc.body.paths)).not.toContain("operator");
  });
});
