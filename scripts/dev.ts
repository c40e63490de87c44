/**
 * `npm run dev`: the service on local D1 and Durable Objects, state kept in .wrangler/ across
 * restarts. Applies migrations, runs `wrangler dev` (extra arguments such as `--port 9000 --ip
 * 127.0.0.1` pass through) with a local operator secret, and once it serves makes sure a
 * development account exists and prints its token and a fresh dashboard sign-in link. It also
 * fires the cron triggers on schedule, which `wrangler dev` does not do by itself, and tells the
 * accounts CLI where it serves (.wrangler/dev-server.json, removed when it stops).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { stripVTControlCharacters } from "node:util";
import {
  ensureOperatorSecret,
  OPERATOR_ENV_FILE,
  removeDevServer,
  runningDevServer,
  orphanedDevServer,
  writeDevServer,
} from "./lib/local-dev.ts";
import { httpOperator, OperatorError, type Operator } from "./lib/operator.ts";
import { migrateLocal, spawnWrangler, stopOnSignals } from "./lib/wrangler.ts";

const CREDENTIALS = ".wrangler/dev-account.json";

interface DevCredentials {
  account_id: string;
  token_id: string;
  token: string;
}

/** The development account's token: kept in .wrangler/ (local only) so restarts reuse it. */
async function devCredentials(operator: Operator): Promise<DevCredentials> {
  if (existsSync(CREDENTIALS)) {
    const saved = JSON.parse(readFileSync(CREDENTIALS, "utf8")) as DevCredentials;
    const keys = await operator.listKeys(saved.account_id).catch((error: unknown) => {
      if (error instanceof OperatorError && error.code === "ACCOUNT_NOT_FOUND") return [];
      throw error;
    });
    if (keys.some((k) => k.token_id === saved.token_id && k.status === "active")) return saved;
  }
  const { account_id, key } = await operator.createAccount("Development");
  const issued = { account_id, token_id: key.token_id, token: key.token };
  writeFileSync(CREDENTIALS, JSON.stringify(issued, null, 2) + "\n", { mode: 0o600 });
  return issued;
}

/**
 * The env files `wrangler dev` reads secrets from. Naming any replaces its default (.dev.vars,
 * else .env), so the default comes first and the operator secret last, where it wins.
 */
function envFiles(): string[] {
  const defaults = existsSync(".dev.vars") ? [".dev.vars"] : [".env", ".env.local"].filter((f) => existsSync(f));
  return [...defaults, OPERATOR_ENV_FILE].flatMap((f) => ["--env-file", f]);
}

/** The origin in wrangler's "Ready on http://..." line, as a client on this machine reaches it. */
function readyOrigin(line: string): string | null {
  const url = /Ready on (https?:\/\/\S+)/.exec(stripVTControlCharacters(line))?.[1];
  if (!url) return null;
  const origin = new URL(url);
  if (origin.hostname === "0.0.0.0") origin.hostname = "127.0.0.1";
  if (origin.hostname === "[::]") origin.hostname = "[::1]";
  return origin.origin;
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
    const ready = await fetch(`${origin}/v1/openapi.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (!ready) return void setTimeout(whenReady, 500).unref();
    everyMinute();
  };
  void whenReady();
}

/** How long after the server answers it looks for deliveries the last stop lost. */
const REDELIVER_AFTER_MS = 15_000;

async function whenServing(origin: string, group: number) {
  const ready = new Date();
  writeDevServer({ pid: process.pid, origin, group });
  const operator = httpOperator(origin, ensureOperatorSecret());
  const dev = await devCredentials(operator);
  const link = await operator.signInLink(dev.account_id);
  console.log(`
  Candidate Contract Service (local)
  account  ${dev.account_id}
  token    ${dev.token}
  sign in  ${link.url}
           (opens the dashboard, ${origin}/dashboard/; valid once, for 15 minutes: \`npm run -s accounts -- sign-in-link --account ${dev.account_id}\` makes another)

  export TOKEN=${dev.token}
  curl -H "Authorization: Bearer $TOKEN" ${origin}/v1/schemas

  reference: ${origin}/docs
  (wrangler warns above that cron triggers do not fire locally: this script fires them, the sweep
  every minute and the purge hourly)
`);
  driveCrons(origin);
  // Miniflare's queues live in memory: a delivery queued as the last run stopped is made again,
  // once the alarms and the first sweep have handed on what they had (src/notifications/redrive.ts).
  setTimeout(() => {
    operator.redeliverLost(ready).then(
      (queued) =>
        queued > 0 && console.log(`  ${queued} webhook deliveries the last stop left unmade are queued again.`),
      (error: unknown) =>
        console.error(`npm run dev: could not queue again what the last stop left: ${(error as Error).message}`),
    );
  }, REDELIVER_AFTER_MS).unref();
}

/** The dashboard's pages, built from their source now, so a change to them shows at this start. */
function buildDashboard() {
  const built = spawnSync("npm", ["run", "-s", "dashboard:build"], { stdio: "inherit" });
  if (built.status !== 0) throw new Error("the dashboard did not build: see above");
}

async function main() {
  // `kill <pid>` or Ctrl-C stops everything this script started, whenever it comes.
  stopOnSignals();
  // Two servers in one checkout would share .wrangler/state: each would find the other's SQLite
  // files locked (SQLITE_BUSY), and answer 500s. The second refuses to start.
  const other = runningDevServer();
  if (other) {
    const where = other.origin ? ` at ${other.origin}` : " (still starting)";
    throw new Error(
      `npm run dev already runs in this directory (pid ${other.pid}${where}); two would share .wrangler/ and lock each other's databases. Stop it first (kill ${other.pid}), or run the second from another clone.`,
    );
  }
  const orphan = orphanedDevServer();
  if (orphan) {
    throw new Error(
      `the last npm run dev here was killed, but its wrangler and workerd still run (pids ${orphan.pids.join(", ")}), holding its port and locking its databases. Stop them first: kill -- -${orphan.group}`,
    );
  }
  const args = process.argv.slice(2);
  ensureOperatorSecret();
  // Starting: the accounts CLI waits for the server rather than open the database beside it.
  writeDevServer({ pid: process.pid, origin: null });
  process.on("exit", () => removeDevServer(process.pid));
  const databases = await migrateLocal();
  console.log(`D1 migrations applied to every local database: ${databases.join(", ")}.`);
  buildDashboard();
  // Webhooks to a receiver on this machine (http://127.0.0.1:...) are accepted locally.
  const wrangler = spawnWrangler(
    ["dev", "--var", "WEBHOOK_ALLOW_LOOPBACK:true", ...envFiles(), ...args],
    ["ignore", "pipe", "inherit"],
  );
  writeDevServer({ pid: process.pid, origin: null, group: wrangler.pid! });
  wrangler.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  // wrangler's output passes through; its first "Ready on" line says where it serves, whatever port it took.
  let pending = "";
  let started = false;
  wrangler.stdout!.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    if (started) return;
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop()!;
    const origin = lines.map(readyOrigin).find((o) => o !== null);
    if (!origin) return;
    started = true;
    whenServing(origin, wrangler.pid!).catch((error: unknown) => {
      console.error(`npm run dev: could not set up the development account: ${(error as Error).message}`);
    });
  });
}
main().catch((error: unknown) => {
  console.error((error as Error).message);
  process.exit(1);
});
