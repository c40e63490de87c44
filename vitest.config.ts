import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const TEST_RATE_LIMIT = 500;
const TEST_PUBLIC_LIMIT = 40;

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.toml" },
      // workerd's own log of every exception a worker throws stays off: the fault tests throw on
      // purpose, and the service logs what it handles (the tests read that log themselves).
      verbose: false,
      miniflare: {
        bindings: {
          // Applied to each test file's isolated D1 by test/setup.ts.
          TEST_MIGRATIONS: await readD1Migrations("./migrations"),
          // A smaller per-account limit than wrangler.toml's, so a test can reach it quickly.
          RATE_LIMIT_REQUESTS: TEST_RATE_LIMIT,
          PUBLIC_LIMIT_REQUESTS: TEST_PUBLIC_LIMIT,
          // Webhooks to the tests' own receiver on 127.0.0.1, retried within seconds.
          WEBHOOK_ALLOW_LOOPBACK: "true",
          WEBHOOK_RETRY_SCHEDULE: "1s 1s 1s",
          WEBHOOK_TIMEOUT_SECONDS: 2,
          // The operator API exists only with a secret; test/http/operator.test.ts also runs without.
          OPERATOR_SECRET: "test-operator-secret-3f9c2a7e1b5d4c8a9e0f",
        },
        // Consumers take what is queued at once, so tests wait for deliveries, not for batches.
        queueConsumers: {
          "ccs-notifications": { maxBatchTimeout: 0.05, maxRetries: 12, deadLetterQueue: "ccs-notifications-dlq" },
          "ccs-notifications-dlq": { maxBatchTimeout: 0.05 },
          "ccs-webhook-deliveries": {
            maxBatchSize: 6,
            maxBatchTimeout: 0.05,
            maxRetries: 20,
            deadLetterQueue: "ccs-webhook-deliveries-dlq",
          },
          "ccs-webhook-deliveries-dlq": { maxBatchTimeout: 0.05 },
        },
        // An empty database that test/db/migrations.test.ts migrates step by step, as an old local state.
        d1Databases: { DB: "candidate-contract-service", LEGACY_DB: "legacy" },
        ratelimits: {
          RATE_LIMITER: { namespace_id: "1001", simple: { limit: TEST_RATE_LIMIT, period: 60 } },
          PUBLIC_LIMITER: { namespace_id: "1003", simple: { limit: TEST_PUBLIC_LIMIT, period: 60 } },
        },
      },
    })),
  ],
  test: {
    setupFiles: ["./test/setup.ts"],
    globalSetup: ["./test/global-setup.ts"],
    include: ["test/**/*.test.ts"],
  },
});
