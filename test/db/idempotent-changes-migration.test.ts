/**
 * Migration 0014 moves Idempotency-Keys off D1: the successes recorded in idempotency_keys before
 * it become the stored answers of keyed D1 changes, so a schema or endpoint made before the
 * deploy still replays; outcomes that were no success, and claims still running, are left.
 * Migration 0020 then drops the old table.
 */
import { describe, expect, it } from "vitest";
import { applyD1Migrations, env } from "cloudflare:test";

describe("migration 0014", () => {
  it("keeps the successes recorded under keys as stored answers", async () => {
    const db = env.LEGACY_DB;
    await applyD1Migrations(
      db,
      env.TEST_MIGRATIONS.filter((m) => m.name < "0014"),
    );
    const insert = db.prepare(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, created_at, locked_until, status, body) VALUES ('a', ?, ?, 5, ?, ?, ?)`,
    );
    await db.batch([
      insert.bind("made", "f1", null, 201, `{"id":"s1"}`),
      insert.bind("refused", "f2", null, 409, `{"error":{}}`),
      insert.bind("running", "f3", 99, null, null),
    ]);
    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    const { results } = await db.prepare(`SELECT * FROM idempotent_changes`).all();
    expect(results).toEqual([{ account_id: "a", key: "made", fingerprint: "f1", created_at: 5, body: `{"id":"s1"}` }]);
    // 0020 drops the old table, which nothing reads since.
    const left = await db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'idempotency_keys%'`).all();
    expect(left.results).toEqual([]);
  });
});
