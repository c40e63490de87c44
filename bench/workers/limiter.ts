/**
 * Bench only: a rate limiter with the binding's `limit({ key })` interface that counts in memory,
 * as the binding does on Cloudflare (Miniflare's stand-in writes a SQLite row per call instead).
 * Bound in place of RATE_LIMITER for the "service, in-memory limiter" figures.
 */
import { WorkerEntrypoint } from "cloudflare:workers";

const counts = new Map<string, { window: number; count: number }>();

export class Limiter extends WorkerEntrypoint {
  limit({ key }: { key: string }) {
    const window = Math.floor(Date.now() / 60_000);
    const seen = counts.get(key);
    if (seen && seen.window === window) seen.count++;
    else counts.set(key, { window, count: 1 });
    return { success: true };
  }
}

export default {
  fetch: () => new Response(null, { status: 404 }),
};
