/** What the webhook routes share: the endpoint id parameter and the lookup of the account's endpoint by it. */
import { z } from "@hono/zod-openapi";
import { ApiError, quoted } from "../../errors/api-error";
import { getEndpoint } from "../../db/webhooks";
import { isUuid } from "../../domain/uuid";
import { webhookEndpointExample } from "./examples";
import type { Context } from "hono";
import { readOrAskPrimary } from "../../account-db";
import type { AppEnv } from "../../app-env";

export const EndpointIdParam = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid", example: webhookEndpointExample.id }),
});

export const endpointNotFound = (id: string) =>
  new ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", `No webhook endpoint with id ${quoted(id)} exists in this account.`);

/** The account's endpoint with this id, or WEBHOOK_ENDPOINT_NOT_FOUND (also for another account's, or a malformed id). */
export async function requireEndpoint(c: Context<AppEnv>, id: string) {
  const endpoint = isUuid(id)
    ? await readOrAskPrimary(c, (db) => getEndpoint(db, c.get("accountId"), id.toLowerCase()), Boolean)
    : null;
  if (!endpoint) throw endpointNotFound(id);
  return endpoint;
}
