import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const TEST_RATE_LIMIT = 500;

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          // Applied to each test file's isolated D1 by test/setup.ts.
          TEST_MIGRATIONS: await readD1Migrations("./migrations"),
          // A smaller per-account limit than wrangler.toml's, so a test can reach it quickly.
          RATE_LIMIT_REQUESTS: TEST_RATE_LIMIT,
        },
        ratelimits: { RATE_LIMITER: { namespace_id: "1001", simple: { limit: TEST_RATE_LIMIT, period: 60 } } },
      },
    })),
  ],
  test: {
    setupFiles: ["./test/setup.ts"],
    include: ["test/**/*.test.ts"],
  },
});
