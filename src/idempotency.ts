/**
 * Idempotency-Key on POST requests (decisions.md §4): the same key and body from the same account
 * within 24 hours replays the first response; another body is 409 IDEMPOTENCY_KEY_REUSED; a
 * request arriving while the first still runs is 409 IDEMPOTENCY_KEY_IN_USE.
 *
 * The key's Durable Object (IdempotencyKeysObject) serialises requests that share a key and keeps
 * their outcome. The change itself is kept to once by the store it is made in, with the key's
 * claim instant: a candidate object stores each keyed change's result in the same transaction as
 * the change, and a change made in D1 alone stores its answer with it (`changeOnce`). So if a
 * request dies after its change but before its outcome is recorded, the retry that takes the key
 * over gets the original result instead of applying the change twice.
 */
import canonicalize from "canonicalize";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";
import { sha256Hex } from "./tokens";
import { validationError } from "./validation";
import { answerStatement, noAnswerYet, storedAnswerStatement, type SqlFragment, type StoredAnswer } from "./db/idempotency";
import { IDEMPOTENCY_KEEP_MS, keyStore, type KeyClaim } from "./idempotency-keys";
import { noteBookmark, responseBookmark } from "./account-db";
import type { AppEnv, IdempotentRequest } from "./app-env";
import type { D1 } from "./shards";

export { IDEMPOTENCY_KEEP_MS, IDEMPOTENCY_LOCK_MS } from "./idempotency-keys";

export const KEY_REUSED_MESSAGE =
  "This Idempotency-Key was already used with a different request. Use a new key for a new request.";

export type { IdempotentRequest };

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
  };
  const store = keyStore(c.env, claim.accountId, key);
  const outcome = await store.claim(claim);
  switch (outcome.kind) {
    case "replay":
      noteBookmark(c, outcome.bookmark); // the first response's: the bookmarks middleware sends it
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
  // Awaited, so a retry sent as soon as this response arrives replays it.
  try {
    const held = c.var.idempotency!;
    if (c.var.idempotencyIncomplete) await store.unlock(claim.accountId, held, Date.now());
    else if (replayable(c.res.status)) await store.complete(claim.accountId, held, { status: c.res.status, body: await c.res.clone().text(), bookmark: responseBookmark(c) });
    else await store.release(claim.accountId, held);
  } catch (error) {
    // The response stands. The key stays claimed until its lock lapses; a retry then takes it
    // over, and the store of the change answers it from its own record of the key.
    console.error(`request ${c.var.requestId}: could not record the Idempotency-Key outcome`, error);
  }
});

/**
 * The condition a change made in D1 alone adds to its WHERE under the request's Idempotency-Key
 * (none without a key): no answer of the key is stored yet. See `changeOnce`.
 */
export const unlessAnswered = (accountId: string, request: IdempotentRequest | undefined): SqlFragment | undefined =>
  request && noAnswerYet(accountId, request, IDEMPOTENCY_KEEP_MS);

/**
 * Makes a change in D1 alone (`change`, built with `unlessAnswered` in its WHERE) once per
 * Idempotency-Key: in one transaction with the change, its answer is stored under the key if the
 * change was made (`answer.madeIf`), and the key's stored answer is read. The key's lock is in
 * another store, so two requests may both hold it (the first outlived its lock and a retry took
 * the key over, or the first died after its change): the change is made by the first to reach
 * D1, and the other answers what it answered (a replay), or 409 IDEMPOTENCY_KEY_REUSED if that
 * was another request. Returns the change's result, or the earlier answer (to send with the
 * route's success status: only successes are stored).
 */
export async function changeOnce<T>(
  c: Context<AppEnv>,
  db: D1,
  change: D1PreparedStatement,
  answer: { body: string | SqlFragment; madeIf: SqlFragment },
): Promise<{ changed: D1Result<T> } | { earlier: string }> {
  const request = c.var.idempotency;
  if (!request) return { changed: (await db.batch<T>([change]))[0] };
  const [changed, , stored] = await db.batch<T>([
    change,
    answerStatement(db, c.var.accountId, request, answer.body, answer.madeIf),
    storedAnswerStatement(db, c.var.accountId, request, IDEMPOTENCY_KEEP_MS),
  ]);
  const earlier = stored.results[0] as StoredAnswer | undefined;
  if (changed.meta.changes > 0 || !earlier) return { changed };
  if (earlier.fingerprint !== request.fingerprint) throw new ApiError("IDEMPOTENCY_KEY_REUSED", KEY_REUSED_MESSAGE);
  c.header("Idempotent-Replayed", "true");
  return { earlier: earlier.body };
}
