/**
 * /v1/webhook_endpoints (docs/notifications.md): where the account's notifications are delivered.
 * Their delivery log and test sends are in webhook-deliveries.ts.
 */
import { z } from "@hono/zod-openapi";
import { isoTime } from "../domain/iso-time";
import { createRoute } from "./shared/route";
import { uuidv7 } from "uuidv7";
import { ApiError } from "../errors/api-error";
import { validationHookWith } from "../errors/zod-issues";
import type { AppEnv } from "../app-env";
import * as db from "../db/webhooks";
import { NOTIFICATION_TYPES } from "../notifications/notification";
import { newWebhookSecret } from "../notifications/signing";
import type { JsonText } from "../domain/json";
import { changeOnce, unlessAnswered } from "../idempotency";
import { webhookUrlProblem } from "../notifications/webhook-url";
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
import { webhookEndpointExample } from "./shared/examples";
import { EndpointIdParam, endpointNotFound, requireEndpoint } from "./shared/endpoint-lookup";
import {
  CreateBody,
  endpointResponse,
  endpointView,
  UpdateBody,
  WebhookEndpointSchema,
  withSecret,
  WithSecretSchema,
  withSecretResponse,
} from "./shared/webhook-endpoint-models";
import { accountDb } from "../account-db";

/** The old secret keeps signing beside the new one this long after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** Reads of an endpoint that a rotation makes before giving up on one that keeps changing. */
const ROTATION_ATTEMPTS = 3;
/**
 * A loopback URL where the service does not allow one (the body's schema checks the rest, and its
 * problems are listed with this one).
 */
const withUrlRule = validationHookWith<AppEnv>((body, c) => {
  const url = (body as { url?: unknown } | null)?.url;
  if (c.env.WEBHOOK_ALLOW_LOOPBACK === "true" || typeof url !== "string") return []; // the schema's rules are all
  // Said only when the schema's rules (loopback allowed) find nothing: they say any other problem.
  const problem = webhookUrlProblem(url, false);
  return problem && webhookUrlProblem(url, true) === null ? [{ path: "url", message: problem }] : [];
});

const create = createRoute("webhooks:write", {
  method: "post",
  path: "/",
  operationId: "createWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Create a webhook endpoint (extension)",
  description:
    "At most 16 per account. The answer holds the endpoint's signing `secret`, shown only here and at rotation.",
  ...withPostBody(CreateBody, { answerHoldsSecret: true }),
  responses: {
    201: withSecretResponse("The new endpoint, with its secret."),
    ...errorResponses(...POST_ERRORS, "WEBHOOK_ENDPOINT_LIMIT_REACHED"),
  },
});

const list = createRoute("webhooks:read", {
  method: "get",
  path: "/",
  operationId: "listWebhookEndpoints",
  tags: ["Webhooks"],
  summary: "List webhook endpoints, newest first (extension)",
  ...READS_ACCOUNT_DATA,
  responses: {
    200: jsonResponse(
      "Every endpoint of the account, without secrets.",
      z.object({ data: z.array(WebhookEndpointSchema) }),
      { data: [webhookEndpointExample] },
      { bookmark: true },
    ),
    ...errorResponses("VALIDATION_ERROR"),
  },
});

const get = createRoute("webhooks:read", {
  method: "get",
  path: "/{id}",
  operationId: "getWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Get a webhook endpoint (extension)",
  ...READS_ACCOUNT_DATA,
  request: { params: EndpointIdParam },
  responses: {
    200: endpointResponse("The endpoint."),
    ...errorResponses("VALIDATION_ERROR", "WEBHOOK_ENDPOINT_NOT_FOUND"),
  },
});

const update = createRoute("webhooks:write", {
  method: "patch",
  path: "/{id}",
  operationId: "updateWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Change a webhook endpoint (extension)",
  ...withJsonBody(UpdateBody, { request: { params: EndpointIdParam } }),
  responses: {
    200: endpointResponse("The endpoint as changed."),
    ...errorResponses(...BODY_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND"),
  },
});

const remove = createRoute("webhooks:write", {
  method: "delete",
  path: "/{id}",
  operationId: "deleteWebhookEndpoint",
  tags: ["Webhooks"],
  summary: "Delete a webhook endpoint (extension)",
  description: "No delivery is made to it afterwards; its delivery log goes with it.",
  request: { params: EndpointIdParam },
  responses: {
    204: { description: "Deleted.", headers: endpointResponse("").headers },
    ...errorResponses("WEBHOOK_ENDPOINT_NOT_FOUND"),
  },
});

const rotate = createRoute("webhooks:write", {
  method: "post",
  path: "/{id}/rotate_secret",
  operationId: "rotateWebhookEndpointSecret",
  tags: ["Webhooks"],
  summary: "Rotate a webhook endpoint's secret (extension)",
  description:
    "A new secret signs every delivery from now on; the old one keeps signing beside it for 24 hours. No body is needed. " +
    `While ${db.MAX_RETIRED_SECRETS} replaced secrets are still signing, a rotation is 409 \`INVALID_STATE\`, nothing rotated: ` +
    "the message says when the oldest of them stops. " +
    "An endpoint changed while it is rotated is read again; one that keeps changing is 409 `INVALID_STATE`, nothing rotated: send the request again.",
  ...withPostBody(z.strictObject({}).openapi("RotateSecretBody", { description: "Empty, or left out.", example: {} }), {
    request: { params: EndpointIdParam },
    optional: true,
    answerHoldsSecret: true,
  }),
  responses: {
    200: withSecretResponse("The endpoint, with its new secret."),
    ...errorResponses(...POST_ERRORS, "WEBHOOK_ENDPOINT_NOT_FOUND", "INVALID_STATE"),
  },
});

export const webhooksRouter = createRouter()
  .openapi(
    create,
    async (c) => {
      const body = c.req.valid("json");
      const endpoint: db.NewEndpoint = {
        id: uuidv7(),
        accountId: c.get("accountId"),
        url: body.url,
        description: body.description ?? null,
        enabledEvents: body.enabled_events ?? [...NOTIFICATION_TYPES],
        secret: newWebhookSecret(),
        now: Date.now(),
      };
      const answer = JSON.stringify(withSecret(db.newEndpointRow(endpoint))) as JsonText<
        z.infer<typeof WithSecretSchema>
      >;
      // With an Idempotency-Key: made only if no request with the key made one, and its answer (with
      // the secret shown once) stored in the same transaction, so a retry never makes a second.
      const insert = db.insertEndpointStatement(
        accountDb(c),
        endpoint,
        unlessAnswered(c.get("accountId"), c.get("idempotency")),
      );
      const done = await changeOnce(c, accountDb(c), insert, {
        body: answer,
        madeIf: { sql: "EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)", params: [endpoint.id] },
      });
      if ("earlier" in done) return sendJsonText(c, done.earlier as typeof answer, 201);
      if (done.changed.meta.changes !== 1) {
        throw new ApiError(
          "WEBHOOK_ENDPOINT_LIMIT_REACHED",
          `An account can have at most ${db.MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`,
        );
      }
      return sendJsonText(c, answer, 201);
    },
    withUrlRule,
  )
  .openapi(list, async (c) => {
    const rows = await db.listEndpoints(accountDb(c), c.get("accountId"));
    return c.json({ data: rows.map(endpointView) }, 200);
  })
  .openapi(get, async (c) => {
    return c.json(endpointView(await requireEndpoint(c, c.req.valid("param").id)), 200);
  })
  .openapi(
    update,
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const endpoint = await requireEndpoint(c, id);
      const row = await db.updateEndpoint(
        accountDb(c),
        c.get("accountId"),
        endpoint.id,
        {
          url: body.url,
          description: body.description,
          enabledEvents: body.enabled_events,
          status: body.status,
        },
        Date.now(),
      );
      if (!row) throw endpointNotFound(id);
      return c.json(endpointView(row), 200);
    },
    withUrlRule,
  )
  .openapi(remove, async (c) => {
    const { id } = c.req.valid("param");
    const endpoint = await requireEndpoint(c, id);
    if (!(await db.deleteEndpoint(accountDb(c), c.get("accountId"), endpoint.id))) throw endpointNotFound(id);
    return c.body(null, 204);
  })
  .openapi(rotate, async (c) => {
    const { id } = c.req.valid("param");
    // The answer is made from the endpoint as read, and the rotation applies only while what the
    // answer shows is still so; an endpoint changed in between (not by another rotation, whose
    // secret this one replaces) is read again.
    for (let attempt = 1; attempt <= ROTATION_ATTEMPTS; attempt++) {
      const endpoint = await requireEndpoint(c, id);
      // Never before the endpoint's last change (a PATCH may have stamped a millisecond ahead).
      const now = Math.max(Date.now(), endpoint.updated_at);
      refuseOverlapFull(id, db.retiredSecrets(endpoint, now));
      const rotated = { ...endpoint, secret: newWebhookSecret(), updated_at: now };
      const answer = JSON.stringify(withSecret(rotated)) as JsonText<z.infer<typeof WithSecretSchema>>;
      const rotate = db.rotateSecretStatement(
        accountDb(c),
        endpoint,
        rotated.secret,
        now + ROTATION_OVERLAP_MS,
        now,
        unlessAnswered(c.get("accountId"), c.get("idempotency")),
      );
      // With an Idempotency-Key, the answer (the new secret, shown once) is stored in the same
      // transaction, sealed for its caller: a retry replays it, never rotates twice.
      const done = await changeOnce(c, accountDb(c), rotate, {
        body: answer,
        madeIf: {
          sql: "EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND secret = ?)",
          params: [rotated.id, rotated.secret],
        },
      });
      if ("earlier" in done) return sendJsonText(c, done.earlier as typeof answer, 200);
      if (done.changed.meta.changes === 1) return sendJsonText(c, answer, 200);
    }
    c.set("idempotencyIncomplete", true); // not an answer to replay: the same request may try again
    throw new ApiError(
      "INVALID_STATE",
      `The webhook endpoint '${id}' kept changing while its secret was being rotated. Send the request again.`,
    );
  });

/**
 * 409 while MAX_RETIRED_SECRETS replaced secrets still sign: one more would push a signature past
 * what receivers take, or make one stop before its 24 hours. Said when the oldest stops.
 */
function refuseOverlapFull(id: string, stillSigning: db.RetiredSecret[]) {
  if (stillSigning.length < db.MAX_RETIRED_SECRETS) return;
  const oldestUntil = Math.min(...stillSigning.map((r) => r.until));
  throw new ApiError(
    "INVALID_STATE",
    `The webhook endpoint '${id}' has ${stillSigning.length} replaced secrets still signing, the most it keeps: each ` +
      `signs for 24 hours after its rotation. The oldest stops at ${isoTime(oldestUntil)}; rotate again after that.`,
  );
}
