/** Typed D1 queries for the schemas table. */
import { uuidv7 } from "uuidv7";
import type { Contract } from "../domain/contract";

export const MAX_SCHEMAS_PER_ACCOUNT = 1000;

export interface SchemaRecord {
  id: string;
  accountId: string;
  contract: Contract;
  createdAt: number;
  updatedAt: number;
}

interface SchemaRow {
  id: string;
  account_id: string;
  contract: string;
  created_at: number;
  updated_at: number;
}

const fromRow = (row: SchemaRow): SchemaRecord => ({
  id: row.id,
  accountId: row.account_id,
  contract: JSON.parse(row.contract) as Contract,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Creates a schema unless the account already holds the maximum; null when it does. */
export async function insertSchema(db: D1Database, accountId: string, contract: Contract, now: number) {
  const record: SchemaRecord = { id: uuidv7(), accountId, contract, createdAt: now, updatedAt: now };
  // One statement, so two concurrent creates cannot both pass the limit.
  const result = await db
    .prepare(
      `INSERT INTO schemas (id, account_id, contract, created_at, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?4
       WHERE (SELECT COUNT(*) FROM schemas WHERE account_id = ?2) < ?5`,
    )
    .bind(record.id, accountId, JSON.stringify(contract), now, MAX_SCHEMAS_PER_ACCOUNT)
    .run();
  return result.meta.changes === 1 ? record : null;
}

export async function listSchemas(db: D1Database, accountId: string): Promise<SchemaRecord[]> {
  const { results } = await db
    .prepare(`SELECT * FROM schemas WHERE account_id = ? ORDER BY created_at DESC, id DESC`)
    .bind(accountId)
    .all<SchemaRow>();
  return results.map(fromRow);
}

export async function getSchema(db: D1Database, accountId: string, id: string) {
  const row = await db
    .prepare(`SELECT * FROM schemas WHERE account_id = ? AND id = ?`)
    .bind(accountId, id)
    .first<SchemaRow>();
  return row ? fromRow(row) : null;
}

export async function newestSchema(db: D1Database, accountId: string) {
  const row = await db
    .prepare(`SELECT * FROM schemas WHERE account_id = ? ORDER BY created_at DESC, id DESC LIMIT 1`)
    .bind(accountId)
    .first<SchemaRow>();
  return row ? fromRow(row) : null;
}

export async function updateSchema(db: D1Database, accountId: string, id: string, contract: Contract, now: number) {
  const row = await db
    .prepare(`UPDATE schemas SET contract = ?, updated_at = ? WHERE account_id = ? AND id = ? RETURNING *`)
    .bind(JSON.stringify(contract), now, accountId, id)
    .first<SchemaRow>();
  return row ? fromRow(row) : null;
}

/** True when a schema was deleted. */
export async function deleteSchema(db: D1Database, accountId: string, id: string): Promise<boolean> {
  const result = await db.prepare(`DELETE FROM schemas WHERE account_id = ? AND id = ?`).bind(accountId, id).run();
  return result.meta.changes === 1;
}
