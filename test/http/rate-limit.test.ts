import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, contract, createAccount, dbOf } from "../support/api";
import { startOfWindow } from "../support/clock";

describe("rate limiting", () => {
  it("reports the allowance on every response and answers 429 RATE_LIMITED past it, per account", async () => {
    await startOfWindow(env.RATE_LIMIT_PERIOD_SECONDS, 15);
    const busy = await createAccount();
    const quiet = await createAccount();
    const limit = env.RATE_LIMIT_REQUESTS;

    const first = await call("GET", "/v1/schemas", { token: busy.token });
    expect(first.headers.get("RateLimit-Limit")).toBe(String(limit));
    expect(first.headers.get("RateLimit-Remaining")).toBe(String(limit - 1));
    expect(first.headers.get("RateLimit-Policy")).toBe(`"per-account";q=${limit};w=${env.RATE_LIMIT_PERIOD_SECONDS}`);
    expect(first.headers.get("RateLimit")).toMatch(new RegExp(`^"per-account";r=${limit - 1};t=\\d+$`));
    const reset = Number(first.headers.get("RateLimit-Reset"));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(env.RATE_LIMIT_PERIOD_SECONDS);

    // Errors count and carry the headers too.
    const missing = await call("GET", "/v1/candidates/not-a-real-alias", { token: busy.token });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("RateLimit-Remaining")).toBe(String(limit - 2));
    // So do a path no endpoint has and a method the path does not take.
    const nowhere = await call("GET", "/v1/no-such-endpoint", { token: busy.token });
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get("RateLimit-Remaining")).toBe(String(limit - 3));
    const refused = await call("PUT", "/v1/candidates", { token: busy.token });
    expect(refused.status).toBe(405);
    expect(refused.headers.get("Allow")).toBe("POST, GET, HEAD");
    expect(refused.headers.get("RateLimit-Remaining")).toBe(String(limit - 4));

    const statuses: number[] = [];
    for (let sent = 4; sent < limit; sent += 50) {
      const batch = Array.from({ length: Math.min(50, limit - sent) }, () =>
        call("GET", "/v1/schemas", { token: busy.token }),
      );
      statuses.push(...(await Promise.all(batch)).map((r) => r.status));
    }
    expect(statuses.every((s) => s === 200)).toBe(true);

    const over = await call("POST", "/v1/schemas", { token: busy.token, json: { contract: contract() } });
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ type: "rate_limit_error", code: "RATE_LIMITED", status: 429 });
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get("RateLimit-Remaining")).toBe("0");
    const schemas = await dbOf(busy)
      .prepare(`SELECT COUNT(*) AS n FROM schemas WHERE account_id = ?`)
      .bind(busy.id)
      .first();
    expect(schemas).toEqual({ n: 0 }); // the refused POST created nothing
    // A refused read does no work: with the list index gone, running it would be a 500.
    await dbOf(busy).exec(`ALTER TABLE candidates RENAME TO candidates_offline`);
    let read;
    try {
      read = await call("GET", "/v1/candidates", { token: busy.token });
    } finally {
      await dbOf(busy).exec(`ALTER TABLE candidates_offline RENAME TO candidates`);
    }
    expect(read.status).toBe(429);
    expect(read.body.error.code).toBe("RATE_LIMITED");

    const other = await call("GET", "/v1/schemas", { token: quiet.token });
    expect(other.status).toBe(200);
    expect(other.headers.get("RateLimit-Remaining")).toBe(String(limit - 1));
  }, 30_000);

  it("counts the public OpenAPI document per client address, apart from any account's allowance", async () => {
    await startOfWindow(env.PUBLIC_LIMIT_PERIOD_SECONDS, 15);
    const limit = env.PUBLIC_LIMIT_REQUESTS;
    const from = (address: string) => ({ headers: { "CF-Connecting-IP": address } });
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const first = await call("GET", "/v1/openapi.json", from(address));
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Policy")).toBe(
      `"public-per-address";q=${limit};w=${env.PUBLIC_LIMIT_PERIOD_SECONDS}`,
    );
    expect(first.headers.get("RateLimit-Remaining")).toBe(String(limit - 1));
    // With a key too: the document is the address's, and the account's allowance is untouched.
    const account = await createAccount();
    const keyed = await call("GET", "/v1/openapi.json", { ...from(address), token: account.token });
    expect(keyed.headers.get("RateLimit-Remaining")).toBe(String(limit - 2));
    const read = await call("GET", "/v1/schemas", { token: account.token });
    expect(read.headers.get("RateLimit-Remaining")).toBe(String(env.RATE_LIMIT_REQUESTS - 1));

    const rest = await Promise.all(
      Array.from({ length: limit - 2 }, () => call("GET", "/v1/openapi.json", from(address))),
    );
    expect(rest.every((r) => r.status === 200)).toBe(true);
    const over = await call("GET", "/v1/openapi.json", from(address));
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    // Another address, and the API itself, are not held back by it.
    expect((await call("GET", "/v1/openapi.json", from("198.51.100.7"))).status).toBe(200);
    expect((await call("GET", "/v1/schemas", { ...from(address), token: account.token })).status).toBe(200);
  }, 30_000);
});
