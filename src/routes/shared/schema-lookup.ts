/** Finding one of the account's schemas by the id a request names: for the schema routes and a candidate's create. */
import { ApiError, quoted } from "../../errors/api-error";
import * as db from "../../db/schemas";
import { isUuid } from "../../domain/uuid";
import type { Context } from "hono";
import { readOrAskPrimary } from "../../account-db";
import type { AppEnv } from "../../app-env";

export function schemaNotFound(id: string) {
  return new ApiError("SCHEMA_NOT_FOUND", `No schema with id ${quoted(id)} exists in this account.`);
}

/** The stored form of a schema id; an id that is not a UUID names no schema (404, not 400). */
export function schemaKey(id: string): string {
  if (!isUuid(id)) throw schemaNotFound(id);
  return id.toLowerCase();
}

/** The account's schema with this id, or SCHEMA_NOT_FOUND (also for another account's id). */
export async function requireSchema(c: Context<AppEnv>, id: string) {
  const key = schemaKey(id);
  const schema = await readOrAskPrimary(c, (database) => db.getSchema(database, c.get("accountId"), key), Boolean);
  if (!schema) throw schemaNotFound(id);
  return schema;
}
