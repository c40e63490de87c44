import { describe, expect, it, vi } from "vitest";
import { SELF } from "cloudflare:test";
import { uuidv7 } from "uuidv7";
import { call, client, contract, createAccount, dbOf, expectStatus, okBody, type ApiResponse } from "../support/api";
import { iso, useClock } from "../support/clock";
import { observeD1 } from "../support/d1-observer";

describe("POST /v1/schemas", () => {
  it("creates a schema owned by the account, 201", async () => {
    const account = await createAccount();
    const clock = useClock();
    const c = contract({
      fulfillment_condition: {
        all: [{ event: "a", field: "x.y", match: { k: [1, { z: null }] } }, { any: [{ event: "b", lt: 3 }] }],
      },
    });
    const res = await client(account).post("/v1/schemas", { contract: c });
    expectStatus(res, 201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user_id: account.id,
      name: null,
      contract: c,
      created_at: iso(clock.now()),
      updated_at: iso(clock.now()),
    });
  });

  it("takes an optional name of 1 to 100 characters, returned on every view", async () => {
    const api = client(await createAccount());
    const emoji = "\u{1F9FE}".repeat(100); // 100 characters, 200 UTF-16 code units
    for (const name of ["Purchase of 100 or more", "x", "n".repeat(100), emoji, null]) {
      const created = await api.post("/v1/schemas", { contract: contract(), name });
      expectStatus(created, 201, String(name));
      expect(created.body.name).toBe(name);
      expect((await api.get(`/v1/schemas/${created.body.id}`)).body).toEqual(created.body);
      expect(okBody(await api.get("/v1/schemas?limit=1")).data).toEqual([created.body]);
    }
  });

  it.each([
    ["", "must not be empty: send null for no name"],
    [" \t\u3000", "must not be only spaces: send null for no name"],
    [
      "Purchase\u2028100",
      "must not contain control characters (such as a line break or a tab) or bidirectional formatting characters; received U+2028 at character 9",
    ],
    [
      "Purchase\r\n100",
      "must not contain control characters (such as a line break or a tab) or bidirectional formatting characters; received U+000D at character 9",
    ],
    ["n".repeat(101), "must be at most 100 characters; received 101"],
    ["\u{1F9FE}".repeat(101), "must be at most 100 characters; received 101"],
    [42, "must be a string of 1 to 100 characters, or null; received a number"],
    [true, "must be a string of 1 to 100 characters, or null; received a boolean"],
    [["a"], "must be a string of 1 to 100 characters, or null; received an array"],
    [{ text: "a" }, "must be a string of 1 to 100 characters, or null; received an object"],
  ])("refuses the name %j at path name, creating nothing", async (name, message) => {
    const api = client(await createAccount());
    const res = await api.raw.post("/v1/schemas", { contract: contract(), name });
    expectStatus(res, 400);
    expect(res.body.error).toMatchObject({ code: "VALIDATION_ERROR", details: [{ path: "name", message }] });
    expect((await api.get("/v1/schemas")).body).toEqual({ data: [], next_cursor: null });
  });

  it("keeps price exactly as given, within 10^12 and 15 significant digits", async () => {
    const account = await createAccount();
    const api = client(account);
    for (const price of [0, 0.1, 1e-7, 12345678.9, 123456789012.345, 0.000123456789012345, 1e12]) {
      const res = await api.post("/v1/schemas", { contract: contract({ price }) });
      expectStatus(res, 201, String(price));
      expect(res.body.contract.price).toBe(price);
    }
    const refused: [string, RegExp][] = [
      ["0.30000000000000004", /15 significant digits, .*; received 0.30000000000000004, 17 digits$/],
      ["1234567890123.45", /at most 10\^12 .*; received 1234567890123.45$/],
      ["1000000000001", /at most 10\^12 .*; received 1000000000001$/],
      ["1234567890.1234567", /15 significant digits, .*; received 1234567890.1234567, 17 digits$/],
      ["-1", /^must be at least 0; received -1$/],
    ];
    for (const [price, message] of refused) {
      const raw = JSON.stringify({ contract: contract({ price: 0 }) }).replace('"price":0', `"price":${price}`);
      const answer = await call("POST", "/v1/schemas", {
        token: account.token,
        raw,
        headers: { "Content-Type": "application/json" },
      });
      expectStatus(answer, 400, price);
      expect(answer.body.error.details).toContainEqual({
        path: "contract.price",
        message: expect.stringMatching(message),
      });
    }
  });

  it.each([
    [{}, "contract"],
    [{ contract: null }, "contract"],
    [{ contract: contract({ price: undefined }) }, "contract.price"],
    [{ contract: contract({ activity_window: 31_536_001 }) }, "contract.activity_window"],
    [{ contract: contract({ activity_window: 0 }) }, "contract.activity_window"],
    [{ contract: contract({ review_window: -1 }) }, "contract.review_window"],
    [{ contract: { ...contract(), timeout_outcome: "confirmed" } }, "contract.timeout_outcome"],
    [{ contract: contract({ fulfillment_condition: {} }) }, "contract.fulfillment_condition.event"],
    [
      { contract: contract({ fulfillment_condition: { event: "a", match: {} } }) },
      "contract.fulfillment_condition.match",
    ],
    [
      { contract: contract({ fulfillment_condition: { event: "a", field: "a..b" } }) },
      "contract.fulfillment_condition.field",
    ],
    [{ contract: contract({ fulfillment_condition: { all: [] } }) }, "contract.fulfillment_condition.all"],
    [
      { contract: contract({ fulfillment_condition: { all: [{ event: "a" }], event: "a" } }) },
      "contract.fulfillment_condition.event",
    ],
    [
      { contract: contract({ fulfillment_condition: { all: [{ event: "a" }], any: [{ event: "b" }] } }) },
      "contract.fulfillment_condition.any",
    ],
    [
      { contract: { ...contract(), fulfillment_condition: { any: [{ event: "a", gte: 1, typo: 1 }] } } },
      "contract.fulfillment_condition.any.0.typo",
    ],
    [
      { contract: contract({ fulfillment_condition: { all: Array.from({ length: 33 }, () => ({ event: "a" })) } }) },
      "contract.fulfillment_condition.all",
    ],
    [
      {
        contract: contract({
          fulfillment_condition: { all: [{ all: [{ all: [{ all: [{ all: [{ event: "a" }] }] }] }] }] },
        }),
      },
      "contract.fulfillment_condition",
    ],
    [
      {
        contract: contract({
          fulfillment_condition: {
            any: Array.from({ length: 3 }, () => ({ all: Array.from({ length: 11 }, () => ({ event: "a" })) })),
          },
        }),
      },
      "contract.fulfillment_condition",
    ],
    [
      { contract: contract({ fulfillment_condition: { event: "a", match: { plan: "pro" }, gte: 1 } }) },
      "contract.fulfillment_condition",
    ],
    [
      { contract: contract({ fulfillment_condition: { any: [{ event: "a" }, { event: "b", gt: 5, lt: 3 }] } }) },
      "contract.fulfillment_condition.any.1",
    ],
    [
      { contract: contract({ fulfillment_condition: { event: "a", eq: 7, lte: 6 } }) },
      "contract.fulfillment_condition",
    ],
  ])("rejects an invalid contract %# at %s", async (body, path) => {
    const api = client(await createAccount());
    const res = await api.raw.post("/v1/schemas", body);
    expectStatus(res, 400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    expect(okBody(await api.get("/v1/schemas")).data).toEqual([]);
  });

  it("words each refusal for a newcomer: the unit of a window, a missing field, a bad limit", async () => {
    const api = client(await createAccount());
    const refused = async (body: unknown) => (await api.raw.post("/v1/schemas", body)).body.error.details;
    expect(await refused({ contract: contract({ activity_window: 604_800_000 }) })).toEqual([
      { path: "contract.activity_window", message: "is in seconds: at most 365 days (31,536,000); received 604800000" },
    ]);
    expect(await refused({ contract: contract({ review_window: -1 }) })).toEqual([
      { path: "contract.review_window", message: "is in seconds: at least 0; received -1" },
    ]);
    // Kept to the millisecond: under one, a review would be none while the contract said otherwise.
    for (const seconds of [0.0004, 1e-4, 0.0009])
      expect(await refused({ contract: contract({ review_window: seconds }) }), String(seconds)).toEqual([
        {
          path: "contract.review_window",
          message: `is in seconds: 0 (no review), or at least 0.001 (one millisecond); received ${seconds}`,
        },
      ]);
    for (const seconds of [0, 0.001, 0.0015])
      expectStatus(await api.raw.post("/v1/schemas", { contract: contract({ review_window: seconds }) }), 201);
    expect(await refused({ contract: contract({ timeout_outcome: undefined }) })).toEqual([
      { path: "contract.timeout_outcome", message: "is required" },
    ]);
    expect(await refused({ contract: contract({ price: undefined }) })).toEqual([
      { path: "contract.price", message: "is required" },
    ]);
    for (const path of [
      "/v1/schemas",
      "/v1/candidates",
      "/v1/notifications",
      "/v1/webhook_endpoints/0190e6a4-0000-7000-8000-000000000000/deliveries",
      "/v1/summary?group_by=customer_uuid&",
    ]) {
      for (const limit of ["abc", "0", "101", "2.5", "", "1e2", "0x10", " 5", "99999999999999999999", "-1"]) {
        const res = await api.raw.get(`${path}${path.includes("?") ? "" : "?"}limit=${limit}`);
        expectStatus(res, 400, `${path} limit=${limit}`);
        expect(res.body.error.details, `${path} limit=${limit}`).toEqual([
          { path: "limit", message: expect.stringMatching(/^must be a whole number from 1 to 100; received /) },
        ]);
      }
    }
  });

  it("says why a leaf can never hold, and refuses it in an inline candidate contract too", async () => {
    const api = client(await createAccount());
    const leaf = { event: "a", gt: 5, lt: 3 };
    const schema = await api.post("/v1/schemas", { contract: contract({ fulfillment_condition: leaf }) });
    expectStatus(schema, 400);
    expect(schema.body.error.details).toEqual([
      { path: "contract.fulfillment_condition", message: "can never hold: no number is > 5 (`gt`) and < 3 (`lt`)" },
    ]);
    const candidate = await api.post("/v1/candidates", {
      customer_uuid: "c",
      candidate_alias: "never-holds-1",
      contract: contract({ fulfillment_condition: leaf }),
    });
    expectStatus(candidate, 400);
    expect(candidate.body.error.details?.[0].path).toBe("contract.fulfillment_condition");
    expect((await api.get("/v1/candidates/never-holds-1")).status).toBe(404);
  });

  it("refuses a leaf whose subject no event's value can hold, and accepts the largest one that fits", async () => {
    const api = client(await createAccount());
    const stamp = uuidv7();
    // `match` serialised at the 8 KiB an event's value may take, then one byte more.
    const fits = { k: "x".repeat(8192 - 8) };
    const tooBig = { k: "x".repeat(8192 - 7) };
    // `field` keys each nest the value one level in the body, which may nest 64 (the body itself is one).
    const deepest = Array(63).fill("a").join(".");
    const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });
    for (const [i, leaf, value] of [
      [0, { event: "e", match: fits }, fits],
      [1, { event: "e", field: deepest, gte: 1 }, nested(63)],
    ] as const) {
      const alias = `fits-${stamp}-${i}`;
      const made = await api.post("/v1/candidates", {
        customer_uuid: "c",
        candidate_alias: alias,
        contract: contract({ fulfillment_condition: leaf }),
      });
      expectStatus(made, 201);
      const event = await api.post("/v1/events", { candidate_alias: alias, type: "e", value });
      expectStatus(event, 201);
      expect(event.body.candidate.status, alias).toBe("PENDING");
    }
    for (const [leaf, message] of [
      [{ event: "e", match: tooBig }, "can never hold: `match` takes more than the 8192 bytes an event's value may"],
      [
        { event: "e", field: `${deepest}.a`, gte: 1 },
        "can never hold: `field`'s 64 keys would nest an event's body 65 levels deep, and a body may nest 64",
      ],
      [
        { event: "e", field: deepest, match: { b: 1 } },
        "can never hold: `field`'s 63 keys and `match` would nest an event's body 65 levels deep, and a body may nest 64",
      ],
    ] as const) {
      const res = await api.post("/v1/schemas", { contract: contract({ fulfillment_condition: leaf }) });
      expectStatus(res, 400);
      expect(res.body.error.details).toEqual([{ path: "contract.fulfillment_condition", message }]);
    }
  });

  it("accepts the limits themselves: 32 leaves, 4 levels, windows of 365 days", async () => {
    const api = client(await createAccount());
    const deep = { all: [{ any: [{ all: [{ any: [{ event: "a" }] }] }] }] };
    const wide = { any: Array.from({ length: 32 }, (_, i) => ({ event: `e${i}` })) };
    for (const fulfillment_condition of [deep, wide]) {
      const res = await api.post("/v1/schemas", {
        contract: contract({ fulfillment_condition, activity_window: 31_536_000, review_window: 31_536_000 }),
      });
      expectStatus(res, 201, JSON.stringify(res.body));
    }
  });

  it("refuses the 1,001st schema of an account with 409 SCHEMA_LIMIT_REACHED", async () => {
    const account = await createAccount();
    const stmt = dbOf(account).prepare(
      `INSERT INTO schemas (id, account_id, contract, created_at, updated_at) VALUES (?, ?, ?, 0, 0)`,
    );
    const rows = Array.from({ length: 1000 }, () => stmt.bind(uuidv7(), account.id, JSON.stringify(contract())));
    await dbOf(account).batch(rows);
    const res = await client(account).post("/v1/schemas", { contract: contract() });
    expectStatus(res, 409);
    expect(res.body.error.code).toBe("SCHEMA_LIMIT_REACHED");
    const { n } = (await dbOf(account)
      .prepare(`SELECT COUNT(*) AS n FROM schemas WHERE account_id = ?`)
      .bind(account.id)
      .first<{ n: number }>())!;
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
      ids.push(okBody(await a.post("/v1/schemas", { contract: contract({ price: i }) })).id);
      if (i === 0) clock.advance(1000); // the last two share a created_at
    }
    await b.post("/v1/schemas", { contract: contract() });
    const res = await a.get("/v1/schemas");
    expectStatus(res, 200);
    expect(res.body.data.map((s) => s.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(res.body.data.map((s) => s.contract.price)).toEqual([2, 1, 0]);
    expect(res.body.next_cursor).toBeNull();
  });

  it("pages with limit and after: every schema once, in order, next_cursor null at the end", async () => {
    const account = await createAccount();
    const api = client(account);
    // Seven schemas, created_at 0,0,0,1,1,1,1 (ids unordered against it): page boundaries fall among ties.
    const stmt = dbOf(account).prepare(
      `INSERT INTO schemas (id, account_id, contract, created_at, updated_at) VALUES (?, ?, ?, ?, 0)`,
    );
    const rows = Array.from({ length: 7 }, (_, i) => ({ id: uuidv7(), createdAt: i % 2 === 0 && i < 6 ? 0 : 1 }));
    await dbOf(account).batch(rows.map((r) => stmt.bind(r.id, account.id, JSON.stringify(contract()), r.createdAt)));
    await client(await createAccount()).post("/v1/schemas", { contract: contract() }); // another account's: never listed
    const expected = [...rows].sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1)).map((r) => r.id);

    for (const limit of [1, 2, 3, 6, 7, 8]) {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        // Declared a string: the query depends on `after`, which depends on the answer.
        const query: string = `limit=${limit}${after ? `&after=${after}` : ""}`;
        const res = await api.get(`/v1/schemas?${query}`);
        expectStatus(res, 200);
        expect(res.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...res.body.data.map((s) => s.id));
        after = res.body.next_cursor;
        if (after) expect(after).toBe(seen[seen.length - 1]);
        pages++;
      } while (after);
      expect(seen, `limit=${limit}`).toEqual(expected);
      expect(pages, `limit=${limit}`).toBe(Math.ceil(7 / limit));
    }
    // No limit: every schema; a cursor in capitals is the same cursor.
    expect(okBody(await api.get("/v1/schemas")).data.map((s) => s.id)).toEqual(expected);
    expect(okBody(await api.get(`/v1/schemas?after=${expected[2].toUpperCase()}`)).data.map((s) => s.id)).toEqual(
      expected.slice(3),
    );
    // After the last schema: an empty last page.
    expect((await api.get(`/v1/schemas?after=${expected[6]}`)).body).toEqual({ data: [], next_cursor: null });
  });

  it("refuses an after that is not one of the account's schemas: another account's, deleted, malformed", async () => {
    const mine = client(await createAccount());
    const theirs = client(await createAccount());
    const kept = okBody(await mine.post("/v1/schemas", { contract: contract() }));
    const deleted = okBody(await mine.post("/v1/schemas", { contract: contract() })).id;
    expect((await mine.delete(`/v1/schemas/${deleted}`)).status).toBe(204);
    const foreign = okBody(await theirs.post("/v1/schemas", { contract: contract() })).id;
    const candidate = okBody(
      await mine.post("/v1/candidates", { customer_uuid: "c", candidate_alias: "schema-cursor-1", schema_id: kept.id }),
    ).id;
    for (const after of [foreign, deleted, candidate, uuidv7(), "not-a-cursor", "", "%00", "x".repeat(300)]) {
      const res = await mine.get(`/v1/schemas?after=${after}`);
      expectStatus(res, 400, after);
      expect(res.body.error).toMatchObject({
        code: "VALIDATION_ERROR",
        details: [{ path: "after", message: expect.stringMatching(/^is not a cursor\b.*: pass the `next_cursor`/) }],
      });
    }
    // Another account's schema is still not reachable through its id as a cursor, nor listed.
    expect((await mine.get("/v1/schemas")).body).toEqual({ data: [kept], next_cursor: null });
    const sorted = await mine.get("/v1/schemas?sort=asc");
    expectStatus(sorted, 400);
    expect(sorted.body.error.details).toEqual([{ path: "sort", message: "is not a known field" }]);
  });
});

describe("GET /v1/schemas at its limit", () => {
  it("pages through all 1,000 schemas of up to 64 KiB each, newest first, each page streamed chunk by chunk", async () => {
    const account = await createAccount();
    // One in ten contracts near the body limit: a body of about 6 MB.
    const big = JSON.stringify(contract({ fulfillment_condition: { event: "e", match: { pad: "p".repeat(60_000) } } }));
    const stmt = dbOf(account).prepare(
      `INSERT INTO schemas (id, account_id, contract, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
    );
    const ids = Array.from({ length: 1000 }, () => uuidv7());
    // Created in ten batches; every page boundary falls among equal created_at values (ties by id).
    for (let b = 0; b < 10; b++) {
      await dbOf(account).batch(
        ids
          .slice(b * 100, b * 100 + 100)
          .map((id, i) =>
            stmt.bind(id, account.id, i % 10 ? JSON.stringify(contract({ price: i })) : big, Math.floor(b / 2), 0),
          ),
      );
    }
    const data: any[] = [];
    let after = "";
    for (let page = 0; page < 10; page++) {
      const res = await call("GET", `/v1/schemas?limit=100${after}`, { token: account.token });
      expectStatus(res, 200);
      expect(res.body.data).toHaveLength(100);
      data.push(...res.body.data);
      // The tenth page ends the list exactly: nothing follows it.
      expect(res.body.next_cursor).toBe(page < 9 ? data[data.length - 1].id : null);
      after = `&after=${res.body.next_cursor}`;
    }
    const expected = ids
      .map((id, n) => ({ id, createdAt: Math.floor(n / 200) }))
      .sort((x, y) => y.createdAt - x.createdAt || (x.id < y.id ? 1 : -1))
      .map((x) => x.id);
    expect(data.map((s) => s.id)).toEqual(expected);
    expect(data.filter((s) => s.contract.fulfillment_condition.match?.pad?.length === 60_000)).toHaveLength(100);
    // With no parameters, every schema, as the interface lists them: one response, nothing after it.
    let answered: ApiResponse | undefined;
    const reads = await observeD1(async () => (answered = await call("GET", "/v1/schemas", { token: account.token })));
    // In chunks of 100: ten reads of D1 for the thousand, within the Free plan's 50 a request.
    expect(reads.roundTrips).toBeLessThanOrEqual(12);
    const all = answered!;
    expectStatus(all, 200);
    expect(all.body.data.map((s: any) => s.id)).toEqual(expected);
    expect(all.body.next_cursor).toBeNull();
    const rest = await call("GET", `/v1/schemas?after=${expected[949]}`, { token: account.token });
    expect(rest.body.data.map((s: any) => s.id)).toEqual(expected.slice(950));
    expect(rest.body.next_cursor).toBeNull();

    // Chunk by chunk: once the first bytes of the list are out, the rest of it is still to be read from D1.
    const streamed = await SELF.fetch("https://api.test/v1/schemas", {
      headers: { Authorization: `Bearer ${account.token}` },
    });
    const reader = streamed.body!.getReader();
    await reader.read();
    await dbOf(account).exec(`ALTER TABLE schemas RENAME TO schemas_offline`);
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
      await dbOf(account).exec(`ALTER TABLE schemas_offline RENAME TO schemas`);
    }
  }, 60_000);
});

describe("GET, PATCH, DELETE /v1/schemas/{id}", () => {
  it("reads, replaces and deletes a schema", async () => {
    const api = client(await createAccount());
    const clock = useClock();
    const created = okBody(await api.post("/v1/schemas", { contract: contract() }));
    expect((await api.get(`/v1/schemas/${created.id}`)).body).toEqual(created);
    expect((await api.get(`/v1/schemas/${created.id.toUpperCase()}`)).body).toEqual(created);

    clock.advance(5000);
    const patched = await api.patch(`/v1/schemas/${created.id}`, { contract: contract({ price: 99 }) });
    expectStatus(patched, 200);
    expect(patched.body).toEqual({ ...created, contract: contract({ price: 99 }), updated_at: iso(clock.now()) });
    expect((await api.get(`/v1/schemas/${created.id}`)).body).toEqual(patched.body);

    const deleted = await api.delete(`/v1/schemas/${created.id}`);
    expectStatus(deleted, 204);
    expect(deleted.body).toBe("");
    const gone = await api.get(`/v1/schemas/${created.id}`);
    expectStatus(gone, 404);
    expect(gone.body.error.code).toBe("SCHEMA_NOT_FOUND");
    expect((await api.delete(`/v1/schemas/${created.id}`)).status).toBe(404);
    expect((await api.patch(`/v1/schemas/${created.id}`, { contract: contract() })).status).toBe(404);
  });

  it("changes only the name, only the contract, or both; null clears the name", async () => {
    const api = client(await createAccount());
    const clock = useClock();
    const created = okBody(await api.post("/v1/schemas", { contract: contract(), name: "First" }));
    const steps: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ name: "Renamed" }, { name: "Renamed", contract: contract() }],
      [{ contract: contract({ price: 7 }) }, { name: "Renamed", contract: contract({ price: 7 }) }],
      [{ name: null }, { name: null, contract: contract({ price: 7 }) }],
      [
        { name: "Both", contract: contract({ price: 8 }) },
        { name: "Both", contract: contract({ price: 8 }) },
      ],
    ];
    for (const [body, after] of steps) {
      clock.advance(1000);
      const res = await api.patch(`/v1/schemas/${created.id}`, body);
      expectStatus(res, 200, JSON.stringify(body));
      expect(res.body).toEqual({ ...created, ...after, updated_at: iso(clock.now()) });
      expect((await api.get(`/v1/schemas/${created.id}`)).body).toEqual(res.body);
    }
  });

  it("refuses a PATCH that changes nothing or names badly, and the schema stays as it was", async () => {
    const api = client(await createAccount());
    const created = okBody(await api.post("/v1/schemas", { contract: contract(), name: "Kept" }));
    const refused: [unknown, { path: string; message: string }[]][] = [
      [{}, [{ path: "", message: "must change at least one field: `contract` or `name`; received neither" }]],
      // An unknown field is refused for what it is, not also as "nothing to change".
      [{ nmae: "Typo" }, [{ path: "nmae", message: expect.stringMatching(/^is not a known field/) }]],
      [{ name: "" }, [{ path: "name", message: "must not be empty: send null for no name" }]],
      [{ name: "n".repeat(101) }, [{ path: "name", message: "must be at most 100 characters; received 101" }]],
      [
        { name: 7, contract: contract({ price: 1 }) },
        [{ path: "name", message: "must be a string of 1 to 100 characters, or null; received a number" }],
      ],
      [
        { name: "Fine", contract: { ...contract(), price: "free" } },
        [{ path: "contract.price", message: expect.any(String) }],
      ],
      [{ title: "x" }, [{ path: "title", message: "is not a known field" }]],
    ];
    for (const [body, details] of refused) {
      const res = await api.raw.patch(`/v1/schemas/${created.id}`, body);
      expectStatus(res, 400, JSON.stringify(body));
      expect(res.body.error, JSON.stringify(body)).toMatchObject({
        code: "VALIDATION_ERROR",
        details: expect.arrayContaining(details),
      });
    }
    expect((await api.get(`/v1/schemas/${created.id}`)).body).toEqual(created);
  });

  it("serves the documented examples: the create and PATCH bodies are accepted, the Schema validates", async () => {
    const api = client(await createAccount());
    const doc = (await call("GET", "/v1/openapi.json")).body;
    const example = (op: any) => {
      const body = op.requestBody.content["application/json"];
      return body.example ?? doc.components.schemas[body.schema.$ref.split("/").pop()].example;
    };
    const created = await api.post("/v1/schemas", example(doc.paths["/v1/schemas"].post));
    expectStatus(created, 201);
    const patched = await api.patch(`/v1/schemas/${created.body.id}`, example(doc.paths["/v1/schemas/{id}"].patch));
    expectStatus(patched, 200);
    // An answer has exactly the documented example's fields, of the same kinds.
    const documented = doc.paths["/v1/schemas/{id}"].get.responses["200"].content["application/json"].example;
    const shape = (o: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === null ? "null" : typeof v]));
    expect(shape(patched.body)).toEqual(shape(documented));
    const page = doc.paths["/v1/schemas"].get.responses["200"].content["application/json"].example;
    expect(Object.keys(page).sort()).toEqual(["data", "next_cursor"]);
  });

  it("answers 404 SCHEMA_NOT_FOUND naming the id for unknown and malformed ids", async () => {
    const api = client(await createAccount());
    for (const id of [uuidv7(), "not-a-uuid", "1", "%F0%9F%92%A9", "x".repeat(300)]) {
      const res = await api.get(`/v1/schemas/${id}`);
      expectStatus(res, 404, id);
      expect(res.body.error.code).toBe("SCHEMA_NOT_FOUND");
      // A long id is quoted by its start and length (messages.test.ts).
      expect(res.body.error.message).toContain(id.length > 64 ? `(${id.length} characters)` : decodeURIComponent(id));
    }
  });

  it("validates a PATCH body like a create", async () => {
    const api = client(await createAccount());
    const { id } = okBody(await api.post("/v1/schemas", { contract: contract() }));
    const res = await api.raw.patch(`/v1/schemas/${id}`, { contract: { ...contract(), price: "free" } });
    expectStatus(res, 400);
    expect(res.body.error.details).toEqual([{ path: "contract.price", message: expect.any(String) }]);
    expect(okBody(await api.get(`/v1/schemas/${id}`)).contract.price).toBe(10);
  });

  it("hides another account's schema: 404 on read, update and delete, and it stays unchanged", async () => {
    const owner = client(await createAccount());
    const other = client(await createAccount());
    const created = okBody(await owner.post("/v1/schemas", { contract: contract() }));
    const unknown = uuidv7();
    for (const [res, id] of [
      [await other.get(`/v1/schemas/${created.id}`), created.id],
      [await other.patch(`/v1/schemas/${created.id}`, { contract: contract({ price: 1 }) }), created.id],
      [await other.delete(`/v1/schemas/${created.id}`), created.id],
      [await other.get(`/v1/schemas/${unknown}`), unknown],
    ] as const) {
      expectStatus(res, 404);
      expect(res.body.error).toMatchObject({
        code: "SCHEMA_NOT_FOUND",
        message: `No schema with id '${id}' exists in this account.`,
      });
    }
    expect(okBody(await other.get(`/v1/schemas`)).data).toEqual([]);
    expect((await owner.get(`/v1/schemas/${created.id}`)).body).toEqual(created);
  });
});
