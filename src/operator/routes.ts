/**
 * The operator API (/operator/v1, behind gate.ts): what the accounts CLI does, over HTTP, so a CLI
 * call is one request to the running service instead of a database client of its own. Not part of
 * the account API: absent from its OpenAPI document.
 */
import { Hono } from "hono";
import { every } from "hono/combine";
import { z } from "zod";
import { jsonBody } from "../json-body";
import { validationError } from "../errors/api-error";
import { zodDetails } from "../errors/zod-issues";
import { forgetKey } from "../auth";
import type { AppEnv } from "../app-env";
import { shardsOf } from "../shards";
import * as store from "./store.ts";
import { redriveLostDeliveries } from "../notifications/redrive";

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(zodDetails(result.error));
  return result.data;
}

/**
 * POST /redeliveries: the notifications recorded before `recorded_before` are looked at (the
 * instant the restarted server was ready: what came since went through its own queues).
 */
const RedeliveriesBody = z.strictObject({
  recorded_before: z.iso
    .datetime({ offset: true, error: "must be an ISO 8601 instant, such as 2027-01-31T00:00:00Z" })
    .transform((at) => Date.parse(at)),
});

/** The JSON body guards every POST of the account API has (media type, size, syntax, I-JSON). */
const body = every(...jsonBody());
const optionalBody = every(...jsonBody({ optional: true }));

export const operatorRouter = new Hono<AppEnv>()
  .post("/accounts", body, async (c) => {
    const { name } = parse(store.CreateAccountBody, await c.req.json());
    return c.json(await store.createAccount(c.env.DB, shardsOf(c.env), name, Date.now()), 201);
  })
  .get("/accounts", async (c) => {
    const query = parse(store.ListAccountsQuery, c.req.query());
    return c.json(await store.listAccounts(c.env.DB, query));
  })
  .post("/accounts/:account_id/keys", optionalBody, async (c) => {
    const input = parse(store.CreateKeyBody, await c.req.json());
    return c.json(await store.createKey(c.env.DB, c.req.param("account_id")!, input, Date.now()), 201);
  })
  .get("/accounts/:account_id/keys", async (c) => {
    return c.json({ data: await store.listKeys(c.env.DB, c.req.param("account_id")!, Date.now()) });
  })
  .post("/keys/:key_id/revoke", async (c) => {
    const revoked = await store.revokeKey(c.env.DB, c.req.param("key_id")!, Date.now());
    forgetKey(revoked.token_id); // at once in this isolate; elsewhere within the cache's 10 seconds
    return c.json(revoked);
  })
  .post("/accounts/:account_id/sign_in_links", async (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json(await store.createSignInLink(c.env.DB, c.req.param("account_id")!, origin, Date.now()), 201);
  })
  // Deliveries a queue lost (Miniflare's queues live in memory: redrive.ts).
  .post("/redeliveries", body, async (c) => {
    const { recorded_before } = parse(RedeliveriesBody, await c.req.json());
    return c.json({ queued: await redriveLostDeliveries(c.env, recorded_before, Date.now()) });
  });
