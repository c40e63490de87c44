/** /v1/api_keys: create, list, get, rename, revoke; bad input; limits; other accounts' keys. */
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { addKey, call, client, createAccount, expectStatus, okBody, type TestAccount } from "../support/api";
import { useClock } from "../support/clock";
import { firstAnswerLost, interceptD1Batch } from "../support/d1-faults";
import { holderDied, holderRevived, inKeyStore, storedAnswers } from "../support/key-store";
import { PERMISSIONS } from "../../src/domain/permissions";

/** The account's keys as stored, but when each was last used (the requests themselves use one). */
const keysOf = async (account: TestAccount) =>
  (
    await env.DB.prepare(`SELECT * FROM api_tokens WHERE account_id = ? ORDER BY id`).bind(account.id).all()
  ).results.map((row) => ({ ...row, last_used_at: undefined }));

describe("API keys", () => {
  it("creates a key whose secret is shown once, and which then works with its permissions only", async () => {
    const account = await createAccount();
    const api = client(account);
    const res = await api.post("/v1/api_keys", { name: "Checkout events", permissions: ["events:write"] });
    expectStatus(res, 201);
    const { secret, ...key } = res.body;
    expect(secret).toMatch(/^cct_[A-Za-z0-9_-]{43}$/);
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: "Checkout events",
      redacted: `cct_…${secret.slice(-4)}`,
      permissions: ["events:write"],
      full_access: false,
      created_at: expect.any(String),
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
      replaced_by: null,
      status: "active",
    });
    // Only its hash is stored.
    const stored = (await keysOf(account)).find((row: any) => row.id === key.id)!;
    expect(JSON.stringify(stored)).not.toContain(secret.slice(4));

    const restricted = { ...account, token: secret };
    expect(
      (await client(restricted).post("/v1/events", { candidate_alias: "no-such-alias", type: "purchase" })).status,
    ).toBe(404);
    const refused = await client(restricted).get("/v1/summary");
    expectStatus(refused, 403);
    expect(refused.body.error).toMatchObject({
      type: "permission_error",
      code: "PERMISSION_DENIED",
      message: "This API key lacks `billing:read`, which GET /v1/summary needs.",
    });

    const got = await api.get(`/v1/api_keys/${key.id}`);
    expectStatus(got, 200);
    expect(got.body).not.toHaveProperty("secret");
    expect(got.body).toMatchObject({ ...key, last_used_at: expect.any(String) });
  });

  it("gives a key made without permissions full access, listing every permission", async () => {
    const account = await createAccount();
    // The document names expires_at a string; null, for no expiry, is accepted too.
    const res = await client(account).raw.post("/v1/api_keys", { name: "Everything", expires_at: null });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ permissions: [...PERMISSIONS], full_access: true });
    expect(okBody(await client(account).get(`/v1/api_keys/${account.tokenId}`)).permissions).toEqual([...PERMISSIONS]);
  });

  it("lists keys newest first, page by page, filtered by status at the instant", async () => {
    const account = await createAccount();
    const api = client(account);
    const made: string[] = [account.tokenId];
    for (const name of ["b", "c", "d"]) made.push(okBody(await api.post("/v1/api_keys", { name })).id);
    await api.post(`/v1/api_keys/${made[1]}/revoke`);
    await env.DB.prepare(`UPDATE api_tokens SET expires_at = ? WHERE id = ?`)
      .bind(Date.now() - 1, made[2])
      .run();

    const first = okBody(await api.get("/v1/api_keys?limit=3"));
    expect(first.data.map((k) => k.id)).toEqual(made.slice(1).reverse());
    expect(first.data.map((k) => k.status)).toEqual(["active", "expired", "revoked"]);
    expect(first.next_cursor).toBe(made[1]);
    const second = await api.get(`/v1/api_keys?limit=3&after=${first.next_cursor}`);
    expect(second.body).toMatchObject({ data: [{ id: made[0] }], next_cursor: null });
    for (const [status, ids] of [
      ["active", [made[3], made[0]]],
      ["expired", [made[2]]],
      ["revoked", [made[1]]],
    ] as const) {
      expect(
        okBody(await api.get(`/v1/api_keys?status=${status}`)).data.map((k) => k.id),
        status,
      ).toEqual(ids);
    }
    for (const query of ["after=01936f30-5a6b-7c8d-9e0f-1a2b3c4d5e6f", "after=nope", "status=lost", "limit=0"]) {
      const res = await api.get(`/v1/api_keys?${query}`);
      expectStatus(res, 400, query);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
    }
  });

  it("renames a key and revokes it for good; revoking again changes nothing", async () => {
    const account = await createAccount();
    const other = await addKey(account);
    const api = client(account);
    const renamed = await api.patch(`/v1/api_keys/${other.tokenId}`, { name: "🔑".repeat(100) });
    expectStatus(renamed, 200);
    expect(renamed.body.name).toBe("🔑".repeat(100));
    expect((await client(other).get("/v1/schemas")).status).toBe(200);

    const revoked = await api.post(`/v1/api_keys/${other.tokenId}/revoke`);
    expectStatus(revoked, 200);
    expect(revoked.body).toMatchObject({ status: "revoked", revoked_at: expect.any(String) });
    // At once in the isolate that revoked it (elsewhere within 10 s: auth.test.ts).
    const refused = await client(other).get("/v1/schemas");
    expectStatus(refused, 401);
    expect(refused.body.error.code).toBe("INVALID_API_TOKEN");
    const before = await keysOf(account);
    const again = await api.post(`/v1/api_keys/${other.tokenId}/revoke`, {});
    expectStatus(again, 200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    expect(await keysOf(account)).toEqual(before);
  });
});

describe("bad input to the keys API", () => {
  it("refuses each with a clear 400 at its path, creating nothing", async () => {
    const account = await createAccount();
    const api = client(account);
    const before = await keysOf(account);
    const cases: [unknown, string, RegExp][] = [
      [
        { name: "k", permissions: ["events:write", "events:read"] },
        "permissions.1",
        /must be one of `schemas:read`, .*; received `events:read`/,
      ],
      [{ name: "k", permissions: ["schemas:read", "schemas:read"] }, "permissions.1", /schemas:read a second time/],
      [{ name: "k", permissions: [] }, "permissions", /at least one permission/],
      [{ name: "k", permissions: "events:write" }, "permissions", /array of permissions/],
      [{ name: "k", expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at", /in the future/],
      [{ name: "k", expires_at: "tomorrow" }, "expires_at", /ISO 8601 .*received "tomorrow"/],
      [{ name: "k", expires_at: "9999-12-31T23:59:59-23:59" }, "expires_at", /no later than 9999-12-31/],
      [{ name: "k", expires_at: 1893456000000 }, "expires_at", /ISO 8601/],
      [{ name: "" }, "name", /1 to 100 characters/],
      [{ name: "   " }, "name", /^must not be only spaces: say what the key is for$/],
      [{ name: "ops\nkey" }, "name", /^must not contain control characters \(such as a line break/],
      [{ name: 42 }, "name", /^must be a string of 1 to 100 characters; received a number$/],
      [{ name: null }, "name", /^must be a string of 1 to 100 characters; received null$/],
      [{ name: "ops\u2066key" }, "name", /bidirectional formatting characters; received U\+2066 at character 4$/],
      [{ name: "x".repeat(101) }, "name", /at most 100 characters; received 101/],
      [{}, "name", /is required/],
      [{ name: "k", scopes: ["events:write"] }, "scopes", /not a known field/],
    ];
    for (const [body, path, message] of cases) {
      const res = await api.raw.post("/v1/api_keys", body);
      expectStatus(res, 400, JSON.stringify(body));
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details, JSON.stringify(body)).toContainEqual({
        path,
        message: expect.stringMatching(message),
      });
    }
    const blank = await api.patch(`/v1/api_keys/${account.tokenId}`, { name: "\u00a0" });
    expectStatus(blank, 400);
    expect(blank.body.error.details).toEqual([
      { path: "name", message: "must not be only spaces: say what the key is for" },
    ]);
    const patched = await api.patch(`/v1/api_keys/${account.tokenId}`, { name: "x".repeat(101) });
    expectStatus(patched, 400);
    expect(patched.body.error.details).toEqual([
      { path: "name", message: "must be at most 100 characters; received 101" },
    ]);
    for (const expires_in of [-1, 86_401, "60"]) {
      const res = await api.raw.post(`/v1/api_keys/${account.tokenId}/roll`, { expires_in });
      expectStatus(res, 400, String(expires_in));
      expect(res.body.error.details[0].path).toBe("expires_in");
    }
    expect(await keysOf(account)).toEqual(before);
  });

  it("honours Idempotency-Key on revoke, whose answer holds no secret: replayed, and refused for another key", async () => {
    const account = await createAccount();
    const [first, second] = [await addKey(account), await addKey(account)];
    const revoke = (id: string) =>
      call("POST", `/v1/api_keys/${id}/revoke`, { token: account.token, headers: { "Idempotency-Key": "revoke-1" } });
    const done = await revoke(first.tokenId);
    expectStatus(done, 200);
    const again = await revoke(first.tokenId);
    expectStatus(again, 200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(done.body);
    const other = await revoke(second.tokenId);
    expectStatus(other, 409);
    expect(other.body.error.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(okBody(await client(account).get(`/v1/api_keys/${second.tokenId}`)).status).toBe("active");
  });

  it("honours Idempotency-Key on create and roll: the secret replayed to the same key only, stored sealed", async () => {
    const account = await createAccount();
    const other = await addKey(account); // full access too
    const keyed = (who: TestAccount, path: string, json: unknown, k: string) =>
      call("POST", path, { token: who.token, json, headers: { "Idempotency-Key": k } });
    const made = await keyed(account, "/v1/api_keys", { name: "ci" }, "create-1");
    expectStatus(made, 201);
    expect(made.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await keyed(account, "/v1/api_keys", { name: "ci" }, "create-1");
    expectStatus(again, 201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(made.body); // the secret included
    expect((await client({ ...account, token: made.body.secret }).get("/v1/schemas")).status).toBe(200);

    const before = await keysOf(account);
    for (const [who, body, message] of [
      [account, { name: "other" }, /^This Idempotency-Key was already used with a different request: another body, or/],
      [other, { name: "ci" }, /another API key or dashboard session\. Use a new key/],
    ] as const) {
      const refused = await keyed(who, "/v1/api_keys", body, "create-1");
      expectStatus(refused, 409);
      expect(refused.body.error).toMatchObject({
        code: "IDEMPOTENCY_KEY_REUSED",
        message: expect.stringMatching(message),
      });
      expect(JSON.stringify(refused.body)).not.toContain(made.body.secret);
    }
    expect(await keysOf(account)).toEqual(before);

    // A roll that ends the old key at once replays too, though the old key is no longer active.
    const rolled = await keyed(account, `/v1/api_keys/${made.body.id}/roll`, {}, "roll-1");
    expectStatus(rolled, 201);
    const rolledAgain = await keyed(account, `/v1/api_keys/${made.body.id}/roll`, {}, "roll-1");
    expectStatus(rolledAgain, 201);
    expect(rolledAgain.headers.get("Idempotent-Replayed")).toBe("true");
    expect(rolledAgain.body).toEqual(rolled.body);
    expect((await keysOf(account)).length).toBe(before.length + 1);

    // Neither store of the answers holds a secret readably: the key's object, D1's answers.
    for (const [k, secret] of [
      ["create-1", made.body.secret],
      ["roll-1", rolled.body.secret],
    ]) {
      for (const stored of await storedAnswers(env.DB, account.id, k)) {
        expect(stored).toMatch(/^sealed\.v1\.[A-Za-z0-9+/]+=*$/);
        expect(stored).not.toContain(secret.slice(4, 20));
      }
    }
  });

  it("creates a key once when the request dies after D1 made it, and gives the retry its secret", async () => {
    const account = await createAccount();
    const clock = useClock();
    const before = (await keysOf(account)).length;
    const create = () =>
      call("POST", "/v1/api_keys", {
        token: account.token,
        json: { name: "lost" },
        headers: { "Idempotency-Key": "c" },
      });
    await holderDied(account.id, "c");
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const first = await interceptD1Batch(/INSERT INTO api_tokens/, firstAnswerLost, create).finally(async () => {
      await holderRevived(account.id, "c");
      errors.mockRestore();
    });
    expectStatus(first, 500);
    clock.advance(31_000); // past the lock: the retry takes the key over and finds D1's answer
    const retry = await create();
    expectStatus(retry, 201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await keysOf(account)).length).toBe(before + 1);
    expect((await client({ ...account, token: retry.body.secret }).get("/v1/schemas")).status).toBe(200);
  });

  it("replays a roll that ended its key from D1's answer when the key's own record was lost", async () => {
    const account = await createAccount();
    const clock = useClock();
    const old = await addKey(account);
    const keys = (await keysOf(account)).length;
    const roll = () =>
      call("POST", `/v1/api_keys/${old.tokenId}/roll`, { token: account.token, headers: { "Idempotency-Key": "r" } });
    const first = await roll();
    expectStatus(first, 201);
    // As a Worker that died after D1 committed the roll: the key's object never got the answer.
    await inKeyStore(account.id, "r", (sql) =>
      sql.exec(
        `UPDATE idempotency_keys SET status = NULL, body = NULL, locked_until = ? WHERE key = ?`,
        clock.now() - 1,
        "r",
      ),
    );
    clock.advance(1000);
    const retry = await roll();
    expectStatus(retry, 201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    expect((await keysOf(account)).length).toBe(keys + 1);
  });

  it("answers 404 API_KEY_NOT_FOUND for another account's key, or no key, and changes nothing", async () => {
    const [mine, theirs] = [await createAccount(), await createAccount()];
    const api = client(mine);
    const before = await keysOf(theirs);
    for (const id of [theirs.tokenId, "01936f30-5a6b-7c8d-9e0f-1a2b3c4d5e6f", "not-a-key"]) {
      for (const res of [
        await api.get(`/v1/api_keys/${id}`),
        await api.patch(`/v1/api_keys/${id}`, { name: "mine now" }),
        await api.post(`/v1/api_keys/${id}/roll`, { expires_in: 60 }),
        await api.post(`/v1/api_keys/${id}/revoke`),
      ]) {
        expectStatus(res, 404, id);
        expect(res.body.error).toMatchObject({
          code: "API_KEY_NOT_FOUND",
          message: `No API key with id '${id}' exists in this account.`,
        });
      }
    }
    expect(await keysOf(theirs)).toEqual(before);
    expect(okBody(await api.get("/v1/api_keys")).data.map((k) => k.id)).toEqual([mine.tokenId]);
    expect((await client(theirs).get("/v1/schemas")).status).toBe(200);
  });

  it("holds at most 100 keys not revoked per account, expired ones included: 409 API_KEY_LIMIT_REACHED", async () => {
    const account = await createAccount();
    // 98 more keys, one of them expired: with the account's own, 99 not revoked, 98 active.
    const statements = Array.from({ length: 98 }, (_, i) =>
      env.DB.prepare(
        `INSERT INTO api_tokens (id, account_id, token_hash, prefix, name, created_at, expires_at) VALUES (?, ?, ?, 'cct_x', 'k', 0, ?)`,
      ).bind(crypto.randomUUID(), account.id, `hash-${account.id}-${i}`, i === 0 ? 1 : null),
    );
    await env.DB.batch(statements);
    const api = client(account);
    const hundredth = await api.post("/v1/api_keys", { name: "the 100th" });
    expectStatus(hundredth, 201);
    const full = await api.post("/v1/api_keys", { name: "one too many" });
    expectStatus(full, 409);
    expect(full.body.error).toMatchObject({ code: "API_KEY_LIMIT_REACHED", type: "invalid_request_error" });
    expect(full.body.error.message).toContain("expired keys count until revoked");
    // A roll would add a key while the old one still counts: refused, whatever the overlap.
    for (const expires_in of [0, 60]) {
      const rolled = await api.post(`/v1/api_keys/${account.tokenId}/roll`, { expires_in });
      expectStatus(rolled, 409);
      expect(rolled.body.error).toMatchObject({ code: "API_KEY_LIMIT_REACHED" });
    }
    expect(okBody(await api.get(`/v1/api_keys/${account.tokenId}`))).toMatchObject({
      expires_at: null, // the rolls changed nothing
      replaced_by: null,
    });
    // Revoking the expired key makes room: a roll is made, and then the old key, now expired, counts.
    const [expired] = okBody(await api.get("/v1/api_keys?status=expired")).data;
    expectStatus(await api.post(`/v1/api_keys/${expired.id}/revoke`), 200);
    const rolled = await api.post(`/v1/api_keys/${account.tokenId}/roll`, { expires_in: 0 });
    expectStatus(rolled, 201);
    const next = client({ ...account, token: rolled.body.secret, tokenId: rolled.body.id });
    expectStatus(await next.post("/v1/api_keys", { name: "still too many" }), 409);
    expectStatus(await next.post(`/v1/api_keys/${account.tokenId}/revoke`), 200);
    expectStatus(await next.post("/v1/api_keys", { name: "room again" }), 201);
  });
});
