/**
 * Running the project's own wrangler from the scripts. Each run gets a process group of its own
 * (wrangler starts node and workerd processes of its own), so stopping a script stops everything
 * it started: after `stopOnSignals()`, SIGINT, SIGTERM or SIGHUP goes on to every group still
 * running, nothing more is started, and the script ends when they have.
 */
import { spawn, type ChildProcess, type StdioOptions } from "node:child_process";
import { d1Bindings } from "./d1-bindings.ts";

/** Quiet, offline-friendly settings for every wrangler run. */
export const WRANGLER_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

const running = new Set<ChildProcess>();
/** Set once a stop signal came: nothing more is started, and the script ends with its last child. */
let stopping: NodeJS.Signals | null = null;

function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/**
 * wrangler in a process group of its own. stdin is never passed on: a background process group
 * reading the terminal would be stopped by it.
 */
export function spawnWrangler(args: string[], stdio: StdioOptions = ["ignore", "pipe", "pipe"]): ChildProcess {
  if (stopping) exitStopped();
  const child = spawn("node_modules/.bin/wrangler", args, { stdio, env: WRANGLER_ENV, detached: true });
  running.add(child);
  child.once("exit", () => {
    signalGroup(child, "SIGKILL"); // workerd processes it may have left behind
    running.delete(child);
    if (stopping && running.size === 0) exitStopped();
  });
  return child;
}

/** Ends the script as a stop signal would (128 + its number). */
function exitStopped(): never {
  process.exit(128 + (stopping === "SIGINT" ? 2 : stopping === "SIGHUP" ? 1 : 15));
}

/** Runs wrangler to completion: its standard output, or an error carrying what it printed. */
export function runWrangler(args: string[]): Promise<string> {
  const child = spawnWrangler(args);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(
            `wrangler ${args.slice(0, 3).join(" ")} failed (${signal ?? `exit ${code}`}):\n${[stderr.trim(), stdout.trim()].filter(Boolean).join("\n")}`,
          ),
        );
    });
  });
}

/** From now on, a stop signal to this script stops every wrangler it started, then the script. */
export function stopOnSignals() {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      stopping = signal;
      if (running.size === 0) exitStopped();
      for (const child of running) signalGroup(child, signal);
      // Whatever has not stopped within a few seconds is killed.
      setTimeout(() => running.forEach((child) => signalGroup(child, "SIGKILL")), 5000).unref();
    });
  }
  process.on("exit", () => running.forEach((child) => signalGroup(child, "SIGKILL")));
}

/**
 * Applies pending migrations to every local D1 database (the primary and each shard: what `npm run
 * dev` serves), one after another; answers their bindings.
 */
export async function migrateLocal(): Promise<string[]> {
  const bindings = d1Bindings().map((d) => d.binding);
  // One after another: wranglers run at once on a fresh local state can die while making it.
  for (const binding of bindings) await runWrangler(["d1", "migrations", "apply", binding, "--local"]);
  return bindings;
}
