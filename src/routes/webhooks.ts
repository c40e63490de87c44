/** /v1/webhook_endpoints (decisions.md §8): where the account's notifications are delivered. */
import ipaddr from "ipaddr.js";
import { createRoute, z } from "@hono/zod-openapi";
import { uuidv7 } from "uuidv7";
import { ApiError } from "../errors";
import * as db from "../db/webhooks";
import { NOTIFICATION_TYPES, type NotificationType } from "../notifications/notification";
import { newWebhookSecret } from "../notifications/signing";
import { validationError } from "../validation";
import { completionStatement, whileHeld } from "../db/idempotency";
import type { JsonText } from "../domain/json";
import { refuseIfKeyLost } from "../idempotency";
import { BODY_ERRORS, createRouter, CursorSchema, errorResponses, jsonResponse, DefaultPageLimitSchema, POST_ERRORS, sendJsonText, timestamp, unknownCursor, withJsonBody, withPostBody } from "./models";
import { deliveryAttemptExample, webhookEndpointExample } from "./examples";

/** The old secret keeps signing beside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
const MAX_URL_LENGTH = 2048;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const EventTypesSchema = z
  .array(z.enum(NOTIFICATION_TYPES))
  .min(1)
  .refine((types) => new Set(types).size === types.length, { message: "must not name a type twice" })
  .openapi({ description: "The notification types delivered to this endpoint.", example: ["candidate.confirmed"] });

const UrlSchema = z.string().min(1).max(MAX_URL_LENGTH).openapi({
  description: "Where deliveries are POSTed: `https://` to a name or a public address (private, link-local and other non-public addresses are refused); a loopback host, over `http://` too, only where the service allows it (local development).",
  example: "https://example.com/webhooks/candidates",
});
const DescriptionSchema = z.string().max(1024).nullable().openapi({ example: "Billing system" });

export const WebhookEndpointSchema = z
  .object({
    id: z.string().uuid(),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.enum(NOTIFICATION_TYPES)),
    status: z.enum(["enabled", "disabled"]).openapi({ description: "`disabled` by the caller, by a `410 Gone`, or after 5 days of failures." }),
    created_at: timestamp("When the endpoint was created."),
    updated_at: timestamp("When it last changed."),
  })
  .openapi("WebhookEndpoint");

const WithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({ description: "The signing secret (`whsec_...`): shown only at creation and rotation.", example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).openapi("WebhookEndpointWithSecret");

const CreateBody = z
  .strictObject({ url: UrlSchema, description: DescriptionSchema.optional(), enabled_events: EventTypesSchema.optional() })
  .openapi("CreateWebhookEndpointBody", {
    example: { url: "https://billing.example.com/hooks/candidates", description: "Billing system", enabled_events: ["candidate.confirmed", "candidate.failed"] },
  });
const UpdateBody = z
  .strictObject({
    url: UrlSchema.optional(),
    description: DescriptionSchema.optional(),
    enabled_events: EventTypesSchema.optional(),
    status: z.enum(["enabled", "disabled"]).optional().openapi({ description: "`enabled` also clears the failure streak." }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" })
  .openapi("UpdateWebhookEndpointBody", { example: { status: "enabled" } });
const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", example: webhookEndpointExample.id }) });
const DeliveriesQuery = z.strictObject({
  after: CursorSchema.optional().openapi({ description: "The `next_cursor` of the previous page.", example: deliveryAttemptExample.id }),
  limit: DefaultPageLimitSchema,
});

const DeliveryAttemptSchema = z
  .object({
    id: z.string().uuid(),
    notification_id: z.string(),
    type: z.enum(NOTIFICATION_TYPES),
    attempt: z.number().int().openapi({ description: "1 for the first attempt of a delivery, then 2, 3, ..." }),
    status: z.enum(["pending", "succeeded", "failed"]).openapi({ description: "`pending`: failed, and retried at `next_attempt_at`." }),
    response_status: z.number().int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number().int().nullable(),
    attempted_at: timestamp("When the attempt was made."),
    next_attempt_at: timestamp("When the next attempt is due, if any.").nullable(),
  })
  .openapi("WebhookDeliveryAttempt");

const endpointResponse = (description: string) => jsonResponse(description, WebhookEndpointSchema, webhookEndpointExample);
const withSecretResponse = (description: string) =>
  jsonResponse(description, WithSecretSchema, { ...webhookEndpointExample, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwjPTlBmcHdkA=" }, { replayable: true });

const iso = (ms: number) => new Date(ms).toISOString();

function endpointView(row: db.EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabled_events: JSON.parse(row.enabled_events) as NotificationType[],
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

const withSecret = (row: db.EndpointRow) => ({ ...endpointView(row), secret: row.secret });

function attemptView(row: db.AttemptRow) {
  return {
    id: row.id,
    notification_id: row.notification_id,
    type: row.type,
    attempt: row.attempt,
    status: row.status,
    response_status: row.response_status,
    error: row.error,
    duration_ms: row.duration_ms,
    attempted_at: iso(row.attempted_at),
    next_attempt_at: row.next_attempt_at === null ? null : iso(row.next_attempt_at),
  };
}

export const endpointNotFound = (id: string) =>
  new ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", `No webhook endpoint with id '${id}' exists in this account.`);

/** The account's endpoint with this id, or WEBHOOK_ENDPOINT_NOT_FOUND (also for another account's, or a malformed id). */
export async function requireEndpoint(database: D1Database, accountId: string, id: string) {
  const endpoint = UUID.test(id) ? await db.getEndpoint(database, accountId, id.toLowerCase()) : null;
  if (!endpoint) throw endpointNotFound(id);
  return endpoint;
}

/** Whether a URL's host is loopback: a name under `localhost`, or a loopback address. */
const isLoopback = (host: string) => host === "localhost" || host.endsWith(".localhost") || addressRange(host) === "loopback";

/**
 * The range of a host that is an IP address (ipaddr.js: "unicast" is the public internet; an
 * IPv4-mapped IPv6 address counts as its IPv4 one), or null for a name. The URL parser has
 * already written every IPv4 form (`127.1`, `2130706433`) as dotted decimal.
 */
function addressRange(host: string): string | null {
  const literal = host.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(literal)) return null;
  const address = ipaddr.process(literal);
  const range = address.range();
  // ::a.b.c.d (IPv4-compatible, deprecated) is "unicast" to ipaddr.js; it is no public address.
  const ipv4Compatible = address.kind() === "ipv6" && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);
  return range === "unicast" && ipv4Compatible ? "ipv4Compatible" : range;
}

/**
 * Why a webhook URL is refused, or null: `https://` to a name or a public address; loopback
 * (`http://` too) only where allowed. Private, link-local and other non-public addresses never:
 * deliveries must not reach into the network the service runs in.
 */
function urlProblem(text: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL, like https://example.com/webhooks";
  }
  if (url.username || url.password) return "must not carry credentials; put a secret in the path or verify the signature";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be https://";
  // A fully qualified name's trailing dot names the same host: `localhost.` is `localhost`.
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  if (isLoopback(host)) {
    return allowLoopback ? null : "must be https:// to a public host (a loopback host is accepted only in local development)";
  }
  const range = addressRange(host);
  if (range !== null && range !== "unicast") return `must be a public address (${url.hostname} is ${range.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)})`;
  return url.protocol === "https:" ? null : "must be https://";
}

function checkUrl(env: Env, url: string | undefined) {
  const problem = url === undefined ? null : urlProblem(url, env.WEBHOOK_ALLOW_LOOPBACK === "true");
  if (problem) throw validationError([{ path: "url", message: problem }]);
}

const create = createRoute({
  method: "post",
  path: "/",
  operationId: "createWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Create a webhook endpoint (extension)",
  description: "At most 16 per account. The answer holds the endpoint's signing `secret`, shown only here and at rotation.",
  ...withPostBody(CreateBody),
  responses: {
    201: withSecretResponse("The new endpoint, with its secret."),
    ...errorResponses(...POST_ERRORS, "WEBHOOK_ENDPOINT_LIMIT_REACHED"),
  },
});

const list = createRoute({
  method: "get",
  path: "/",
  operationId: "listWebhookEndpoints",
  tags: ["Webhooks"],
  summary: "List webhook endpoints, newest first (extension)",
  responses: {
    200: jsonResponse("Every endpoint of the account, without secrets.", z.object({ data: z.array(WebhookEndpointSchema) }), { data: [webhookEndpointExample] }),
    ...errorResponses(),
  },
});

const get = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Get a webhook endpoint (extension)",
  request: { params: IdParam },
  responses: { 200: endpointResponse("The endpoint."), ...errorResponses("WEBHOOK_ENDPOINT_NOT_FOUND") },
});

const update = createRoute({
  method: "patch",
  path: "/{id}",
  operationId: "updateWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Change a webhook endpoint (extension)",
  ...withJsonBody(UpdateBody, { request: { params: IdParam } }),
  responses: { 200: endpointResponse("The endpoint as changed."), ...errorResponses(...BODY_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND") },
});

const remove = createRoute({
  method: "delete",
  path: "/{id}",
  operationId: "deleteWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Delete a webhook endpoint (extension)",
  description: "No delivery is made to it afterwards; its delivery log goes with it.",
  request: { params: IdParam },
  responses: { 204: { description: "Deleted.", headers: endpointResponse("").headers }, ...errorResponses("WEBHOOK_ENDPOINT_NOT_FOUND") },
});

const rotate = createRoute({
  method: "post",
  path: "/{id}/rotate_secret",
  operationId: "rotateWebhookEndpointSecret",
  tags: ["Webhooks"],
  summary: "Rotate a webhook endpoint's secret (extension)",
  description: "A new secret signs every delivery from now on; the old one keeps signing beside it for 24 hours. No body is needed.",
  ...withPostBody(z.strictObject({}).openapi("RotateSecretBody", { description: "Empty, or left out.", example: {} }), { request: { params: IdParam }, optional: true }),
  responses: { 200: withSecretResponse("The endpoint, with its new secret."), ...errorResponses(...POST_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND") },
});

const deliveries = createRoute({
  method: "get",
  path: "/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "List an endpoint's delivery attempts, newest first (extension)",
  request: { params: IdParam, query: DeliveriesQuery },
  responses: {
    200: jsonResponse(
      "A page of attempts; pass `next_cursor` as `after` for the next one.",
      z.object({ data: z.array(DeliveryAttemptSchema), next_cursor: z.string().nullable() }),
      { data: [deliveryAttemptExample], next_cursor: null },
    ),
    ...errorResponses("VALIDATION_ERROR", "WEBHOOK_ENDPOINT_NOT_FOUND"),
  },
});

export const webhooksRouter = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    checkUrl(c.env, body.url);
    const key = c.var.idempotency;
    const endpoint: db.NewEndpoint = {
      id: uuidv7(),
      accountId: c.var.accountId,
      url: body.url,
      description: body.description ?? null,
      enabledEvents: body.enabled_events ?? [...NOTIFICATION_TYPES],
      secret: newWebhookSecret(),
      now: Date.now(),
    };
    const answer = JSON.stringify(withSecret(db.newEndpointRow(endpoint)));
    // With an Idempotency-Key: made only while this request holds the key, and its answer (with
    // the secret shown once) recorded in the same transaction, so a retry never makes a second.
    const insert = db.insertEndpointStatement(c.env.DB, endpoint, key && whileHeld(c.var.accountId, key));
    const [inserted] = await c.env.DB.batch(
      key ? [insert, completionStatement(c.env.DB, c.var.accountId, key, 201, answer, { sql: "EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)", params: [endpoint.id] })] : [insert],
    );
    if (inserted.meta.changes !== 1) {
      await refuseIfKeyLost(c.env.DB, c.var.accountId, key);
      throw new ApiError("WEBHOOK_ENDPOINT_LIMIT_REACHED", `An account can have at most ${db.MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`);
    }
    if (key) c.set("idempotencyRecorded", true);
    return sendJsonText(c, answer as JsonText<z.infer<typeof WithSecretSchema>>, 201);
  })
  .openapi(list, async (c) => {
    const rows = await db.listEndpoints(c.env.DB, c.var.accountId);
    return c.json({ data: rows.map(endpointView) }, 200);
  })
  .openapi(get, async (c) => {
    return c.json(endpointView(await requireEndpoint(c.env.DB, c.var.accountId, c.req.valid("param").id)), 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    checkUrl(c.env, body.url);
    const endpoint = await requireEndpoint(c.env.DB, c.var.accountId, id);
    const row = await db.updateEndpoint(c.env.DB, c.var.accountId, endpoint.id, {
      url: body.url,
      description: body.description,
      enabledEvents: body.enabled_events,
      status: body.status,
    }, Date.now());
    if (!row) throw endpointNotFound(id);
    return c.json(endpointView(row), 200);
  })
  .openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const endpoint = await requireEndpoint(c.env.DB, c.var.accountId, id);
    if (!(await db.deleteEndpoint(c.env.DB, c.var.accountId, endpoint.id))) throw endpointNotFound(id);
    return c.body(null, 204);
  })
  .openapi(rotate, async (c) => {
    const { id } = c.req.valid("param");
    const key = c.var.idempotency;
    // Rotations of one endpoint at once: each applies to the endpoint as read, or reads it again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const endpoint = await requireEndpoint(c.env.DB, c.var.accountId, id);
      const now = Date.now();
      const secret = newWebhookSecret();
      const { rotated, statement } = db.rotateSecretStatement(c.env.DB, endpoint, secret, now + ROTATION_OVERLAP_MS, now, key && whileHeld(c.var.accountId, key));
      const answer = JSON.stringify(withSecret(rotated));
      const onlyIf = { sql: "EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND secret = ?)", params: [endpoint.id, secret] };
      const [updated] = await c.env.DB.batch(key ? [statement, completionStatement(c.env.DB, c.var.accountId, key, 200, answer, onlyIf)] : [statement]);
      if (updated.meta.changes === 1) {
        if (key) c.set("idempotencyRecorded", true);
        return sendJsonText(c, answer as JsonText<z.infer<typeof WithSecretSchema>>, 200);
      }
      await refuseIfKeyLost(c.env.DB, c.var.accountId, key);
    }
    throw new ApiError("IDEMPOTENCY_KEY_IN_USE", "The endpoint's secret is being rotated by another request; retry in a moment.");
  })
  .openapi(deliveries, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const endpoint = await requireEndpoint(c.env.DB, c.var.accountId, id);
    const page = await db.attemptsPage(c.env.DB, c.var.accountId, endpoint.id, query.after, query.limit);
    if (!page.cursorValid) throw unknownCursor(query.after!, "this endpoint's delivery attempts");
    return c.json({ data: page.rows.map(attemptView), next_cursor: page.nextCursor }, 200);
  });
