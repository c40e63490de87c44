/**
 * Faults in D1 batches, for tests of what a request does when its change meets one: each batch
 * (while `during` runs) with a statement matching `sql` is handed to `intercept` with its number
 * (0, 1, ...), which may hold it back or lose its answer. Made in the binding's prototypes, so
 * the Worker's and the objects' calls meet it too (vitest's pool runs them all in this isolate),
 * on every database. A batch runs through a session, a D1 session the Worker opened or the
 * binding's own (its `batch` goes to one), so batches are caught on the session's class.
 */
import { env } from "cloudflare:test";

type RunBatch = () => Promise<D1Result[]>;

/** The prototypes of the runtime's D1 classes (the binding, a session, a statement), to patch in tests. */
export const d1Prototypes = () => ({
  database: Object.getPrototypeOf(env.DB),
  session: Object.getPrototypeOf(env.DB.withSession("first-unconstrained")),
  statement: Object.getPrototypeOf(env.DB.prepare("SELECT 1")),
});

export async function interceptD1Batch<T>(
  sql: RegExp,
  intercept: (run: RunBatch, nth: number) => Promise<D1Result[]>,
  during: () => Promise<T>,
): Promise<T> {
  const { database, session, statement } = d1Prototypes();
  const saved = {
    prepare: database.prepare,
    sessionPrepare: session.prepare,
    bind: statement.bind,
    batch: session.batch,
  };
  const sqlOf = new WeakMap<object, string>();
  let matched = 0;
  const remembered = (prepare: (text: string) => object) =>
    function (this: object, text: string) {
      const prepared = prepare.call(this, text);
      sqlOf.set(prepared, text);
      return prepared;
    };
  database.prepare = remembered(saved.prepare);
  session.prepare = remembered(saved.sessionPrepare);
  statement.bind = function (...values: unknown[]) {
    const bound = saved.bind.apply(this, values);
    sqlOf.set(bound, sqlOf.get(this)!);
    return bound;
  };
  session.batch = function (statements: object[]) {
    const run = () => saved.batch.call(this, statements) as Promise<D1Result[]>;
    return statements.some((s) => sql.test(sqlOf.get(s) ?? "")) ? intercept(run, matched++) : run();
  };
  try {
    return await during();
  } finally {
    database.prepare = saved.prepare;
    Object.assign(session, { prepare: saved.sessionPrepare, batch: saved.batch });
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
