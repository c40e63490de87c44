/**
 * The shapes of /v1/api_keys (docs/keys-and-permissions.md): the key's schema (its view is
 * key-view.ts), bodies and queries.
 */
import { KeyNameSchema, MAX_KEY_NAME } from "../../domain/key-name";
import { z } from "@hono/zod-openapi";
import { ApiError, quoted } from "../../errors/api-error";
import type { KeyStatus } from "../../db/tokens";
import { PERMISSIONS, PermissionsSchema } from "../../domain/permissions";
import { DefaultPageLimitSchema } from "./params";
import { timestamp } from "../../models";

export const MAX_ROLL_OVERLAP_SECONDS = 86_400;
const STATUSES = ["active", "expired", "revoked"] as const satisfies readonly KeyStatus[];

export const apiKeyExample = {
  id: "01936f30-5a6b-7c8d-9e0f-1a2b3c4d5e6f",
  name: "Checkout events",
  redacted: "cct_…x9Qk",
  permissions: ["events:write"],
  full_access: false,
  created_at: "2026-11-22T09:00:00.000Z",
  expires_at: null,
  last_used_at: "2026-11-22T10:15:00.000Z",
  revoked_at: null,
  replaced_by: null,
  status: "active",
};
const secretExample = "cct_Xq3vJ0m1b2N4c5D6e7F8g9H0i1J2k3L4m5N6o7x9Qk";
export const apiKeyWithSecretExample = { ...apiKeyExample, last_used_at: null, secret: secretExample };

const PermissionSchema = z.enum(PERMISSIONS);

export const ApiKeySchema = z
  .object({
    id: z.string().uuid(),
    name: z.string(),
    redacted: z.string().openapi({
      description:
        "`cct_…` and the secret's last 4 characters (keys made before names: their first 12 characters and `…`).",
    }),
    permissions: z.array(PermissionSchema).openapi({
      description: "What the key may do; a full-access key lists every permission (and gains any added later).",
    }),
    full_access: z.boolean().openapi({
      description:
        "Extension. True for a key made without `permissions`: it has every permission, including any added later, and " +
        "only such a key makes or rolls a full-access key. A key given every permission by name is not one.",
    }),
    created_at: timestamp("When the key was created."),
    expires_at: timestamp("When the key stops working; null: never.").nullable(),
    last_used_at: timestamp(
      "When the key was last used, to the minute: recorded at its first use, then at most once a minute; null: never used.",
    ).nullable(),
    revoked_at: timestamp("When the key was revoked; null: it was not.").nullable(),
    replaced_by: z.string().uuid().nullable().openapi({
      description:
        "Extension. The id of the key a roll replaced this one with; null: not rolled. A replaced key works until its `expires_at` and is not rolled again.",
      example: null,
    }),
    status: z.enum(STATUSES).openapi({
      description: "At the instant of the request: `revoked`, else `expired` from `expires_at` on, else `active`.",
    }),
  })
  .openapi("ApiKey", { example: apiKeyExample });

export const ApiKeyWithSecretSchema = ApiKeySchema.extend({
  secret: z.string().openapi({
    description: "The key itself: shown only in this answer. Send it as `Authorization: Bearer <secret>`.",
    example: secretExample,
  }),
}).openapi("ApiKeyWithSecret", { example: apiKeyWithSecretExample });

const NameSchema = KeyNameSchema.openapi({
  minLength: 1,
  maxLength: MAX_KEY_NAME,
  description: "What the key is for: one line, without control or bidirectional formatting characters.",
  example: apiKeyExample.name,
});

const PermissionsInBody = PermissionsSchema.openapi({
  description:
    "`resource:level` permissions (`write` includes `read`); left out: full access. Only permissions the calling key holds.",
});

/** The last instant an ISO 8601 date-time of four-digit years can name. */
const LATEST_INSTANT = Date.parse("9999-12-31T23:59:59.999Z");

/** An instant after the request's: epoch ms. */
const FutureInstantSchema = z
  .string({ error: "must be an ISO 8601 date and time with a time zone, like 2027-01-01T00:00:00Z, or null" })
  .refine((text) => z.iso.datetime({ offset: true }).safeParse(text).success && !Number.isNaN(Date.parse(text)), {
    error: (issue) =>
      `must be an ISO 8601 date and time with a time zone, like 2027-01-01T00:00:00Z; received ${JSON.stringify(issue.input)}`,
  })
  .transform((text) => Date.parse(text))
  .refine((ms) => ms > Date.now(), { error: "must be in the future: a key cannot be made already expired" })
  .refine((ms) => ms <= LATEST_INSTANT, { error: "must be no later than 9999-12-31T23:59:59.999Z" })
  .openapi({ type: "string", format: "date-time" });

export const CreateKeyBody = z
  .strictObject({
    name: NameSchema,
    permissions: PermissionsInBody.optional(),
    expires_at: FutureInstantSchema.nullable()
      .optional()
      .openapi({ description: "When the key stops working (exact to the millisecond); null or left out: never." }),
  })
  .openapi("CreateApiKeyBody", {
    example: { name: "Checkout events", permissions: ["events:write"], expires_at: "2027-01-01T00:00:00Z" },
  });

export const UpdateKeyBody = z
  .strictObject({ name: NameSchema })
  .openapi("UpdateApiKeyBody", { example: { name: "Checkout events (EU)" } });

export const RollKeyBody = z
  .strictObject({
    expires_in: z
      .number({ error: "must be a number of seconds from 0 to 86400" })
      .min(0, { error: "must be a number of seconds from 0 to 86400" })
      .max(MAX_ROLL_OVERLAP_SECONDS, { error: "must be at most 86400 seconds (24 hours)" })
      .optional()
      .openapi({
        description: "Seconds the old key keeps working (0 to 86,400, to the millisecond; default 0: it stops now).",
        example: 3600,
      }),
  })
  .openapi("RollApiKeyBody", {
    description: "Empty, or left out, to end the old key now.",
    example: { expires_in: 3600 },
  });

export const ListKeysQuery = z.strictObject({
  after: z
    .string()
    .optional()
    .openapi({ description: "The `next_cursor` of the previous page.", example: apiKeyExample.id }),
  limit: DefaultPageLimitSchema,
  status: z.enum(STATUSES).optional().openapi({ description: "Only keys with this status now.", example: "active" }),
});

export const KeyIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", example: apiKeyExample.id }),
});

export const keyNotFound = (id: string) =>
  new ApiError("API_KEY_NOT_FOUND", `No API key with id ${quoted(id)} exists in this account.`);
