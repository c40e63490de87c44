/**
 * Idempotency-Key on POST requests (docs/idempotency.md): the same key and request (method, path
 * and body) from the same account within 24 hours replays the first response; another request is
 * 409 IDEMPOTENCY_KEY_REUSED; a request arriving while the first still runs is 409
 * IDEMPOTENCY_KEY_IN_USE.
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
import { ApiError, validationError } from "./errors/api-error";
import { sha256Hex } from "./hash";
import {
  answerStatement,
  noAnswerYet,
  storedAnswerStatement,
  type SqlFragment,
  type StoredAnswer,
} from "./db/idempotency";
import { IDEMPOTENCY_KEEP_MS, keyStore, type KeyClaim } from "./idempotency-keys";
import { noteBookmark, responseBookmark } from "./account-db";
import type { AppEnv, IdempotentRequest } from "./app-env";
import type { D1 } from "./shards";
import { callerName, recipientOf, seal, unseal } from "./sealed-answers";

export { IDEMPOTENCY_KEEP_MS, IDEMPOTENCY_LOCK_MS } from "./idempotency-keys";

export const KEY_REUSED_MESSAGE =
  "This Idempotency-Key was already used with a different request. Use a new key for a new request.";

/** IDEMPOTENCY_KEY_REUSED where the answer holds a secret, so the caller is part of the request. */
const KEY_REUSED_SEALED_MESSAGE =
  "This Idempotency-Key was already used with a different request: another body, or (here, where the answer holds a " +
  "secret only its caller may see) another API key or dashboard session. Use a new key for a new request.";

export const KEY_IN_USE_MESSAGE = "A request with this Idempotency-Key is still in progress. Retry after it completes.";

export type { IdempotentRequest };

/** Outcomes worth replaying: what the request did (2xx) or decided about existing data (404, 409). */
const replayable = (status: number) => (status >= 200 && status < 300) || status === 404 || status === 409;
/** A failure of the service: the change may have been made before it, so the key stays bound to the request. */
const failed = (status: number) => status >= 500;

/**
 * The request a replayed error was made by: its body's `request_id`, which the `Request-Id` header
 * must repeat (the same body, so the same request named in both).
 */
function errorRequestId(status: number, body: string): string | undefined {
  if (status < 400) return undefined;
  try {
    const id = (JSON.parse(body) as { request_id?: unknown }).request_id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a keyed request asks: its method, path and body, in canonical JSON (RFC 8785), so the same
 * body with its keys in another order, or other whitespace, is the same request; and, where the
 * answer holds a secret, who asks (`callerName`).
 */
export const requestFingerprint = (method: string, path: string, body: unknown, caller?: string) =>
  sha256Hex(`${method} ${path}\n${canonicalize(body)}${caller === undefined ? "" : `\n${caller}`}`);

/** 409 IDEMPOTENCY_KEY_REUSED; `sealed`: on a route whose answer holds a secret, where the caller is part of the request. */
const keyReused = (sealed: boolean | undefined) =>
  new ApiError("IDEMPOTENCY_KEY_REUSED", sealed ? KEY_REUSED_SEALED_MESSAGE : KEY_REUSED_MESSAGE);

/**
 * A request that arrives while another holds its key is 409 IDEMPOTENCY_KEY_IN_USE, told when to
 * retry: by then the holder has finished (the retry gets its response) or its hold has lapsed (the
 * retry takes the key over).
 */
export const keyInUse = (lockedUntil: number, now: number) =>
  new ApiError("IDEMPOTENCY_KEY_IN_USE", KEY_IN_USE_MESSAGE, undefined, {
    "Retry-After": String(Math.max(1, Math.ceil((lockedUntil - now) / 1000))),
  });

export interface IdempotencyOptions {
  /**
   * The route's change is made in one candidate object, which stores its result under the key in
   * the change's own transaction (create, an event, resolve). Its result then needs no second
   * copy in the key's object: one object call per keyed request instead of two. A request finding
   * the key held by another asks the candidate, whose stored result is the answer (a replay); with
   * none stored, the holder is still at work (IDEMPOTENCY_KEY_IN_USE).
   */
  candidateKeepsResult?: boolean;
  /**
   * The answer holds a secret shown once (an API key's, a webhook endpoint's signing secret): it
   * is stored sealed for the caller, and only the caller that made the request gets it replayed
   * (sealed-answers.ts).
   */
  answerHoldsSecret?: boolean;
}

export const idempotency = ({ candidateKeepsResult = false, answerHoldsSecret = false }: IdempotencyOptions = {}) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const key = c.req.header("Idempotency-Key");
    if (key === undefined || c.req.method !== "POST") return next();
    if (key.length < 1 || key.length > 255) {
      throw validationError([
        {
          path: "Idempotency-Key",
          message: `must be 1 to 255 characters; received ${key.length === 0 ? "an empty key" : `${key.length} characters`}`,
        },
      ]);
    }
    const body: unknown = await c.req.json(); // parsed and cached by the body guards
    const fingerprint = await requestFingerprint(
      c.req.method,
      c.req.path,
      body,
      answerHoldsSecret ? callerName(c) : undefined,
    );
    const recipient = answerHoldsSecret ? recipientOf(c, key, fingerprint) : undefined;
    const claim: KeyClaim = { accountId: c.get("accountId"), key, fingerprint, now: Date.now() };
    const store = keyStore(c.env, claim.accountId, key);
    const outcome = await store.claim(claim);
    switch (outcome.kind) {
      case "replay": {
        const answer = recipient ? await unseal(outcome.body, recipient) : outcome.body;
        if (answer === null) throw keyReused(true);
        noteBookmark(c, outcome.bookmark); // the first response's: the bookmarks middleware sends it
        const madeBy = errorRequestId(outcome.status, answer);
        if (madeBy) c.header("Request-Id", madeBy);
        return c.body(answer, outcome.status as 200, {
          "Content-Type": "application/json",
          "Idempotent-Replayed": "true",
        });
      }
      case "mismatch":
        throw keyReused(answerHoldsSecret);
      case "in_progress":
        if (!candidateKeepsResult) throw keyInUse(outcome.lockedUntil, claim.now);
        // The key is another request's: nothing to record here, whatever the candidate answers.
        c.set("idempotency", {
          key,
          fingerprint: claim.fingerprint,
          claimedAt: outcome.claimedAt,
          lockedUntil: outcome.lockedUntil,
          heldElsewhere: true,
        });
        return next();
    }

    c.set("idempotency", {
      key,
      fingerprint: claim.fingerprint,
      claimedAt: outcome.claimedAt,
      lockedUntil: outcome.lockedUntil,
      ...(recipient && { sealed: true }),
    });
    await next();
    // Awaited, so a retry sent as soon as this response arrives replays it from the key's object.
    try {
      const held = c.get("idempotency")!;
      const bookmark = responseBookmark(c);
      if (c.get("idempotencyIncomplete") || failed(c.res.status)) await store.unlock(claim.accountId, held, Date.now());
      // A bookmark is kept here, so a replay carries the first response's (the candidate keeps only its latest).
      else if (c.get("idempotencyKeptByCandidate") && bookmark === null) return;
      else if (replayable(c.res.status)) {
        const answer = await c.res.clone().text();
        await store.complete(claim.accountId, held, {
          status: c.res.status,
          body: recipient ? await seal(answer, recipient) : answer,
          bookmark,
        });
      } else await store.release(claim.accountId, held);
    } catch (error) {
      // The response stands. The key stays claimed until its lock lapses; a retry then takes it
      // over, and the store of the change answers it from its own record of the key.
      console.error(`request ${c.get("requestId")}: could not record the Idempotency-Key outcome`, error);
    }
  });

/**
 * What a route with `candidateKeepsResult` does with its candidate object's answer, before
 * anything else: its bookmark is the response's (a replay's too: the index's last point); for a
 * keyed request, a result the object stored (or replayed) is its to keep, a replay says so, and a
 * key another request holds with nothing stored yet is IN_USE.
 */
export function noteCandidateAnswer<
  R extends { ok: boolean; code?: string; replayed?: boolean; bookmark?: string | null },
>(c: Context<AppEnv>, result: R) {
  const request = c.get("idempotency");
  if (request) {
    if (result.code === "IDEMPOTENCY_KEY_IN_USE") throw keyInUse(request.lockedUntil, Date.now());
    if (result.replayed) c.header("Idempotent-Replayed", "true");
    if (result.ok) c.set("idempotencyKeptByCandidate", true);
  }
  noteBookmark(c, result.bookmark);
  return result as Exclude<R, { code: "IDEMPOTENCY_KEY_IN_USE" }>;
}

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
 * was another request. Statements `alongside` the change run after it in the same transaction.
 * Returns the change's result, or the earlier answer (to send with the route's success status:
 * only successes are stored).
 */
export async function changeOnce<T>(
  c: Context<AppEnv>,
  db: D1,
  change: D1PreparedStatement,
  answer: { body: string; madeIf: SqlFragment },
  alongside: D1PreparedStatement[] = [],
): Promise<{ changed: D1Result<T> } | { earlier: string }> {
  const request = c.get("idempotency");
  if (!request) return { changed: (await db.batch<T>([change, ...alongside]))[0] };
  const body = request.sealed ? await seal(answer.body, recipientOf(c, request.key, request.fingerprint)) : answer.body;
  const [changed, , stored] = await db.batch<T>([
    change,
    answerStatement(db, c.get("accountId"), request, body, answer.madeIf),
    storedAnswerStatement(db, c.get("accountId"), request, IDEMPOTENCY_KEEP_MS),
    ...alongside,
  ]);
  const earlier = stored.results[0] as StoredAnswer | undefined;
  if (changed.meta.changes > 0 || !earlier) return { changed };
  return { earlier: await replayOf(c, earlier) };
}

/**
 * The answer a change made in D1 alone stored under the request's Idempotency-Key, if any: for a
 * route whose own checks would refuse what that change left (a rolled key is no longer active).
 */
export async function earlierAnswer(c: Context<AppEnv>, db: D1): Promise<string | undefined> {
  const request = c.get("idempotency");
  if (!request) return undefined;
  const stored = await storedAnswerStatement(
    db,
    c.get("accountId"),
    request,
    IDEMPOTENCY_KEEP_MS,
  ).first<StoredAnswer>();
  return stored ? replayOf(c, stored) : undefined;
}

/** A stored answer of the request's key, sent as a replay; 409 if another request stored it. */
async function replayOf(c: Context<AppEnv>, stored: StoredAnswer): Promise<string> {
  const request = c.get("idempotency")!;
  const body =
    stored.fingerprint !== request.fingerprint
      ? null
      : request.sealed
        ? await unseal(stored.body, recipientOf(c, request.key, request.fingerprint))
        : stored.body;
  if (body === null) throw keyReused(request.sealed);
  c.header("Idempotent-Replayed", "true");
  return body;
}
