/**
 * The operator API's door: absent (404, exactly as an unknown path) unless OPERATOR_SECRET is set;
 * else `Authorization: Bearer <operator secret>`, compared in constant time, its failures counted
 * per client address on the same limit as failed API-key authentication (429 past it).
 */
import { createMiddleware } from "hono/factory";
import { ApiError, noEndpointAt } from "../errors/api-error";
import { failure, refuseIfBlocked } from "../auth-failures";
import type { AppEnv } from "../app-env";

const BEARER = /^Bearer +(\S+) *$/i;
const encoder = new TextEncoder();
const digest = (text: string) => crypto.subtle.digest("SHA-256", encoder.encode(text));

/**
 * Whether `given` is the secret, in time that does not depend on where they differ: both are
 * hashed first, so the comparison is of equal lengths and says nothing about the secret's length.
 */
export async function isOperatorSecret(given: string, secret: string): Promise<boolean> {
  const [a, b] = await Promise.all([digest(given), digest(secret)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

export const operatorGate = createMiddleware<AppEnv>(async (c, next) => {
  const secret = c.env.OPERATOR_SECRET;
  // The same answer as the app's own for a path nothing serves (app.ts): nothing tells it exists.
  if (!secret) throw noEndpointAt(c.req.method, c.req.path);
  refuseIfBlocked(c, Date.now());
  const given = BEARER.exec(c.req.header("Authorization") ?? "")?.[1];
  if (given === undefined) {
    throw await failure(
      c,
      new ApiError("MISSING_API_TOKEN", "Send the operator secret as `Authorization: Bearer <secret>`.", undefined, {
        "WWW-Authenticate": "Bearer",
      }),
    );
  }
  if (!(await isOperatorSecret(given, secret))) {
    throw await failure(
      c,
      new ApiError("INVALID_API_TOKEN", "The operator secret is wrong.", undefined, {
        "WWW-Authenticate": 'Bearer error="invalid_token"',
      }),
    );
  }
  await next();
});
