/**
 * Dashboard sessions (docs/keys-and-permissions.md): an opaque random cookie value, stored in D1
 * only as its SHA-256. A session has the permissions of what signed it in (a sign-in link: full
 * access; an API key: that key's) and ends at sign-out, after 12 hours without use, 7 days after
 * sign-in, and with the key it signed in with (revoked: within the cache's 10 seconds; expired: at
 * the instant). Who is asking is decided in auth.ts; this module knows the cookie and the session's
 * row.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { CREDENTIAL_CACHE_TTL_MS, CredentialCache, entryBytes, SPARED_AFTER_AUTHENTICATING_MS } from "./auth-cache";
import * as db from "./db/sessions";
import { FULL_ACCESS, grantOfStored } from "./domain/permissions";
import { isoTime } from "./domain/iso-time";
import { randomBase64url, TOKEN_PREFIX } from "./tokens";
import { sha256Hex } from "./hash";
import type { AppEnv, Session } from "./app-env";

export const SESSION_MAX_AGE_MS = 7 * 24 * 3600_000;
/** last_seen_at is written at most this often per session: no D1 write per request. */
export const SESSION_SEEN_PRECISION_MS = 60_000;

const COOKIE = "ccs_session";
/** 256 random bits, base64url: anything else is refused without a lookup. */
const VALUE_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export type { Session };

const isHttps = (c: Context<AppEnv>) => new URL(c.req.url).protocol === "https:";

/**
 * `__Host-` on https (Secure, Path=/, no Domain: no subdomain or plain-http page can set or shadow
 * it); a plain name on http, where browsers refuse Secure cookies (local development).
 */
export const cookieName = (c: Context<AppEnv>) => (isHttps(c) ? `__Host-${COOKIE}` : COOKIE);

/** The request's session cookie value, if it sent one. */
export const sessionCookie = (c: Context<AppEnv>): string | undefined => getCookie(c, cookieName(c)) || undefined;

/** The Set-Cookie value that sets (or, with "", clears) the session cookie. */
export function sessionCookieHeader(c: Context<AppEnv>, value: string, maxAgeSeconds: number): string {
  const secure = isHttps(c) ? "; Secure" : "";
  return `${cookieName(c)}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Strict${secure}`;
}

/** Cookie value -> its session, for sessions that authenticated (the value never leaves memory). */
const cache = new CredentialCache<Session>(CREDENTIAL_CACHE_TTL_MS, 1024 * 1024);

/** Drops this isolate's cached sessions signed in with a key just revoked or rolled. */
export const forgetSessionsOfKey = (keyId: string) => cache.deleteWhere((s) => s.key?.id === keyId);

/** Why a session found in D1 cannot authenticate, or null when it can (checked before caching). */
function endedInStore(row: db.SessionRow): string | null {
  if (row.revoked_at !== null && row.ended_by === "limit") {
    return (
      `The session ended when a newer sign-in with the same ${row.key_id === null ? "sign-in links" : "API key"} ` +
      `passed the limit of ${db.MAX_LIVE_SESSIONS} live sessions.`
    );
  }
  if (row.revoked_at !== null) return "The session ended when it was signed out.";
  if (row.key_id !== null && (!row.key_found || row.key_revoked_at !== null)) {
    return "The session ended when the API key it signed in with was revoked.";
  }
  return null;
}

/** Why a live session has ended by `now`, or null: checked on every request, cached or not. */
function endedBy(session: Session, now: number): string | null {
  if (session.expiresAt <= now) return `The session ended at ${isoTime(session.expiresAt)}, 7 days after sign-in.`;
  if (session.lastSeenAt + db.SESSION_IDLE_MS <= now) {
    return `The session ended at ${isoTime(session.lastSeenAt + db.SESSION_IDLE_MS)}, after 12 hours without use.`;
  }
  const keyExpiry = session.key?.expiresAt ?? null;
  if (keyExpiry !== null && keyExpiry <= now)
    return `The session ended when the API key it signed in with expired at ${isoTime(keyExpiry)}.`;
  return null;
}

function sessionOfRow(idHash: string, row: db.SessionRow): Session {
  const key =
    row.key_id === null
      ? null
      : {
          id: row.key_id,
          name: row.key_name ?? "",
          redacted: row.key_last4 === null ? `${row.key_prefix}…` : `${TOKEN_PREFIX}…${row.key_last4}`,
          expiresAt: row.key_expires_at,
        };
  return {
    idHash,
    accountId: row.account_id,
    accountShard: row.account_shard,
    accountName: row.account_name,
    key,
    grant: key === null ? FULL_ACCESS : grantOfStored(row.key_permissions),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastSeenAt: row.last_seen_at,
  };
}

/**
 * The session of a cookie value, or why it cannot authenticate (a sentence for the 401);
 * `beforeLookup` runs (and may throw) before anything that costs a hash or a query, unless the
 * cookie authenticated here within SPARED_AFTER_AUTHENTICATING_MS (auth-cache.ts). Only
 * sessions that authenticate are cached, for CREDENTIAL_CACHE_TTL_MS: the bound on how long a
 * sign-out or a revoked key goes unseen by another isolate.
 */
export async function sessionOf(
  database: D1Database,
  value: string,
  now: number,
  beforeLookup: () => void,
): Promise<Session | string> {
  let session = cache.get(value, now);
  if (!session) {
    if (!cache.authenticatedWithin(value, SPARED_AFTER_AUTHENTICATING_MS, now)) beforeLookup();
    const unknown = "The session cookie matches no session.";
    if (!VALUE_FORMAT.test(value)) return unknown;
    const idHash = await sha256Hex(value);
    const row = await db.sessionForHash(database, idHash);
    if (!row) return unknown;
    const ended = endedInStore(row);
    if (ended) return ended;
    session = sessionOfRow(idHash, row);
    cache.set(
      value,
      session,
      entryBytes(
        value,
        idHash,
        row.account_id,
        row.account_name,
        row.account_shard,
        row.key_id,
        row.key_name,
        row.key_permissions,
      ),
      now,
    );
  }
  return endedBy(session, now) ?? session;
}

/** The session stored under this hash, fresh from D1 (as sign-in made it), ended or not. */
export async function storedSession(database: D1Database, idHash: string): Promise<Session | null> {
  const row = await db.sessionForHash(database, idHash);
  return row && sessionOfRow(idHash, row);
}

/**
 * Records the session's use at most once a minute, after the response (waitUntil): the 12-hour
 * idle limit counts from it. A clock that went back records again rather than never.
 */
export function recordSeen(c: Context<AppEnv>, session: Session, now: number) {
  if (now - session.lastSeenAt < SESSION_SEEN_PRECISION_MS && now >= session.lastSeenAt) return;
  session.lastSeenAt = now;
  c.executionCtx.waitUntil(
    db
      .touchSession(c.env.DB, session.idHash, now, SESSION_SEEN_PRECISION_MS)
      .catch((error: unknown) => console.error("could not record a session's use", error)),
  );
}

/** A new session for the account: the cookie value (shown only in Set-Cookie) and its hash. */
export async function newSessionSecret() {
  const value = randomBase64url(32);
  return { value, idHash: await sha256Hex(value) };
}

/** Signs the session of this cookie value out, here at once and everywhere within the cache's bound. */
export async function endSession(database: D1Database, value: string, now: number) {
  cache.delete(value);
  if (VALUE_FORMAT.test(value)) await db.revokeSession(database, await sha256Hex(value), now);
}
