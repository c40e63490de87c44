/**
 * Standard Webhooks signatures (standardwebhooks.com): HMAC-SHA256 over
 * "{webhook-id}.{webhook-timestamp}.{body}", base64, as `v1,<signature>`; several secrets (during a
 * rotation) sign side by side, space-separated. Secrets are `whsec_` + base64 of 32 random bytes.
 */
import { fromBase64, toBase64 } from "../base64";

const SECRET_PREFIX = "whsec_";
const encoder = new TextEncoder();

export function newWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(32)));
}

async function signature(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    fromBase64(secret.slice(SECRET_PREFIX.length)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return `v1,${toBase64(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(content))))}`;
}

/** The three Standard Webhooks headers of one delivery attempt, signed with every given secret. */
export async function webhookHeaders(secrets: string[], id: string, timestampSeconds: number, body: string) {
  const content = `${id}.${timestampSeconds}.${body}`;
  const signatures = await Promise.all(secrets.map((secret) => signature(secret, content)));
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": signatures.join(" "),
  };
}
