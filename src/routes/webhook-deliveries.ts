/**
 * An endpoint's delivery log (`GET /v1/webhook_endpoints/{id}/deliveries`) and test sends
 * (`POST /v1/webhook_endpoints/{id}/test`): docs/notifications.md.
 */
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import { uuidv7 } from "uuidv7";
import { signingSecrets } from "../db/webhooks";
import { ATTEMPT_STATUSES, attemptsPage, type AttemptRow } from "../db/webhook-deliveries";
import { answerProblem, isDelivered } from "../notifications/attempt-outcome";
import { NOTIFICATION_TYPES, TEST_EVENT_TYPE, testEventJson } from "../notifications/notification";
import { sendSigned } from "../notifications/send";
import { isoTime, isoTimeOrNull } from "../domain/iso-time";
import {
  createRouter,
  errorResponses,
  jsonResponse,
  POST_ERRORS,
  withPostBody,
  READS_ACCOUNT_DATA,
} from "./shared/openapi";
import { CursorSchema, DefaultPageLimitSchema, unknownCursor } from "./shared/params";
import { timestamp } from "../models";
import {
  deliveryAttemptExample,
  failedAttemptExample,
  notificationExample,
  webhookTestExample,
} from "./shared/examples";
import { EndpointIdParam, requireEndpoint } from "./shared/endpoint-lookup";
import { readOrAskPrimary } from "../account-db";

const DeliveriesQuery = z.strictObject({
  after: CursorSchema.optional().openapi({
    description: "The `next_cursor` of the previous page.",
    example: deliveryAttemptExample.id,
  }),
  limit: DefaultPageLimitSchema,
  notification_id: z
    .string()
    .min(1, { error: "must be a notification id, like ntf_..._confirmed" })
    .max(255, { error: "must be a notification id of at most 255 characters" })
    .optional()
    .openapi({ description: "Only the attempts of deliveries of this notification.", example: notificationExample.id }),
  status: z
    .enum(ATTEMPT_STATUSES)
    .optional()
    .openapi({ description: "Only attempts with this status.", example: "failed" }),
});

export const DeliveryAttemptSchema = z
  .object({
    id: z.string().uuid(),
    delivery_id: z.string().uuid().openapi({
      description:
        "The delivery (one notification to this endpoint) the attempt belongs to: its attempts share it, and a resend answers it.",
    }),
    notification_id: z.string(),
    type: z.enum(NOTIFICATION_TYPES),
    attempt: z.number().int().openapi({ description: "1 for the first attempt of a delivery, then 2, 3, ..." }),
    status: z.enum(ATTEMPT_STATUSES).openapi({
      description:
        "What this attempt got: `succeeded` (a 2xx), `failed` (anything else: `response_status` or `error` say what), or `pending` (sent, not answered yet).",
    }),
    response_status: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The endpoint's HTTP status; null when it gave none (yet)." }),
    error: z
      .string()
      .nullable()
      .openapi({ description: "Why the attempt failed, and how the delivery ended if it did; null otherwise." }),
    duration_ms: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "From the request's start to its answer or timeout; null while pending." }),
    attempted_at: timestamp("When the attempt's request started."),
    next_attempt_at: timestamp(
      "When the failed attempt is retried; null when it is not (the delivery has ended, or the attempt is pending).",
    ).nullable(),
  })
  .openapi("WebhookDeliveryAttempt");

export const TestAttemptSchema = z
  .object({
    event_id: z.string().openapi({ description: "The test event's `id`, sent as `webhook-id`: a new one each time." }),
    type: z.literal(TEST_EVENT_TYPE),
    webhook_endpoint_id: z.string().uuid(),
    status: z
      .enum(["succeeded", "failed"])
      .openapi({ description: "`succeeded` on a 2xx; else `failed`, and `response_status` or `error` say what." }),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
    attempted_at: timestamp("When the request started."),
  })
  .openapi("WebhookTestAttempt");

function attemptView(row: AttemptRow) {
  return {
    id: row.id,
    delivery_id: row.delivery_id,
    notification_id: row.notification_id,
    type: row.type,
    attempt: row.attempt,
    status: row.status,
    response_status: row.response_status,
    error: row.error,
    duration_ms: row.duration_ms,
    attempted_at: isoTime(row.attempted_at),
    next_attempt_at: isoTimeOrNull(row.next_attempt_at),
  };
}

const deliveries = createRoute("webhooks:read", {
  method: "get",
  path: "/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "List an endpoint's delivery attempts, newest first (extension)",
  description:
    "Every attempt to deliver a notification to this endpoint, kept 30 days. An attempt is `pending` from the start of its request " +
    "until it is answered; a failed one that will be retried says when (`next_attempt_at`). Filter by `notification_id` to follow " +
    "one notification, or by `status`.",
  ...READS_ACCOUNT_DATA,
  request: { params: EndpointIdParam, query: DeliveriesQuery },
  responses: {
    200: jsonResponse(
      "A page of attempts; pass `next_cursor` as `after` for the next one.",
      z.object({ data: z.array(DeliveryAttemptSchema), next_cursor: z.string().nullable() }),
      { data: [deliveryAttemptExample, failedAttemptExample], next_cursor: null },
      { bookmark: true },
    ),
    ...errorResponses("VALIDATION_ERROR", "WEBHOOK_ENDPOINT_NOT_FOUND"),
  },
});

const test = createRoute("webhooks:write", {
  method: "post",
  path: "/{id}/test",
  operationId: "testWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Send a signed test event to an endpoint (extension)",
  description:
    'Sends `{ id, type: "webhook.test", timestamp, data: { webhook_endpoint_id } }`, signed like every delivery with the endpoint\'s ' +
    "secret(s), now, once, also to a disabled endpoint, and answers what the request got. It is not a notification: not in the " +
    "feed, not retried, not in the delivery log, and it changes nothing about the endpoint. No body is needed.",
  ...withPostBody(
    z.strictObject({}).openapi("TestWebhookEndpointBody", { description: "Empty, or left out.", example: {} }),
    {
      request: { params: EndpointIdParam },
      optional: true,
    },
  ),
  responses: {
    200: jsonResponse(
      "The attempt: what the endpoint answered, or why it did not.",
      TestAttemptSchema,
      webhookTestExample,
      { replayable: true, bookmark: true },
    ),
    ...errorResponses(...POST_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND"),
  },
});

export const webhookDeliveriesRouter = createRouter()
  .openapi(deliveries, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const endpoint = await requireEndpoint(c, id);
    const filters = { notificationId: query.notification_id, status: query.status };
    const page = await readOrAskPrimary(
      c,
      (db) => attemptsPage(db, c.get("accountId"), endpoint.id, filters, query.after, query.limit),
      (p) => p.cursorValid,
    );
    if (!page.cursorValid) throw unknownCursor(query.after!, "this endpoint's delivery attempts");
    return c.json({ data: page.rows.map(attemptView), next_cursor: page.nextCursor }, 200);
  })
  .openapi(test, async (c) => {
    const { id } = c.req.valid("param");
    const endpoint = await requireEndpoint(c, id);
    const eventId = `test_${uuidv7().replaceAll("-", "")}`;
    const now = Date.now();
    const sent = await sendSigned(
      c.env,
      endpoint.url,
      signingSecrets(endpoint, now),
      eventId,
      testEventJson(eventId, endpoint.id, now),
    );
    return c.json(
      {
        event_id: eventId,
        type: TEST_EVENT_TYPE,
        webhook_endpoint_id: endpoint.id,
        status: isDelivered(sent) ? ("succeeded" as const) : ("failed" as const),
        response_status: sent.responseStatus,
        error: answerProblem(sent),
        duration_ms: sent.durationMs,
        attempted_at: isoTime(sent.startedAt),
      },
      200,
    );
  });
