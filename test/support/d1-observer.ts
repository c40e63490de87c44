/**
 * Observes every D1 call made in this isolate: the test's, the Worker's and the Durable Objects'
 * (vitest's pool runs them all here), on every database (the primary and the shards: one class).
 * Wraps the binding's prototypes while `during` runs, and answers the round trips it made, those
 * that wrote, their statements that write or read, and the sessions opened (D1's Sessions API),
 * each by what it was started with: a constraint (`first-primary`, `first-unconstrained`) or a
 * bookmark.
 *
 * A statement runs through a session: one the Worker opened (`withSession`), or the binding's own
 * (its `prepare` and `batch` use a session that always goes to the primary). So batches are
 * counted on the session's class, which both share, and statements where they run.
 */
import { env } from "cloudflare:test";

export interface D1Use {
  /** Calls that went to D1: a statement run alone, or a batch. */
  roundTrips: number;
  /** Those of them with a statement that writes. */
  writeRoundTrips: number;
  /** Statements that write (INSERT, UPDATE, DELETE, REPLACE), as SQL text, in order. */
  writes: string[];
  /** Statements that only read. */
  reads: number;
  /** What each session was started with (`withSession`'s argument), in order. */
  sessions: string[];
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

export async function observeD1(during: () => Promise<unknown>): Promise<D1Use> {
  const use: D1Use = { roundTrips: 0, writeRoundTrips: 0, writes: [], reads: 0, sessions: [] };
  const database = Object.getPrototypeOf(env.DB);
  const session = Object.getPrototypeOf(env.DB.withSession("first-unconstrained"));
  const statement = Object.getPrototypeOf(env.DB.prepare("SELECT 1"));
  const sqlOf = new WeakMap<object, string>();
  const saved = {
    prepare: database.prepare,
    exec: database.exec,
    withSession: database.withSession,
    sessionPrepare: session.prepare,
    sessionBatch: session.batch,
    run: statement.run,
    all: statement.all,
    first: statement.first,
    raw: statement.raw,
    bind: statement.bind,
  };
  /** One round trip, of these statements. */
  const roundTrip = (sqls: (string | undefined)[]) => {
    use.roundTrips++;
    const writes = sqls.filter((sql): sql is string => sql !== undefined && WRITE.test(sql));
    use.writes.push(...writes.map((sql) => sql.replace(/\s+/g, " ").trim().slice(0, 80)));
    use.reads += sqls.length - writes.length;
    if (writes.length > 0) use.writeRoundTrips++;
  };
  const remembered = (prepare: (sql: string) => object) =>
    function (this: object, sql: string) {
      const prepared = prepare.call(this, sql);
      sqlOf.set(prepared, sql);
      return prepared;
    };
  database.prepare = remembered(saved.prepare);
  session.prepare = remembered(saved.sessionPrepare);
  database.withSession = function (start?: string) {
    use.sessions.push(String(start));
    return saved.withSession.call(this, start);
  };
  statement.bind = function (...values: unknown[]) {
    const bound = saved.bind.apply(this, values);
    sqlOf.set(bound, sqlOf.get(this)!);
    return bound;
  };
  for (const method of ["run", "all", "first", "raw"] as const) {
    statement[method] = function (...args: unknown[]) {
      roundTrip([sqlOf.get(this)]);
      return saved[method].apply(this, args);
    };
  }
  session.batch = function (statements: object[]) {
    roundTrip(statements.map((s) => sqlOf.get(s)));
    return saved.sessionBatch.call(this, statements);
  };
  database.exec = function (sql: string) {
    roundTrip([sql]);
    return saved.exec.call(this, sql);
  };
  try {
    await during();
  } finally {
    Object.assign(database, { prepare: saved.prepare, exec: saved.exec, withSession: saved.withSession });
    Object.assign(session, { prepare: saved.sessionPrepare, batch: saved.sessionBatch });
    Object.assign(statement, { run: saved.run, all: saved.all, first: saved.first, raw: saved.raw, bind: saved.bind });
  }
  return use;
}
