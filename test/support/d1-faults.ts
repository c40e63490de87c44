/**
 * Faults in D1 batches, for tests of what a request does when its change meets one: each batch
 * (while `during` runs) with a statement matching `sql` is handed to `intercept` with its number
 * (0, 1, ...), which may hold it back or lose its answer. Made in the binding's prototypes, so
 * the Worker's and the objects' calls meet it too (vitest's pool runs them all in this isolate).
 */
import { env } from "cloudflare:test";

type RunBatch = () => Promise<D1Result[]>;

export async function interceptD1Batch<T>(sql: RegExp, intercept: (run: RunBatch, nth: number) => Promise<D1Result[]>, during: () => Promise<T>): Promise<T> {
  const database = Object.getPrototypeOf(env.DB);
  const statement = Object.getPrototypeOf(env.DB.prepare("SELECT 1"));
  const saved = { prepare: database.prepare, bind: statement.bind, batch: database.batch };
  const sqlOf = new WeakMap<object, string>();
  let matched = 0;
  database.prepare = function (text: string) {
    const prepared = saved.prepare.call(this, text);
    sqlOf.set(prepared, text);
    return prepared;
  };
  statement.bind = function (...values: unknown[]) {
    const bound = saved.bind.apply(this, values);
    sqlOf.set(bound, sqlOf.get(this)!);
    return bound;
  };
  database.batch = function (statements: object[]) {
    const run = () => saved.batch.call(this, statements) as Promise<D1Result[]>;
    return statements.some((s) => sql.test(sqlOf.get(s) ?? "")) ? intercept(run, matched++) : run();
  };
  try {
    return await during();
  } finally {
    Object.assign(database, { prepare: saved.prepare, batch: saved.batch });
    statement.bind = saved.bind;
  }
}

/** An intercept: D1 commits the first batch, and its answer never reaches the caller. */
export const firstAnswerLost = async (run: RunBatch, nth: number): Promise<D1Result[]> => {
  const results = await run();
  if (nth === 0) throw new Error("D1's answer was lost");
  return results;
};

/**
 * Something held back until a test lets it go. A flag looked at every 5 ms, not a promise: the
 * Worker's requests run in their own request contexts, and workerd defers a promise resolved from
 * another context, so the test would wait on them forever.
 */
export function gate() {
  let isOpen = false;
  return {
    open: () => void (isOpen = true),
    opened: async () => {
      while (!isOpen) await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}
