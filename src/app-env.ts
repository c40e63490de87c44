import type { Session } from "./session";
import type { HeldKey } from "./idempotency";
import type { Grant } from "./domain/permissions";

/**
 * Who a request is: the API key it authenticated with, or its dashboard session, which carries
 * the permissions (and expiry) of the key it signed in with.
 */
export interface RequestKey {
  /** The key's id; for a session, the key it signed in with (null: a sign-in link, full access). */
  id: string | null;
  accountId: string;
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
    apiKey: RequestKey;
    requestId: string;
    /** Set when a POST carries an Idempotency-Key and holds it. */
    idempotency?: HeldKey;
    /** Set when the handler stored the key's response in the same D1 transaction as its change. */
    idempotencyRecorded?: boolean;
    /**
     * Set when part of the work failed (a batch item answered 500): the response is not kept
     * under the key, so the same request sent again does what failed (what succeeded replays
     * from its object); another request with the key is still refused.
     */
    idempotencyIncomplete?: boolean;
  };
}
