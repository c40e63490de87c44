/**
 * `npm run dev`: the service on local D1 and Durable Objects, state kept in .wrangler/ across
 * restarts. Applies migrations, makes sure a development account exists, prints its token, then
 * hands over to `wrangler dev` (extra arguments such as `--port 9000 --ip 127.0.0.1` pass through).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { sha256Hex } from "../src/tokens.ts";
import { createAccount, tokenIsActive, type IssuedToken } from "./lib/accounts.ts";
import { migrateLocal, WRANGLER_ENV } from "./lib/d1.ts";

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
  const wrangler = startWrangler(["dev", ...args]);
  wrangler.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

/**
 * `wrangler dev` in a process group of its own (it starts workerd and more node processes), so a
 * signal to this script reaches all of them: `kill <pid>` or Ctrl-C on `npm run dev` leaves no
 * server holding the port. stdin is not passed on: a background process group reading the
 * terminal would be stopped by it (wrangler's hotkeys are off; Ctrl-C stops everything).
 */
function startWrangler(args: string[]): ChildProcess {
  const child = spawn("node_modules/.bin/wrangler", args, { stdio: ["ignore", "inherit", "inherit"], env: WRANGLER_ENV, detached: true });
  const stopGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      stopGroup(signal);
      // Whatever did not stop within a few seconds is killed.
      setTimeout(() => stopGroup("SIGKILL"), 5000).unref();
    });
  }
  process.on("exit", () => stopGroup("SIGKILL"));
  return child;
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
