/**
 * What `npm run dev` leaves in .wrangler/ for the accounts CLI to find it: the local operator
 * secret (reused across restarts, readable by this user only) and where the server is, written
 * while it starts and runs and removed when it stops. A file whose process is gone is stale.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";

/** A dotenv file `wrangler dev` loads (--env-file), so the secret is on no command line. */
export const OPERATOR_ENV_FILE = ".wrangler/operator.env";
const DEV_SERVER_FILE = ".wrangler/dev-server.json";
/** The script `npm run dev` runs, as its process's command line names it. */
const DEV_SCRIPT = "dev.ts";

export interface DevServerState {
  pid: number;
  /** Where it serves; null while it starts (migrations, wrangler starting). */
  origin: string | null;
  /** The process group of its wrangler and workerd, once started: they outlive a `kill -9` of `pid`. */
  group?: number;
}

function writePrivate(path: string, text: string) {
  mkdirSync(".wrangler", { recursive: true });
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600); // `mode` applies only when the file is created
}

/** The local operator secret, or null when `npm run dev` never made one. */
export function readOperatorSecret(): string | null {
  try {
    return /^OPERATOR_SECRET=(\S+)$/m.exec(readFileSync(OPERATOR_ENV_FILE, "utf8"))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The local operator secret, made (256 random bits) on the first start. */
export function ensureOperatorSecret(): string {
  const existing = readOperatorSecret();
  if (existing) return existing;
  const secret = randomBytes(32).toString("base64url");
  writePrivate(
    OPERATOR_ENV_FILE,
    `# Made by npm run dev: the local operator API's secret (the accounts CLI reads it).\nOPERATOR_SECRET=${secret}\n`,
  );
  return secret;
}

export function writeDevServer(state: DevServerState) {
  writePrivate(DEV_SERVER_FILE, JSON.stringify(state) + "\n");
}

/** Removes the file if it is still this process's (a later `npm run dev` may have replaced it). */
export function removeDevServer(pid: number) {
  if (readDevServerFile()?.pid === pid) rmSync(DEV_SERVER_FILE, { force: true });
}

function readDevServerFile(): DevServerState | null {
  try {
    return JSON.parse(readFileSync(DEV_SERVER_FILE, "utf8")) as DevServerState;
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is still an `npm run dev` (scripts/dev.ts). Where /proc tells more than a signal
 * can, a process killed but not yet reaped (a zombie) is gone, and so is one that now holds the
 * pid of a dev server long gone: either way the file is stale, and the server is not there.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  let stat: string, commandLine: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return true; // no /proc (macOS), or not ours to read: the signal's answer stands
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3); // after "pid (comm) "
  return state !== "Z" && state !== "X" && commandLine.split("\0").some((arg) => arg.endsWith(DEV_SCRIPT));
}

/**
 * The ids of the processes left in process group `group`, or null where /proc cannot tell. Only
 * if one is this checkout's wrangler or workerd (run from here, from its node_modules): after a
 * reboot the group's id may be another's, even another checkout's dev server.
 */
function devProcessesInGroup(group: number): number[] | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const here = realpathSync(process.cwd());
  let ours = false;
  const inGroup = pids.map(Number).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // after "pid (comm) "
      if (Number(pgrp) !== group || state === "Z") return false;
      ours ||=
        realpathSync(`/proc/${pid}/cwd`) === here &&
        /node_modules\/(\.bin\/wrangler|wrangler\/wrangler-dist|@cloudflare\/workerd-)/.test(
          readFileSync(`/proc/${pid}/cmdline`, "utf8"),
        );
      return true;
    } catch {
      return false; // gone meanwhile
    }
  });
  return ours ? inGroup : [];
}

/**
 * What a `kill -9` of the last `npm run dev` left running: its wrangler and workerd, which still
 * hold the port and the local databases' locks (their process group and its pids), or null.
 */
export function orphanedDevServer(): { group: number; pids: number[] } | null {
  const state = readDevServerFile();
  if (!state || isAlive(state.pid)) return null;
  const pids = state.group ? devProcessesInGroup(state.group) : [];
  if (pids && pids.length > 0) return { group: state.group!, pids };
  if (pids) removeDevServer(state.pid); // stale, and nothing of it left: its group id may be reused
  return null;
}

/** The running `npm run dev`, or null when none runs (no file, or its process is gone). */
export function runningDevServer(): DevServerState | null {
  const state = readDevServerFile();
  return state && isAlive(state.pid) ? state : null;
}
