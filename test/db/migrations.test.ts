/**
 * Migrations are additive: a database written by earlier versions (migrations up to 0003, rows as
 * that code wrote them) takes the new ones, and its candidates are then counted and billed right.
 */
import { describe, expect, it } from "vitest";
import { applyD1Migrations, createExecutionContext, env } from "cloudflare:test";
import worker from "../../src/index";
import { insertAccountWithToken } from "../../src/db/accounts";

const db = () => env.LEGACY_DB;

describe("a database from before notifications and billing", () => {
  it("migrates, keeps its rows, and bills them exactly", async () => {
    const [before, after] = [env.TEST_MIGRATIONS.filter((m) => m.name < "0004"), env.TEST_MIGRATIONS.filter((m) => m.name >= "0004")];
    expect(before.map((m) => m.name)).toEqual(["0001_initial.sql", "0002_idempotency_keys.sql", "0003_status_filter_on_index.sql"]);
    await applyD1Migrations(db(), before);

    const account = await insertAccountWithToken(db(), "legacy");
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
    ];
    for (const [alias, price, openUntil, pendingUntil, final] of rows) {
      const contract = `{"price":${price},"activity_window":60,"review_window":60,"fulfillment_condition":{"event":"e"},"timeout_outcome":"fail"}`;
      await insert.bind(crypto.randomUUID(), account.id, `legacy-${alias}`, "cust", contract, now - 180_000, openUntil, pendingUntil, final).run();
    }

    await applyD1Migrations(db(), after);
    const migrated = await db().prepare(`SELECT alias, price_units, price_scale, settled_status FROM candidates ORDER BY alias`).all();
    expect(migrated.results).toEqual([
      { alias: "legacy-confirmed-1", price_units: 2, price_scale: 1, settled_status: "OPEN" },
      { alias: "legacy-confirmed-2", price_units: 1200, price_scale: 0, settled_status: "OPEN" },
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
      CONFIRMED: { count: 2, amount: "1200.2" },
      FAILED: { count: 0, amount: "0" },
    });
    const confirmed = await worker.fetch(
      new Request("https://api.test/v1/candidates?status=CONFIRMED", { headers: { Authorization: `Bearer ${account.token}` } }),
      { ...env, DB: db() },
      createExecutionContext(),
    );
    expect(((await confirmed.json()) as any).data.map((c: any) => c.candidate_alias).sort()).toEqual(["legacy-confirmed-1", "legacy-confirmed-2"]);
  });
});
