/** Who a per-address limit counts: the failed-authentication limit and the public document's. */
import type { Context } from "hono";
import type { AppEnv } from "./app-env";

/**
 * The client's address as the limit counts it: an IPv4 address, or an IPv6 /64 (one host usually
 * holds a whole /64, so counting single IPv6 addresses would let it rotate past the limit).
 */
export function clientAddress(c: Context<AppEnv>): string {
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
