import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { addKey, call, createAccount } from "../support/api";
import { useClock, startOfWindow } from "../support/clock";
import { TOKEN_CACHE_MAX_BYTES, TOKEN_CACHE_TTL_MS, tokenCacheStats } from "../../src/auth";

describe("authentication", () => {
  it("answers a missing or malformed Authorization header with 401 MISSING_API_TOKEN", async () => {
    const headerSets: Record<string, string>[] = [
      {},
      { Authorization: "" },
      { Authorization: "Basic abc" },
      { Authorization: "Bearer" },
      { Authorization: "cct_abc" },
    ];
    for (const headers of headerSets) {
      const res = await call("GET", "/v1/schemas", { headers });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: "authentication_error", code: "MISSING_API_TOKEN", status: 401 });
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    }
  });

  it("answers an unknown token with 401 INVALID_API_TOKEN, without echoing it", async () => {
    for (const token of ["cct_doesnotexist", "sk_live_whatever", "x".repeat(5000)]) {
      const res = await call("GET", "/v1/candidates", { token });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: "authentication_error", code: "INVALID_API_TOKEN" });
      expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
      expect(JSON.stringify(res.body)).not.toContain(token);
    }
  });

  it("checks auth before anything else on every /v1 endpoint", async () => {
    for (const [method, path] of [
      ["POST", "/v1/schemas"],
      ["GET", "/v1/schemas/x"],
      ["PATCH", "/v1/schemas/x"],
      ["DELETE", "/v1/schemas/x"],
      ["POST", "/v1/candidates"],
      ["GET", "/v1/candidates"],
      ["GET", "/v1/candidates/whatever-alias"],
      ["POST", "/v1/candidates/whatever-alias/resolve"],
      ["POST", "/v1/events"],
    ]) {
      const res = await call(method, path, method === "GET" ? {} : { raw: "not json" });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
  });

  it("accepts the scheme name in any case", async () => {
    const { token } = await createAccount();
    expect((await call("GET", "/v1/schemas", { headers: { Authorization: `bearer ${token}` } })).status).toBe(200);
  });

  it("stops accepting a revoked token within 10 seconds (the cache's lifetime)", async () => {
    expect(TOKEN_CACHE_TTL_MS).toBe(10_000); // as the README and the accounts CLI say
    const account = await createAccount();
    const clock = useClock();
    expect((await call("GET", "/v1/schemas", { token: account.token })).status).toBe(200);
    await env.DB.prepare(`UPDATE api_tokens SET revoked_at = ? WHERE id = ?`).bind(clock.now(), account.tokenId).run();
    clock.advance(TOKEN_CACHE_TTL_MS - 1);
    expect((await call("GET", "/v1/schemas", { token: account.token })).status).toBe(200); // still cached
    clock.advance(1);
    const res = await call("GET", "/v1/schemas", { token: account.token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("INVALID_API_TOKEN");
  });
});

/** A token of the right form that no account has. */
const unknownToken = () => `cct_${"A".repeat(11)}${crypto.randomUUID().replaceAll("-", "")}`;

/** Runs `fn` with the token table unreachable, so any lookup would be a 500. */
async function withoutTokenTable<T>(fn: () => Promise<T>): Promise<T> {
  await env.DB.exec(`ALTER TABLE api_tokens RENAME TO api_tokens_offline`);
  try {
    return await fn();
  } finally {
    await env.DB.exec(`ALTER TABLE api_tokens_offline RENAME TO api_tokens`);
  }
}

describe("abuse of authentication", () => {
  it("refuses a string that is not a well-formed token without looking it up", async () => {
    const malformed = [
      "cct_short",
      `cct_${"A".repeat(44)}`,
      `cct_${"A".repeat(42)}+`,
      "x".repeat(100_000),
      `CCT_${"A".repeat(43)}`,
    ];
    await withoutTokenTable(async () => {
      for (const [i, token] of malformed.entries()) {
        const res = await call("GET", "/v1/schemas", { token, headers: { "CF-Connecting-IP": `192.0.2.${i}` } });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe("INVALID_API_TOKEN");
      }
    });
  });

  it("caches only tokens that authenticate: a flood of bad ones neither grows the cache nor evicts", async () => {
    const account = await createAccount();
    expect((await call("GET", "/v1/schemas", { token: account.token })).status).toBe(200);
    const before = tokenCacheStats();
    const flood = Array.from({ length: 200 }, (_, i) =>
      call("GET", "/v1/schemas", {
        token: i % 2 ? unknownToken() : "junk".repeat(25_000),
        headers: { "CF-Connecting-IP": `10.0.${i >> 8}.${i & 255}` },
      }),
    );
    for (const res of await Promise.all(flood)) expect(res.status).toBe(401);
    expect(tokenCacheStats()).toEqual(before);
    expect(before.bytes).toBeLessThanOrEqual(TOKEN_CACHE_MAX_BYTES);
    // The real account's entry survived: it answers from the cache with the token table gone.
    await withoutTokenTable(async () => {
      expect((await call("GET", "/v1/schemas", { token: account.token })).status).toBe(200);
    });
  });

  it("does not count a revoked or expired key: a client still sending one never locks the address's keys out", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS);
    const limit = env.AUTH_FAILURE_LIMIT_REQUESTS;
    // Not 192.0.2.0-4, whose failures the malformed-token test above counted in this window.
    const host = { "CF-Connecting-IP": `192.0.2.${100 + Math.floor(Math.random() * 150)}` };
    const account = await createAccount();
    const revoked = await addKey(account);
    const rolled = await addKey(account);
    const fresh = await addKey(account); // never used: not in any cache, so it needs a lookup
    expect((await call("POST", `/v1/api_keys/${revoked.tokenId}/revoke`, { token: account.token })).status).toBe(200);
    expect((await call("POST", `/v1/api_keys/${rolled.tokenId}/roll`, { token: account.token, json: {} })).status).toBe(
      201,
    ); // the old key expires now
    for (let i = 0; i <= limit; i++) {
      const [gone, expired] = await Promise.all([
        call("GET", "/v1/schemas", { token: revoked.token, headers: host }),
        call("GET", "/v1/schemas", { token: rolled.token, headers: host }),
      ]);
      expect(gone.status).toBe(401);
      expect(gone.body.error.code).toBe("INVALID_API_TOKEN");
      expect(expired.body.error.code).toBe("EXPIRED_API_TOKEN");
      expect([gone, expired].map((res) => res.headers.get("RateLimit-Remaining"))).toEqual([`${limit}`, `${limit}`]);
    }
    // The address's other key still signs in; a revoked key's refusal costs no lookup once known.
    expect((await call("GET", "/v1/schemas", { token: fresh.token, headers: host })).status).toBe(200);
    await withoutTokenTable(async () => {
      expect((await call("GET", "/v1/schemas", { token: revoked.token, headers: host })).status).toBe(401);
    });
    // A guess still counts.
    const guess = await call("GET", "/v1/schemas", { token: unknownToken(), headers: host });
    expect(guess.headers.get("RateLimit-Remaining")).toBe(`${limit - 1}`);
  }, 30_000);

  it("spares a credential that authenticated lately from its address's block: a shared address keeps working", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS, 30);
    const limit = env.AUTH_FAILURE_LIMIT_REQUESTS;
    const shared = {
      "CF-Connecting-IP": `100.64.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    };
    const account = await createAccount();
    const revokedLater = await addKey(account);
    const neverUsed = await addKey(account);
    for (const token of [account.token, revokedLater.token])
      expect((await call("GET", "/v1/schemas", { token, headers: shared })).status).toBe(200);
    // Another client behind the same address guesses until the address is blocked.
    for (let i = 0; i <= limit; i++) await call("GET", "/v1/schemas", { token: unknownToken(), headers: shared });
    expect((await call("GET", "/v1/schemas", { token: unknownToken(), headers: shared })).status).toBe(429);
    await call("POST", `/v1/api_keys/${revokedLater.tokenId}/revoke`, { token: account.token });

    // Past the cache's lifetime each is looked up again: the key that authenticated is answered...
    const clock = useClock();
    clock.advance(TOKEN_CACHE_TTL_MS + 1);
    expect((await call("GET", "/v1/schemas", { token: account.token, headers: shared })).status).toBe(200);
    // ...the one revoked since is not (this isolate forgot it at the revocation: blocked like a guess)...
    expect((await call("GET", "/v1/schemas", { token: revokedLater.token, headers: shared })).status).toBe(429);
    // ...and a key this isolate has not seen authenticate is refused unlooked-up, like a guess.
    expect((await call("GET", "/v1/schemas", { token: neverUsed.token, headers: shared })).status).toBe(429);
    expect((await call("GET", "/v1/schemas", { token: unknownToken(), headers: shared })).status).toBe(429);
  }, 30_000);

  it("rate limits failed authentication per client address, then refuses without a lookup", async () => {
    await startOfWindow(env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS);
    const limit = env.AUTH_FAILURE_LIMIT_REQUESTS;
    const attacker = { "CF-Connecting-IP": `203.0.113.${Math.floor(Math.random() * 250)}` };
    const account = await createAccount();
    expect((await call("GET", "/v1/schemas", { token: account.token, headers: attacker })).status).toBe(200);

    // A request with no credential guesses nothing: not counted, and told the allowance left.
    const bare = await call("GET", "/v1/schemas", { headers: attacker });
    expect(bare.status).toBe(401);
    expect(bare.headers.get("RateLimit-Remaining")).toBe(String(limit));
    const attempts = [];
    for (let i = 0; i < limit; i++)
      attempts.push(await call("GET", "/v1/schemas", { token: unknownToken(), headers: attacker }));
    // Each failure's 401 says how many are left, down to none.
    expect(attempts.map((res) => res.status)).toEqual(Array(limit).fill(401));
    expect(attempts.map((res) => Number(res.headers.get("RateLimit-Remaining")))).toEqual(
      Array.from({ length: limit }, (_, i) => limit - 1 - i),
    );
    expect(attempts[0].headers.get("RateLimit-Policy")).toBe(
      `"auth-failures-per-address";q=${limit};w=${env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS}`,
    );
    const over = await call("GET", "/v1/schemas", { token: unknownToken(), headers: attacker });
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ type: "rate_limit_error", code: "RATE_LIMITED", status: 429 });
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get("RateLimit-Policy")).toBe(
      `"auth-failures-per-address";q=${limit};w=${env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS}`,
    );

    // A revoked key known to be revoked is answered alike: the block does not tell it from a guess.
    const revoked = await addKey(account);
    await call("POST", `/v1/api_keys/${revoked.tokenId}/revoke`, { token: account.token });
    expect((await call("GET", "/v1/schemas", { token: revoked.token })).status).toBe(401);
    expect((await call("GET", "/v1/schemas", { token: revoked.token, headers: attacker })).status).toBe(429);

    await withoutTokenTable(async () => {
      // Refused before any lookup (a lookup would fail with the table gone)...
      expect((await call("GET", "/v1/schemas", { token: unknownToken(), headers: attacker })).status).toBe(429);
      // ...but for a request with no credential, which costs no lookup: still 401, with none left...
      const noCredential = await call("GET", "/v1/schemas", { headers: attacker });
      expect(noCredential.status).toBe(401);
      expect(noCredential.body.error.code).toBe("MISSING_API_TOKEN");
      expect(noCredential.headers.get("RateLimit-Remaining")).toBe("0");
      // ...while an authenticated client at that address, and every other address, carry on.
      expect((await call("GET", "/v1/schemas", { token: account.token, headers: attacker })).status).toBe(200);
    });
    const elsewhere = await call("GET", "/v1/schemas", {
      token: unknownToken(),
      headers: { "CF-Connecting-IP": "198.18.0.1" },
    });
    expect(elsewhere.status).toBe(401);
    // An IPv6 client is one address per /64: it cannot escape the limit by rotating within it.
    const v6 = Array.from({ length: limit + 1 }, (_, i) =>
      call("GET", "/v1/schemas", {
        token: unknownToken(),
        headers: { "CF-Connecting-IP": `2001:db8:1:2::${(i + 1).toString(16)}` },
      }),
    );
    expect((await Promise.all(v6)).map((r) => r.status).filter((s) => s === 429)).toHaveLength(1);
  }, 30_000);
});
