/**
 * `npm run migrate`: every migration in migrations/ applied to every D1 database wrangler.toml
 * declares (the primary and each shard: one schema for all, src/shards.ts), one database after the
 * other. Local by default (.wrangler/, what `npm run dev` serves, which also migrates at every
 * start); `npm run migrate -- --remote` applies them to the deployed databases. Other arguments
 * pass on to each `wrangler d1 migrations apply`.
 */
import { d1Bindings } from "./lib/d1-bindings.ts";
import { spawnWrangler, stopOnSignals } from "./lib/wrangler.ts";

stopOnSignals();
const args = process.argv.slice(2);
const where = args.includes("--remote") || args.includes("--local") ? [] : ["--local"];
for (const { binding } of d1Bindings()) {
  console.log(`\n${binding}`);
  const child = spawnWrangler(
    ["d1", "migrations", "apply", binding, ...where, ...args],
    ["ignore", "inherit", "inherit"],
  );
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) {
    console.error(`npm run migrate: ${binding} failed (see above); the databases after it were not migrated.`);
    process.exit(1);
  }
}
