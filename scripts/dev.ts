/**
 * `npm run dev`: the service on local D1 and Durable Objects, state kept in .wrangler/ across
 * restarts. Applies migrations, makes sure a development account exists, prints its token, then
 * runs `wrangler dev` (extra arguments such as `--port 9000 --ip 127.0.0.1` pass through) and
 * fires its cron triggers on schedule, which `wrangler dev` does not do by itself.
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

/** The value of a wrangler option (`--port 9000` or `--port=9000`), or its default. */
function option(args: string[], name: string, fallback: string): string {
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return fallback;
  return args[i].includes("=") ? args[i].split("=")[1] : (args[i + 1] ?? fallback);
}

/** wrangler.toml's crons: the sweep every minute, the purge at minute 23 of every hour. */
const SWEEP_CRON = "* * * * *";
const PURGE_CRON = "23 * * * *";

/**
 * `wrangler dev` never fires cron triggers by itself; it serves them at /cdn-cgi/handler/scheduled.
 * This runs them on their schedule against the local server: the sweep as soon as the server
 * answers (a window may have ended while it was down) and at every minute, the purge hourly.
 */
function driveCrons(origin: string) {
  const trigger = (cron: string) =>
    fetch(`${origin}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}`).catch(() => {
      // the server is restarting or stopping: the next tick tries again
    });
  const everyMinute = () => {
    void trigger(SWEEP_CRON);
    if (new Date().getMinutes() === 23) void trigger(PURGE_CRON);
    setTimeout(everyMinute, 60_000 - (Date.now() % 60_000)).unref();
  };
  const whenReady = async () => {
    const ready = await fetch(`${origin}/v1/openapi.json`).then((r) => r.ok, () => false);
    if (!ready) return void setTimeout(whenReady, 500).unref();
    everyMinute();
  };
  void whenReady();
}

async function main() {
  // `kill <pid>` or Ctrl-C stops everything this script started, whenever it comes.
  stopOnSignals();
  const args = process.argv.slice(2);
  const origin = `http://${option(args, "--ip", "localhost")}:${option(args, "--port", "8787")}`;
  await migrateLocal();
  const dev = await devCredentials();
  console.log(`
  Candidate Contract Service (local)
  account  ${dev.account_id}
  token    ${dev.token}

  export TOKEN=${dev.token}
  curl -H "Authorization: Bearer $TOKEN" ${origin}/v1/schemas

  reference: ${origin}/docs
  (wrangler warns below that cron triggers do not fire locally: this script fires them, the sweep
  every minute and the purge hourly)
`);
  // Webhooks to a receiver on this machine (http://127.0.0.1:...) are accepted locally.
  const wrangler = spawnWrangler(["dev", "--var", "WEBHOOK_ALLOW_LOOPBACK:true", ...args], ["ignore", "inherit", "inherit"]);
  wrangler.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  driveCrons(origin);
}

main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
