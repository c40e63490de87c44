/**
 * The accounts database as the command-line tools reach it: through `wrangler d1 execute`, against
 * the local database that `npm run dev` uses (default) or the deployed one (`remote`).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface D1Target {
  remote: boolean;
}

/** Quiet, offline-friendly settings for every wrangler call the scripts make. */
export const WRANGLER_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
};

/** A SQL string literal. wrangler d1 execute takes no bound parameters, so values are quoted here. */
export function sql(value: string | number | null): string {
  if (value === null) return "NULL";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  if (value.includes("\0")) throw new Error("text values cannot contain NUL characters");
  return `'${value.replaceAll("'", "''")}'`;
}

function wrangler(args: string[]) {
  return run("npx", ["wrangler", ...args], { env: WRANGLER_ENV, maxBuffer: 64 * 1024 * 1024 });
}

/** Runs SQL statements in order and returns the rows of each. */
export async function query<T>(target: D1Target, statements: string[]): Promise<T[][]> {
  const where = target.remote ? "--remote" : "--local";
  try {
    const { stdout } = await wrangler(["d1", "execute", "DB", where, "--json", "--command", statements.join(";\n")]);
    return (JSON.parse(stdout) as { results: T[] }[]).map((r) => r.results);
  } catch (error) {
    const output = (error as { stdout?: string; stderr?: string }).stdout || (error as Error).message;
    throw new Error(`wrangler d1 execute failed:\n${output}`, { cause: error });
  }
}

/** Applies pending migrations to the local database (what `npm run dev` serves). */
export async function migrateLocal(): Promise<void> {
  await wrangler(["d1", "migrations", "apply", "DB", "--local"]);
}
