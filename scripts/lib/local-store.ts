/**
 * The operator's operations on the local databases themselves, for when no `npm run dev` serves
 * them: the Worker's own code (src/operator/store.ts) on the database files `wrangler dev` uses
 * (local-d1.ts), the primary and its shards (a new account's anchor goes on its shard). Databases
 * not yet made or behind on migrations are first migrated by wrangler, as `npm run dev` does
 * (once: seconds).
 */
import { readdirSync } from "node:fs";
import type { z } from "zod";
import { ApiError } from "../../src/errors/api-error.ts";
import * as store from "../../src/operator/store.ts";
import { PRIMARY, shardNames, type Shards } from "../../src/shards.ts";
import { d1Bindings } from "./d1-bindings.ts";
import { openLocalD1 } from "./local-d1.ts";
import { OperatorError, type Operator } from "./operator.ts";
import { migrateLocal } from "./wrangler.ts";

/** The origin of sign-in links made with no server running: `wrangler dev`'s default. */
const ORIGIN = "http://localhost:8787";

/** Whether every migration in migrations/ is applied (as wrangler records them, in d1_migrations). */
async function migrated(db: D1Database): Promise<boolean> {
  const files = readdirSync("migrations").filter((f) => f.endsWith(".sql"));
  try {
    const { results } = await db.prepare(`SELECT name FROM d1_migrations`).all<{ name: string }>();
    const applied = new Set(results.map((r) => r.name));
    return files.every((f) => applied.has(f));
  } catch {
    return false; // no d1_migrations table: a database never migrated
  }
}

type Opened = NonNullable<Awaited<ReturnType<typeof openLocalD1>>>;

/** Every local database (the primary and each shard), or null when one is missing or behind. */
async function openAll(): Promise<Map<string, Opened> | null> {
  const all = new Map<string, Opened>();
  for (const { binding } of d1Bindings()) {
    const opened = await openLocalD1(binding);
    if (opened) all.set(binding, opened);
    if (!opened || !(await migrated(opened.db))) {
      for (const o of all.values()) o.close();
      return null;
    }
  }
  return all;
}

/** The primary and the shards new accounts go on (the same list the Worker derives from its bindings). */
async function openMigrated() {
  let opened = await openAll();
  if (!opened) {
    await migrateLocal();
    opened = await openAll();
  }
  if (!opened) throw new Error("a local database is still missing after the migrations were applied");
  const all = opened;
  const db = all.get(PRIMARY)!.db;
  const shards: Shards = new Map(shardNames(Object.fromEntries(all)).map((name) => [name, all.get(name)!.db]));
  return { db, shards, close: () => all.forEach((o) => o.close()) };
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
  throw new OperatorError(
    "VALIDATION_ERROR",
    `The request is invalid: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`,
    details,
  );
}

/** The store's ApiErrors as the HTTP client reports them. */
async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw new OperatorError(error.code, error.message, error.details);
    throw error;
  }
}

/** The operations on the local database. */
export async function localStore(): Promise<Operator> {
  const { db, shards, close } = await openMigrated();
  return {
    createAccount: (name) =>
      run(() => store.createAccount(db, shards, parse(store.CreateAccountBody, { name }).name, Date.now())),
    async listAccounts() {
      const all: store.AccountView[] = [];
      let starting_after: string | undefined;
      do {
        const page = await run(() => store.listAccounts(db, { limit: 1000, starting_after }));
        all.push(...page.data);
        starting_after = page.next ?? undefined;
      } while (starting_after);
      return all;
    },
    createKey: (accountId, input) =>
      run(() => store.createKey(db, accountId, parse(store.CreateKeyBody, input), Date.now())),
    listKeys: (accountId) => run(() => store.listKeys(db, accountId, Date.now())),
    revokeKey: (keyId) => run(() => store.revokeKey(db, keyId, Date.now())),
    signInLink: (accountId) => run(() => store.createSignInLink(db, accountId, ORIGIN, Date.now())),
    close: async () => close(),
  };
}
