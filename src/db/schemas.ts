/** Typed D1 queries for the schemas table. Contracts stay the JSON text they are stored as. */
import { uuidv7 } from "uuidv7";
import type { Contract } from "../domain/contract";
import type { JsonText } from "../domain/json";
import type { SqlFragment } from "./idempotency";
import type { D1 } from "../shards";

export const MAX_SCHEMAS_PER_ACCOUNT = 1000;

export interface SchemaRow {
  id: string;
  account_id: string;
  contract: JsonText<Contract>;
  name: string | null;
  created_at: number;
  updated_at: number;
}

export const parseContract = (row: SchemaRow) => JSON.parse(row.contract) as Contract;

/**
 * The statement that creates a schema unless the account already holds the maximum (one
 * statement, so two concurrent creates cannot both pass the limit), and, given `onlyIf`, only
 * while that holds (no answer of the request's Idempotency-Key stored yet); `changes` is 0 when
 * it creates nothing.
 */
export function insertSchemaStatement(
  db: D1,
  accountId: string,
  contract: Contract,
  name: string | null,
  now: number,
  onlyIf?: SqlFragment,
) {
  const row: SchemaRow = {
    id: uuidv7(),
    account_id: accountId,
    contract: JSON.stringify(contract) as JsonText<Contract>,
    name,
    created_at: now,
    updated_at: now,
  };
  const statement = db
    .prepare(
      `INSERT INTO schemas (id, account_id, contract, name, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?6, ?4, ?4
       WHERE (SELECT COUNT(*) FROM schemas WHERE account_id = ?2) < ?5${onlyIf ? ` AND ${onlyIf.sql}` : ""}`,
    )
    .bind(row.id, accountId, row.contract, now, MAX_SCHEMAS_PER_ACCOUNT, name, ...(onlyIf?.params ?? []));
  return { row, statement };
}

/** Where a page of the newest-first list starts: after this schema. */
export interface SchemaCursor {
  createdAt: number;
  id: string;
}

/** The list's pages, newest first (ties by id), each a range of schemas_by_account in its order. */
export const SCHEMA_PAGE_SQL = {
  first: `SELECT * FROM schemas WHERE account_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2`,
  /** After a schema whose place is known: ?3 created_at, ?4 id. */
  afterPlace: `SELECT * FROM schemas WHERE account_id = ?1 AND (created_at, id) < (?3, ?4) ORDER BY created_at DESC, id DESC LIMIT ?2`,
  /** After the account's schema with id ?3, its place read in the same statement (none: no rows). */
  afterId: `SELECT * FROM schemas WHERE account_id = ?1
    AND (created_at, id) < (SELECT created_at, id FROM schemas WHERE account_id = ?1 AND id = ?3)
    ORDER BY created_at DESC, id DESC LIMIT ?2`,
};

/** A page of the account's schemas, newest first (ties by id), after `cursor`. */
export async function schemaPage(db: D1, accountId: string, cursor: SchemaCursor | null, limit: number) {
  const statement = cursor
    ? db.prepare(SCHEMA_PAGE_SQL.afterPlace).bind(accountId, limit, cursor.createdAt, cursor.id)
    : db.prepare(SCHEMA_PAGE_SQL.first).bind(accountId, limit);
  return (await statement.all<SchemaRow>()).results;
}

/**
 * A page after the account's schema with id `afterId` (stored form), or null when the account
 * has no such schema (another account's, deleted, never made). One batch: the check and the page
 * see the same state.
 */
export async function schemaPageAfterId(
  db: D1,
  accountId: string,
  afterId: string,
  limit: number,
): Promise<SchemaRow[] | null> {
  const [found, page] = await db.batch<SchemaRow>([
    db.prepare(`SELECT id FROM schemas WHERE account_id = ? AND id = ?`).bind(accountId, afterId),
    db.prepare(SCHEMA_PAGE_SQL.afterId).bind(accountId, limit, afterId),
  ]);
  return found.results.length > 0 ? page.results : null;
}

export async function getSchema(db: D1, accountId: string, id: string) {
  return db.prepare(`SELECT * FROM schemas WHERE account_id = ? AND id = ?`).bind(accountId, id).first<SchemaRow>();
}

export async function newestSchema(db: D1, accountId: string) {
  return (await schemaPage(db, accountId, null, 1))[0] ?? null;
}

/** What a PATCH changes: the fields given, at least one; the others stay as they are. */
export interface SchemaChange {
  contract?: Contract;
  name?: string | null;
}

export async function updateSchema(db: D1, accountId: string, id: string, change: SchemaChange, now: number) {
  const sets: string[] = [];
  const params: (string | null)[] = [];
  if (change.contract !== undefined) {
    sets.push("contract = ?");
    params.push(JSON.stringify(change.contract));
  }
  if (change.name !== undefined) {
    sets.push("name = ?");
    params.push(change.name);
  }
  return db
    .prepare(`UPDATE schemas SET ${[...sets, "updated_at = ?"].join(", ")} WHERE account_id = ? AND id = ? RETURNING *`)
    .bind(...params, now, accountId, id)
    .first<SchemaRow>();
}

/** True when a schema was deleted. */
export async function deleteSchema(db: D1, accountId: string, id: string): Promise<boolean> {
  const result = await db.prepare(`DELETE FROM schemas WHERE account_id = ? AND id = ?`).bind(accountId, id).run();
  return result.meta.changes === 1;
}
