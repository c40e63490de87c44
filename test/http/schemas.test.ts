import { describe, expect, it, vi } from "vitest";
import { env, SELF } from "cloudflare:test";
import { uuidv7 } from "uuidv7";
import { call, client, contract, createAccount } from "../support/api";
import { iso, useClock } from "../support/clock";

describe("POST /v1/schemas", () => {
  it("creates a schema owned by the account, 201", async () => {
    const account = await createAccount();
    const clock = useClock();
    const c = contract({ fulfillment_condition: { all: [{ event: "a", field: "x.y", match: { k: [1, { z: null }] } }, { any: [{ event: "b", lt: 3 }] }] } });
    const res = await client(account).post("/v1/schemas", { contract: c });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: account.id,
      contract: c,
      created_at: iso(clock.now()),
      updated_at: iso(clock.now()),
    });
  });

  it("keeps price exactly as given, within 10^12 and 15 significant digits", async () => {
    const account = await createAccount();
    const api = client(account);
    for (const price of [0, 0.1, 1e-7, 12345678.9, 123456789012.345, 0.000123456789012345, 1e12]) {
      const res = await api.post("/v1/schemas", { contract: contract({ price }) });
      expect(res.status, String(price)).toBe(201);
      expect(res.body.contract.price).toBe(price);
    }
    const refused: [string, RegExp][] = [
      ["0.30000000000000004", /15 significant digits/],
      ["1234567890123.45", /at most 10\^12/],
      ["1000000000001", /at most 10\^12/],
      ["1234567890.1234567", /15 significant digits/],
      ["-1", /^must be at least 0; received -1$/],
    ];
    for (const [price, message] of refused) {
      const raw = JSON.stringify({ contract: contract({ price: 0 }) }).replace('"price":0', `"price":${price}`);
      const answer = await call("POST", "/v1/schemas", { token: account.token, raw, headers: { "Content-Type": "application/json" } });
      expect(answer.status, price).toBe(400);
      expect(answer.body.error.details).toContainEqual({ path: "contract.price", message: expect.stringMatching(message) });
    }
  });

  it.each([
    [{}, "contract"],
    [{ contract: null }, "contract"],
    [{ contract: contract({ price: undefined }) }, "contract.price"],
    [{ contract: contract({ activity_window: 31_536_001 }) }, "contract.activity_window"],
    [{ contract: contract({ activity_window: 0 }) }, "contract.activity_window"],
    [{ contract: contract({ review_window: -1 }) }, "contract.review_window"],
    [{ contract: contract({ timeout_outcome: "confirmed" }) }, "contract.timeout_outcome"],
    [{ contract: contract({ fulfillment_condition: {} }) }, "contract.fulfillment_condition.event"],
    [{ contract: contract({ fulfillment_condition: { event: "a", match: {} } }) }, "contract.fulfillment_condition.match"],
    [{ contract: contract({ fulfillment_condition: { event: "a", field: "a..b" } }) }, "contract.fulfillment_condition.field"],
    [{ contract: contract({ fulfillment_condition: { all: [] } }) }, "contract.fulfillment_condition.all"],
    [{ contract: contract({ fulfillment_condition: { all: [{ event: "a" }], event: "a" } }) }, "contract.fulfillment_condition.event"],
    [{ contract: contract({ fulfillment_condition: { all: [{ event: "a" }], any: [{ event: "b" }] } }) }, "contract.fulfillment_condition.any"],
    [{ contract: contract({ fulfillment_condition: { any: [{ event: "a", gte: 1, typo: 1 }] } }) }, "contract.fulfillment_condition.any.0.typo"],
    [{ contract: contract({ fulfillment_condition: { all: Array.from({ length: 33 }, () => ({ event: "a" })) } }) }, "contract.fulfillment_condition.all"],
    [{ contract: contract({ fulfillment_condition: { all: [{ all: [{ all: [{ all: [{ all: [{ event: "a" }] }] }] }] }] } }) }, "contract.fulfillment_condition"],
    [{ contract: contract({ fulfillment_condition: { any: Array.from({ length: 3 }, () => ({ all: Array.from({ length: 11 }, () => ({ event: "a" })) })) } }) }, "contract.fulfillment_condition"],
    [{ contract: contract({ fulfillment_condition: { event: "a", match: { plan: "pro" }, gte: 1 } }) }, "contract.fulfillment_condition"],
    [{ contract: contract({ fulfillment_condition: { any: [{ event: "a" }, { event: "b", gt: 5, lt: 3 }] } }) }, "contract.fulfillment_condition.any.1"],
    [{ contract: contract({ fulfillment_condition: { event: "a", eq: 7, lte: 6 } }) }, "contract.fulfillment_condition"],
  ])("rejects an invalid contract %# at %s", async (body, path) => {
    const api = client(await createAccount());
    const res = await api.post("/v1/schemas", body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    expect((await api.get("/v1/schemas")).body.data).toEqual([]);
  });

  it("words each refusal for a newcomer: the unit of a window, a missing field, a bad limit", async () => {
    const api = client(await createAccount());
    const refused = async (body: unknown) => (await api.post("/v1/schemas", body)).body.error.details;
    expect(await refused({ contract: contract({ activity_window: 604_800_000 }) })).toEqual([
      { path: "contract.activity_window", message: "is in seconds: at most 365 days (31,536,000)" },
    ]);
    expect(await refused({ contract: contract({ review_window: -1 }) })).toEqual([{ path: "contract.review_window", message: "is in seconds: at least 0" }]);
    expect(await refused({ contract: contract({ timeout_outcome: undefined }) })).toEqual([{ path: "contract.timeout_outcome", message: "is required" }]);
    expect(await refused({ contract: contract({ price: undefined }) })).toEqual([{ path: "contract.price", message: "is required" }]);
    for (const path of ["/v1/candidates", "/v1/notifications", "/v1/webhook_endpoints/0190e6a4-0000-7000-8000-000000000000/deliveries", "/v1/summary?group_by=customer_uuid&"]) {
      for (const limit of ["abc", "0", "101", "2.5", "", "1e2", "0x10", " 5", "99999999999999999999", "-1"]) {
        const res = await api.get(`${path}${path.includes("?") ? "" : "?"}limit=${limit}`);
        expect(res.status, `${path} limit=${limit}`).toBe(400);
        expect(res.body.error.details, `${path} limit=${limit}`).toEqual([{ path: "limit", message: expect.stringMatching(/^must be a whole number from 1 to 100; received /) }]);
      }
    }
  });

  it("says why a leaf can never hold, and refuses it in an inline candidate contract too", async () => {
    const api = client(await createAccount());
    const leaf = { event: "a", gt: 5, lt: 3 };
    const schema = await api.post("/v1/schemas", { contract: contract({ fulfillment_condition: leaf }) });
    expect(schema.body.error.details).toEqual([{ path: "contract.fulfillment_condition", message: "can never hold: no number is > 5 and < 3" }]);
    const candidate = await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: "never-holds-1", contract: contract({ fulfillment_condition: leaf }) });
    expect(candidate.status).toBe(400);
    expect(candidate.body.error.details[0].path).toBe("contract.fulfillment_condition");
    expect((await api.get("/v1/candidates/never-holds-1")).status).toBe(404);
  });

  it("accepts the limits themselves: 32 leaves, 4 levels, windows of 365 days", async () => {
    const api = client(await createAccount());
    const deep = { all: [{ any: [{ all: [{ any: [{ event: "a" }] }] }] }] };
    const wide = { any: Array.from({ length: 32 }, (_, i) => ({ event: `e${i}` })) };
    for (const fulfillment_condition of [deep, wide]) {
      const res = await api.post("/v1/schemas", {
        contract: contract({ fulfillment_condition, activity_window: 31_536_000, review_window: 31_536_000 }),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });

  it("refuses the 1,001st schema of an account with 409 SCHEMA_LIMIT_REACHED", async () => {
    const account = await createAccount();
    const stmt = env.DB.prepare(`INSERT INTO schemas (id, account_id, contract, created_at, updated_at) VALUES (?, ?, ?, 0, 0)`);
    const rows = Array.from({ length: 1000 }, () => stmt.bind(uuidv7(), account.id, JSON.stringify(contract())));
    await env.DB.batch(rows);
    const res = await client(account).post("/v1/schemas", { contract: contract() });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("SCHEMA_LIMIT_REACHED");
    const { n } = (await env.DB.prepare(`SELECT COUNT(*) AS n FROM schemas WHERE account_id = ?`).bind(account.id).first<{ n: number }>())!;
    expect(n).toBe(1000);
  });
});

describe("GET /v1/schemas", () => {
  it("lists the account's schemas only, newest first, ties broken by id", async () => {
    const a = client(await createAccount());
    const b = client(await createAccount());
    const clock = useClock();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await a.post("/v1/schemas", { contract: contract({ price: i }) })).body.id);
      if (i === 0) clock.advance(1000); // the last two share a created_at
    }
    await b.post("/v1/schemas", { contract: contract() });
    const res = await a.get("/v1/schemas");
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: any) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(res.body.data.map((s: any) => s.contract.price)).toEqual([2, 1, 0]);
  });
});

describe("GET /v1/schemas at its limit", () => {
  it("answers all 1,000 schemas of up to 64 KiB each, newest first, streamed page by page", async () => {
    const account = await createAccount();
    // One in ten contracts near the body limit: a body of about 6 MB.
    const big = JSON.stringify(contract({ fulfillment_condition: { event: "e", match: { pad: "p".repeat(60_000) } } }));
    const stmt = env.DB.prepare(`INSERT INTO schemas (id, account_id, contract, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`);
    const ids = Array.from({ length: 1000 }, () => uuidv7());
    // Created in ten batches; every page boundary falls among equal created_at values (ties by id).
    for (let b = 0; b < 10; b++) {
      await env.DB.batch(ids.slice(b * 100, b * 100 + 100).map((id, i) => stmt.bind(id, account.id, i % 10 ? JSON.stringify(contract({ price: i })) : big, Math.floor(b / 2), 0)));
    }
    const res = await call("GET", "/v1/schemas", { token: account.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1000);
    const expected = ids.map((id, n) => ({ id, createdAt: Math.floor(n / 200) }))
      .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1))
      .map((x) => x.id);
    expect(res.body.data.map((s: any) => s.id)).toEqual(expected);
    expect(res.body.data.filter((s: any) => s.contract.fulfillment_condition.match?.pad?.length === 60_000)).toHaveLength(100);

    // Page by page: once the first bytes are out, later pages are still to be read from D1.
    const streamed = await SELF.fetch("https://api.test/v1/schemas", { headers: { Authorization: `Bearer ${account.token}` } });
    const reader = streamed.body!.getReader();
    await reader.read();
    await env.DB.exec(`ALTER TABLE schemas RENAME TO schemas_offline`);
    try {
      const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
      let failed = false;
      try {
        for (;;) if ((await reader.read()).done) break;
      } catch {
        failed = true;
      }
      quiet.mockRestore();
      expect(failed).toBe(true);
    } finally {
      await env.DB.exec(`ALTER TABLE schemas_offline RENAME TO schemas`);
    }
  }, 60_000);
});

describe("GET, PATCH, DELETE /v1/schemas/{id}", () => {
  it("reads, replaces and deletes a schema", async () => {
    const api = client(await createAccount());
    const clock = useClock();
    const created = (await api.post("/v1/schemas", { contract: contract() })).body;
    expect((await api.get(`/v1/schemas/${created.id}`)).body).toEqual(created);
    expect((await api.get(`/v1/schemas/${created.id.toUpperCase()}`)).body).toEqual(created);

    clock.advance(5000);
    const patched = await api.patch(`/v1/schemas/${created.id}`, { contract: contract({ price: 99 }) });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ ...created, contract: contract({ price: 99 }), updated_at: iso(clock.now()) });
    expect((await api.get(`/v1/schemas/${created.id}`)).body).toEqual(patched.body);

    const deleted = await api.delete(`/v1/schemas/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    const gone = await api.get(`/v1/schemas/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe("SCHEMA_NOT_FOUND");
    expect((await api.delete(`/v1/schemas/${created.id}`)).status).toBe(404);
    expect((await api.patch(`/v1/schemas/${created.id}`, { contract: contract() })).status).toBe(404);
  });

  it("answers 404 SCHEMA_NOT_FOUND naming the id for unknown and malformed ids", async () => {
    const api = client(await createAccount());
    for (const id of [uuidv7(), "not-a-uuid", "1", "%F0%9F%92%A9", "x".repeat(300)]) {
      const res = await api.get(`/v1/schemas/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe("SCHEMA_NOT_FOUND");
      expect(res.body.error.message).toContain(decodeURIComponent(id));
    }
  });

  it("validates a PATCH body like a create", async () => {
    const api = client(await createAccount());
    const { id } = (await api.post("/v1/schemas", { contract: contract() })).body;
    const res = await api.patch(`/v1/schemas/${id}`, { contract: contract({ price: "free" }) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ path: "contract.price", message: expect.any(String) }]);
    expect((await api.get(`/v1/schemas/${id}`)).body.contract.price).toBe(10);
  });

  it("hides another account's schema: 404 on read, update and delete, and it stays unchanged", async () => {
    const owner = client(await createAccount());
    const other = client(await createAccount());
    const created = (await owner.post("/v1/schemas", { contract: contract() })).body;
    const unknown = uuidv7();
    for (const [res, id] of [
      [await other.get(`/v1/schemas/${created.id}`), created.id],
      [await other.patch(`/v1/schemas/${created.id}`, { contract: contract({ price: 1 }) }), created.id],
      [await other.delete(`/v1/schemas/${created.id}`), created.id],
      [await other.get(`/v1/schemas/${unknown}`), unknown],
    ] as const) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: "SCHEMA_NOT_FOUND", message: `No schema with id '${id}' exists in this account.` });
    }
    expect((await other.get(`/v1/schemas`)).body.data).toEqual([]);
    expect((await owner.get(`/v1/schemas/${created.id}`)).body).toEqual(created);
  });
});
