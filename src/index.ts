/** Worker entry: the HTTP app, the hourly cron, and the Durable Object class bound as CANDIDATES. */
import { createApp } from "./app";
import { purgeExpiredKeys } from "./idempotency";

export { CandidateObject } from "./candidate/object";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env) {
    await purgeExpiredKeys(env.DB, Date.now());
  },
} satisfies ExportedHandler<Env>;
