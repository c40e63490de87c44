/** /v1/schemas: reusable contract templates, stored in D1. */
import { characters, notBlank, plainLine, plainLineMessage } from "../domain/text";
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import { ContractSchema } from "../domain/contract";
import { jsonKind, type JsonStream, type JsonText } from "../domain/json";
import { isoTime } from "../domain/iso-time";
import { isUuid } from "../domain/uuid";
import { ApiError } from "../errors/api-error";
import * as db from "../db/schemas";
import { contractExample, schemaExample } from "./shared/examples";
import { requireSchema, schemaKey, schemaNotFound } from "./shared/schema-lookup";
import { changeOnce, unlessAnswered } from "../idempotency";
import {
  BODY_ERRORS,
  createRouter,
  errorResponses,
  jsonResponse,
  POST_ERRORS,
  sendJsonText,
  withJsonBody,
  withPostBody,
  READS_ACCOUNT_DATA,
} from "./shared/openapi";
import { CursorSchema, PageLimitSchema, unknownCursor, whenOtherwiseValid } from "./shared/params";
import { SchemaView } from "../models";
import { accountDb, readOrAskPrimary } from "../account-db";
import type { D1 } from "../shards";

type SchemaPageView = { data: SchemaView[]; next_cursor: string | null };

/** A schema as the API shows it, with its contract spliced in as the text it is stored as. */
function schemaJson(row: db.SchemaRow) {
  const [before, after] = [
    { id: row.id, user_id: row.account_id, name: row.name },
    { created_at: isoTime(row.created_at), updated_at: isoTime(row.updated_at) },
  ];
  return `${JSON.stringify(before).slice(0, -1)},"contract":${row.contract},${JSON.stringify(after).slice(1)}` as JsonText<SchemaView>;
}

/**
 * Schemas read from D1 at a time while a page streams: bounds the Worker's memory (64 KiB each at
 * most: 6.4 MiB a chunk) while all 1,000 of an account take 10 queries (the Free plan allows 50).
 */
const CHUNK_SIZE = 100;

/**
 * A page of the account's schemas, newest first, after the schema `afterId` (a stored id) if
 * given, as one JSON body streamed chunk by chunk from D1, so the Worker holds at most one chunk
 * however large the page. Each read takes one schema more than it shows, to know whether more
 * follow. The first chunk is read before the response starts, so a cursor the account does not
 * have (null) or a failing database is still a clean error.
 */
async function schemaPageStream(
  database: D1,
  accountId: string,
  afterId: string | undefined,
  limit: number,
): Promise<JsonStream<SchemaPageView> | null> {
  const encoder = new TextEncoder();
  let remaining = limit;
  /** How many of the next read are shown: it reads one more. */
  const want = () => Math.min(CHUNK_SIZE, remaining);
  const first =
    afterId === undefined
      ? await db.schemaPage(database, accountId, null, want() + 1)
      : await db.schemaPageAfterId(database, accountId, afterId, want() + 1);
  if (first === null) return null;
  let rows: db.SchemaRow[] = first;
  let separator = "";
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`{"data":[`));
    },
    async pull(controller) {
      const shown = rows.slice(0, want());
      const more = rows.length > shown.length; // the extra row: a schema follows the last shown
      remaining -= shown.length;
      if (shown.length > 0) controller.enqueue(encoder.encode(separator + shown.map(schemaJson).join(",")));
      separator = ",";
      const last = shown[shown.length - 1];
      if (!more || remaining === 0) {
        controller.enqueue(encoder.encode(`],"next_cursor":${JSON.stringify(more ? last.id : null)}}`));
        controller.close();
        return;
      }
      try {
        rows = await db.schemaPage(database, accountId, { createdAt: last.created_at, id: last.id }, want() + 1);
      } catch (error) {
        console.error(`schema list of account ${accountId} failed midway`, error);
        controller.error(error); // the client sees a truncated body, never a partial page as whole
      }
    },
  }) as JsonStream<SchemaPageView>;
}

const MAX_SCHEMA_NAME = 100;
/**
 * A schema's name: 1 to 100 characters, counted as Unicode code points (as JSON Schema's
 * `maxLength` counts them, so an emoji is one), or null for none.
 */
const NameSchema = z
  .string({
    error: (issue) =>
      `must be a string of 1 to ${MAX_SCHEMA_NAME} characters, or null; received ${jsonKind(issue.input)}`,
  })
  .min(1, { error: "must not be empty: send null for no name" })
  .refine(notBlank, { error: "must not be only spaces: send null for no name", abort: true })
  .refine(plainLine, { error: (issue) => plainLineMessage(issue.input) })
  .refine((name) => characters(name) <= MAX_SCHEMA_NAME, {
    error: (issue) => `must be at most ${MAX_SCHEMA_NAME} characters; received ${characters(issue.input as string)}`,
  })
  .nullable()
  .openapi({
    minLength: 1,
    maxLength: MAX_SCHEMA_NAME,
    description: "For people: one line, without control or bidirectional formatting characters.",
    example: "Purchase of 100 or more",
  });

const NameField = NameSchema.optional().openapi({ description: "1 to 100 characters; null or left out for none." });
const SchemaBody = z
  .strictObject({ contract: ContractSchema, name: NameField })
  .openapi("SchemaBody", { example: { contract: contractExample, name: schemaExample.name } });
const UpdateSchemaBody = z
  .strictObject({
    contract: ContractSchema.optional().openapi({ description: "Replaces the contract; left out, it stays as it is." }),
    name: NameSchema.optional().openapi({
      description: "Replaces the name (null: none); left out, it stays as it is.",
    }),
  })
  .refine((body) => body.contract !== undefined || body.name !== undefined, {
    message: "must change at least one field: `contract` or `name`; received neither",
    ...whenOtherwiseValid,
  })
  .openapi("UpdateSchemaBody", { minProperties: 1, example: { name: "Purchase of 100 or more, renamed" } });
const ListQuery = z.strictObject({
  after: CursorSchema.optional().openapi({
    description: "The `next_cursor` of the previous page.",
    example: schemaExample.id,
  }),
  // The interface lists every schema for a request with no parameters; `limit` pages (an extension).
  limit: PageLimitSchema.optional().openapi({
    description: `Schemas per page, 1 to 100. Left out: every schema after \`after\` (an account holds at most ${db.MAX_SCHEMAS_PER_ACCOUNT}).`,
  }),
});
const IdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", example: schemaExample.id }),
});
const schemaResponse = (description: string, replayable = false) =>
  jsonResponse(description, SchemaView, schemaExample, { replayable, bookmark: true });

const create = createRoute("schemas:write", {
  method: "post",
  path: "/",
  operationId: "createSchema",
  tags: ["Schemas"],
  summary: "Create a schema",
  ...withPostBody(SchemaBody),
  responses: {
    201: schemaResponse("The new schema.", true),
    ...errorResponses(...POST_ERRORS, "SCHEMA_LIMIT_REACHED"),
  },
});

const list = createRoute("schemas:read", {
  method: "get",
  path: "/",
  operationId: "listSchemas",
  tags: ["Schemas"],
  summary: "List schemas, newest first",
  description:
    "Newest first, ties broken by id. With no `limit`, every schema (`next_cursor` null). " +
    "`next_cursor` is the id of the page's last schema when more follow, else null; " +
    "an `after` that is not the id of one of the account's schemas (one deleted since included) is refused.",
  ...READS_ACCOUNT_DATA,
  request: { query: ListQuery },
  responses: {
    200: jsonResponse(
      "A page of schemas; pass `next_cursor` as `after` for the next one.",
      z.object({ data: z.array(SchemaView), next_cursor: z.string().uuid().nullable() }),
      { data: [schemaExample], next_cursor: schemaExample.id },
      { bookmark: true },
    ),
    ...errorResponses("VALIDATION_ERROR"),
  },
});

const get = createRoute("schemas:read", {
  method: "get",
  path: "/{id}",
  operationId: "getSchema",
  tags: ["Schemas"],
  summary: "Get a schema",
  ...READS_ACCOUNT_DATA,
  request: { params: IdParam },
  responses: { 200: schemaResponse("The schema."), ...errorResponses("VALIDATION_ERROR", "SCHEMA_NOT_FOUND") },
});

const update = createRoute("schemas:write", {
  method: "patch",
  path: "/{id}",
  operationId: "updateSchema",
  tags: ["Schemas"],
  summary: "Change a schema's contract or name (extension)",
  description:
    "Changes the fields given, at least one of `contract` and `name`. Existing candidates keep the contract they were created with.",
  ...withJsonBody(UpdateSchemaBody, { request: { params: IdParam } }),
  responses: { 200: schemaResponse("The updated schema."), ...errorResponses(...BODY_ERRORS, "SCHEMA_NOT_FOUND") },
});

const remove = createRoute("schemas:write", {
  method: "delete",
  path: "/{id}",
  operationId: "deleteSchema",
  tags: ["Schemas"],
  summary: "Delete a schema (extension)",
  description: "Existing candidates keep the contract they were created with.",
  request: { params: IdParam },
  responses: {
    204: { description: "Deleted.", headers: jsonResponse("", SchemaView, undefined, { bookmark: true }).headers },
    ...errorResponses("SCHEMA_NOT_FOUND"),
  },
});

export const schemasRouter = createRouter()
  .openapi(create, async (c) => {
    const { contract, name } = c.req.valid("json");
    const { row, statement } = db.insertSchemaStatement(
      accountDb(c),
      c.get("accountId"),
      contract,
      name ?? null,
      Date.now(),
      unlessAnswered(c.get("accountId"), c.get("idempotency")),
    );
    const body = schemaJson(row);
    // With an Idempotency-Key, the schema is made only if no request with the key made one, and
    // its answer is stored in the same transaction: neither a crash before the key's outcome is
    // recorded nor a retry that took the key over can create the schema twice.
    const done = await changeOnce(c, accountDb(c), statement, {
      body,
      madeIf: { sql: "EXISTS (SELECT 1 FROM schemas WHERE id = ?)", params: [row.id] },
    });
    if ("earlier" in done) return sendJsonText(c, done.earlier as JsonText<SchemaView>, 201);
    if (done.changed.meta.changes !== 1) {
      throw new ApiError("SCHEMA_LIMIT_REACHED", `An account can hold at most ${db.MAX_SCHEMAS_PER_ACCOUNT} schemas.`);
    }
    return sendJsonText(c, body, 201);
  })
  .openapi(list, async (c) => {
    const { after, limit } = c.req.valid("query");
    // A malformed cursor names no schema: refused like any other, without a query.
    const page =
      after === undefined || isUuid(after)
        ? await readOrAskPrimary(
            c,
            (db) => schemaPageStream(db, c.get("accountId"), after?.toLowerCase(), limit ?? Infinity),
            (page) => page !== null,
          )
        : null;
    if (!page) {
      throw unknownCursor(after!, "this account's schema list (while its schema exists)");
    }
    return sendJsonText(c, page, 200);
  })
  .openapi(get, async (c) => {
    const schema = await requireSchema(c, c.req.valid("param").id);
    return sendJsonText(c, schemaJson(schema), 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const schema = await db.updateSchema(
      accountDb(c),
      c.get("accountId"),
      schemaKey(id),
      c.req.valid("json"),
      Date.now(),
    );
    if (!schema) throw schemaNotFound(id);
    return sendJsonText(c, schemaJson(schema), 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const deleted = await db.deleteSchema(accountDb(c), c.get("accountId"), schemaKey(id));
    if (!deleted) throw schemaNotFound(id);
    return c.body(null, 204);
  });
