/**
 * API token format, shared by the Worker (to check tokens) and the accounts CLI (to mint them).
 * Node loads this file directly, so its one import carries its extension.
 */
import { sha256Hex } from "./hash.ts";

export const TOKEN_PREFIX = "cct_";
/** Base64url characters after the prefix: 256 random bits. */
const TOKEN_SECRET_CHARS = 43;
const TOKEN_FORMAT = new RegExp(`^${TOKEN_PREFIX}[A-Za-z0-9_-]{${TOKEN_SECRET_CHARS}}$`);

/** Whether `text` has the form of a token this service mints; anything else is refused unlooked-up. */
export const isWellFormedToken = (text: string) => TOKEN_FORMAT.test(text);

/** Characters of a token kept in clear (with the prefix) so people can tell their tokens apart. */
const VISIBLE_CHARS = 8;

/** `bytes` random bytes as base64url text (no padding). */
export function randomBase64url(bytes: number): string {
  const random = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...random))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/**
 * A new secret token (256 random bits) with what is stored of it: its hash, a short prefix, and its
 * last 4 characters (shown as `cct_…abcd` so people can tell their keys apart).
 */
export async function mintToken(): Promise<{ token: string; hash: string; prefix: string; last4: string }> {
  const token = TOKEN_PREFIX + randomBase64url(32);
  return {
    token,
    hash: await sha256Hex(token),
    prefix: token.slice(0, TOKEN_PREFIX.length + VISIBLE_CHARS),
    last4: token.slice(-4),
  };
}
