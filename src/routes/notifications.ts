/**
 * /v1/notifications (docs/notifications.md): the feed of the account's notifications, and
 * resends.
 */
import { z } from "@hono/zod-openapi";
import { createRoute } from "./shared/route";
import type { JsonText } from "../domain/json";
import { ApiError, quoted } from "../errors/api-error";
import { feedEntry, feedPage } from "../db/notifications";
import { deliveryMessage } from "../notifications/fanout";
import { NOTIFICATION_TYPES, type Notification } from "../notifications/notification";
import { CandidateView, timestamp } from "../models";
import {
  createRouter,
  errorResponses,
  jsonResponse,
  POST_ERRORS,
  sendJsonText,
  withPostBody,
  READS_ACCOUNT_DATA,
} from "./shared/openapi";
import { CursorSchema, DefaultPageLimitSchema, unknownCursor } from "./shared/params";
import { notificationExample, webhookEndpointExample } from "./shared/examples";
import { requireEndpoint } from "./shared/endpoint-lookup";
import { accountDb, readOrAskPrimary } from "../account-db";

const CauseSchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("event"),
      event_id: z.string().uuid().openapi({ description: "The event that fulfilled the condition." }),
    }),
    z.object({ kind: z.literal("activity_window_ended") }),
    z.object({ kind: z.literal("review_window_ended") }),
    z.object({ kind: z.literal("resolved") }),
  ])
  .openapi("NotificationCause");

export const NotificationSchema = z
  .object({
    id: z.string().openapi({
      description: "Stable: the same transition always has this id (deliveries carry it as `webhook-id`).",
      example: "ntf_01936f0e8a7b7c4d9e2f3a4b5c6d7e8f_confirmed",
    }),
    type: z.enum(NOTIFICATION_TYPES),
    timestamp: timestamp("The transition's instant: the candidate's `status_since`."),
    data: z.object({
      candidate: CandidateView.openapi({ description: "The candidate as of that instant, without events." }),
      cause: CauseSchema,
    }),
  })
  .openapi("Notification");

const FeedQuery = z.strictObject({
  after: CursorSchema.optional().openapi({
    description:
      "A notification id: the page starts after it (pass `next_cursor`, or the last id seen). An id of the account's that aged out of the feed starts from the oldest notification kept.",
    example: notificationExample.id,
  }),
  limit: DefaultPageLimitSchema,
  type: z
    .enum(NOTIFICATION_TYPES)
    .optional()
    .openapi({ description: "Only notifications of this type.", example: "candidate.confirmed" }),
  candidate_alias: z
    .string()
    .min(8)
    .max(255)
    .optional()
    .openapi({ description: "Only this candidate's notifications.", example: "order-2026-0001" }),
});
const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(255)
    .openapi({ param: { name: "id", in: "path" }, example: "ntf_01936f0e8a7b7c4d9e2f3a4b5c6d7e8f_confirmed" }),
});
const ResendBody = z
  .strictObject({ webhook_endpoint_id: z.string().openapi({ format: "uuid" }) })
  .openapi("ResendBody", { example: { webhook_endpoint_id: webhookEndpointExample.id } });

const notificationNotFound = (id: string) =>
  new ApiError("NOTIFICATION_NOT_FOUND", `No notification with id ${quoted(id)} exists in this account.`);

const list = createRoute("notifications:read", {
  method: "get",
  path: "/",
  operationId: "listNotifications",
  tags: ["Notifications"],
  summary: "Read the notifications feed, oldest first (extension)",
  description:
    "Every notification of the account in the order recorded, kept 30 days. Tailing it with `after` set to the last id seen " +
    "gives every notification exactly once.",
  ...READS_ACCOUNT_DATA,
  request: { query: FeedQuery },
  responses: {
    200: jsonResponse(
      "A page of notifications; `next_cursor` is the last id when more exist, else null.",
      z.object({ data: z.array(NotificationSchema), next_cursor: z.string().nullable() }),
      { data: [notificationExample], next_cursor: null },
      { bookmark: true },
    ),
    ...errorResponses("VALIDATION_ERROR"),
  },
});

const get = createRoute("notifications:read", {
  method: "get",
  path: "/{id}",
  operationId: "getNotification",
  tags: ["Notifications"],
  summary: "Get a notification (extension)",
  ...READS_ACCOUNT_DATA,
  request: { params: IdParam },
  responses: {
    200: jsonResponse("The notification, as delivered.", NotificationSchema, notificationExample, { bookmark: true }),
    ...errorResponses("VALIDATION_ERROR", "NOTIFICATION_NOT_FOUND"),
  },
});

const resend = createRoute("webhooks:write", {
  method: "post",
  path: "/{id}/resend",
  operationId: "resendNotification",
  tags: ["Notifications"],
  summary: "Deliver a notification once more to an endpoint (extension)",
  description: "One more delivery, now, to an enabled endpoint of the account, whatever types it takes.",
  ...withPostBody(ResendBody, { request: { params: IdParam } }),
  responses: {
    202: jsonResponse(
      "The delivery is queued; its attempts appear in the endpoint's deliveries.",
      z.object({ delivery_id: z.string().uuid(), notification_id: z.string(), webhook_endpoint_id: z.string().uuid() }),
      {
        delivery_id: "01936f22-0000-7000-8000-000000000002",
        notification_id: notificationExample.id,
        webhook_endpoint_id: webhookEndpointExample.id,
      },
      { replayable: true, bookmark: true },
    ),
    ...errorResponses(...POST_ERRORS, "NOTIFICATION_NOT_FOUND", "WEBHOOK_ENDPOINT_NOT_FOUND", "INVALID_STATE"),
  },
});

export const notificationsRouter = createRouter()
  .openapi(list, async (c) => {
    const q = c.req.valid("query");
    const page = await readOrAskPrimary(
      c,
      (db) =>
        feedPage(
          db,
          c.get("accountId"),
          { after: q.after, type: q.type, candidateAlias: q.candidate_alias, limit: q.limit },
          Date.now(),
        ),
      (p) => p.cursorValid,
    );
    if (!page.cursorValid) throw unknownCursor(q.after!, "this account's notifications");
    const body = `{"data":[${page.payloads.join(",")}],"next_cursor":${JSON.stringify(page.nextCursor)}}`;
    return sendJsonText(c, body as JsonText<{ data: Notification[]; next_cursor: string | null }>, 200);
  })
  .openapi(get, async (c) => {
    const { id } = c.req.valid("param");
    const entry = await readOrAskPrimary(c, (db) => feedEntry(db, c.get("accountId"), id), Boolean);
    if (!entry) throw notificationNotFound(id);
    return sendJsonText(c, entry.payload, 200);
  })
  .openapi(resend, async (c) => {
    const { id } = c.req.valid("param");
    const { webhook_endpoint_id: endpointId } = c.req.valid("json");
    const entry = await feedEntry(accountDb(c), c.get("accountId"), id);
    if (!entry) throw notificationNotFound(id);
    const endpoint = await requireEndpoint(c, endpointId);
    if (endpoint.status !== "enabled") {
      throw new ApiError(
        "INVALID_STATE",
        `Webhook endpoint '${endpointId}' is disabled: enable it (PATCH status "enabled") before a resend.`,
      );
    }
    const message = deliveryMessage(entry.id, c.get("accountId"), endpoint.id, c.get("shard"));
    await c.env.DELIVERIES.send(message);
    return c.json(
      { delivery_id: message.delivery_id, notification_id: entry.id, webhook_endpoint_id: endpoint.id },
      202,
    );
  });
