/**
 * Bench only: the service, with RATE_LIMITER replaced by a counter in this isolate's memory.
 *
 * On Cloudflare the binding's counters are cached on the machine that runs the Worker, so a
 * `limit()` call costs next to nothing; Miniflare's stand-in instead writes a row in a SQLite-backed
 * object on every call. This entry serves the unchanged service with the binding's `limit({ key })`
 * contract answered in memory, to measure the service as it runs on Cloudflare.
 */
import service from "../../src/index";

// The service's Durable Object classes, whichever they are.
export * from "../../src/index";

const counts = new Map<string, { window: number; count: number }>();

/** Same windows as the binding (wall-clock aligned), and the same limit the binding is given. */
function memoryLimiter(limit: number, periodSeconds: number): RateLimit {
  return {
    async limit({ key }) {
      const window = Math.floor(Date.now() / (periodSeconds * 1000));
      let seen = counts.get(key);
      if (!seen || seen.window !== window) counts.set(key, (seen = { window, count: 0 }));
      if (seen.count >= limit) return { success: false };
      seen.count++;
      return { success: true };
    },
  };
}

let limiter: RateLimit | undefined;

export default {
  ...service,
  fetch(request, env, ctx) {
    limiter ??= memoryLimiter(env.RATE_LIMIT_REQUESTS, env.RATE_LIMIT_PERIOD_SECONDS);
    return service.fetch(request, { ...env, RATE_LIMITER: limiter }, ctx);
  },
} satisfies ExportedHandler<Env>;
