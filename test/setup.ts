import { applyD1Migrations, env } from "cloudflare:test";
import { accountDatabases, shardDb } from "../src/shards";

// Every database takes every migration, as `npm run migrate` applies them: the primary and each shard.
for (const name of accountDatabases(env)) await applyD1Migrations(shardDb(env, name), env.TEST_MIGRATIONS);
