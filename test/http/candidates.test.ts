import { describe, expect, it } from "vitest";
import { uuidv7 } from "uuidv7";
import {
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  okBody,
  type CreateCandidateBody,
} from "../support/api";
import { iso, useClock } from "../support/clock";

const newCandidate = (over: Partial<CreateCandidateBody> = {}): CreateCandidateBody => ({
  customer_uuid: "cust-1",
  candidate_alias: freshAlias(),
  contract: contract(),
  ...over,
});

describe("POST /v1/candidates: where the contract comes from", () => {
  it("takes the contract inline (schema_id null)", async () => {
    const api = client(await createAccount());
    const res = await api.post("/v1/candidates", newCandidate());
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ contract: contract(), schema_id: null, status: "OPEN", scheduled_outcome: null });
  });

  it("takes the contract from schema_id, as a snapshot that later schema changes do not touch", async () => {
    const api = client(await createAccount());
    const schema = okBody(await api.post("/v1/schemas", { contract: contract({ price: 7 }) }));
    await api.post("/v1/schemas", { contract: contract({ price: 8 }) });
    const body = newCandidate({ contract: undefined, schema_id: schema.id });
    const res = await api.post("/v1/candidates", body);
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ schema_id: schema.id, contract: contract({ price: 7 }) });

    await api.patch(`/v1/schemas/${schema.id}`, { contract: contract({ price: 1000 }) });
    expect(okBody(await api.get(`/v1/candidates/${body.candidate_alias}`)).contract.price).toBe(7);
    await api.delete(`/v1/schemas/${schema.id}`);
    const after = await api.get(`/v1/candidates/${body.candidate_alias}`);
    expect(after.body).toMatchObject({ schema_id: schema.id, contract: contract({ price: 7 }) });
  });

  it("takes the account's newest schema when the body names none", async () => {
    const api = client(await createAccount());
    await api.post("/v1/schemas", { contract: contract({ price: 1 }) });
    const newest = okBody(await api.post("/v1/schemas", { contract: contract({ price: 2 }) }));
    const res = await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: freshAlias() });
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ schema_id: newest.id, contract: { price: 2 } });
  });

  it("answers 400 at schema_id when the account has no schema to take", async () => {
    const api = client(await createAccount());
    const alias = freshAlias();
    const res = await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias });
    expectStatus(res, 400);
    expect(res.body.error).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ path: "schema_id", message: expect.any(String) }],
    });
    expect((await api.get(`/v1/candidates/${alias}`)).status).toBe(404);
  });

  it("answers 404 SCHEMA_NOT_FOUND for an unknown or another account's schema_id", async () => {
    const api = client(await createAccount());
    const other = client(await createAccount());
    const foreign = okBody(await other.post("/v1/schemas", { contract: contract() })).id;
    for (const schema_id of [uuidv7(), "nope", foreign]) {
      const body = newCandidate({ contract: undefined, schema_id });
      const res = await api.post("/v1/candidates", body);
      expectStatus(res, 404);
      expect(res.body.error.code).toBe("SCHEMA_NOT_FOUND");
      expect((await api.get(`/v1/candidates/${body.candidate_alias}`)).status).toBe(404);
    }
  });

  it("refuses both schema_id and contract", async () => {
    const api = client(await createAccount());
    const schema = okBody(await api.post("/v1/schemas", { contract: contract() }));
    const res = await api.post("/v1/candidates", newCandidate({ schema_id: schema.id }));
    expectStatus(res, 400);
    expect(res.body.error.details?.map((d) => d.path)).toEqual(["contract"]);
  });
});

describe("POST /v1/candidates: validation and aliases", () => {
  it.each([
    [{ candidate_alias: "short12" }, "candidate_alias"],
    [{ candidate_alias: "x".repeat(256) }, "candidate_alias"],
    [{ candidate_alias: 12345678 }, "candidate_alias"],
    [{ candidate_alias: undefined }, "candidate_alias"],
    [{ customer_uuid: "" }, "customer_uuid"],
    [{ customer_uuid: "x".repeat(256) }, "customer_uuid"],
    [{ customer_uuid: undefined }, "customer_uuid"],
    [{ status: "PENDING" }, "status"],
    [{ contract: contract({ price: -5 }) }, "contract.price"],
  ])("rejects %o at %s", async (over, path) => {
    const api = client(await createAccount());
    const res = await api.raw.post("/v1/candidates", { ...newCandidate(), ...over });
    expectStatus(res, 400);
    expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    expect(okBody(await api.get("/v1/candidates")).data).toEqual([]);
  });

  it("accepts aliases of exactly 8 and 255 characters, and any characters", async () => {
    const api = client(await createAccount());
    const suffix = uuidv7().slice(-6);
    for (const alias of [`a8-${suffix}`.slice(0, 8), "y".repeat(240) + uuidv7().slice(-15), `ünï/cødé ${suffix}`]) {
      const res = await api.post("/v1/candidates", newCandidate({ candidate_alias: alias }));
      expectStatus(res, 201, alias);
      const read = await api.get(`/v1/candidates/${encodeURIComponent(alias)}`);
      expectStatus(read, 200);
      expect(read.body.candidate_alias).toBe(alias);
    }
  });

  it("answers 409 CANDIDATE_ALIAS_TAKEN for an alias already used by any account", async () => {
    const first = client(await createAccount());
    const second = client(await createAccount());
    const body = newCandidate();
    expect((await first.post("/v1/candidates", body)).status).toBe(201);
    for (const api of [first, second]) {
      const res = await api.post("/v1/candidates", { ...body, customer_uuid: "someone-else" });
      expectStatus(res, 409);
      expect(res.body.error.code).toBe("CANDIDATE_ALIAS_TAKEN");
    }
    expect(okBody(await first.get(`/v1/candidates/${body.candidate_alias}`)).customer_uuid).toBe("cust-1");
    expect(okBody(await second.get("/v1/candidates")).data).toEqual([]);
  });

  it("creates exactly one candidate when many accounts race for one alias", async () => {
    const apis = await Promise.all(Array.from({ length: 4 }, async () => client(await createAccount())));
    const alias = freshAlias("race");
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        apis[i % 4].post("/v1/candidates", newCandidate({ candidate_alias: alias, customer_uuid: `c${i}` })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(11).fill(409)]);
    const winner = results.findIndex((r) => r.status === 201);
    const listed = await Promise.all(apis.map(async (api) => okBody(await api.get("/v1/candidates")).data.length));
    expect(listed.reduce((a, b) => a + b)).toBe(1);
    expect(okBody(await apis[winner % 4].get(`/v1/candidates/${alias}`)).customer_uuid).toBe(`c${winner}`);
  });
});

describe("GET /v1/candidates/{alias}", () => {
  it("returns the candidate with its events, oldest first, value omitted when none was sent", async () => {
    const api = client(await createAccount());
    const body = newCandidate({ contract: contract({ fulfillment_condition: { event: "done" } }) });
    const created = okBody(await api.post("/v1/candidates", body));
    const e1 = okBody(
      await api.post("/v1/events", { candidate_alias: body.candidate_alias, type: "ping", value: { a: [1, null] } }),
    ).event;
    const e2 = okBody(
      await api.post("/v1/events", { candidate_alias: body.candidate_alias, type: "ping", value: null }),
    ).event;
    const e3 = okBody(await api.post("/v1/events", { candidate_alias: body.candidate_alias, type: "ping" })).event;
    const res = await api.get(`/v1/candidates/${body.candidate_alias}`);
    expectStatus(res, 200);
    expect(res.body).toEqual({
      ...created,
      condition_progress: {
        fulfilled: false,
        leaves: [
          { path: "fulfillment_condition", event: "done", satisfied: false, event_id: null, satisfied_at: null },
        ],
      },
      events: [e1, e2, e3],
    });
    expect(res.body.events[1]).toHaveProperty("value", null);
    expect(res.body.events[2]).not.toHaveProperty("value");
  });

  it("validates the alias length and answers 404 naming an unknown alias", async () => {
    const api = client(await createAccount());
    expect((await api.get(`/v1/candidates/short`)).status).toBe(400);
    expect((await api.get(`/v1/candidates/${"x".repeat(256)}`)).status).toBe(400);
    const res = await api.get(`/v1/candidates/unknown-alias-1`);
    expectStatus(res, 404);
    expect(res.body.error).toMatchObject({
      code: "CANDIDATE_NOT_FOUND",
      message: "No candidate with alias 'unknown-alias-1' exists in this account.",
    });
  });

  it("hides another account's candidate exactly like a missing one", async () => {
    const owner = client(await createAccount());
    const other = client(await createAccount());
    const body = newCandidate();
    await owner.post("/v1/candidates", body);
    const foreign = await other.get(`/v1/candidates/${body.candidate_alias}`);
    const missing = await other.get(`/v1/candidates/${body.candidate_alias}-x`);
    expectStatus(foreign, 404);
    expectStatus(missing, 404);
    expect(foreign.body.error.code).toBe("CANDIDATE_NOT_FOUND");
    expect(foreign.body.error.message).toBe(
      missing.body.error.message.replace(`${body.candidate_alias}-x`, body.candidate_alias),
    );
  });
});

describe("GET /v1/candidates/{alias}: condition_progress", () => {
  const compound = {
    all: [{ event: "signup" }, { any: [{ event: "purchase", field: "total", gte: 100 }, { event: "referral" }] }],
  };
  const unmet = (path: string, event: string) => ({
    path,
    event,
    satisfied: false,
    event_id: null,
    satisfied_at: null,
  });

  it("shows which leaves of an `all` are met, by which event, while the candidate stays OPEN", async () => {
    const api = client(await createAccount());
    const clock = useClock();
    const body = newCandidate({ contract: contract({ fulfillment_condition: compound }) });
    const alias = body.candidate_alias;
    await api.post("/v1/candidates", body);
    clock.advance(1000);
    const signup = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "signup" }));
    expect(signup).toMatchObject({ event: { matched: true }, candidate: { status: "OPEN" } });
    clock.advance(1000);
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: { total: 99 } }); // matches nothing
    await api.post("/v1/events", { candidate_alias: alias, type: "signup" }); // the leaf keeps its first event
    const met = (path: string, event: string, by: { id: string; received_at: string }) => ({
      path,
      event,
      satisfied: true,
      event_id: by.id,
      satisfied_at: by.received_at,
    });
    const open = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(open.status).toBe("OPEN");
    expect(open.condition_progress).toEqual({
      fulfilled: false,
      leaves: [
        met("fulfillment_condition.all.0", "signup", signup.event),
        unmet("fulfillment_condition.all.1.any.0", "purchase"),
        unmet("fulfillment_condition.all.1.any.1", "referral"),
      ],
    });

    // The rest arrives in a batch: the first item meets the condition, the second comes too late.
    clock.advance(1000);
    const batch = okBody(
      await api.post("/v1/events/batch", {
        events: [
          { candidate_alias: alias, type: "purchase", value: { total: 150 } },
          { candidate_alias: alias, type: "referral" },
        ],
      }),
    );
    expect(batch.data.map((r: any) => r.event.matched)).toEqual([true, false]);
    const [purchase] = batch.data;
    expectStatus(purchase, 201);
    const pending = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(pending.status).toBe("PENDING");
    expect(pending.condition_progress).toEqual({
      fulfilled: true,
      leaves: [
        met("fulfillment_condition.all.0", "signup", signup.event),
        met("fulfillment_condition.all.1.any.0", "purchase", purchase.event),
        unmet("fulfillment_condition.all.1.any.1", "referral"),
      ],
    });
    expect(pending.condition_progress.leaves[1].satisfied_at).toBe(iso(clock.now()));
  });

  it("is found from the events of a candidate stored before progress was kept", async () => {
    const api = client(await createAccount());
    const body = newCandidate({ contract: contract({ fulfillment_condition: compound }) });
    const alias = body.candidate_alias;
    await api.post("/v1/candidates", body);
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: { total: 5 } });
    const referral = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "referral" })).event;
    const before = okBody(await api.get(`/v1/candidates/${alias}`)).condition_progress;
    // As an object created by the previous version: no progress table, no schema version recorded,
    // and a fresh instance.
    await inCandidate(alias, (instance, state) => {
      state.storage.sql.exec("DROP TABLE condition_progress");
      state.storage.sql.exec("DROP TABLE schema_version");
      state.storage.sql.exec("ALTER TABLE candidate DROP COLUMN index_bookmark"); // added by migration 3
      (instance as unknown as { state: undefined }).state = undefined;
    });
    const after = okBody(await api.get(`/v1/candidates/${alias}`)).condition_progress;
    expect(after).toEqual(before);
    expect(after.leaves[2]).toMatchObject({ satisfied: true, event_id: referral.id });
    // Found once, then stored.
    const stored = await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec("SELECT leaf, event_id FROM condition_progress").toArray(),
    );
    expect(stored).toEqual([{ leaf: 2, event_id: referral.id }]);

    // A leaf the mask says is met, by no event that matches it now (an earlier version's rules):
    // met, by an unknown event, and searched for once.
    await inCandidate(alias, (instance, state) => {
      state.storage.sql.exec("DELETE FROM condition_progress");
      state.storage.sql.exec("UPDATE candidate SET satisfied_mask = satisfied_mask | 2");
      (instance as unknown as { state: undefined }).state = undefined;
    });
    const read = okBody(await api.get(`/v1/candidates/${alias}`));
    expect(read.status).toBe("OPEN");
    expect(read.condition_progress.fulfilled).toBe(false); // signup is still unmet
    expect(read.condition_progress.leaves[1]).toEqual({
      path: "fulfillment_condition.all.1.any.0",
      event: "purchase",
      satisfied: true,
      event_id: null,
      satisfied_at: null,
    });
    const marked = await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec("SELECT leaf, event_id FROM condition_progress ORDER BY leaf").toArray(),
    );
    expect(marked).toEqual([
      { leaf: 1, event_id: null },
      { leaf: 2, event_id: referral.id },
    ]);
  });
});

describe("GET /v1/candidates", () => {
  async function seed(count: number) {
    const api = client(await createAccount());
    const aliases: string[] = [];
    for (let i = 0; i < count; i++) {
      const body = newCandidate({ customer_uuid: i % 2 ? "odd" : "even" });
      expect((await api.post("/v1/candidates", body)).status).toBe(201);
      aliases.push(body.candidate_alias);
    }
    return { api, newestFirst: aliases.reverse() };
  }

  it("pages newest first through next_cursor until it is null", async () => {
    const { api, newestFirst } = await seed(7);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      // Declared a string: the query depends on `after`, which depends on the answer.
      const query: string = `limit=3${after ? `&after=${after}` : ""}`;
      const res = await api.get(`/v1/candidates?${query}`);
      expectStatus(res, 200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      for (const c of res.body.data) expect(c).not.toHaveProperty("events");
      seen.push(...res.body.data.map((c) => c.candidate_alias));
      after = res.body.next_cursor;
      if (after) expect(after).toBe(res.body.data[2].id);
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst);
    // A cursor is an id: written in capitals it is the same cursor; under 8 characters it is none.
    const first = okBody(await api.get("/v1/candidates?limit=3"));
    const upper = okBody(await api.get(`/v1/candidates?limit=3&after=${first.next_cursor!.toUpperCase()}`));
    expect(upper.data.map((c) => c.candidate_alias)).toEqual(newestFirst.slice(3, 6));
    const short = await api.raw.get("/v1/candidates?after=0190aa");
    expect([short.status, short.body.error.details[0].path]).toEqual([400, "after"]);
  });

  it("returns next_cursor null when the page is exactly the rest", async () => {
    const { api } = await seed(3);
    const page = okBody(await api.get(`/v1/candidates?limit=3`));
    expect(page.data).toHaveLength(3);
    expect(page.next_cursor).toBeNull();
  });

  it("defaults to 50 and filters by customer_uuid and status together", async () => {
    const { api, newestFirst } = await seed(6);
    const all = okBody(await api.get(`/v1/candidates`));
    expect(all.data).toHaveLength(6);
    const odd = okBody(await api.get(`/v1/candidates?customer_uuid=odd&status=OPEN&limit=2`));
    expect(odd.data.map((c) => c.candidate_alias)).toEqual([newestFirst[0], newestFirst[2]]);
    const rest = okBody(await api.get(`/v1/candidates?customer_uuid=odd&status=OPEN&limit=2&after=${odd.next_cursor}`));
    expect(rest.data.map((c) => c.candidate_alias)).toEqual([newestFirst[4]]);
    expect(rest.next_cursor).toBeNull();
    expect(okBody(await api.get(`/v1/candidates?status=CONFIRMED`)).data).toEqual([]);
    expect((await api.get(`/v1/candidates?customer_uuid=nobody`)).body).toEqual({ data: [], next_cursor: null });
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=2.5", "limit"],
    ["limit=ten", "limit"],
    ["status=open", "status"],
    ["after=short", "after"],
    ["customer_uuid=", "customer_uuid"],
    ["sort=asc", "sort"],
    ["status=OPEN&status=PENDING", "status"],
  ])("rejects the query %s at %s", async (query, path) => {
    const api = client(await createAccount());
    const res = await api.get(`/v1/candidates?${query}`);
    expectStatus(res, 400);
    expect(res.body.error.details?.map((d) => d.path)).toContain(path);
  });

  it("rejects an `after` that is not one of the account's cursors", async () => {
    const { api } = await seed(1);
    const other = await seed(1);
    const foreignCursor = okBody(await other.api.get(`/v1/candidates`)).data[0].id;
    for (const after of [uuidv7(), foreignCursor, "not-a-cursor-at-all"]) {
      const res = await api.get(`/v1/candidates?after=${after}`);
      expectStatus(res, 400);
      expect(res.body.error.details).toEqual([{ path: "after", message: expect.any(String) }]);
    }
  });

  it("never lists another account's candidates", async () => {
    const a = await seed(2);
    const b = client(await createAccount());
    expect(okBody(await b.get(`/v1/candidates`)).data).toEqual([]);
    expect(okBody(await b.get(`/v1/candidates?customer_uuid=odd`)).data).toEqual([]);
    expect(okBody(await a.api.get(`/v1/candidates`)).data).toHaveLength(2);
  });
});

describe("GET /v1/candidates?candidate_alias_prefix=", () => {
  it("lists exactly the account's candidates whose alias begins with the prefix, newest first, paged", async () => {
    const stem = `pfx-${uuidv7()}`;
    const api = client(await createAccount());
    const other = client(await createAccount());
    const aliases = [`${stem}-a%1`, `${stem}-a_2`, `${stem}-aé3`, `${stem}-b4`, `${stem}-A5`, `${stem}-a`];
    for (const alias of aliases)
      expect(
        (
          await api.post(
            "/v1/candidates",
            newCandidate({ candidate_alias: alias, customer_uuid: alias.endsWith("2") ? "two" : "rest" }),
          )
        ).status,
      ).toBe(201);
    expect((await other.post("/v1/candidates", newCandidate({ candidate_alias: `${stem}-a-other` }))).status).toBe(201);

    const list = async (query: string) => {
      const seen: string[] = [];
      let after: string | null = null;
      do {
        const page: string = `limit=2&${query}${after ? `&after=${after}` : ""}`;
        const res = await api.get(`/v1/candidates?${page}`);
        expectStatus(res, 200, JSON.stringify(res.body));
        seen.push(...res.body.data.map((c) => c.candidate_alias));
        after = res.body.next_cursor;
      } while (after);
      return seen;
    };
    const newestFirst = (prefix: string) => aliases.filter((a) => a.startsWith(prefix)).reverse();
    // LIKE's wildcards are characters like any other; case counts; the prefix itself is a match.
    for (const prefix of [
      `${stem}-a`,
      `${stem}-a%`,
      `${stem}-a_`,
      `${stem}-aé`,
      `${stem}-A`,
      `${stem}-`,
      `${stem}-a%1`,
      `${stem}-z`,
    ]) {
      expect(await list(`candidate_alias_prefix=${encodeURIComponent(prefix)}`), prefix).toEqual(newestFirst(prefix));
    }
    // With the other filters: all must hold.
    expect(await list(`candidate_alias_prefix=${encodeURIComponent(`${stem}-a`)}&customer_uuid=two`)).toEqual([
      `${stem}-a_2`,
    ]);
    expect(await list(`candidate_alias_prefix=${encodeURIComponent(`${stem}-a`)}&status=OPEN`)).toEqual(
      newestFirst(`${stem}-a`),
    );
    expect(await list(`candidate_alias_prefix=${encodeURIComponent(`${stem}-a`)}&status=PENDING`)).toEqual([]);
    // Another account's candidate is never listed, whatever the prefix.
    expect(
      okBody(await other.get(`/v1/candidates?candidate_alias_prefix=${encodeURIComponent(stem)}`)).data.map(
        (c) => c.candidate_alias,
      ),
    ).toEqual([`${stem}-a-other`]);
    // The export selects the same.
    const csv = await api.get(`/v1/candidates/export?candidate_alias_prefix=${encodeURIComponent(`${stem}-a_`)}`);
    expectStatus(csv, 200);
    expect(String(csv.body).trim().split("\n")).toHaveLength(2);
    expect(String(csv.body)).toContain(`${stem}-a_2`);
  });

  it("refuses an empty or over-long prefix", async () => {
    const api = client(await createAccount());
    for (const prefix of ["", "x".repeat(256)]) {
      const res = await api.get(`/v1/candidates?candidate_alias_prefix=${prefix}`);
      expectStatus(res, 400);
      expect(res.body.error.details).toEqual([{ path: "candidate_alias_prefix", message: expect.any(String) }]);
    }
  });
});

describe("POST /v1/candidates/{alias}/resolve", () => {
  it("resolves a PENDING candidate with the given outcome now, and is terminal", async () => {
    const api = client(await createAccount());
    const clock = useClock();
    const body = newCandidate();
    await api.post("/v1/candidates", body);
    const alias = body.candidate_alias;
    clock.advance(1000);
    await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 100 });
    clock.advance(1000);
    const res = await api.post(`/v1/candidates/${alias}/resolve`, { outcome: "FAILED" });
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      status: "FAILED",
      scheduled_outcome: "FAILED",
      status_since: new Date(clock.now()).toISOString(),
    });
    expect(res.body).not.toHaveProperty("events");
    clock.advance(3_600_000);
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).status).toBe("FAILED");
    expect(okBody(await api.get(`/v1/candidates?status=FAILED`)).data.map((c) => c.candidate_alias)).toEqual([alias]);
    const again = await api.post(`/v1/candidates/${alias}/resolve`, { outcome: "CONFIRMED" });
    expectStatus(again, 409);
    expect(again.body.error).toMatchObject({
      code: "INVALID_STATE",
      message: `Candidate '${alias}' is FAILED: only an OPEN or PENDING candidate can be resolved.`,
    });
  });

  it("voids or confirms an OPEN candidate now, without review: one notification, caused by the resolve", async () => {
    const account = await createAccount();
    const api = client(account);
    const clock = useClock();
    for (const outcome of ["FAILED", "CONFIRMED"] as const) {
      const body = newCandidate();
      await api.post("/v1/candidates", body);
      clock.advance(1000);
      const now = new Date(clock.now()).toISOString();
      const res = await api.post(`/v1/candidates/${body.candidate_alias}/resolve`, { outcome });
      expectStatus(res, 200);
      expect(res.body).toMatchObject({
        status: outcome,
        status_since: now,
        scheduled_outcome: outcome,
        activity_ends_at: now,
        review_ends_at: null, // resolved while OPEN: never PENDING, so no review
      });
      const later = await api.post("/v1/events", {
        candidate_alias: body.candidate_alias,
        type: "purchase",
        value: 1000,
      });
      expect(later.body).toMatchObject({ event: { matched: false }, candidate: { status: outcome } });
      const notes = okBody(await api.get(`/v1/notifications?candidate_alias=${body.candidate_alias}`)).data;
      expect(notes.map((n) => [n.type, n.timestamp, n.data.cause])).toEqual([
        [`candidate.${outcome.toLowerCase()}`, now, { kind: "resolved" }],
      ]);
      expect(okBody(await api.get(`/v1/candidates?status=${outcome}`)).data.map((c) => c.candidate_alias)).toContain(
        body.candidate_alias,
      );
    }
  });

  it("validates the outcome and hides other accounts' candidates", async () => {
    const owner = client(await createAccount());
    const other = client(await createAccount());
    const clock = useClock();
    const body = newCandidate({ contract: contract({ activity_window: 1 }) });
    await owner.post("/v1/candidates", body);
    clock.advance(1000);
    const bad = await owner.raw.post(`/v1/candidates/${body.candidate_alias}/resolve`, { outcome: "confirmed" });
    expectStatus(bad, 400);
    expect(bad.body.error.details[0].path).toBe("outcome");
    const foreign = await other.post(`/v1/candidates/${body.candidate_alias}/resolve`, { outcome: "CONFIRMED" });
    expectStatus(foreign, 404);
    expect(foreign.body.error.code).toBe("CANDIDATE_NOT_FOUND");
    expect(okBody(await owner.get(`/v1/candidates/${body.candidate_alias}`)).status).toBe("PENDING");
  });
});
