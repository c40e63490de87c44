/**
 * /v1/api_keys (docs/keys-and-permissions.md): the account's API keys. Secrets are shown once
 * (create, roll) and stored only as their SHA-256; a key never makes a key that may do more than
 * itself.
 */
import { z } from "@hono/zod-openapi";
import { uuidv7 } from "uuidv7";
import { validationError } from "../errors/api-error";
import { forgetKey } from "../auth";
import * as db from "../db/tokens";
import { grantOfStored, inOrder } from "../domain/permissions";
import { isoTime } from "../domain/iso-time";
import { isUuid } from "../domain/uuid";
import { mintToken } from "../tokens";
import { changeOnce, earlierAnswer, unlessAnswered } from "../idempotency";
import type { JsonText } from "../domain/json";
import {
  BODY_ERRORS,
  createRouter,
  errorResponses,
  jsonResponse,
  POST_ERRORS,
  sendJsonText,
  withJsonBody,
  withPostBody,
} from "./shared/openapi";
import { createRoute } from "./shared/route";
import {
  limitReached,
  refuseEscalation,
  refuseOutliving,
  refuseOutranked,
  whyNotRollable,
} from "./shared/api-key-rules";
import {
  apiKeyExample,
  apiKeyWithSecretExample,
  ApiKeySchema,
  ApiKeyWithSecretSchema,
  CreateKeyBody,
  KeyIdParam,
  keyNotFound,
  ListKeysQuery,
  RollKeyBody,
  UpdateKeyBody,
} from "./shared/api-key-models";
import { keyView } from "../key-view";

const keyResponse = (description: string) => jsonResponse(description, ApiKeySchema, apiKeyExample);
const secretResponse = (description: string) =>
  jsonResponse(description, ApiKeyWithSecretSchema, apiKeyWithSecretExample, { replayable: true });
const SEALED_REPLAY =
  "With an `Idempotency-Key`, a lost answer is replayed (secret included) to the same API key or dashboard session that " +
  "sent the request, and to no other: the service keeps the answer only sealed with that caller's own credential. The " +
  "same key sent by another caller is 409 `IDEMPOTENCY_KEY_REUSED`.";

const create = createRoute("api_keys:write", {
  method: "post",
  path: "/",
  operationId: "createApiKey",
  tags: ["API keys"],
  summary: "Create an API key (extension)",
  description:
    "The answer holds the key's `secret`, shown only here. Without `permissions` the key has full access; a key can only be " +
    `given permissions the calling key holds (403 naming the first it lacks), and only a full-access key may leave out \`permissions\`. At most 100 keys not revoked per account (expired ones count until revoked). A key that expires makes only keys that expire no later. ${SEALED_REPLAY}`,
  ...withPostBody(CreateKeyBody, { answerHoldsSecret: true }),
  responses: {
    201: secretResponse("The new key, with its secret."),
    ...errorResponses(...POST_ERRORS, "API_KEY_LIMIT_REACHED"),
  },
});

const list = createRoute("api_keys:read", {
  method: "get",
  path: "/",
  operationId: "listApiKeys",
  tags: ["API keys"],
  summary: "List API keys, newest first (extension)",
  description:
    "Newest first, ties broken by id; no secrets. `next_cursor` is the id of the page's last key when more follow, else null.",
  request: { query: ListKeysQuery },
  responses: {
    200: jsonResponse(
      "A page of keys; pass `next_cursor` as `after` for the next one.",
      z.object({ data: z.array(ApiKeySchema), next_cursor: z.string().nullable() }),
      {
        data: [apiKeyExample],
        next_cursor: null,
      },
    ),
    ...errorResponses("VALIDATION_ERROR"),
  },
});

const get = createRoute("api_keys:read", {
  method: "get",
  path: "/{id}",
  operationId: "getApiKey",
  tags: ["API keys"],
  summary: "Get an API key (extension)",
  request: { params: KeyIdParam },
  responses: { 200: keyResponse("The key, without its secret."), ...errorResponses("API_KEY_NOT_FOUND") },
});

const update = createRoute("api_keys:write", {
  method: "patch",
  path: "/{id}",
  operationId: "updateApiKey",
  tags: ["API keys"],
  summary: "Rename an API key (extension)",
  ...withJsonBody(UpdateKeyBody, { request: { params: KeyIdParam } }),
  responses: { 200: keyResponse("The key as renamed."), ...errorResponses(...BODY_ERRORS, "API_KEY_NOT_FOUND") },
});

const roll = createRoute("api_keys:write", {
  method: "post",
  path: "/{id}/roll",
  operationId: "rollApiKey",
  tags: ["API keys"],
  summary: "Roll an API key (extension)",
  description:
    "A new key with the same name, permissions and expiry, and a new secret shown only here. The old key stops working " +
    "`expires_in` seconds from now (never later than it would have); a roll never lengthens access. An expiry under 10 seconds " +
    `away takes effect everywhere within 10 seconds, as a revocation does. Only an active key can be rolled, and only once: a key a roll replaced is not rolled again (409 \`INVALID_STATE\`, naming the key that replaced it). The new key counts against the limit of 100 keys not revoked, and so does the old one until revoked: at the limit a roll is refused (409 \`API_KEY_LIMIT_REACHED\`); revoke a key you no longer use first. ${SEALED_REPLAY} Rolling the calling key itself with \`expires_in\` 0 ends the key a retry would need: roll it with some overlap.`,
  ...withPostBody(RollKeyBody, { request: { params: KeyIdParam }, optional: true, answerHoldsSecret: true }),
  responses: {
    201: secretResponse("The new key, with its secret."),
    ...errorResponses(...POST_ERRORS, "API_KEY_NOT_FOUND", "INVALID_STATE", "API_KEY_LIMIT_REACHED"),
  },
});

const revoke = createRoute("api_keys:write", {
  method: "post",
  path: "/{id}/revoke",
  operationId: "revokeApiKey",
  tags: ["API keys"],
  summary: "Revoke an API key (extension)",
  description:
    "The key stops working within 10 seconds, for good. Revoking a revoked key changes nothing. No body is needed.",
  ...withPostBody(z.strictObject({}).openapi("RevokeApiKeyBody", { description: "Empty, or left out.", example: {} }), {
    request: { params: KeyIdParam },
    optional: true,
  }),
  responses: { 200: keyResponse("The key, revoked."), ...errorResponses(...POST_ERRORS, "API_KEY_NOT_FOUND") },
});

/** The account's key with this id, or API_KEY_NOT_FOUND (also for another account's, or a malformed id). */
async function requireKey(database: D1Database, accountId: string, id: string) {
  const row = isUuid(id) ? await db.getKey(database, accountId, id.toLowerCase()) : null;
  if (!row) throw keyNotFound(id);
  return row;
}

type ApiKeyWithSecret = z.infer<typeof ApiKeyWithSecretSchema>;

/** Holds once the key was made: what a keyed change's answer is stored under (`changeOnce`). */
const keyExists = (id: string) => ({ sql: "EXISTS (SELECT 1 FROM api_tokens WHERE id = ?)", params: [id] });

async function newKey(accountId: string, fields: Pick<db.NewKey, "name" | "permissions" | "expiresAt">, now: number) {
  const { token, hash, prefix, last4 } = await mintToken();
  return { token, key: { id: uuidv7(), accountId, hash, prefix, last4, now, ...fields } satisfies db.NewKey };
}

export const apiKeysRouter = createRouter()
  .openapi(create, async (c) => {
    const body = c.req.valid("json");
    const permissions = body.permissions === undefined ? null : inOrder(body.permissions);
    refuseEscalation(c.get("apiKey").grant, permissions);
    refuseOutliving(c.get("apiKey").expiresAt, body.expires_at ?? null, "Set `expires_at` no later than that.");
    const now = Date.now();
    const { token, key } = await newKey(
      c.get("accountId"),
      { name: body.name, permissions: permissions && JSON.stringify(permissions), expiresAt: body.expires_at ?? null },
      now,
    );
    const answer = JSON.stringify({ ...keyView(db.newKeyRow(key), now), secret: token }) as JsonText<ApiKeyWithSecret>;
    // With an Idempotency-Key: made only if no request with the key made one, its answer (sealed
    // for the caller) stored in the same transaction, so a retry never makes a second key.
    const insert = db.insertKeyStatement(c.env.DB, key, unlessAnswered(c.get("accountId"), c.get("idempotency")));
    const done = await changeOnce(c, c.env.DB, insert, { body: answer, madeIf: keyExists(key.id) });
    if ("earlier" in done) return sendJsonText(c, done.earlier as typeof answer, 201);
    if (done.changed.meta.changes !== 1) throw limitReached();
    return sendJsonText(c, answer, 201);
  })
  .openapi(list, async (c) => {
    const { after, limit, status } = c.req.valid("query");
    const now = Date.now();
    // A malformed cursor names no key: refused like any other, without a query.
    const rows =
      after === undefined || isUuid(after)
        ? await db.keyPage(c.env.DB, c.get("accountId"), {
            afterId: after?.toLowerCase(),
            status,
            now,
            limit: limit + 1,
          })
        : null;
    if (!rows)
      throw validationError([
        { path: "after", message: "is not a cursor from this account's key list (the `next_cursor` of a page)" },
      ]);
    const shown = rows.slice(0, limit);
    return c.json(
      {
        data: shown.map((row) => keyView(row, now)),
        next_cursor: rows.length > limit ? shown[shown.length - 1].id : null,
      },
      200,
    );
  })
  .openapi(get, async (c) => {
    return c.json(keyView(await requireKey(c.env.DB, c.get("accountId"), c.req.valid("param").id), Date.now()), 200);
  })
  .openapi(update, async (c) => {
    const { id } = c.req.valid("param");
    refuseOutranked(c.get("apiKey").grant, await requireKey(c.env.DB, c.get("accountId"), id));
    const row = await db.renameKey(c.env.DB, c.get("accountId"), id.toLowerCase(), c.req.valid("json").name);
    if (!row) throw keyNotFound(id);
    return c.json(keyView(row, Date.now()), 200);
  })
  .openapi(roll, async (c) => {
    const { id } = c.req.valid("param");
    const { expires_in = 0 } = c.req.valid("json");
    const old = await requireKey(c.env.DB, c.get("accountId"), id);
    const now = Date.now();
    const refused = whyNotRollable(old, now);
    if (refused) {
      // A retry of this very roll: its answer, if this request's Idempotency-Key stored one.
      const earlier = await earlierAnswer(c, c.env.DB);
      if (earlier !== undefined) return sendJsonText(c, earlier as JsonText<ApiKeyWithSecret>, 201);
      throw refused;
    }
    refuseEscalation(c.get("apiKey").grant, grantOfStored(old.permissions).listed, true);
    refuseOutliving(
      c.get("apiKey").expiresAt,
      old.expires_at,
      `A rolled key keeps the old key's expiry (${old.expires_at === null ? "it never expires" : isoTime(old.expires_at)}), so only a key that expires no earlier can roll it.`,
    );
    const { token, key } = await newKey(
      c.get("accountId"),
      { name: old.name, permissions: old.permissions, expiresAt: old.expires_at },
      now,
    );
    const answer = JSON.stringify({ ...keyView(db.newKeyRow(key), now), secret: token }) as JsonText<ApiKeyWithSecret>;
    const [insert, endOld] = db.rollKeyStatements(
      c.env.DB,
      old.id,
      key,
      now + Math.round(expires_in * 1000),
      unlessAnswered(c.get("accountId"), c.get("idempotency")),
    );
    const done = await changeOnce(c, c.env.DB, insert, { body: answer, madeIf: keyExists(key.id) }, [endOld]);
    if ("earlier" in done) return sendJsonText(c, done.earlier as typeof answer, 201);
    if (done.changed.meta.changes !== 1) {
      // Revoked, expired or rolled meanwhile, or another key made: say which.
      const current = await requireKey(c.env.DB, c.get("accountId"), id);
      throw whyNotRollable(current, now) ?? limitReached();
    }
    forgetKey(old.id); // this isolate sees the new expiry at once
    return sendJsonText(c, answer, 201);
  })
  .openapi(revoke, async (c) => {
    const { id } = c.req.valid("param");
    refuseOutranked(c.get("apiKey").grant, await requireKey(c.env.DB, c.get("accountId"), id));
    const row = await db.revokeKey(c.env.DB, c.get("accountId"), id.toLowerCase(), Date.now());
    if (!row) throw keyNotFound(id);
    forgetKey(row.id);
    return c.json(keyView(row, Date.now()), 200);
  });
