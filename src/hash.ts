/**
 * SHA-256 as lowercase hex: how the service stores what it must recognise but never keep (API
 * tokens, session values, sign-in codes) and fingerprints a request's body. No imports, so Node
 * can load this file directly (the accounts CLI mints tokens with it).
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
