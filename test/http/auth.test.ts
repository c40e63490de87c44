import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { call, createAccount } from "../support/api";
import { useClock } from "../support/clock";

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

  it("stops accepting a revoked token within 30 seconds", async () => {
    const account = await createAccount();
    const clock = useClock();
    expect((await call("GET", "/v1/schemas", { token: account.token })).status).toBe(200);
    await env.DB.prepare(`UPDATE api_tokens SET revoked_at = ? WHERE id = ?`).bind(clock.now(), account.tokenId).run();
    clock.advance(30_000);
    const res = await call("GET", "/v1/schemas", { token: account.token });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("INVALID_API_TOKEN");
  });
});
