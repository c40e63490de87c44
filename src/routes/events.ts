/** /v1/events: submit an event against a candidate, by alias. */
import { createRoute, z } from "@hono/zod-openapi";
import { JsonValueSchema } from "../domain/json";
import {
  AliasSchema,
  POST_ERRORS,
  CandidateSchema,
  createRouter,
  errorResponses,
  EventSchema,
  sendJsonText,
  withPostBody,
} from "./models";
import { candidateFailure, candidateObject } from "./candidates";

export const MAX_EVENT_VALUE_BYTES = 8 * 1024;

/** Whether `text` takes more than `max` bytes as UTF-8; encodes it only when its length can't tell. */
function longerThanUtf8(text: string, max: number): boolean {
  // A UTF-16 code unit takes 1 to 3 bytes (a surrogate pair 4 for its 2 units).
  if (text.length > max) return true;
  if (text.length * 3 <= max) return false;
  return new TextEncoder().encode(text).length > max;
}

const EventBody = z
  .strictObject({
    candidate_alias: AliasSchema,
    type: z.string().min(1).max(255).openapi({ description: "Compared with the `event` of condition leaves.", example: "purchase" }),
    value: JsonValueSchema.optional().openapi({ description: "Any JSON value, at most 8 KiB serialised.", example: { total: 120 } }),
  })
  .superRefine((body, ctx) => {
    if (Object.hasOwn(body, "value") && longerThanUtf8(JSON.stringify(body.value), MAX_EVENT_VALUE_BYTES)) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `must be at most ${MAX_EVENT_VALUE_BYTES} bytes as JSON` });
    }
  })
  .openapi("EventBody");

const submit = createRoute({
  method: "post",
  path: "/",
  tags: ["Events"],
  summary: "Submit an event",
  description: "The event is recorded; the first one that fulfils the condition while OPEN makes the candidate PENDING.",
  ...withPostBody(EventBody),
  responses: {
    201: {
      description: "The recorded event and the candidate after it.",
      content: { "application/json": { schema: z.object({ event: EventSchema, candidate: CandidateSchema }) } },
    },
    ...errorResponses(...POST_ERRORS, "CANDIDATE_NOT_FOUND", "EVENT_LIMIT_REACHED"),
  },
});

export const eventsRouter = createRouter().openapi(submit, async (c) => {
  const body = c.req.valid("json");
  const hasValue = Object.hasOwn(body, "value");
  const result = await candidateObject(c.env, body.candidate_alias).recordEvent(c.var.accountId, {
    type: body.type,
    hasValue,
    ...(hasValue ? { value: body.value } : {}),
  }, c.var.idempotency);
  if (!result.ok) throw candidateFailure(result.code, body.candidate_alias);
  return sendJsonText(c, result.body, 201);
});
