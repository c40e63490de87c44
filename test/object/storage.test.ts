/**
 * What a candidate object keeps: nothing at all for an alias that has no candidate; tables at the
 * current schema version, whatever version made them; a settled status that only moves forward
 * whoever stores; Idempotency-Key records dated like the key's own.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  objectOf,
  okBody,
} from "../support/api";
import { useClock } from "../support/clock";
import { inKeyStore } from "../support/key-store";
import type { CandidateRpc } from "../../src/candidate/rpc";
import { migrate, SCHEMA_VERSION } from "../../src/candidate/schema";

/** The object's own tables: not the runtime's (`_cf_…`) nor SQLite's. */
const USER_TABLES = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`;

/** Every table a candidate's object has, at the current version. */
const TABLES = ["candidate", "condition_progress", "events", "outbox", "requests", "schema_version"];

const userTables = (alias: string) =>
  inCandidate(alias, (_instance, state) =>
    state.storage.sql
      .exec(USER_TABLES)
      .toArray()
      .map((r) => r.name),
  );

describe("an alias with no candidate", () => {
  it("stores nothing, whatever is asked of its object", async () => {
    const account = await createAccount();
    const alias = freshAlias("nobody");
    const key = { "Idempotency-Key": `k-${crypto.randomUUID()}` };
    expect((await call("GET", `/v1/candidates/${alias}`, { token: account.token })).status).toBe(404);
    expect(
      (await call("POST", "/v1/events", { token: account.token, json: { candidate_alias: alias, type: "x" } })).status,
    ).toBe(404);
    expect(
      (
        await call("POST", "/v1/events", {
          token: account.token,
          json: { candidate_alias: alias, type: "x" },
          headers: key,
        })
      ).status,
    ).toBe(404);
    expect(
      (await call("POST", `/v1/candidates/${alias}/resolve`, { token: account.token, json: { outcome: "FAILED" } }))
        .status,
    ).toBe(404);
    expect(await userTables(alias)).toEqual([]);
    const size = await inCandidate(alias, (_i, state) => state.storage.sql.databaseSize);
    const fresh = await inCandidate(freshAlias("untouched"), (_i, state) => state.storage.sql.databaseSize);
    expect(size).toBe(fresh);
  });

  it("gets its tables with its candidate", async () => {
    const account = await createAccount();
    const alias = freshAlias();
    await client(account).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    expect((await userTables(alias)).sort()).toEqual(TABLES);
  });
});

/** Every table of the object with its columns and indexes, as SQLite describes them. */
const tableShapes = (alias: string) =>
  inCandidate(alias, (_i, state) => {
    const sql = state.storage.sql;
    const tables = sql.exec<{ name: string }>(`${USER_TABLES} ORDER BY name`).toArray();
    return tables.map(({ name }) => ({
      name,
      columns: sql.exec(`SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)`, name).toArray(),
      indexes: sql.exec(`SELECT name, "unique", origin FROM pragma_index_list(?) ORDER BY name`, name).toArray(),
    }));
  });

describe("a new candidate's tables", () => {
  it("are what every migration in turn leaves, column by column, at the current version", async () => {
    const account = await createAccount();
    const created = freshAlias("current");
    await client(account).post("/v1/candidates", {
      customer_uuid: "c",
      candidate_alias: created,
      contract: contract(),
    });
    const migrated = freshAlias("migrated");
    await inCandidate(migrated, (_i, state) => state.storage.transactionSync(() => migrate(state.storage.sql, 0)));
    const shapes = await tableShapes(created);
    expect(shapes.map((t) => t.name)).toEqual(TABLES);
    expect(shapes.find((t) => t.name === "candidate")!.columns.map((c) => c.name)).toContain("index_bookmark");
    expect(shapes).toEqual(await tableShapes(migrated));
    expect(await schemaVersion(created)).toBe(SCHEMA_VERSION);
  });
});

const schemaVersion = (alias: string) =>
  inCandidate(
    alias,
    (_i, state) => state.storage.sql.exec<{ version: number }>(`SELECT version FROM schema_version`).one().version,
  );

describe("an object made by an earlier version", () => {
  // What earlier versions of this code left, none of which recorded a schema version.
  const shapes = {
    "before the outbox": ["outbox", "condition_progress"],
    "at version 1, before condition progress": ["condition_progress"],
    "at version 2, with every table": [],
  };

  for (const [shape, missing] of Object.entries(shapes)) {
    it(`${shape}, is brought to the current version when next loaded, and keeps what it had`, async () => {
      const account = await createAccount();
      const api = client(account);
      const alias = freshAlias("old-shape");
      await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
      const first = okBody(await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 5 })).event;
      await inCandidate(alias, (_i, state) => {
        for (const table of [...missing, "schema_version"]) state.storage.sql.exec(`DROP TABLE ${table}`);
        state.storage.sql.exec(`ALTER TABLE candidate DROP COLUMN index_bookmark`); // added by migration 3
      });
      await evictDurableObject(objectOf(alias));

      // An event that fulfils the condition needs every table: its progress, its notification.
      const fulfilling = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
      expectStatus(fulfilling, 201);
      expect(fulfilling.body.candidate.status).toBe("PENDING");
      expect((await userTables(alias)).sort()).toEqual(TABLES);
      expect(await schemaVersion(alias)).toBe(SCHEMA_VERSION);

      const read = okBody(await api.get(`/v1/candidates/${alias}`));
      expect(read.events.map((e) => e.id)).toEqual([first.id, fulfilling.body.event.id]);
      expect(read.condition_progress.leaves).toEqual([
        expect.objectContaining({ satisfied: true, event_id: fulfilling.body.event.id }),
      ]);
      const feed = okBody(await api.get(`/v1/notifications?candidate_alias=${alias}`)).data;
      expect(feed.map((n) => n.type)).toEqual(["candidate.pending"]);
    });
  }

  it("that recorded an older version, gets the migrations after it when next loaded", async () => {
    const account = await createAccount();
    const api = client(account);
    const alias = freshAlias("recorded-old");
    await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    await inCandidate(alias, (_i, state) => {
      state.storage.sql.exec(`DROP TABLE condition_progress`);
      state.storage.sql.exec(`ALTER TABLE candidate DROP COLUMN index_bookmark`);
      state.storage.sql.exec(`UPDATE schema_version SET version = 1`);
    });
    await evictDurableObject(objectOf(alias));

    const fulfilling = await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    expectStatus(fulfilling, 201);
    expect(await schemaVersion(alias)).toBe(SCHEMA_VERSION);
    expect(okBody(await api.get(`/v1/candidates/${alias}`)).condition_progress.leaves).toEqual([
      expect.objectContaining({ satisfied: true, event_id: fulfilling.body.event.id }),
    ]);
  });

  it("at a version newer than this code knows (a deploy rolled back), is used as it is", async () => {
    const account = await createAccount();
    const api = client(account);
    const alias = freshAlias("newer");
    await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec(`UPDATE schema_version SET version = ?`, SCHEMA_VERSION + 1),
    );
    await evictDurableObject(objectOf(alias));
    expect(
      okBody(await api.post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 })).candidate.status,
    ).toBe("PENDING");
    expect(await schemaVersion(alias)).toBe(SCHEMA_VERSION + 1);
  });
});

describe("the settled status", () => {
  it("only moves forward: a save after an await never writes back a window end the alarm persisted", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const alias = freshAlias();
    await inCandidate(alias, async (instance) => {
      // The create awaits its D1 index write; meanwhile the activity window (1 ms) ends and the
      // alarm persists it. The create's own save after the await must not undo that.
      const creating = (instance as unknown as CandidateRpc).create({
        accountId: account.id,
        shard: account.shard,
        alias,
        customerUuid: "c",
        schemaId: null,
        metadata: {},
        contract: contract({ activity_window: 0.001, review_window: 60 }) as never,
      });
      clock.set(t0 + 5);
      await instance.alarm();
      await creating;
    });
    const settled = await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec(`SELECT settled_status, settled_since FROM candidate`).one(),
    );
    expect(settled).toEqual({ settled_status: "PENDING", settled_since: t0 + 1 });
  });
});

describe("the settled status, saved with an earlier instant", () => {
  it("stays where it is", async () => {
    const account = await createAccount();
    const clock = useClock();
    const t0 = clock.now();
    const alias = freshAlias();
    await client(account).post("/v1/candidates", {
      customer_uuid: "c",
      candidate_alias: alias,
      contract: contract({ activity_window: 1, review_window: 60 }),
    });
    clock.set(t0 + 2000);
    const settled = await inCandidate(alias, async (instance: any) => {
      await instance.alarm(); // persists PENDING at t0 + 1000
      instance.settleStoreAndArm(instance.load(), t0); // a store that carries an instant from before the window end
      return instance.ctx.storage.sql.exec(`SELECT settled_status, settled_since FROM candidate`).one();
    });
    expect(settled).toEqual({ settled_status: "PENDING", settled_since: t0 + 1000 });
  });
});

describe("Idempotency-Key records", () => {
  it("are dated by the key's claim in the candidate's object too: one expiry decides both", async () => {
    const account = await createAccount();
    const api = client(account);
    const alias = freshAlias();
    await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const key = `k-${crypto.randomUUID()}`;
    const res = await call("POST", "/v1/events", {
      token: account.token,
      json: { candidate_alias: alias, type: "x" },
      headers: { "Idempotency-Key": key },
    });
    expect(res.status).toBe(201);
    const held = await inKeyStore(account.id, key, (sql) =>
      sql.exec(`SELECT created_at FROM idempotency_keys WHERE account_id = ? AND key = ?`, account.id, key).one(),
    );
    const object = await inCandidate(alias, (_i, state) =>
      state.storage.sql.exec(`SELECT created_at FROM requests WHERE key = ?`, key).one(),
    );
    expect(object.created_at).toBe(held.created_at);

    // An object asked with a later claim judges the key's age by that claim, not by its own clock.
    const rpc = (stub: unknown) => stub as CandidateRpc;
    const claimedAt = (held.created_at as number) + 24 * 3_600_000;
    const later = await inCandidate(alias, (instance) =>
      rpc(instance).recordEvent(
        account.id,
        { type: "y", hasValue: false },
        { key, fingerprint: "another request", claimedAt },
      ),
    );
    expect(later.ok).toBe(true);
  });
});

describe("a lone keyed event's result", () => {
  const keyedEvent = (token: string, alias: string, key: string) =>
    call("POST", "/v1/events", {
      token,
      json: { candidate_alias: alias, type: "purchase", value: 150 },
      headers: { "Idempotency-Key": key },
    });

  /** A new candidate and a fulfilling event sent to it under a fresh key. */
  const firstKeyedEvent = async () => {
    const account = await createAccount();
    const alias = freshAlias();
    await client(account).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    const key = `k-${crypto.randomUUID()}`;
    return { account, alias, key, first: await keyedEvent(account.token, alias, key) };
  };

  it("is a head row and an item row, the shape every version reads, and is replayed from them", async () => {
    const { account, alias, key, first } = await firstKeyedEvent();
    expect(first.status).toBe(201);
    const rows = await inCandidate(alias, (_i, state) =>
      state.storage.sql
        .exec<{ key: string; result: string }>(
          `SELECT key, result FROM requests WHERE key LIKE ? ORDER BY key`,
          `${key}%`,
        )
        .toArray(),
    );
    // Code rolled back to before 2026-11-24 reads the head's count, then that many item rows.
    expect(rows.map((r) => r.key)).toEqual([key, `${key}\u00000`]);
    expect(JSON.parse(rows[0].result)).toEqual({ ok: true, count: 1 });
    const item = JSON.parse(rows[1].result) as { ok: boolean; body: string };
    expect([item.ok, JSON.parse(item.body)]).toEqual([true, first.body]);

    // The key's object lost its record (as after a failure it released): the candidate's rows answer.
    await inKeyStore(account.id, key, (sql) => sql.exec(`DELETE FROM idempotency_keys WHERE key = ?`, key));
    const again = await keyedEvent(account.token, alias, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("stored in the head row alone (as on 2026-11-24), is still replayed", async () => {
    const { account, alias, key, first } = await firstKeyedEvent();
    const body = first.body;
    await inCandidate(alias, (_i, state) => {
      const sql = state.storage.sql;
      const item = sql.exec<{ result: string }>(`SELECT result FROM requests WHERE key = ?`, `${key}\u00000`).one();
      const only = JSON.parse(item.result) as unknown;
      sql.exec(`UPDATE requests SET result = ? WHERE key = ?`, JSON.stringify({ ok: true, count: 1, only }), key);
      sql.exec(`DELETE FROM requests WHERE key = ?`, `${key}\u00000`);
    });
    await inKeyStore(account.id, key, (sql) => sql.exec(`DELETE FROM idempotency_keys WHERE key = ?`, key));
    const again = await keyedEvent(account.token, alias, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(body);
    const read = okBody(await client(account).get(`/v1/candidates/${alias}`));
    expect(read.events).toHaveLength(1);
  });
});
