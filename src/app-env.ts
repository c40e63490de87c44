/**
 * The request context: who is asking and what the request holds. Types only, and imports only
 * leaf modules, so the middleware that fills it in (auth, session, idempotency) can import it
 * without a circle.
 */
import type { Grant } from "./domain/permissions";
import type { ShardName } from "./shards";

/** What a request carries into the candidate objects to make their changes exactly-once. */
export interface IdempotentRequest {
  key: string;
  fingerprint: string;
  /**
   * When the key's record (in its IdempotencyKeysObject) was claimed. The stores of its changes
   * date and judge their own records of the key by this instant too, so one expiry decides every
   * record (two clocks a few ms apart could otherwise let the key's object free a key a candidate
   * object still holds, and the candidate answer 409 for a day).
   */
  claimedAt: number;
  /**
   * Set when another request holds the key (it is still running, or died before its lock lapsed):
   * the candidate object answers only from what it stored under the key, or IDEMPOTENCY_KEY_IN_USE.
   */
  heldElsewhere?: true;
}

/** The key a request holds: a later takeover of the same key has another `lockedUntil`. */
export interface HeldKey extends IdempotentRequest {
  lockedUntil: number;
  /** The route's answer holds a secret: it is stored sealed for the caller (sealed-answers.ts). */
  sealed?: true;
}

/** A dashboard session, as the request that it authenticated sees it (session.ts). */
export interface Session {
  idHash: string;
  accountId: string;
  accountShard: ShardName;
  /** Shown beside every page, so a person sees which account they are in. */
  accountName: string;
  /** The key it signed in with; null for a sign-in link (full access). */
  key: { id: string; name: string; redacted: string; expiresAt: number | null } | null;
  grant: Grant;
  createdAt: number;
  expiresAt: number;
  /** As this isolate knows it: D1's, or later when this isolate recorded a use. */
  lastSeenAt: number;
}

/**
 * Who a request is: the API key it authenticated with, or its dashboard session, which carries
 * the permissions (and expiry) of the key it signed in with.
 */
export interface RequestKey {
  /** The key's id; for a session, the key it signed in with (null: a sign-in link, full access). */
  id: string | null;
  accountId: string;
  /** Where the account's data lives (docs/scale.md), as the primary records it. */
  shard: ShardName;
  grant: Grant;
  /** Epoch ms; null: never. */
  expiresAt: number | null;
  /** Set when the dashboard's session cookie authenticated the request. */
  session?: Session;
}

/** The Hono environment shared by the app, its middleware and its routes. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    accountId: string;
    /** The account's shard: its data is reached through `accountDb(c)` (account-db.ts). */
    shard: ShardName;
    /** The request's D1 session on the account's shard, once made (account-db.ts). */
    shardSession?: D1DatabaseSession;
    /** The newest bookmark the account's candidate objects answered with (their index writes). */
    objectBookmark?: string;
    apiKey: RequestKey;
    requestId: string;
    /** Set when a POST carries an Idempotency-Key: it holds the key, or (`heldElsewhere`) may only replay. */
    idempotency?: HeldKey;
    /**
     * Set when part of the work failed (a batch item answered 500) or the work could not be done
     * yet (a rotation that met a changing endpoint): the response is not kept under the key, so
     * the same request sent again does what is left (what succeeded replays from its object);
     * another request with the key is still refused.
     */
    idempotencyIncomplete?: boolean;
    /**
     * Set when a candidate object stored the keyed request's result with its change (or replayed
     * it): the key's object need not keep a second copy (see idempotency.ts).
     */
    idempotencyKeptByCandidate?: boolean;
  };
}
