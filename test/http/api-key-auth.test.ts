/** What a key may do over time: expiry at the instant, rolling, no escalation, last use. */
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:test";
import { addKey, client, createAccount, expectStatus, okBody, type Schemas } from "../support/api";
import { iso, useClock } from "../support/clock";

const lastUsed = async (id: string) =>
  (await env.DB.prepare(`SELECT last_used_at FROM api_tokens WHERE id = ?`)
    .bind(id)
    .first<{ last_used_at: number | null }>())!.last_used_at;
/** Long enough for a write queued after a response to have landed. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
// The faked clock still moves on in real time between the steps of a test: each step before an
// instant keeps a margin of MARGIN ms; the step at the instant sets the clock to it exactly.
const MARGIN = 200;

describe("expiry", () => {
  it("ends a key exactly at its expires_at, even while the cache holds it", async () => {
    const account = await createAccount();
    const clock = useClock();
    const created = await client(account).post("/v1/api_keys", { name: "short", expires_at: iso(clock.now() + 5_000) });
    expectStatus(created, 201);
    const key = { ...account, token: created.body.secret };
    expect((await client(key).get("/v1/schemas")).status).toBe(200); // now cached
    const expiresAt = Date.parse(created.body.expires_at!);
    clock.set(expiresAt - MARGIN);
    expect((await client(key).get("/v1/schemas")).status).toBe(200);
    clock.set(expiresAt);
    const res = await client(key).get("/v1/schemas");
    expectStatus(res, 401);
    expect(res.body.error).toMatchObject({
      type: "authentication_error",
      code: "EXPIRED_API_TOKEN",
      message: `The API key expired at ${created.body.expires_at}.`,
    });
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    expect(okBody(await client(account).get(`/v1/api_keys/${created.body.id}`)).status).toBe("expired");
  });
});

describe("rolling", () => {
  it("answers a new key with the same name, permissions and expiry; the old one ends expires_in later", async () => {
    const account = await createAccount();
    const clock = useClock();
    const start = clock.now();
    const old = await addKey(account, { name: "CI", permissions: ["schemas:write"], expiresAt: start + 3_600_000 });
    expect((await client(old).get("/v1/schemas")).status).toBe(200);
    const rolled = await client(account).post(`/v1/api_keys/${old.tokenId}/roll`, { expires_in: 60 });
    expectStatus(rolled, 201);
    expect(rolled.body).toMatchObject({
      name: "CI",
      permissions: ["schemas:write"],
      expires_at: iso(start + 3_600_000),
      status: "active",
      secret: expect.stringMatching(/^cct_/),
    });
    expect(rolled.body.id).not.toBe(old.tokenId);
    const fresh = { ...account, token: rolled.body.secret };
    const { expires_at } = okBody(await client(account).get(`/v1/api_keys/${old.tokenId}`));
    expect(Date.parse(expires_at!) - Date.parse(rolled.body.created_at)).toBe(60_000);
    const oldExpiry = Date.parse(okBody(await client(account).get(`/v1/api_keys/${old.tokenId}`)).expires_at!);
    clock.set(oldExpiry - MARGIN);
    expect((await client(old).get("/v1/schemas")).status).toBe(200);
    clock.set(oldExpiry);
    const ended = await client(old).get("/v1/schemas");
    expectStatus(ended, 401);
    expect(ended.body.error.code).toBe("EXPIRED_API_TOKEN");
    expect((await client(fresh).get("/v1/schemas")).status).toBe(200);
    expect((await client(fresh).get("/v1/summary")).status).toBe(403);
  });

  it("ends the old key now by default, never later than it would have, and refuses to roll a revoked or expired key", async () => {
    const account = await createAccount();
    const api = client(account);
    const soon = await addKey(account, { expiresAt: Date.now() + 30_000 });
    const rolled = await api.post(`/v1/api_keys/${soon.tokenId}/roll`, { expires_in: 86_400 });
    expectStatus(rolled, 201);
    expect(okBody(await api.get(`/v1/api_keys/${soon.tokenId}`)).expires_at).toBe(rolled.body.expires_at); // unchanged

    const now = await addKey(account);
    expect((await client(now).get("/v1/schemas")).status).toBe(200);
    expect((await api.post(`/v1/api_keys/${now.tokenId}/roll`)).status).toBe(201);
    const ended = await client(now).get("/v1/schemas");
    expectStatus(ended, 401);
    expect(ended.body.error.code).toBe("EXPIRED_API_TOKEN");
    const again = await api.post(`/v1/api_keys/${now.tokenId}/roll`);
    expectStatus(again, 409);
    expect(again.body.error).toMatchObject({
      code: "INVALID_STATE",
      message: expect.stringMatching(/was rolled already: the key '.*' replaced it, and it expired at /),
    });
    const expired = await addKey(account, { expiresAt: Date.now() - 1000 });
    const lapsed = await api.post(`/v1/api_keys/${expired.tokenId}/roll`);
    expectStatus(lapsed, 409);
    expect(lapsed.body.error).toMatchObject({
      code: "INVALID_STATE",
      message: expect.stringMatching(/expired at .*only an active key can be rolled/),
    });

    const revoked = await addKey(account);
    await api.post(`/v1/api_keys/${revoked.tokenId}/revoke`);
    const before = okBody(await api.get("/v1/api_keys")).data.length;
    const refused = await api.post(`/v1/api_keys/${revoked.tokenId}/roll`, { expires_in: 10 });
    expectStatus(refused, 409);
    expect(refused.body.error.message).toMatch(/was revoked at .*only an active key can be rolled/);
    expect(okBody(await api.get("/v1/api_keys")).data.length).toBe(before);
  });
});

describe("rolling once", () => {
  it("refuses a second roll of a key, in turn or at once, naming the key that replaced it", async () => {
    const account = await createAccount();
    const api = client(account);
    const old = await addKey(account, { name: "deploy" });
    const rolled = await api.post(`/v1/api_keys/${old.tokenId}/roll`, { expires_in: 3600 });
    expectStatus(rolled, 201);
    const keys = okBody(await api.get("/v1/api_keys")).data.length;
    // Still active for its hour, but replaced: rolling it again would leave two successors.
    const again = await api.post(`/v1/api_keys/${old.tokenId}/roll`, { expires_in: 60 });
    expectStatus(again, 409);
    expect(again.body.error).toMatchObject({
      code: "INVALID_STATE",
      message: expect.stringMatching(
        new RegExp(
          `was rolled already: the key '${rolled.body.id}' replaced it, and it stops working at .*roll '${rolled.body.id}' instead`,
        ),
      ),
    });
    expect(okBody(await api.get(`/v1/api_keys/${old.tokenId}`))).toMatchObject({
      status: "active",
      replaced_by: rolled.body.id,
    });
    expect(rolled.body.replaced_by).toBeNull();
    expect(okBody(await api.get("/v1/api_keys")).data.length).toBe(keys);

    // Two rolls of one key at once: one is made, the other refused the same way.
    const once = await addKey(account, { name: "racing" });
    const results = await Promise.all(
      [60, 120].map((expires_in) => api.post(`/v1/api_keys/${once.tokenId}/roll`, { expires_in })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const made = results.find((r) => r.status === 201)!.body as { id: string };
    const refused = results.find((r) => r.status === 409)!.body as { error: { message: string } };
    expect(refused.error.message).toContain(`the key '${made.id}' replaced it`);
    const named = okBody(await api.get("/v1/api_keys")).data.filter((k: { name: string }) => k.name === "racing");
    expect(named.map((k: { id: string }) => k.id).sort()).toEqual([made.id, once.tokenId].sort());
    // The key that replaced it rolls as any key does.
    expectStatus(await api.post(`/v1/api_keys/${made.id}/roll`), 201);
  });
});

describe("no escalation", () => {
  it("lets a key give only permissions it holds itself, naming the first it lacks", async () => {
    const account = await createAccount();
    const manager = await addKey(account, { permissions: ["api_keys:write", "schemas:write", "events:write"] });
    const api = client(manager);
    const cases: [Schemas["CreateApiKeyBody"], string][] = [
      [
        { name: "more", permissions: ["events:write", "billing:read", "webhooks:read"] },
        "This API key lacks `webhooks:read`, so it cannot give it to a key.",
      ],
      [
        { name: "all" },
        "Only a full-access key can make a full-access key (one without `permissions`), and this API key lacks `candidates:read`; list the permissions the key needs.",
      ],
    ];
    for (const [body, message] of cases) {
      const res = await api.post("/v1/api_keys", body);
      expectStatus(res, 403);
      expect(res.body.error).toEqual(
        expect.objectContaining({ code: "PERMISSION_DENIED", type: "permission_error", message }),
      );
    }
    const full = await addKey(account);
    const refused = await api.post(`/v1/api_keys/${full.tokenId}/roll`);
    expectStatus(refused, 403);
    expect(refused.body.error.message).toBe(
      "Only a full-access key can roll a full-access key, and this API key lacks `candidates:read`.",
    );
    const listedKey = await addKey(account, { permissions: ["schemas:read", "billing:read"] });
    const notHeld = await api.post(`/v1/api_keys/${listedKey.tokenId}/roll`);
    expectStatus(notHeld, 403);
    expect(notHeld.body.error.message).toBe(
      "Only a key holding every permission of a key can roll it, and this API key lacks `billing:read`.",
    );
    expect((await client(full).get("/v1/schemas")).status).toBe(200); // the refused roll changed nothing
    // What it holds it may give, `write` including `read`.
    const given = await api.post("/v1/api_keys", { name: "reader", permissions: ["schemas:read", "events:write"] });
    expectStatus(given, 201);
    expect(okBody(await client(account).get("/v1/api_keys")).data.length).toBe(5);
  });

  it("keeps full access to full-access keys, even from a key that lists every permission", async () => {
    const account = await createAccount();
    const { PERMISSIONS } = await import("../../src/domain/permissions");
    const listed = await addKey(account, { permissions: [...PERMISSIONS] });
    // Every permission by name, yet not a full-access key: it says so.
    expect(okBody(await client(account).get(`/v1/api_keys/${listed.tokenId}`)).full_access).toBe(false);
    const res = await client(listed).post("/v1/api_keys", { name: "all" });
    expectStatus(res, 403);
    expect(res.body.error.message).toMatch(/Only a full-access key can make a full-access key/);
    expect(
      (await client(listed).post("/v1/api_keys", { name: "all, listed", permissions: [...PERMISSIONS] })).status,
    ).toBe(201);
  });
});

describe("keys managing keys", () => {
  it("lets a restricted key rename and revoke only keys that can do no more than it, itself included", async () => {
    const account = await createAccount(); // its first key has full access
    const limited = await addKey(account, { permissions: ["api_keys:write", "schemas:read"] });
    const wider = await addKey(account, { permissions: ["api_keys:read", "billing:read"] });
    const narrower = await addKey(account, { permissions: ["schemas:read"] });
    for (const target of [account.tokenId, wider.tokenId]) {
      for (const [path, body] of [
        [`/v1/api_keys/${target}`, { name: "pwned" }],
        [`/v1/api_keys/${target}/revoke`, undefined],
      ] as const) {
        const res = body ? await client(limited).patch(path, body) : await client(limited).post(path);
        expectStatus(res, 403, path);
        expect(res.body.error.code).toBe("PERMISSION_DENIED");
      }
    }
    const keys = okBody(await client(account).get("/v1/api_keys?limit=100")).data;
    expect(keys.filter((k) => k.status === "revoked")).toEqual([]);
    expect(keys.map((k) => k.name)).not.toContain("pwned");
    expect((await client(limited).patch(`/v1/api_keys/${narrower.tokenId}`, { name: "ok" })).status).toBe(200);
    expect((await client(limited).post(`/v1/api_keys/${narrower.tokenId}/revoke`)).status).toBe(200);
    expect((await client(limited).post(`/v1/api_keys/${limited.tokenId}/revoke`)).status).toBe(200);
  });

  it("never lets a key that expires make, or roll, a key that outlives it", async () => {
    const account = await createAccount();
    const expiresAt = Date.now() + 3_600_000;
    const short = await addKey(account, { permissions: ["api_keys:write", "schemas:read"], expiresAt });
    const forever = await client(short).post("/v1/api_keys", { name: "forever", permissions: ["schemas:read"] });
    expectStatus(forever, 403);
    expect(forever.body.error.message).toContain(new Date(expiresAt).toISOString());
    expect(forever.body.error.message).toContain("Set `expires_at` no later than that.");
    expect(
      (
        await client(short).post("/v1/api_keys", {
          name: "later",
          permissions: ["schemas:read"],
          expires_at: iso(expiresAt + 1),
        })
      ).status,
    ).toBe(403);
    const sooner = await client(short).post("/v1/api_keys", {
      name: "sooner",
      permissions: ["schemas:read"],
      expires_at: iso(expiresAt - 1000),
    });
    expectStatus(sooner, 201);
    // Rolling a key that never expires would make another that never expires.
    const permanent = await addKey(account, { permissions: ["schemas:read"] });
    const refusedRoll = await client(short).post(`/v1/api_keys/${permanent.tokenId}/roll`);
    expectStatus(refusedRoll, 403);
    // In the roll's own terms: it has no `expires_at` to set.
    expect(refusedRoll.body.error.message).toContain("A rolled key keeps the old key's expiry (it never expires)");
    expect(refusedRoll.body.error.message).not.toContain("expires_at");
    expect((await client(short).post(`/v1/api_keys/${sooner.body.id}/roll`)).status).toBe(201);
    expect(
      okBody(await client(account).get("/v1/api_keys?limit=100")).data.filter((k) => k.expires_at === null),
    ).toHaveLength(2);
  });

  it("rolls one key again and again: the keys it replaced count until revoked, then make room", async () => {
    const account = await createAccount();
    const replaced: string[] = [];
    let id = account.tokenId;
    for (let i = 0; i < 99; i++) {
      const rolled = await client(account).post(`/v1/api_keys/${id}/roll`);
      expectStatus(rolled, 201, `roll ${i + 1}`);
      replaced.push(id);
      id = rolled.body.id;
      account.token = rolled.body.secret;
    }
    // 99 replaced (expired) and 1 active: 100 not revoked, so a 100th roll is refused.
    const full = await client(account).post(`/v1/api_keys/${id}/roll`);
    expectStatus(full, 409);
    expect(full.body.error.code).toBe("API_KEY_LIMIT_REACHED");
    expect(okBody(await client(account).get("/v1/api_keys?status=active")).data).toHaveLength(1);
    expectStatus(await client(account).post(`/v1/api_keys/${replaced[0]}/revoke`), 200);
    expectStatus(await client(account).post(`/v1/api_keys/${id}/roll`), 201);
  });
});

describe("last_used_at", () => {
  it("is set at first use, then written at most once a minute per key, after the response", async () => {
    const account = await createAccount();
    const key = await addKey(account, { permissions: ["schemas:read"] });
    expect(await lastUsed(key.tokenId)).toBeNull();
    const clock = useClock();
    const start = clock.now();
    expect((await client(key).get("/v1/schemas")).status).toBe(200);
    await vi.waitFor(async () => expect(await lastUsed(key.tokenId)).not.toBeNull());
    const first = (await lastUsed(key.tokenId))!;
    expect(first - start).toBeLessThan(MARGIN);
    // Within the minute no write is even tried: cleared by hand, it stays cleared.
    await env.DB.prepare(`UPDATE api_tokens SET last_used_at = NULL WHERE id = ?`).bind(key.tokenId).run();
    clock.set(first + 60_000 - MARGIN);
    for (let i = 0; i < 5; i++) expect((await client(key).get("/v1/schemas")).status).toBe(200);
    await settle();
    expect(await lastUsed(key.tokenId)).toBeNull();
    clock.set(first + 60_000);
    expect((await client(key).get("/v1/schemas")).status).toBe(200);
    await vi.waitFor(async () => expect(await lastUsed(key.tokenId)).not.toBeNull());
    const second = (await lastUsed(key.tokenId))!;
    expect(second - (first + 60_000)).toBeLessThan(MARGIN);
    const shown = okBody(await client(account).get(`/v1/api_keys/${key.tokenId}`));
    expect(shown.last_used_at).toBe(iso(second));
  });

  it("never writes a minute twice, whatever each isolate remembers", async () => {
    const account = await createAccount();
    const key = await addKey(account);
    const { touchLastUsed } = await import("../../src/db/tokens");
    const t = Date.now();
    await touchLastUsed(env.DB, key.tokenId, t);
    await touchLastUsed(env.DB, key.tokenId, t + 59_999); // another isolate, within the minute
    expect(await lastUsed(key.tokenId)).toBe(t);
    await touchLastUsed(env.DB, key.tokenId, t + 60_000);
    expect(await lastUsed(key.tokenId)).toBe(t + 60_000);
  });
});
