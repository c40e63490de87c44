/**
 * `npm run dev`: the service on local D1 and Durable Objects, state kept in .wrangler/ across
 * restarts. Applies migrations, makes sure a development account exists, prints its token, then
 * hands over to `wrangler dev` (extra arguments such as `--port 9000 --ip 127.0.0.1` pass through).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { sha256Hex } from "../src/tokens.ts";
import { createAccount, tokenIsActive, type IssuedToken } from "./lib/accounts.ts";
import { migrateLocal } from "./lib/d1.ts";
import { spawnWrangler, stopOnSignals } from "./lib/wrangler.ts";

const CREDENTIALS = ".wrangler/dev-account.json";
const local = { remote: false };

/** The development account's token: kept in .wrangler/ (local only) so restarts reuse it. */
async function devCredentials(): Promise<IssuedToken> {
  if (existsSync(CREDENTIALS)) {
    const saved = JSON.parse(readFileSync(CREDENTIALS, "utf8")) as IssuedToken;
    if (await tokenIsActive(local, await sha256Hex(saved.token))) return saved;
  }
  const issued = await createAccount(local, "Development");
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(CREDENTIALS, JSON.stringify(issued, null, 2) + "\n", { mode: 0o600 });
  return issued;
}

function portOf(args: string[]): string {
  const i = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
  if (i < 0) return "8787";
  return args[i].includes("=") ? args[i].split("=")[1] : (args[i + 1] ?? "8787");
}

async function main() {
  // `kill <pid>` or Ctrl-C stops everything this script started, whenever it comes.
  stopOnSignals();
  const args = process.argv.slice(2);
  await migrateLocal();
  const dev = await devCredentials();
  console.log(`
  Candidate Contract Service (local)
  account  ${dev.account_id}
  token    ${dev.token}

  export TOKEN=${dev.token}
  curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:${portOf(args)}/v1/schemas
`);
  const wrangler = spawnWrangler(["dev", ...args], ["ignore", "inherit", "inherit"]);
  wrangler.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
