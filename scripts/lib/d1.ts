/**
 * The accounts database as the command-line tools reach it: through `wrangler d1 execute`, against
 * the local database that `npm run dev` uses (default) or the deployed one (`remote`).
 */
import { runWrangler } from "./wrangler.ts";

export interface D1Target {
  remote: boolean;
}

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

/** Runs SQL statements in order and returns the rows of each. */
export async function query<T>(target: D1Target, statements: string[]): Promise<T[][]> {
  const where = target.remote ? "--remote" : "--local";
  const stdout = await runWrangler(["d1", "execute", "DB", where, "--json", "--command", statements.join(";\n")]);
  return (JSON.parse(stdout) as { results: T[] }[]).map((r) => r.results);
}

/** Applies pending migrations to the local database (what `npm run dev` serves). */
export async function migrateLocal(): Promise<void> {
  await runWrangler(["d1", "migrations", "apply", "DB", "--local"]);
}
