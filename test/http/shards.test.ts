/**
 * Shards (docs/scale.md): the first two accounts of this file go on SHARD_0 and SHARD_1 (the
 * shard with the fewest accounts, the first on a tie), each sees exactly its own data, all of it on
 * its own database; the crons and the queue consumers reach both shards; an account from before
 * shards keeps being served from the primary, and so do objects, queue messages and deliveries
 * made before shards.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createScheduledController, env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import worker from "../../src/index";
import { SWEEP_CRON } from "../../src/notifications/sweep";
import { chooseShard } from "../../src/db/accounts";
import { accountDatabases, shardDb, shardNames, UnknownShardError, type ShardName } from "../../src/shards";
import type { NotificationMessage } from "../../src/notifications/fanout";
import {
  call,
  client,
  contract,
  createAccount,
  createLegacyAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  okBody,
  type Schemas,
  type TestAccount,
} from "../support/api";
import { iso, useClock } from "../support/clock";
import { attempts, endpoint, handOff, received, runAttempts, waitForReceived } from "../support/webhooks";

const ACCOUNT_TABLES = [
  "schemas",
  "candidates",
  "notifications",
  "webhook_endpoints",
  "webhook_deliveries",
  "idempotent_changes",
];
const DAY = 24 * 3_600_000;

/** How many rows of `table` the account has on each database. */
async function rowsByDatabase(account: TestAccount, table: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const shard of accountDatabases(env)) {
    counts[shard] = (await shardDb(env, shard)
      .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?`)
      .bind(account.id)
      .first<number>("n"))!;
  }
  return counts;
}

/** The account's rows are on its own database, and on no other. */
async function expectDataOnItsShard(account: TestAccount, tables = ACCOUNT_TABLES) {
  for (const table of tables) {
    const counts = await rowsByDatabase(account, table);
    expect(counts[account.shard], `${table} on ${account.shard}`).toBeGreaterThan(0);
    for (const [shard, n] of Object.entries(counts))
      if (shard !== account.shard) expect(n, `${table} on ${shard}`).toBe(0);
  }
}

interface Populated {
  schemaId: string;
  aliases: string[];
  hook: Awaited<ReturnType<typeof endpoint>>;
}

/**
 * A schema, an endpoint, and one candidate per price (newest last): the first made PENDING by an
 * event, the second confirmed by a resolve, the rest OPEN. Keyed POSTs, so the account has the
 * stored answer of a keyed D1 change too (the schema's; the keys themselves live in objects).
 */
async function populate(account: TestAccount, prices: string[]): Promise<Populated> {
  const post = (path: string, json: unknown) =>
    call("POST", path, { token: account.token, json, headers: { "Idempotency-Key": crypto.randomUUID() } });
  const hook = await endpoint(account);
  const schema = await post("/v1/schemas", { contract: contract() });
  expectStatus(schema, 201);
  const aliases: string[] = [];
  for (const price of prices) {
    const alias = freshAlias("shard");
    const raw = JSON.stringify({
      customer_uuid: "c",
      candidate_alias: alias,
      contract: contract({ price: 0 }),
    }).replace('"price":0', `"price":${price}`);
    expect(
      (
        await call("POST", "/v1/candidates", {
          token: account.token,
          raw,
          headers: { "Content-Type": "application/json" },
        })
      ).status,
    ).toBe(201);
    aliases.push(alias);
  }
  expect((await post("/v1/events", { candidate_alias: aliases[0], type: "purchase", value: 150 })).status).toBe(201);
  expect((await post(`/v1/candidates/${aliases[1]}/resolve`, { outcome: "CONFIRMED" })).status).toBe(200);
  return { schemaId: schema.body.id, aliases, hook };
}

/** Waits until the endpoint has `count` deliveries logged as succeeded. */
const logged = (account: TestAccount, endpointId: string, count: number) =>
  vi.waitUntil(
    async () => {
      const log = await attempts(account, endpointId);
      return log.filter((a: any) => a.status === "succeeded").length >= count ? log : false;
    },
    { timeout: 8000, interval: 50 },
  );

let a: TestAccount;
let b: TestAccount;
let ofA: Populated;
let ofB: Populated;

beforeAll(async () => {
  a = await createAccount("on shard 0");
  b = await createAccount("on shard 1");
  ofA = await populate(a, ["10", "2.5", "0.25"]);
  ofB = await populate(b, ["7", "1.75"]);
});

let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void errorLog.push(args.map(String).join(" ")));
});
afterEach(() => vi.restoreAllMocks());

describe("placing accounts", () => {
  it("puts each new account on the shard with the fewest, records it in the primary and anchors it on its shard", async () => {
    // wrangler.toml's shards (2 as shipped; the suite passes with a shard added as the README says).
    const names = shardNames(env);
    expect(names.length).toBeGreaterThanOrEqual(2);
    expect(names).toEqual(names.map((_, i) => `SHARD_${i}`));
    expect([a.shard, b.shard]).toEqual(["SHARD_0", "SHARD_1"]);
    const recorded = await env.DB.prepare(`SELECT id, shard FROM accounts WHERE id IN (?, ?) ORDER BY shard`)
      .bind(a.id, b.id)
      .all();
    expect(recorded.results).toEqual([
      { id: a.id, shard: "SHARD_0" },
      { id: b.id, shard: "SHARD_1" },
    ]);
    // The anchor of each shard's foreign keys: the account's row, on its shard only.
    const anchored = async (shard: ShardName) =>
      (await shardDb(env, shard).prepare(`SELECT id FROM accounts WHERE id IN (?, ?)`).bind(a.id, b.id).all()).results;
    expect(await anchored("SHARD_0")).toEqual([{ id: a.id }]);
    expect(await anchored("SHARD_1")).toEqual([{ id: b.id }]);
    // A shard just added takes the new accounts until it has caught up; none configured: the primary.
    expect(await chooseShard(env.DB, ["SHARD_0", "SHARD_1", "SHARD_2"])).toBe("SHARD_2");
    expect(await chooseShard(env.DB, [])).toBe("DB");
  });

  it("takes N from the bindings, and refuses shards with a gap", () => {
    expect(shardNames({ DB: {}, SHARD_1: {}, SHARD_0: {}, SHARD_2: {}, OTHER: {} })).toEqual([
      "SHARD_0",
      "SHARD_1",
      "SHARD_2",
    ]);
    expect(() => shardNames({ SHARD_0: {}, SHARD_2: {} })).toThrow(
      /SHARD_0 \.\. SHARD_1, without gaps; wrangler.toml has SHARD_0, SHARD_2/,
    );
  });

  it("reaches a database only by a shard's name that is a binding of the Worker's own", async () => {
    expect(shardDb(env, "SHARD_1")).toBe(env.SHARD_1);
    expect(shardDb(env, "DB")).toBe(env.DB);
    for (const name of [
      "ASSETS",
      "IDEMPOTENCY_KEYS",
      "__proto__",
      "constructor",
      "toString",
      "SHARD_9",
      "SHARD_01",
      "",
      null,
      1,
    ]) {
      expect(() => shardDb(env, name), String(name)).toThrow(UnknownShardError);
    }
    // An account whose recorded shard is no such binding fails at authentication, saying why.
    const broken = await createAccount();
    await env.DB.prepare(`UPDATE accounts SET shard = 'ASSETS' WHERE id = ?`).bind(broken.id).run();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await call("GET", "/v1/schemas", { token: broken.token });
    const logged = errors.mock.calls.flat().map(String).join("\n");
    errors.mockRestore();
    expectStatus(res, 500);
    expect(res.body.error.code).toBe("INTERNAL_ERROR");
    expect(logged).toMatch(/"ASSETS" is no shard of this Worker/);
  });
});

describe("two accounts on two shards", () => {
  it("each see exactly their own lists, summaries, feed and deliveries, all kept on their own shard", async () => {
    const aliasesOf = async (account: TestAccount, query?: string) =>
      okBody(await client(account).get(query === undefined ? "/v1/candidates" : `/v1/candidates?${query}`)).data.map(
        (c) => c.candidate_alias,
      );
    expect(await aliasesOf(a)).toEqual([...ofA.aliases].reverse());
    expect(await aliasesOf(b)).toEqual([...ofB.aliases].reverse());
    expect(await aliasesOf(a, "status=PENDING")).toEqual([ofA.aliases[0]]);
    expect(await aliasesOf(b, "status=CONFIRMED")).toEqual([ofB.aliases[1]]);

    const summary = async (account: TestAccount) => {
      // The totals (no group_by): one of the two shapes the document gives the answer.
      const { as_of: _asOf, ...rest } = okBody(await client(account).get("/v1/summary")) as Schemas["Summary"];
      return rest;
    };
    const none = { count: 0, amount: "0" };
    expect(await summary(a)).toEqual({
      customer_uuid: null,
      status_since_gte: null,
      status_since_lt: null,
      OPEN: { count: 1, amount: "0.25" },
      PENDING: { count: 1, amount: "10", scheduled_confirmed: { count: 1, amount: "10" } },
      CONFIRMED: { count: 1, amount: "2.5" },
      FAILED: none,
    });
    expect(await summary(b)).toEqual({
      customer_uuid: null,
      status_since_gte: null,
      status_since_lt: null,
      OPEN: none,
      PENDING: { count: 1, amount: "7", scheduled_confirmed: { count: 1, amount: "7" } },
      CONFIRMED: { count: 1, amount: "1.75" },
      FAILED: none,
    });
    const csv = (await call("GET", "/v1/candidates/export", { token: b.token })).body as string;
    expect(
      csv
        .trim()
        .split("\r\n")
        .slice(1)
        .map((line) => line.split(",")[0]),
    ).toEqual([...ofB.aliases].reverse());

    const feed = async (account: TestAccount) =>
      okBody(await client(account).get("/v1/notifications")).data.map((n: any) => [
        n.type,
        n.data.candidate.candidate_alias,
      ]);
    expect(await feed(a)).toEqual([
      ["candidate.pending", ofA.aliases[0]],
      ["candidate.confirmed", ofA.aliases[1]],
    ]);
    expect(await feed(b)).toEqual([
      ["candidate.pending", ofB.aliases[0]],
      ["candidate.confirmed", ofB.aliases[1]],
    ]);

    // Each endpoint gets its own account's two notifications, and logs them on its own shard.
    for (const [account, { hook, aliases }] of [
      [a, ofA],
      [b, ofB],
    ] as const) {
      const got = await waitForReceived(hook.name, 2);
      expect(got.map((r) => JSON.parse(r.body).data.candidate.candidate_alias).sort()).toEqual(
        aliases.slice(0, 2).sort(),
      );
      expect(await logged(account, hook.id, 2)).toHaveLength(2);
    }
    await expectDataOnItsShard(a);
    await expectDataOnItsShard(b);
  });

  it("never reach each other's data by its ids", async () => {
    const [feedOfA] = okBody(await client(a).get("/v1/notifications")).data;
    expect((await client(b).get(`/v1/schemas/${ofA.schemaId}`)).status).toBe(404);
    expect((await client(b).get(`/v1/notifications/${feedOfA.id}`)).status).toBe(404);
    expect((await client(b).get(`/v1/webhook_endpoints/${ofA.hook.id}/deliveries`)).status).toBe(404);
    expect((await client(b).get(`/v1/candidates/${ofA.aliases[0]}`)).status).toBe(404);
    expect(
      (await client(b).get(`/v1/candidates?after=${okBody(await client(a).get("/v1/candidates")).data[0].id}`)).status,
    ).toBe(400);
  });
});

describe("the crons and queues on every shard", () => {
  it("the sweep settles a candidate whose alarm never came, on each shard", async () => {
    const clock = useClock();
    const t0 = clock.now();
    const due: Record<string, string> = {};
    for (const account of [a, b]) {
      const alias = freshAlias("swept");
      await client(account).post("/v1/candidates", {
        customer_uuid: "c",
        candidate_alias: alias,
        contract: contract({ activity_window: 60, review_window: 600 }),
      });
      await inCandidate(alias, (_i, state) => state.storage.deleteAlarm()); // as if lost while the service was down
      due[account.id] = alias;
    }
    clock.set(t0 + 60_000 + 45_000);
    await worker.scheduled(createScheduledController({ cron: SWEEP_CRON }), env);
    for (const account of [a, b]) {
      const feed = okBody(await client(account).get(`/v1/notifications?candidate_alias=${due[account.id]}`)).data;
      expect(feed.map((n: any) => [n.type, n.timestamp])).toEqual([["candidate.pending", iso(t0 + 60_000)]]);
      const indexed = await shardDb(env, account.shard)
        .prepare(`SELECT settled_status FROM candidates WHERE alias = ?`)
        .bind(due[account.id])
        .first();
      expect(indexed).toEqual({ settled_status: "PENDING" });
    }
  });

  it("a notification message naming the second shard is fanned out there", async () => {
    const [pending] = okBody(await client(b).get("/v1/notifications")).data;
    const deliveriesOf = async () =>
      (await received(ofB.hook.name)).filter((r) => r.headers["webhook-id"] === pending.id).length;
    const before = await deliveriesOf();
    await env.NOTIFICATIONS.send({
      id: pending.id,
      account_id: b.id,
      type: "candidate.pending",
      shard: "SHARD_1",
    } satisfies NotificationMessage);
    await vi.waitUntil(async () => (await deliveriesOf()) === before + 1, { timeout: 8000, interval: 50 });
  });

  it("the purge takes what aged out on each shard and on the primary, and keeps each feed's newest", async () => {
    const answers = async (account: TestAccount, now: number) =>
      (await shardDb(env, account.shard)
        .prepare(`SELECT COUNT(*) AS n FROM idempotent_changes WHERE account_id = ? AND created_at <= ?`)
        .bind(account.id, now - DAY)
        .first<number>("n"))!;
    const old = async (account: TestAccount, now: number) => ({
      answers: await answers(account, now),
      attempts: (await shardDb(env, account.shard)
        .prepare(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE account_id = ? AND attempted_at <= ?`)
        .bind(account.id, now - 30 * DAY)
        .first<number>("n"))!,
      notifications: (await rowsByDatabase(account, "notifications"))[account.shard],
    });
    // An account from before shards keeps its keyed changes' answers on the primary.
    const legacy = await createLegacyAccount();
    const keyed = await call("POST", "/v1/schemas", {
      token: legacy.token,
      json: { contract: contract() },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    expectStatus(keyed, 201);
    const clock = useClock(Date.now() + 31 * DAY);
    for (const account of [a, b]) {
      const before = await old(account, clock.now());
      expect(before).toMatchObject({ answers: 1, notifications: 3 });
      expect(before.attempts).toBeGreaterThanOrEqual(2);
    }
    expect(await answers(legacy, clock.now())).toBe(1);
    await worker.scheduled(createScheduledController({ cron: "23 * * * *" }), env);
    expect(await old(a, clock.now())).toEqual({ answers: 0, attempts: 0, notifications: 1 });
    expect(await old(b, clock.now())).toEqual({ answers: 0, attempts: 0, notifications: 1 });
    expect(await answers(legacy, clock.now())).toBe(0);
  });
});

describe("an account from before shards", () => {
  it("keeps its data on the primary, served as any other's", async () => {
    const legacy = await createLegacyAccount();
    expect(legacy.shard).toBe("DB");
    const hook = await endpoint(legacy);
    const alias = freshAlias("legacy");
    // Keyed, so the schema's stored answer (idempotent_changes) is among its data too.
    await call("POST", "/v1/schemas", {
      token: legacy.token,
      json: { contract: contract() },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    await client(legacy).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias });
    await call("POST", "/v1/events", {
      token: legacy.token,
      json: { candidate_alias: alias, type: "purchase", value: 150 },
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    expect(
      okBody(await client(legacy).get("/v1/candidates?status=PENDING")).data.map((c: any) => c.candidate_alias),
    ).toEqual([alias]);
    expect((okBody(await client(legacy).get("/v1/summary")) as Schemas["Summary"]).PENDING).toEqual({
      count: 1,
      amount: "10",
      scheduled_confirmed: { count: 1, amount: "10" },
    });
    await waitForReceived(hook.name, 1);
    await logged(legacy, hook.id, 1);
    await expectDataOnItsShard(legacy);
  });

  it("is served from the primary by objects, queue messages and deliveries made before shards", async () => {
    const legacy = await createLegacyAccount();
    const hook = await endpoint(legacy);
    const alias = freshAlias("old-object");
    await client(legacy).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    // The object's record as it was stored before shards: no shard in it.
    await inCandidate(alias, (instance: any, state) => {
      const { shard: _shard, ...record } = JSON.parse(
        state.storage.sql.exec<{ record: string }>(`SELECT record FROM candidate`).one().record,
      );
      state.storage.sql.exec(`UPDATE candidate SET record = ?`, JSON.stringify(record));
      instance.state = undefined; // read again from storage
    });
    await client(legacy).post("/v1/events", { candidate_alias: alias, type: "purchase", value: 150 });
    expect(
      okBody(await client(legacy).get("/v1/candidates?status=PENDING")).data.map((c: any) => c.candidate_alias),
    ).toEqual([alias]);
    const [pending] = okBody(await client(legacy).get("/v1/notifications")).data;
    await waitForReceived(hook.name, 1);

    // A notification message queued before shards: no shard, fanned out from the primary.
    await env.NOTIFICATIONS.send({
      id: pending.id,
      account_id: legacy.id,
      type: "candidate.pending",
    } satisfies NotificationMessage);
    await waitForReceived(hook.name, 2);

    // An endpoint object from before shards: its table without the column, a delivery stored in it.
    const objectOf = () => env.ENDPOINTS.getByName(hook.id);
    await runInDurableObject(objectOf(), (_instance, state) => {
      state.storage.sql.exec(`DROP TABLE deliveries`);
      state.storage.sql.exec(
        `CREATE TABLE deliveries (delivery_id TEXT PRIMARY KEY, notification_id TEXT NOT NULL, account_id TEXT NOT NULL, endpoint_id TEXT NOT NULL,
           attempts INTEGER NOT NULL DEFAULT 0, attempt_id TEXT, due_at INTEGER, ended_at INTEGER, failures INTEGER NOT NULL DEFAULT 0)`,
      );
      state.storage.sql.exec(
        `INSERT INTO deliveries (delivery_id, notification_id, account_id, endpoint_id, due_at) VALUES ('old-delivery', ?, ?, ?, 0)`,
        pending.id,
        legacy.id,
        hook.id,
      );
    });
    await evictDurableObject(objectOf());
    // A delivery message from before shards, handed to it beside the stored one.
    await handOff({
      delivery_id: "old-message",
      notification_id: pending.id,
      account_id: legacy.id,
      endpoint_id: hook.id,
    });
    await runAttempts(hook.id);
    const log = await attempts(legacy, hook.id);
    expect(log.map((x: any) => x.delivery_id).sort()).toEqual(expect.arrayContaining(["old-delivery", "old-message"]));
    expect(log.filter((x: any) => x.delivery_id.startsWith("old-")).every((x: any) => x.status === "succeeded")).toBe(
      true,
    );
    await expectDataOnItsShard(legacy, ["candidates", "notifications", "webhook_endpoints", "webhook_deliveries"]);
    expect(errorLog).toEqual([]);
  });
});
