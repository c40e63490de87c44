/**
 * Keyed answers that hold a secret (an API key's, shown once when it is made or rolled; a webhook
 * endpoint's signing secret, at its creation and rotation) are kept under their Idempotency-Key
 * sealed: AES-GCM, under a key derived (HKDF-SHA-256) from the secret the caller authenticated
 * with and the Idempotency-Key. The service keeps that credential only as a hash, so neither store
 * of a key's answer (its Durable Object, D1's `idempotent_changes`) holds the secret readably, and
 * only the caller that made the request can have it replayed: the request's fingerprint names that
 * caller too (`callerName`), so another credential of the account sending the same key is 409
 * IDEMPOTENCY_KEY_REUSED (docs/idempotency.md). (A webhook secret is also kept readable where it
 * must be, in its endpoint's row, which signs every delivery; no read of the API shows it.)
 */
import type { Context } from "hono";
import { callerSecret } from "./auth";
import { fromBase64, toBase64 } from "./base64";
import type { AppEnv } from "./app-env";

const SEALED = "sealed.v1.";
const IV_BYTES = 12;
const encoder = new TextEncoder();
const SALT = encoder.encode("candidate-contract-service idempotent answer v1");

/**
 * Whom a sealed answer is for: the caller's credential, its account and the Idempotency-Key (which
 * derive the key), and the request's fingerprint (bound as associated data: it opens for that request only).
 */
export interface Recipient {
  credential: string;
  accountId: string;
  key: string;
  fingerprint: string;
}

/** The recipient of this request's answer under its Idempotency-Key. */
export const recipientOf = (c: Context<AppEnv>, key: string, fingerprint: string): Recipient => ({
  credential: callerSecret(c),
  accountId: c.get("accountId"),
  key,
  fingerprint,
});

/** Who made a request, as its fingerprint names them: the API key, or the dashboard session. */
export function callerName(c: Context<AppEnv>): string {
  const caller = c.get("apiKey");
  return caller.session ? `session ${caller.session.idHash}` : `api key ${caller.id}`;
}

async function sealingKey({ credential, accountId, key }: Recipient) {
  const material = await crypto.subtle.importKey("raw", encoder.encode(credential), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: SALT, info: encoder.encode(`${accountId}\n${key}`) },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** `text` sealed for its recipient, as text to store. */
export async function seal(text: string, recipient: Recipient): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(recipient.fingerprint) },
    await sealingKey(recipient),
    encoder.encode(text),
  );
  const stored = new Uint8Array(IV_BYTES + sealed.byteLength);
  stored.set(iv);
  stored.set(new Uint8Array(sealed), IV_BYTES);
  return SEALED + toBase64(stored);
}

/** The text `stored` holds, or null when it was not sealed for this recipient. */
export async function unseal(stored: string, recipient: Recipient): Promise<string | null> {
  if (!stored.startsWith(SEALED)) return null;
  try {
    const bytes = fromBase64(stored.slice(SEALED.length));
    const text = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: encoder.encode(recipient.fingerprint) },
      await sealingKey(recipient),
      bytes.subarray(IV_BYTES),
    );
    return new TextDecoder().decode(text);
  } catch {
    return null;
  }
}
