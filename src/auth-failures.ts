/**
 * The failed-authentication limit per client address (docs/keys-and-permissions.md): every refused
 * credential (a bearer key, a session cookie, a sign-in link's code, a key pasted to sign in, the
 * operator secret) counts here, and an address past the limit is refused before any lookup.
 */
import type { Context } from "hono";
import type { ApiError } from "./errors/api-error";
import { rateLimited, secondsToReset, type LimitPolicy } from "./rate-limit";
import type { AppEnv } from "./app-env";

const authFailurePolicy = (env: Env): LimitPolicy => ({
  name: "auth-failures-per-address",
  limit: env.AUTH_FAILURE_LIMIT_REQUESTS,
  periodSeconds: env.AUTH_FAILURE_LIMIT_PERIOD_SECONDS,
});

/** Client address -> until when this isolate refuses its authentication attempts outright. */
const blockedAddresses = new Map<string, number>();
const MAX_BLOCKED_ADDRESSES = 10_000;

/**
 * The client's address as the limit counts it: an IPv4 address, or an IPv6 /64 (one host usually
 * holds a whole /64, so counting single IPv6 addresses would let it rotate past the limit).
 */
function clientAddress(c: Context<AppEnv>): string {
  const address = c.req.header("CF-Connecting-IP") ?? "unknown";
  if (!address.includes(":")) return address;
  const [head, tail = ""] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** 429 without any work when the address used up its failures; else nothing. */
export function refuseIfBlocked(c: Context<AppEnv>, now: number) {
  const address = clientAddress(c);
  const until = blockedAddresses.get(address);
  if (until === undefined) return;
  if (until > now) throw rateLimited(authFailurePolicy(c.env), "failed authentication attempts from this address", now);
  blockedAddresses.delete(address);
}

/** Counts a failed attempt against the address; the error to answer with (429 once over the limit). */
export async function failure(c: Context<AppEnv>, error: ApiError): Promise<ApiError> {
  const address = clientAddress(c);
  const { success } = await c.env.AUTH_FAILURE_LIMITER.limit({ key: address });
  if (success) return error;
  const now = Date.now();
  const policy = authFailurePolicy(c.env);
  if (blockedAddresses.size >= MAX_BLOCKED_ADDRESSES) blockedAddresses.clear();
  blockedAddresses.set(address, now + secondsToReset(policy, now) * 1000);
  return rateLimited(policy, "failed authentication attempts from this address", now);
}
