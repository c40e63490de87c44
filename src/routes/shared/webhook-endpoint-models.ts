/**
 * The shapes of /v1/webhook_endpoints (docs/notifications.md): the endpoint as the API shows it,
 * with and without its secret, and the bodies that make and change one.
 */
import { z } from "@hono/zod-openapi";
import type * as db from "../../db/webhooks";
import { NOTIFICATION_TYPES, type NotificationType } from "../../notifications/notification";
import { isoTime } from "../../domain/iso-time";
import { characters, plainLine, plainLineMessage } from "../../domain/text";
import { jsonResponse } from "./openapi";
import { whenOtherwiseValid } from "./params";
import { timestamp } from "../../models";
import { webhookUrlProblem } from "../../notifications/webhook-url";
import { webhookEndpointExample } from "./examples";

const MAX_URL_LENGTH = 2048;

const EventTypesSchema = z
  .array(z.enum(NOTIFICATION_TYPES))
  .min(1)
  .refine((types) => new Set(types).size === types.length, { message: "must not name a type twice" })
  .openapi({ description: "The notification types delivered to this endpoint.", example: ["candidate.confirmed"] });

/**
 * Every rule of a webhook URL but one is checked with the body's other fields, so a refusal lists
 * them all; whether a loopback host is allowed depends on where the service runs (its env), so
 * the route checks that after (webhooks.ts).
 */
const UrlSchema = z
  .string()
  .min(1)
  .max(MAX_URL_LENGTH)
  .superRefine((url, ctx) => {
    if (url === "") return; // min(1) says it
    const problem = webhookUrlProblem(url, true);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi({
    description:
      "Where deliveries are POSTed: `https://` to a name or a public address (private, link-local and other non-public addresses are refused); a loopback host, over `http://` too, only where the service allows it (local development). Spaces, control and invisible characters are refused (percent-encode them): the URL kept is the one delivered to.",
    example: "https://example.com/webhooks/candidates",
  });
const MAX_DESCRIPTION = 1024;
/**
 * Up to 1,024 characters, counted as Unicode code points (as every limit of the API counts them), on
 * one line. An empty one is none: kept and answered as null.
 */
const DescriptionSchema = z
  .string()
  .refine(plainLine, { error: (issue) => plainLineMessage(issue.input) })
  .refine((text) => characters(text) <= MAX_DESCRIPTION, {
    error: (issue) => `must be at most ${MAX_DESCRIPTION} characters; received ${characters(issue.input as string)}`,
  })
  .transform((text) => (text === "" ? null : text))
  .nullable()
  .openapi({
    maxLength: MAX_DESCRIPTION,
    description: 'For people: one line, without control or bidirectional formatting characters. `""` is none, as null.',
    example: "Billing system",
  });

export const WebhookEndpointSchema = z
  .object({
    id: z.string().uuid(),
    url: z.string(),
    description: z.string().nullable(),
    enabled_events: z.array(z.enum(NOTIFICATION_TYPES)),
    status: z
      .enum(["enabled", "disabled"])
      .openapi({ description: "`disabled` by the caller, by a `410 Gone`, or after 5 days of failures." }),
    created_at: timestamp("When the endpoint was created."),
    updated_at: timestamp("When it last changed."),
  })
  .openapi("WebhookEndpoint");

export const WithSecretSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({
    description: "The signing secret (`whsec_...`): shown only at creation and rotation.",
    example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  }),
}).openapi("WebhookEndpointWithSecret");

export const CreateBody = z
  .strictObject({
    url: UrlSchema,
    description: DescriptionSchema.optional(),
    enabled_events: EventTypesSchema.optional(),
  })
  .openapi("CreateWebhookEndpointBody", {
    example: {
      url: "https://billing.example.com/hooks/candidates",
      description: "Billing system",
      enabled_events: ["candidate.confirmed", "candidate.failed"],
    },
  });
export const UpdateBody = z
  .strictObject({
    url: UrlSchema.optional(),
    description: DescriptionSchema.optional(),
    enabled_events: EventTypesSchema.optional(),
    status: z.enum(["enabled", "disabled"]).optional().openapi({
      description:
        "`enabled` on a disabled endpoint also clears its failure streak (sent to an enabled one, it leaves the streak running).",
    }),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: "must change at least one field; received an empty object",
    ...whenOtherwiseValid,
  })
  .openapi("UpdateWebhookEndpointBody", { example: { status: "enabled" } });
export const endpointResponse = (description: string) =>
  jsonResponse(description, WebhookEndpointSchema, webhookEndpointExample, { bookmark: true });
export const withSecretResponse = (description: string) =>
  jsonResponse(
    description,
    WithSecretSchema,
    { ...webhookEndpointExample, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwjPTlBmcHdkA=" },
    { replayable: true, bookmark: true },
  );

export function endpointView(row: db.EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    enabled_events: JSON.parse(row.enabled_events) as NotificationType[],
    status: row.status,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export const withSecret = (row: db.EndpointRow) => ({ ...endpointView(row), secret: row.secret });
