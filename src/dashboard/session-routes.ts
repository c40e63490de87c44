/**
 * The dashboard's sign-in and session (docs/keys-and-permissions.md), under /dashboard: not part of
 * the /v1 API or its OpenAPI document. The dashboard's pages post a sign-in link's code (read from
 * the URL's fragment, which no request carries) or a pasted API key here, and get the session
 * cookie; from then on they call /v1 with it, like any client. Every refused code or key counts on
 * the failed-authentication limit per address.
 */
import { Hono } from "hono";
import { every } from "hono/combine";
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import { z } from "zod";
import { ApiError, validationError } from "../errors/api-error";
import { authenticateKey, refuseOtherAccount, sessionCaller } from "../auth";
import { failure, refuseIfBlocked, uncounted } from "../auth-failures";
import { createKeySession, spendSignInLink, type SignInLinkRow } from "../db/sessions";
import { listedPermissions } from "../domain/permissions";
import { SIGN_IN_LINK_TTL_MS } from "../operator/store";
import { requireSameOrigin } from "../same-origin";
import {
  endSession,
  newSessionSecret,
  SESSION_MAX_AGE_MS,
  sessionCookie,
  sessionCookieHeader,
  sessionOf,
  storedSession,
  type Session,
} from "../session";
import { sha256Hex } from "../hash";
import { isoTime, isoTimeOrNull } from "../domain/iso-time";
import { jsonBody } from "../json-body";
import { zodDetails } from "../errors/zod-issues";
import type { AppEnv } from "../app-env";

/** What the dashboard shows of its session, and hides what the session may not do by. */
export function sessionView(session: Session) {
  const keyExpiry = session.key?.expiresAt ?? null;
  return {
    account_id: session.accountId,
    account_name: session.accountName,
    signed_in_with: session.key ? "api_key" : "sign_in_link",
    api_key: session.key && {
      id: session.key.id,
      name: session.key.name,
      redacted: session.key.redacted,
      /** A key it makes must expire no later (the dashboard's new-key form offers only such). */
      expires_at: isoTimeOrNull(keyExpiry),
    },
    permissions: listedPermissions(session.grant),
    /** Signed in with a full-access key or a sign-in link: only such a session makes a full-access key. */
    full_access: session.grant.listed === null,
    created_at: isoTime(session.createdAt),
    /** The earlier of 7 days after sign-in and the signing key's own expiry (12 hours idle aside). */
    expires_at: isoTime(keyExpiry === null ? session.expiresAt : Math.min(session.expiresAt, keyExpiry)),
  };
}

const Secret = z.string().min(1, "must not be empty").max(200, "must be at most 200 characters");
const SignInBody = z
  .strictObject({ code: Secret.optional(), key: Secret.optional() })
  .refine((body) => (body.code === undefined) !== (body.key === undefined), {
    message:
      "must hold exactly one of `code` (a sign-in link's, from after `#code=`) and `key` (an API key, `cct_...`)",
  });

/** A sign-in link's code as createSignInLink makes it: 256 bits, base64url. */
const CODE_FORMAT = /^[A-Za-z0-9_-]{43}$/;

function linkRefusal(link: SignInLinkRow | null): string {
  if (link === null) return "This sign-in link is unknown.";
  if (link.used_at !== null) return "This sign-in link was already used: a link signs in once.";
  return `This sign-in link expired at ${isoTime(link.expires_at)}, ${SIGN_IN_LINK_TTL_MS / 60_000} minutes after it was made.`;
}

/** Spends a sign-in link's code for a session of its account with full access; the 401 else. */
async function signInWithCode(c: Context<AppEnv>, code: string, idHash: string, now: number) {
  refuseIfBlocked(c, now);
  const spent = CODE_FORMAT.test(code)
    ? await spendSignInLink(c.env.DB, await sha256Hex(code), { idHash, now, expiresAt: now + SESSION_MAX_AGE_MS })
    : { refused: null };
  if ("refused" in spent) {
    throw await failure(
      c,
      new ApiError(
        "INVALID_SIGN_IN_LINK",
        `${linkRefusal(spent.refused)} Ask for a new sign-in link, or sign in with an API key.`,
        undefined,
        { "WWW-Authenticate": "Bearer" }, // as every 401 (RFC 9110 §15.5.2)
      ),
    );
  }
}

/** Signing in and out must come from the dashboard's own pages too: no other site signs a browser in or out. */
const sameOrigin = createMiddleware<AppEnv>(async (c, next) => {
  requireSameOrigin(c, "Signing in to the dashboard or out of it changes a browser's session");
  await next();
});

export const dashboardSessionRouter = new Hono<AppEnv>()
  .post("/session", every(sameOrigin, ...jsonBody()), async (c) => {
    const now = Date.now();
    const parsed = SignInBody.safeParse(await c.req.json());
    if (!parsed.success) throw validationError(zodDetails(parsed.error));
    const { value, idHash } = await newSessionSecret();
    if (parsed.data.code !== undefined) {
      await signInWithCode(c, parsed.data.code, idHash, now);
    } else {
      // A new sign-in waits out its address's block, even with a key that is spared it on /v1: the
      // session it would make has not authenticated here, and could not be used from that address.
      refuseIfBlocked(c, now);
      const key = await authenticateKey(c, parsed.data.key!, now);
      await createKeySession(c.env.DB, {
        idHash,
        accountId: key.accountId,
        keyId: key.id,
        now,
        expiresAt: now + SESSION_MAX_AGE_MS,
      });
    }
    // A session this browser held before ends: one browser, one session.
    const previous = sessionCookie(c);
    if (previous !== undefined) await endSession(c.env.DB, previous, now);
    const session = await storedSession(c.env.DB, idHash);
    if (!session) throw new Error("a session just made could not be read back");
    c.header("Set-Cookie", sessionCookieHeader(c, value, SESSION_MAX_AGE_MS / 1000));
    return c.json(sessionView(session), 201);
  })
  .get("/session", async (c) => {
    const value = sessionCookie(c);
    if (value === undefined) {
      throw uncounted(
        c,
        new ApiError("INVALID_SESSION", "Not signed in: sign in to the dashboard first.", undefined, {
          "WWW-Authenticate": "Bearer",
        }),
      );
    }
    const caller = await sessionCaller(c, value, Date.now());
    return c.json(sessionView(caller.session!));
  })
  .delete("/session", sameOrigin, async (c) => {
    const value = sessionCookie(c);
    if (value !== undefined) {
      const now = Date.now();
      // A tab left on another account signs nobody out: the session now is another tab's.
      const session = await sessionOf(c.env.DB, value, now, () => refuseIfBlocked(c, now));
      if (typeof session !== "string") refuseOtherAccount(c, session.accountId);
      await endSession(c.env.DB, value, now);
    }
    c.header("Set-Cookie", sessionCookieHeader(c, "", 0));
    return c.body(null, 204);
  });
