/** Finding one of the account's schemas by the id a request names: for the schema routes and a candidate's create. */
import { ApiError } from "../../errors/api-error";
import * as db from "../../db/schemas";
import { isUuid } from "../../domain/uuid";
import type { D1 } from "../../shards";

export function schemaNotFound(id: string) {
  return new ApiError("SCHEMA_NOT_FOUND", `No schema with id '${id}' exists in this account.`);
}

/** The stored form of a schema id; an id that is not a UUID names no schema (404, not 400). */
export function schemaKey(id: string): string {
  if (!isUuid(id)) throw schemaNotFound(id);
  return id.toLowerCase();
}

/** The account's schema with this id, or SCHEMA_NOT_FOUND (also for another account's id). */
export async function requireSchema(database: D1, accountId: string, id: string) {
  const schema = await db.getSchema(database, accountId, schemaKey(id));
  if (!schema) throw schemaNotFound(id);
  return schema;
}
