/**
 * Migrations are additive: a database written by earlier versions (migrations up to 0003, rows as
 * that code wrote them) takes the new ones, and its candidates are then counted and billed right.
 */
import { describe, expect, it } from "vitest";
import { applyD1Migrations, createExecutionContext, env } from "cloudflare:test";
import worker from "../../src/index";
import { insertAccountWithToken } from "../../src/db/accounts";
import { mintToken } from "../../src/tokens";
import { PERMISSIONS } from "../../src/domain/permissions";

const db = () => env.LEGACY_DB;

/** An account and its token as the code of before API keys wrote them (0001's columns). */
async function legacyAccount(name: string) {
  const [id, tokenId] = [crypto.randomUUID(), crypto.randomUUID()];
  const { token, hash, prefix } = await mintToken();
  await db().batch([
    db().prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, ?, 0)`).bind(id, name),
    db()
      .prepare(`INSERT INTO api_tokens (id, account_id, token_hash, prefix, created_at) VALUES (?, ?, ?, ?, 0)`)
      .bind(tokenId, id, hash, prefix),
  ]);
  return { id, tokenId, token, prefix };
}

describe("a database from before notifications and billing", () => {
  it("migrates, keeps its rows, and bills them exactly", async () => {
    const upTo = (last: string) => env.TEST_MIGRATIONS.filter((m) => m.name.slice(0, 4) <= last);
    const [before, after] = [upTo("0003"), env.TEST_MIGRATIONS.filter((m) => m.name.slice(0, 4) > "0003")];
    expect(before.map((m) => m.name)).toEqual([
      "0001_initial.sql",
      "0002_idempotency_keys.sql",
      "0003_status_filter_on_index.sql",
    ]);
    await applyD1Migrations(db(), before);

    const account = await legacyAccount("legacy");
    const now = Date.now();
    const insert = db().prepare(
      `INSERT INTO candidates (id, account_id, alias, customer_uuid, schema_id, contract, created_at, open_until, pending_until, final_status, version)
       VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, 1)`,
    );
    // As the old code stored them: the contract JSON text (price first), the timeline.
    const rows: [string, string, number, number, "CONFIRMED" | "FAILED"][] = [
      ["open-1", "0.1", now + 3_600_000, now + 7_200_000, "FAILED"],
      ["open-2", "1e-7", now + 3_600_000, now + 7_200_000, "FAILED"],
      ["pending-1", "12345678.9", now - 60_000, now + 3_600_000, "CONFIRMED"],
      ["confirmed-1", "0.2", now - 120_000, now - 60_000, "CONFIRMED"],
      ["confirmed-2", "1200", now - 120_000, now - 60_000, "CONFIRMED"],
      // Accepted before prices had bounds: more than an integer of units holds unless normalised.
      ["confirmed-3", "100000000000000000000", now - 120_000, now - 60_000, "CONFIRMED"],
    ];
    for (const [alias, price, openUntil, pendingUntil, final] of rows) {
      const contract = `{"price":${price},"activity_window":60,"review_window":60,"fulfillment_condition":{"event":"e"},"timeout_outcome":"fail"}`;
      await insert
        .bind(
          crypto.randomUUID(),
          account.id,
          `legacy-${alias}`,
          "cust",
          contract,
          now - 180_000,
          openUntil,
          pendingUntil,
          final,
        )
        .run();
    }
    // A schema from before names: it has none.
    const schemaId = crypto.randomUUID();
    await db()
      .prepare(`INSERT INTO schemas (id, account_id, contract, created_at, updated_at) VALUES (?, ?, ?, 0, 0)`)
      .bind(
        schemaId,
        account.id,
        `{"price":1,"activity_window":60,"review_window":60,"fulfillment_condition":{"event":"e"},"timeout_outcome":"fail"}`,
      )
      .run();

    await applyD1Migrations(
      db(),
      after.filter((m) => m.name.slice(0, 4) <= "0005"),
    );
    // A webhook endpoint rotated as of migration 0004: one previous secret.
    await db()
      .prepare(
        `INSERT INTO webhook_endpoints (id, account_id, url, enabled_events, status, secret, previous_secret, previous_expires_at, created_at, updated_at)
         VALUES (?, ?, 'https://example.com', '[]', 'enabled', 'whsec_new', 'whsec_old', 99, 0, 0)`,
      )
      .bind(crypto.randomUUID(), account.id)
      .run();
    await applyD1Migrations(db(), after);
    // Its account's data stays where it is: the primary is its shard (migration 0015).
    expect(await db().prepare(`SELECT shard FROM accounts WHERE id = ?`).bind(account.id).first("shard")).toBe("DB");
    const endpoint = await db()
      .prepare(`SELECT retired_secrets FROM webhook_endpoints WHERE account_id = ?`)
      .bind(account.id)
      .first<{ retired_secrets: string }>();
    expect(JSON.parse(endpoint!.retired_secrets)).toEqual([{ secret: "whsec_old", until: 99 }]);
    const migrated = await db()
      .prepare(`SELECT alias, price_units, price_scale, settled_status FROM candidates ORDER BY alias`)
      .all();
    expect(migrated.results).toEqual([
      { alias: "legacy-confirmed-1", price_units: 2, price_scale: 1, settled_status: "OPEN" },
      { alias: "legacy-confirmed-2", price_units: 12, price_scale: -2, settled_status: "OPEN" },
      { alias: "legacy-confirmed-3", price_units: 1, price_scale: -20, settled_status: "OPEN" },
      { alias: "legacy-open-1", price_units: 1, price_scale: 1, settled_status: "OPEN" },
      { alias: "legacy-open-2", price_units: 1, price_scale: 7, settled_status: "OPEN" },
      { alias: "legacy-pending-1", price_units: 123456789, price_scale: 1, settled_status: "OPEN" },
    ]);

    // The service, on this database: exact at once, before any sweep has settled a row.
    const res = await worker.fetch(
      new Request("https://api.test/v1/summary", { headers: { Authorization: `Bearer ${account.token}` } }),
      { ...env, DB: db() },
      createExecutionContext(),
    );
    const summary = (await res.json()) as any;
    expect(summary).toMatchObject({
      OPEN: { count: 2, amount: "0.1000001" },
      PENDING: { count: 1, amount: "12345678.9", scheduled_confirmed: { count: 1, amount: "12345678.9" } },
      CONFIRMED: { count: 3, amount: "100000000000000001200.2" },
      FAILED: { count: 0, amount: "0" },
    });
    const confirmed = await worker.fetch(
      new Request("https://api.test/v1/candidates?status=CONFIRMED", {
        headers: { Authorization: `Bearer ${account.token}` },
      }),
      { ...env, DB: db() },
      createExecutionContext(),
    );
    expect(((await confirmed.json()) as any).data.map((c: any) => c.candidate_alias).sort()).toEqual([
      "legacy-confirmed-1",
      "legacy-confirmed-2",
      "legacy-confirmed-3",
    ]);
    const schemas = await worker.fetch(
      new Request("https://api.test/v1/schemas", { headers: { Authorization: `Bearer ${account.token}` } }),
      { ...env, DB: db() },
      createExecutionContext(),
    );
    expect(await schemas.json()).toMatchObject({
      data: [{ id: schemaId, name: null, contract: { price: 1 } }],
      next_cursor: null,
    });
    // Its token is now a full-access key that never expires, named and shown by what was kept of it.
    const keys = await worker.fetch(
      new Request("https://api.test/v1/api_keys", { headers: { Authorization: `Bearer ${account.token}` } }),
      { ...env, DB: db() },
      createExecutionContext(),
    );
    expect(await keys.json()).toMatchObject({
      data: [
        {
          id: account.tokenId,
          name: "Key created 1970-01-01",
          redacted: `${account.prefix}…`,
          permissions: [...PERMISSIONS],
          expires_at: null,
          status: "active",
        },
      ],
      next_cursor: null,
    });
  });

  it("takes index writes from the Worker of before (no price parts) while a deploy rolls out", async () => {
    await applyD1Migrations(db(), env.TEST_MIGRATIONS); // all of them (idempotent)
    const account = await insertAccountWithToken(db(), "rolling");
    await db()
      .prepare(
        `INSERT INTO candidates (id, account_id, alias, customer_uuid, schema_id, contract, created_at, open_until, pending_until,
                                 final_status, version, settled_status)
         VALUES (?, ?, 'rolling-1', 'c', NULL, '{"price":2.5,"activity_window":60}', 0, 1, 2, 'FAILED', 1, 'OPEN')`,
      )
      .bind(crypto.randomUUID(), account.id)
      .run();
    const row = await db().prepare(`SELECT price_units, price_scale FROM candidates WHERE alias = 'rolling-1'`).first();
    expect(row).toEqual({ price_units: 25, price_scale: 1 });
    const totals = await db()
      .prepare(`SELECT count, units_lo, price_scale FROM candidate_totals WHERE account_id = ? AND customer_uuid = ''`)
      .bind(account.id)
      .all();
    expect(totals.results).toEqual([{ count: 1, units_lo: 25, price_scale: 1 }]);
  });
});
