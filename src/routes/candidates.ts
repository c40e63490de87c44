/** /v1/candidates: create, read, list and resolve candidates. Each lives in its own object. */
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import { ContractSchema, type Contract } from "../domain/contract";
import { MAX_METADATA_KEYS, MetadataSchema } from "../domain/metadata";
import { candidateJson, candidatePageJson } from "../candidate/record";
import { candidateObject } from "../candidate/rpc";
import { newestSchema, parseContract } from "../db/schemas";
import { listCandidates } from "../db/candidates";
import { foldMetadataQuery, LIST_FILTERS, listFilters } from "./shared/candidate-filters";
import { validationError } from "../errors/api-error";
import { noteCandidateAnswer } from "../idempotency";
import { candidateFailure } from "./shared/candidate-failure";
import { requireSchema } from "./shared/schema-lookup";
import {
  candidateExample,
  candidateWithEventsExample,
  contractExample,
  createdCandidateExample,
  resolvedCandidateExample,
} from "./shared/examples";
import { AliasSchema, CursorSchema, unknownCursor, rangesInOrder, DefaultPageLimitSchema } from "./shared/params";
import {
  BODY_ERRORS,
  POST_ERRORS,
  createRouter,
  errorResponses,
  jsonResponse,
  sendJsonText,
  withJsonBody,
  withPostBody,
  READS_ACCOUNT_DATA,
} from "./shared/openapi";
import { CandidateView, CandidateWithEvents } from "../models";
import { accountDb, noteBookmark, readOrAskPrimary } from "../account-db";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";

const CreateBody = z
  .strictObject({
    customer_uuid: z
      .string()
      .min(1)
      .max(255)
      .openapi({ description: "The customer's external_id.", example: "cust_42" }),
    candidate_alias: AliasSchema.openapi({
      description: "Your identifier for the candidate, unique across all accounts.",
    }),
    schema_id: z.string().optional().openapi({ description: "Extension. Take the contract from this schema." }),
    contract: ContractSchema.optional().openapi({ description: "Extension. Give the contract inline." }),
    metadata: MetadataSchema.optional().openapi({
      description: 'Extension. Your own key-value strings (a value of "" is a key not set).',
    }),
  })
  .superRefine((body, ctx) => {
    if (body.schema_id !== undefined && body.contract !== undefined) {
      ctx.addIssue({ code: "custom", path: ["contract"], message: "send either `schema_id` or `contract`, not both" });
    }
  })
  .openapi("CreateCandidateBody", {
    example: { customer_uuid: "cust_42", candidate_alias: "order-2026-0001", contract: contractExample },
    description: "The contract comes from `schema_id`, or `contract`, or else the account's newest schema.",
  });

const AliasParam = z.object({
  candidate_alias: AliasSchema.openapi({ param: { name: "candidate_alias", in: "path" } }),
});

const ListQuery = z
  .strictObject({
    ...LIST_FILTERS,
    after: CursorSchema.min(8).optional().openapi({
      description: "The `next_cursor` of the previous page.",
      example: candidateExample.id,
    }),
    limit: DefaultPageLimitSchema,
  })
  .superRefine(rangesInOrder);

const UpdateBody = z
  .strictObject({
    metadata: MetadataSchema.openapi({
      description: 'Merged into the candidate\'s metadata: a key set to `""` is removed.',
    }),
  })
  .openapi("UpdateCandidateBody", { example: { metadata: { region: "us", order_id: "" } } });

const ResolveBody = z
  .strictObject({ outcome: z.enum(["CONFIRMED", "FAILED"]) })
  .openapi("ResolveBody", { example: { outcome: "CONFIRMED" } });

const candidateResponse = (description: string, example: object) =>
  jsonResponse(description, CandidateView, example, { replayable: true, bookmark: true });

const create = createRoute("candidates:write", {
  method: "post",
  path: "/",
  operationId: "createCandidate",
  tags: ["Candidates"],
  summary: "Create a candidate",
  ...withPostBody(CreateBody, { candidateKeepsResult: true }),
  responses: {
    201: candidateResponse("The new candidate, OPEN.", createdCandidateExample),
    ...errorResponses(...POST_ERRORS, "SCHEMA_NOT_FOUND", "CANDIDATE_ALIAS_TAKEN"),
  },
});

const get = createRoute("candidates:read", {
  method: "get",
  path: "/{candidate_alias}",
  operationId: "getCandidate",
  tags: ["Candidates"],
  summary: "Get a candidate with its events",
  request: { params: AliasParam },
  responses: {
    200: jsonResponse(
      "The candidate as of this instant, with its events.",
      CandidateWithEvents,
      candidateWithEventsExample,
    ),
    ...errorResponses("VALIDATION_ERROR", "CANDIDATE_NOT_FOUND"),
  },
});

const list = createRoute("candidates:read", {
  method: "get",
  path: "/",
  operationId: "listCandidates",
  tags: ["Candidates"],
  summary: "List candidates, newest first",
  middleware: [foldMetadataQuery],
  ...READS_ACCOUNT_DATA,
  request: { query: ListQuery },
  responses: {
    200: jsonResponse(
      "A page of candidates; pass `next_cursor` as `after` for the next one.",
      z.object({ data: z.array(CandidateView), next_cursor: z.string().uuid().nullable() }),
      { data: [candidateExample], next_cursor: candidateExample.id },
      { bookmark: true },
    ),
    ...errorResponses("VALIDATION_ERROR"),
  },
});

const update = createRoute("candidates:write", {
  method: "patch",
  path: "/{candidate_alias}",
  operationId: "updateCandidate",
  tags: ["Candidates"],
  summary: "Change a candidate's metadata (extension)",
  description:
    'Only metadata changes: the contract never does. The changes merge into the metadata; a key set to `""` is removed.',
  ...withJsonBody(UpdateBody, { request: { params: AliasParam } }),
  responses: {
    200: jsonResponse(
      "The candidate, with its metadata as changed.",
      CandidateView,
      { ...createdCandidateExample, metadata: { region: "us" } },
      { bookmark: true },
    ),
    ...errorResponses(...BODY_ERRORS, "CANDIDATE_NOT_FOUND"),
  },
});

const resolve = createRoute("candidates:write", {
  method: "post",
  path: "/{candidate_alias}/resolve",
  operationId: "resolveCandidate",
  tags: ["Candidates"],
  summary: "Make a candidate final now: void, confirm, or end its review (extension)",
  description:
    "The candidate takes `outcome` now, for good. From `PENDING` this ends the review early; from `OPEN` it voids the " +
    "candidate (`FAILED`) or confirms it without review (`CONFIRMED`), and its activity window ends now. One notification, " +
    "with cause `resolved`. A candidate already `CONFIRMED` or `FAILED` is 409 `INVALID_STATE`.",
  ...withPostBody(ResolveBody, { request: { params: AliasParam }, candidateKeepsResult: true }),
  responses: {
    200: candidateResponse("The candidate, now final.", resolvedCandidateExample),
    ...errorResponses(...POST_ERRORS, "CANDIDATE_NOT_FOUND", "INVALID_STATE"),
  },
});

async function contractFor(
  c: Context<AppEnv>,
  body: z.infer<typeof CreateBody>,
): Promise<{ contract: Contract; schemaId: string | null }> {
  if (body.contract) return { contract: body.contract, schemaId: null };
  if (body.schema_id !== undefined) {
    const schema = await requireSchema(c, body.schema_id);
    return { contract: parseContract(schema), schemaId: schema.id };
  }
  const newest = await newestSchema(accountDb(c), c.get("accountId"));
  if (!newest) {
    throw validationError([
      { path: "schema_id", message: "is required: the account has no schema to take the contract from" },
    ]);
  }
  return { contract: parseContract(newest), schemaId: newest.id };
}

/**
 * Creates the candidate with the contract the body gives or names. A keyed retry of a create made
 * before its schema was deleted (or the account's last one) can no longer build that contract: it
 * gets what the candidate answered under its key, not a 404 that would then be kept as the key's.
 */
async function createOrReplay(c: Context<AppEnv>, body: z.infer<typeof CreateBody>) {
  const object = candidateObject(c.env, body.candidate_alias);
  const request = c.get("idempotency");
  let source: Awaited<ReturnType<typeof contractFor>>;
  try {
    source = await contractFor(c, body);
  } catch (error) {
    const earlier = request && (await object.replayCreate(c.get("accountId"), request));
    if (earlier) return earlier;
    throw error;
  }
  return object.create(
    {
      accountId: c.get("accountId"),
      shard: c.get("shard"),
      alias: body.candidate_alias,
      customerUuid: body.customer_uuid,
      ...source,
      metadata: body.metadata ?? {},
    },
    request,
  );
}

export const candidatesRouter = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const result = noteCandidateAnswer(c, await createOrReplay(c, body));
    if (!result.ok) throw candidateFailure(result.code, body.candidate_alias);
    return sendJsonText(c, result.body, 201);
  })
  .openapi(get, async (c) => {
    const { candidate_alias: alias } = c.req.valid("param");
    const result = await candidateObject(c.env, alias).get(c.get("accountId"));
    if (!result.ok) throw candidateFailure(result.code, alias);
    return sendJsonText(c, result.body, 200);
  })
  .openapi(list, async (c) => {
    const query = c.req.valid("query");
    const now = Date.now();
    const page = await readOrAskPrimary(
      c,
      (db) =>
        listCandidates(
          db,
          c.get("accountId"),
          // A cursor is an id, which is lowercase: one written in capitals is the same cursor, as every id.
          { ...listFilters(query), after: query.after?.toLowerCase(), limit: query.limit },
          now,
        ),
      (p) => p.cursorValid,
    );
    if (!page.cursorValid) throw unknownCursor(query.after!, "this account's candidate list");
    return sendJsonText(
      c,
      candidatePageJson(
        page.records.map((r) => candidateJson(r, r.contract, now)),
        page.nextCursor,
      ),
      200,
    );
  })
  .openapi(update, async (c) => {
    const { candidate_alias: alias } = c.req.valid("param");
    const result = await candidateObject(c.env, alias).updateMetadata(c.get("accountId"), c.req.valid("json").metadata);
    noteBookmark(c, result.bookmark);
    if (result.ok) return sendJsonText(c, result.body, 200);
    if (result.code === "METADATA_LIMIT") {
      throw validationError([
        {
          path: "metadata",
          message: `would leave the candidate with ${result.keys} keys; at most ${MAX_METADATA_KEYS} are allowed`,
        },
      ]);
    }
    throw candidateFailure(result.code, alias);
  })
  .openapi(resolve, async (c) => {
    const { candidate_alias: alias } = c.req.valid("param");
    const result = noteCandidateAnswer(
      c,
      await candidateObject(c.env, alias).resolve(
        c.get("accountId"),
        c.req.valid("json").outcome,
        c.get("idempotency"),
      ),
    );
    if (!result.ok) throw candidateFailure(result.code, alias, "status" in result ? result.status : undefined);
    return sendJsonText(c, result.body, 200);
  });
