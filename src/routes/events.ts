/** /v1/events: submit events against candidates, by alias, one at a time or in batches. */
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import canonicalize from "canonicalize";
import { JsonValueSchema, longerThanUtf8, MAX_EVENT_VALUE_BYTES, type JsonText } from "../domain/json";
import type { SubmittedEvent } from "../domain/condition";
import { candidateObject, type CandidateRpc, type EventItem, type EventResult } from "../candidate/rpc";
import { ApiError, docsBaseUrl, errorObject } from "../errors/api-error";
import { sha256Hex } from "../hash";
import { MAX_BATCH_BODY_BYTES } from "../json-body";
import { AliasSchema } from "./shared/params";
import { RecordedEvent } from "../models";
import { createRouter, errorResponses, jsonResponse, POST_ERRORS, sendJsonText, withPostBody } from "./shared/openapi";
import { ErrorBodySchema } from "../errors/error-body";
import { candidateFailure } from "./shared/candidate-failure";
import { candidateExample, eventExample } from "./shared/examples";
import { noteBookmark } from "../account-db";
import { noteCandidateAnswer } from "../idempotency";

export const MAX_BATCH_ITEMS = 100;

const eventFields = {
  candidate_alias: AliasSchema,
  type: z
    .string()
    .min(1)
    .max(255)
    .openapi({ description: "Compared with the `event` of condition leaves.", example: "purchase" }),
  value: JsonValueSchema.optional().openapi({
    description: "Any JSON value, at most 8 KiB serialised.",
    example: { total: 120 },
  }),
};

const valueSizeCheck = (body: { value?: unknown }, ctx: z.RefinementCtx) => {
  const json = Object.hasOwn(body, "value") ? JSON.stringify(body.value) : "";
  if (longerThanUtf8(json, MAX_EVENT_VALUE_BYTES)) {
    ctx.addIssue({
      code: "custom",
      path: ["value"],
      message: `must be at most ${MAX_EVENT_VALUE_BYTES} bytes as JSON; received ${new TextEncoder().encode(json).length} bytes`,
    });
  }
};

const EventBody = z
  .strictObject(eventFields)
  .superRefine(valueSizeCheck)
  .openapi("EventBody", { example: { candidate_alias: "order-2026-0001", type: "purchase", value: { total: 120 } } });

const BatchItem = z
  .strictObject({
    ...eventFields,
    idempotency_key: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({
        description:
          "Makes this item safe to resend: the same key on the same candidate with the same item within 24 hours " +
          "answers the first result and records nothing; with another item, this item's result is 409 IDEMPOTENCY_KEY_REUSED.",
        example: "order-2026-0001-purchase-1",
      }),
  })
  .superRefine(valueSizeCheck)
  .openapi("BatchEventItem");

const BatchBody = z.strictObject({ events: z.array(BatchItem).min(1).max(MAX_BATCH_ITEMS) }).openapi("EventBatchBody", {
  description: `1 to ${MAX_BATCH_ITEMS} events; the body may be up to 1 MiB.`,
  example: {
    events: [
      {
        candidate_alias: "order-2026-0001",
        type: "purchase",
        value: { total: 120 },
        idempotency_key: "ord-1-purchase",
      },
      { candidate_alias: "order-2026-0002", type: "view" },
    ],
  },
});

const BatchResultSchema = z
  .union([
    RecordedEvent.extend({ status: z.literal(201) }),
    z.object({ status: z.union([z.literal(404), z.literal(409), z.literal(500)]), error: ErrorBodySchema.shape.error }),
  ])
  .openapi("BatchEventResult", {
    description:
      "What `POST /v1/events` would have answered for this item: 201 with the event and the candidate after it, or " +
      "404 `CANDIDATE_NOT_FOUND`, 409 `EVENT_LIMIT_REACHED` or 409 `IDEMPOTENCY_KEY_REUSED` with nothing recorded, or " +
      "500 `INTERNAL_ERROR` when the service failed this item's candidate: send the item again with its `idempotency_key`, " +
      "and it is recorded exactly once whether or not the failed attempt recorded it.",
  });

const submit = createRoute("events:write", {
  method: "post",
  path: "/",
  operationId: "submitEvent",
  tags: ["Events"],
  summary: "Submit an event",
  description:
    "The event is recorded; the first one that fulfils the condition while OPEN makes the candidate PENDING.",
  ...withPostBody(EventBody, { candidateKeepsResult: true }),
  responses: {
    201: jsonResponse(
      "The recorded event and the candidate after it.",
      RecordedEvent,
      { event: eventExample, candidate: candidateExample },
      { replayable: true, bookmark: true },
    ),
    ...errorResponses(...POST_ERRORS, "CANDIDATE_NOT_FOUND", "EVENT_LIMIT_REACHED"),
  },
});

const submitBatch = createRoute("events:write", {
  method: "post",
  path: "/batch",
  operationId: "submitEventBatch",
  tags: ["Events"],
  summary: "Submit up to 100 events (extension)",
  description:
    "Each item is handled as `POST /v1/events` would handle it, and answered in the same order. Items for one alias " +
    "are applied in batch order; items for different aliases concurrently. One item's failure never affects another's; " +
    "an invalid item refuses the whole batch (400, nothing recorded). Counts as one request against the rate limit.",
  ...withPostBody(BatchBody, { maxBytes: MAX_BATCH_BODY_BYTES }),
  responses: {
    200: jsonResponse(
      "One result per item, in the order of the items.",
      z.object({ data: z.array(BatchResultSchema) }),
      {
        data: [
          { status: 201, event: eventExample, candidate: candidateExample },
          {
            status: 404,
            error: {
              type: "invalid_request_error",
              code: "CANDIDATE_NOT_FOUND",
              message: "No candidate with alias 'order-2026-0002' exists in this account.",
              status: 404,
              doc_url: "https://api.example.com/docs/errors/CANDIDATE_NOT_FOUND",
            },
          },
        ],
      },
      { replayable: true, bookmark: true },
    ),
    ...errorResponses(...POST_ERRORS),
  },
});

const submittedEvent = (body: { type: string; value?: unknown }): SubmittedEvent => {
  const hasValue = Object.hasOwn(body, "value");
  return { type: body.type, hasValue, ...(hasValue ? { value: body.value as SubmittedEvent["value"] } : {}) };
};

/** What an item asks, for its key: the same key with another item is refused. */
const itemFingerprint = (item: z.infer<typeof BatchItem>) =>
  sha256Hex(canonicalize({ type: item.type, ...(Object.hasOwn(item, "value") ? { value: item.value } : {}) })!);

type BatchResult = z.infer<typeof BatchResultSchema>;

export const eventsRouter = createRouter()
  .openapi(submit, async (c) => {
    const body = c.req.valid("json");
    const result = noteCandidateAnswer(
      c,
      await candidateObject(c.env, body.candidate_alias).recordEvent(
        c.get("accountId"),
        submittedEvent(body),
        c.get("idempotency"),
      ),
    );
    if (!result.ok) throw candidateFailure(result.code, body.candidate_alias);
    return sendJsonText(c, result.body, 201);
  })
  .openapi(submitBatch, async (c) => {
    const { events } = c.req.valid("json");
    // One object round trip per alias, carrying that alias's items in batch order; aliases in parallel.
    const byAlias = new Map<string, { index: number; item: EventItem }[]>();
    await Promise.all(
      events.map(async (item, index) => {
        const key =
          item.idempotency_key === undefined
            ? undefined
            : { key: item.idempotency_key, fingerprint: await itemFingerprint(item) };
        const entry = { index, item: { event: submittedEvent(item), ...(key ? { key } : {}) } };
        byAlias.set(item.candidate_alias, [...(byAlias.get(item.candidate_alias) ?? []), entry]);
      }),
    );
    for (const entries of byAlias.values()) entries.sort((a, b) => a.index - b.index);
    const docsUrl = docsBaseUrl(c.env.DOCS_URL, c.req.url);
    const results: JsonText<BatchResult>[] = new Array(events.length);
    await Promise.all(
      [...byAlias].map(async ([alias, entries]) => {
        let outcome: Awaited<ReturnType<CandidateRpc["recordEvents"]>>;
        try {
          outcome = await candidateObject(c.env, alias).recordEvents(
            c.get("accountId"),
            entries.map((e) => e.item),
            c.get("idempotency"),
          );
          noteBookmark(c, outcome.bookmark);
        } catch (error) {
          // One object's failure (its transaction rolled back: nothing recorded) is its items' alone.
          console.error(`request ${c.get("requestId")}: candidate '${alias}' failed its batch items`, error);
          c.set("idempotencyIncomplete", true);
          for (const { index } of entries) results[index] = failedItemJson(docsUrl);
          return;
        }
        entries.forEach(({ index }, i) => {
          results[index] = itemResultJson(outcome.ok ? outcome.results[i] : outcome, alias, docsUrl);
        });
      }),
    );
    return sendJsonText(c, `{"data":[${results.join(",")}]}` as JsonText<{ data: BatchResult[] }>, 200);
  });

/** The result of an item whose candidate object failed: safe to send again (with its key, exactly once). */
const failedItemJson = (docsUrl: string) =>
  JSON.stringify({
    status: 500,
    error: errorObject(new ApiError("INTERNAL_ERROR", FAILED_ITEM_MESSAGE), docsUrl),
  }) as JsonText<BatchResult>;
const FAILED_ITEM_MESSAGE =
  "The service could not record this item. Send it again with its idempotency_key to have it recorded exactly once.";

/** One item's result: the 201 answer with its status, or the error `POST /v1/events` would give. */
function itemResultJson(
  result: EventResult | { ok: false; code: "CANDIDATE_NOT_FOUND" | "IDEMPOTENCY_KEY_IN_USE" },
  alias: string,
  docsUrl: string,
) {
  if (result.ok) return `{"status":201,${(result.body as JsonText<RecordedEvent>).slice(1)}` as JsonText<BatchResult>;
  const error = candidateFailure(result.code, alias) as ApiError;
  return JSON.stringify({ status: error.status, error: errorObject(error, docsUrl) }) as JsonText<BatchResult>;
}
