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

/**
 * The service's bindings with RATE_LIMITER swapped, made once per bindings object the runtime
 * hands in: a copy per request would be work the service does not do on Cloudflare.
 */
const withMemoryLimiter = new WeakMap<Env, Env>();

export default {
  ...service,
  fetch(request, env, ctx) {
    let bindings = withMemoryLimiter.get(env);
    if (!bindings) {
      bindings = { ...env, RATE_LIMITER: memoryLimiter(env.RATE_LIMIT_REQUESTS, env.RATE_LIMIT_PERIOD_SECONDS) };
      withMemoryLimiter.set(env, bindings);
    }
    return service.fetch(request, bindings, ctx);
  },
} satisfies ExportedHandler<Env>;
