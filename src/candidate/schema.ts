/**
 * A candidate object's SQLite schema, versioned: an ordered list of migrations, and the version an
 * object's tables are at, kept in its one-row `schema_version` table (Durable Objects refuse
 * `PRAGMA user_version`). A new candidate gets its tables at the current version at its creation
 * (createCurrentTables); an object made by an earlier version gets the migrations it lacks when it
 * is next loaded, in one transaction.
 *
 * Migrations only add (tables, columns, indexes): while a deploy rolls out, or if it is rolled
 * back, code that knows fewer migrations keeps working on an object that had more.
 */

/**
 * Migration i brings an object to version i + 1. Append only; never edit one that has shipped.
 * The first two create only what is missing (IF NOT EXISTS): objects made before versions were
 * kept run them over whatever tables they have.
 */
const MIGRATIONS: readonly string[] = [
  // 1: the candidate, its events, the results of keyed changes, the outbox.
  `CREATE TABLE IF NOT EXISTS candidate (
    singleton       INTEGER PRIMARY KEY CHECK (singleton = 1),
    record          TEXT NOT NULL,
    satisfied_mask  INTEGER NOT NULL,
    settled_status  TEXT NOT NULL,
    settled_since   INTEGER NOT NULL,
    indexed_version INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS events (
    seq         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL,
    type        TEXT NOT NULL,
    value       TEXT,
    received_at INTEGER NOT NULL,
    matched     INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS requests (
    account_id  TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at  INTEGER NOT NULL, -- a header key's claim instant; an item key's own
    result      TEXT NOT NULL,
    PRIMARY KEY (account_id, key)
  );
  -- Notifications recorded with the change that caused them, until the D1 feed and the queue
  -- have them (flushed).
  CREATE TABLE IF NOT EXISTS outbox (
    id      TEXT PRIMARY KEY,
    type    TEXT NOT NULL,
    payload TEXT NOT NULL,
    flushed INTEGER NOT NULL DEFAULT 0
  );`,
  // 2: the event that first satisfied each leaf of the condition (leaf: its index in the compiled
  // condition), so the single read shows what is met and by what. NULLs: a leaf met before
  // progress was kept, by an event no longer to be found (recorded so the search runs once).
  `CREATE TABLE IF NOT EXISTS condition_progress (
    leaf         INTEGER PRIMARY KEY,
    event_id     TEXT,
    satisfied_at INTEGER
  );`,
  // 3: the bookmark of the object's last confirmed write to the D1 index, which a replayed change
  // answers while no write is owed. NULL until the next index write. Unlike 1 and 2 it runs once:
  // tables made by any version before it lack the column.
  `ALTER TABLE candidate ADD COLUMN index_bookmark TEXT;`,
];

/** The version this code brings every object to. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The version of the object's tables: null when it has none (no candidate: an object stores
 * nothing until its candidate is created), 0 when it was made before versions were kept.
 */
export function schemaVersion(sql: SqlStorage): number | null {
  const tables = new Set(
    sql
      .exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('candidate', 'schema_version')`,
      )
      .toArray()
      .map((t) => t.name),
  );
  if (!tables.has("candidate")) return null;
  if (!tables.has("schema_version")) return 0;
  return sql.exec<{ version: number }>(`SELECT version FROM schema_version`).one().version;
}

/**
 * Runs the migrations after version `from`, and records the version reached; call inside a
 * transaction. An object made before versions were kept (`from` 0) may be at any shape up to
 * version 2 (without the outbox, without condition_progress, or with every table): every
 * migration runs, the first two adding only the tables it lacks.
 */
export function migrate(sql: SqlStorage, from: number) {
  for (const migration of MIGRATIONS.slice(from)) sql.exec(migration);
  recordVersion(sql);
}

/**
 * A new candidate's tables, at the current version: what every migration would leave, made
 * without an ALTER TABLE. SQLite checks the whole schema again after one, and migration 3's cost a
 * new candidate about a fifth of its create's CPU. The candidate table is made first at its
 * current shape, so migration 1's `IF NOT EXISTS` passes over it. Call inside a transaction. A
 * migration that changes a table must change it here too: test/object/storage.test.ts compares
 * the two, column by column.
 */
export function createCurrentTables(sql: SqlStorage) {
  sql.exec(
    `CREATE TABLE candidate (
      singleton       INTEGER PRIMARY KEY CHECK (singleton = 1),
      record          TEXT NOT NULL,
      satisfied_mask  INTEGER NOT NULL,
      settled_status  TEXT NOT NULL,
      settled_since   INTEGER NOT NULL,
      indexed_version INTEGER NOT NULL,
      index_bookmark  TEXT
    );` +
      MIGRATIONS[0] +
      MIGRATIONS[1],
  );
  recordVersion(sql);
}

function recordVersion(sql: SqlStorage) {
  sql.exec(
    `CREATE TABLE IF NOT EXISTS schema_version (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version INTEGER NOT NULL);
     INSERT OR REPLACE INTO schema_version (singleton, version) VALUES (1, ?)`,
    SCHEMA_VERSION,
  );
}
