/**
 * A local D1 database that `wrangler dev` serves, opened straight from its SQLite file with
 * Node's own SQLite, behind the part of the D1 binding's interface src/operator/store.ts uses.
 * Milliseconds to open, where Miniflare (a workerd process) takes about a second and `wrangler d1
 * execute` several. Only for when no `npm run dev` has the database open.
 *
 * Where the file is: Miniflare keeps a D1 database as the Durable Object
 * `miniflare-D1DatabaseObject` named by the database id, in
 * `.wrangler/state/v3/d1/miniflare-D1DatabaseObject/<object id>.sqlite`, and workerd derives an
 * object's id from its name as below (its `idFromName`).
 */
import { createHash, createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { d1Bindings } from "./d1-bindings.ts";

const OBJECT_DIR = ".wrangler/state/v3/d1/miniflare-D1DatabaseObject";

/** The D1 id wrangler names a binding's local database by. */
function localDatabaseId(binding: string): string {
  const found = d1Bindings().find((d) => d.binding === binding);
  if (!found) throw new Error(`wrangler.toml has no D1 database bound as ${binding}`);
  return found.localId;
}

/** workerd's id for the object named `name` in the namespace with `uniqueKey`. */
function objectIdFromName(uniqueKey: string, name: string): string {
  const key = createHash("sha256").update(uniqueKey).digest();
  const head = createHmac("sha256", key).update(name).digest().subarray(0, 16);
  const tail = createHmac("sha256", key).update(head).digest().subarray(0, 16);
  return Buffer.concat([head, tail]).toString("hex");
}

/** The file of a binding's local database (the primary, `DB`, unless told). */
export const localDatabaseFile = (binding = "DB") =>
  `${OBJECT_DIR}/${objectIdFromName("miniflare-D1DatabaseObject", localDatabaseId(binding))}.sqlite`;

type Row = Record<string, unknown>;

class Statement {
  readonly db: DatabaseSync;
  readonly sql: string;
  readonly values: SQLInputValue[];
  constructor(db: DatabaseSync, sql: string, values: SQLInputValue[] = []) {
    this.db = db;
    this.sql = sql;
    this.values = values;
  }
  bind(...values: unknown[]) {
    return new Statement(this.db, this.sql, values as SQLInputValue[]);
  }
  async all<T = Row>() {
    return this.allSync<T>();
  }
  allSync<T = Row>() {
    return { results: this.db.prepare(this.sql).all(...this.values) as T[], success: true, meta: { changes: 0 } };
  }
  async first<T = Row>(column?: string) {
    const row = (this.db.prepare(this.sql).get(...this.values) as Row | undefined) ?? null;
    return (row && column !== undefined ? row[column] : row) as T | null;
  }
  async run() {
    return this.runSync();
  }
  runSync() {
    const { changes } = this.db.prepare(this.sql).run(...this.values);
    return { results: [], success: true, meta: { changes: Number(changes) } };
  }
}

/** A binding's local database (the primary unless told), or null when it does not exist yet (`npm run dev` or a migration makes it). */
export async function openLocalD1(binding = "DB"): Promise<{ db: D1Database; close: () => void } | null> {
  const file = localDatabaseFile(binding);
  if (!existsSync(file)) return null;
  // node:sqlite warns that it is experimental when loaded; this tool's output stays its own.
  const emitWarning = process.emitWarning;
  process.emitWarning = () => {};
  const { DatabaseSync } = await import("node:sqlite").finally(() => (process.emitWarning = emitWarning));
  const sqlite = new DatabaseSync(file);
  // As D1: foreign keys enforced; and wait out a lock another process holds briefly.
  sqlite.exec("PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000");
  const db = {
    prepare: (sql: string) => new Statement(sqlite, sql),
    // As D1's batch: every statement or none, in one transaction.
    async batch(statements: Statement[]) {
      sqlite.exec("BEGIN IMMEDIATE");
      try {
        const results = statements.map((s) => (/^\s*(SELECT|WITH)\b/i.test(s.sql) ? s.allSync() : s.runSync()));
        sqlite.exec("COMMIT");
        return results;
      } catch (error) {
        sqlite.exec("ROLLBACK");
        throw error;
      }
    },
  };
  return { db: db as unknown as D1Database, close: () => sqlite.close() };
}
