/**
 * Idempotency-Key on POST requests (decisions.md §4): the same key and body from the same account
 * within 24 hours replays the first response; another body is 409 IDEMPOTENCY_KEY_REUSED; a
 * request arriving while the first still runs is 409 IDEMPOTENCY_KEY_IN_USE.
 *
 * The D1 record serialises requests that share a key. Candidate operations also pass the key to
 * their Durable Object, which stores it in the same transaction as the change: if a request dies
 * after the change but before its response is recorded, the retry that takes the key over gets
 * the original result from the object instead of applying the change twice.
 */
import canonicalize from "canonicalize";
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";
import { sha256Hex } from "./tokens";
import { validationError } from "./validation";
import {
  claimIdempotencyKey,
  completionStatement,
  holdsKey,
  releaseIdempotencyKey,
  unlockIdempotencyKey,
  type KeyClaim,
} from "./db/idempotency";
import type { AppEnv, HeldKey, IdempotentRequest } from "./app-env";
import { accountDb } from "./account-db";
import type { D1 } from "./shards";

export const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;
/** A request holding a key longer than this is presumed dead, and a retry may take the key. */
export const IDEMPOTENCY_LOCK_MS = 30_000;

export const KEY_REUSED_MESSAGE =
  "This Idempotency-Key was already used with a different request. Use a new key for a new request.";

export type { HeldKey, IdempotentRequest };

/** Outcomes worth replaying: what the request did (2xx) or decided about existing data (404, 409). */
const replayable = (status: number) => (status >= 200 && status < 300) || status === 404 || status === 409;

export const idempotency = createMiddleware<AppEnv>(async (c, next) => {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined || c.req.method !== "POST") return next();
  if (key.length < 1 || key.length > 255) {
    throw validationError([{ path: "Idempotency-Key", message: `must be 1 to 255 characters; received ${key.length === 0 ? "an empty key" : `${key.length} characters`}` }]);
  }
  const body: unknown = await c.req.json(); // parsed and cached by the body guards
  const claim: KeyClaim = {
    accountId: c.var.accountId,
    key,
    // Canonical JSON (RFC 8785): the same body with its keys in another order is the same request.
    fingerprint: await sha256Hex(`${c.req.method} ${c.req.path}\n${canonicalize(body)}`),
    now: Date.now(),
    lockMs: IDEMPOTENCY_LOCK_MS,
    keepMs: IDEMPOTENCY_KEEP_MS,
  };
  const outcome = await claimIdempotencyKey(accountDb(c), claim);
  switch (outcome.kind) {
    case "replay":
      return c.body(outcome.body, outcome.status as 200, {
        "Content-Type": "application/json",
        "Idempotent-Replayed": "true",
      });
    case "mismatch":
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", KEY_REUSED_MESSAGE);
    case "in_progress":
      // By then it has completed (the retry gets its response) or its hold has lapsed (the retry takes it over).
      throw new ApiError(
        "IDEMPOTENCY_KEY_IN_USE",
        "A request with this Idempotency-Key is still in progress. Retry after it completes.",
        undefined,
        { "Retry-After": String(Math.max(1, Math.ceil((outcome.lockedUntil - claim.now) / 1000))) },
      );
  }

  c.set("idempotency", { key, fingerprint: claim.fingerprint, claimedAt: outcome.claimedAt, lockedUntil: outcome.lockedUntil });
  await next();
  if (c.var.idempotencyRecorded) return; // the handler stored the response with its change
  try {
    const held = c.var.idempotency!;
    if (c.var.idempotencyIncomplete) await unlockIdempotencyKey(accountDb(c), claim.accountId, held, Date.now());
    else if (replayable(c.res.status)) await completionStatement(accountDb(c), claim.accountId, held, c.res.status, await c.res.clone().text()).run();
    else await releaseIdempotencyKey(accountDb(c), claim.accountId, held);
  } catch (error) {
    // The response stands. The key stays claimed until its lock lapses; a retry then takes it
    // over, and candidate objects answer it from their own record of the key.
    console.error(`request ${c.var.requestId}: could not record the Idempotency-Key outcome`, error);
  }
});

/**
 * After a keyed change in D1 made nothing: if a retry took the key over meanwhile (this request
 * outlived its lock), the key is the retry's, and this request answers 409 IDEMPOTENCY_KEY_IN_USE.
 */
export async function refuseIfKeyLost(db: D1, accountId: string, key: HeldKey | undefined) {
  if (key && !(await holdsKey(db, accountId, key))) {
    throw new ApiError(
      "IDEMPOTENCY_KEY_IN_USE",
      "This request outlived its hold on the Idempotency-Key and a retry took the key over. Retry to get that request's response.",
      undefined,
      { "Retry-After": "1" },
    );
  }
}
