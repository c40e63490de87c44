/** /v1/schemas: reusable contract templates, stored in D1. */
import { createRoute, z } from "@hono/zod-openapi";
import { ContractSchema } from "../domain/contract";
import { ApiError } from "../errors";
import * as db from "../db/schemas";
import {
  BODY_ERRORS,
  createRouter,
  errorResponses,
  POST_ERRORS,
  SchemaSchema,
  withJsonBody,
  withPostBody,
} from "./models";

const iso = (ms: number) => new Date(ms).toISOString();

const schemaView = (s: db.SchemaRecord) => ({
  id: s.id,
  user_id: s.accountId,
  contract: s.contract,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function schemaNotFound(id: string) {
  return new ApiError("SCHEMA_NOT_FOUND", `No schema with id '${id}' exists in this account.`);
}

/** The stored form of a schema id; an id that is not a UUID names no schema (404, not 400). */
function schemaKey(id: string): string {
  if (!UUID.test(id)) throw schemaNotFound(id);
  return id.toLowerCase();
}

/** The account's schema with this id, or SCHEMA_NOT_FOUND (also for another account's id). */
export async function requireSchema(database: D1Database, accountId: string, id: string) {
  const schema = await db.getSchema(database, accountId, schemaKey(id));
  if (!schema) throw schemaNotFound(id);
  return schema;
}

const SchemaBody = z.strictObject({ contract: ContractSchema }).openapi("SchemaBody");
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }) });
const schemaResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: SchemaSchema } },
});

const create = createRoute({
  method: "post",
  path: "/",
  tags: ["Schemas"],
  summary: "Create a schema",
  ...withPostBody(SchemaBody),
  responses: { 201: schemaResponse("The new schema."), ...errorResponses(...POST_ERRORS, "SCHEMA_LIMIT_REACHED") },
});

const list = createRoute({
  method: "get",
  path: "/",
  tags: ["Schemas"],
  summary: "List schemas, newest first",
  responses: {
    200: {
      description: "All schemas of the account, newest first.",
      content: { "application/json": { schema: z.object({ data: z.array(SchemaSchema) }) } },
    },
    ...errorResponses(),
  },
});

const get = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["Schemas"],
  summary: "Get a schema",
  request: { params: IdParam },
  responses: { 200: schemaResponse("The schema."), ...errorResponses("SCHEMA_NOT_FOUND") },
});

const update = createRoute({
  method: "patch",
  path: "/{id}",
  tags: ["Schemas"],
  summary: "Replace a schema's contract (extension)",
  description: "Existing candidates keep the contract they were created with.",
  ...withJsonBody(SchemaBody, { params: IdParam }),
  responses: { 200: schemaResponse("The updated schema."), ...errorResponses(...BODY_ERRORS, "SCHEMA_NOT_FOUND") },
});

const remove = createRoute({
  method: "delete",
  path: "/{id}",
  tags: ["Schemas"],
  summary: "Delete a schema (extension)",
  description: "Existing candidates keep the contract they were created with.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted." }, ...errorResponses("SCHEMA_NOT_FOUND") },
});

export const schemasRouter = createRouter()
  .openapi(create, async (c) => {
    const { contract } = c.req.valid("json");
    const schema = await db.insertSchema(c.env.DB, c.var.accountId, contract, Date.now());
    if (!schema) {
      throw new ApiError("SCHEMA_LIMIT_REACHED", `An account can hold at most ${db.MAX_SCHEMAS_PER_ACCOUNT} schemas.`);
    }
    return c.json(schemaView(schema), 201);
  })
  .openapi(list, async (c) => {
    const schemas = await db.listSchemas(c.env.DB, c.var.accountId);
    return c.json({ data: schemas.map(schemaView) }, 200);
  })
  .openapi(get, async (c) => {
    const schema = await requireSchema(c.env.DB, c.var.accountId, c.req.valid("param").id);
    return c.json(schemaView(schema), 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const { contract } = c.req.valid("json");
    const schema = await db.updateSchema(c.env.DB, c.var.accountId, schemaKey(id), contract, Date.now());
    if (!schema) throw schemaNotFound(id);
    return c.json(schemaView(schema), 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const deleted = await db.deleteSchema(c.env.DB, c.var.accountId, schemaKey(id));
    if (!deleted) throw schemaNotFound(id);
    return c.body(null, 204);
  });
