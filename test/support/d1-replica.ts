/**
 * A read replica a moment behind, which local D1 does not have: while `during` runs, a session
 * started anywhere but on the primary (`first-unconstrained`, or at a bookmark) finds no rows for
 * the statements whose SQL matches `lagging`, as a replica that has not yet applied the writes that
 * made them. Sessions started on the primary, and the bindings themselves, read as ever. Made in
 * the prototypes, as in d1-faults.ts, so the Worker's calls meet it too, on every database.
 */
import { d1Prototypes } from "./d1-faults";

export async function replicaBehind<T>(lagging: RegExp, during: () => Promise<T>): Promise<T> {
  const { database, session, statement } = d1Prototypes();
  const saved = {
    withSession: database.withSession,
    prepare: session.prepare,
    bind: statement.bind,
    first: statement.first,
    all: statement.all,
    raw: statement.raw,
    batch: session.batch,
  };
  const onReplica = new WeakSet<object>();
  const behind = new WeakSet<object>();
  database.withSession = function (this: object, start?: string) {
    const opened = saved.withSession.call(this, start);
    if (start !== "first-primary") onReplica.add(opened);
    return opened;
  };
  session.prepare = function (this: object, sql: string) {
    const prepared = saved.prepare.call(this, sql);
    if (onReplica.has(this) && lagging.test(sql)) behind.add(prepared);
    return prepared;
  };
  statement.bind = function (this: object, ...values: unknown[]) {
    const bound = saved.bind.apply(this, values);
    if (behind.has(this)) behind.add(bound);
    return bound;
  };
  statement.first = async function (this: object, ...args: unknown[]) {
    const row = await saved.first.apply(this, args);
    return behind.has(this) ? null : row;
  };
  statement.all = async function (this: object, ...args: unknown[]) {
    const result = await saved.all.apply(this, args);
    return behind.has(this) ? { ...result, results: [] } : result;
  };
  statement.raw = async function (this: object, ...args: unknown[]) {
    const rows = await saved.raw.apply(this, args);
    return behind.has(this) ? [] : rows;
  };
  session.batch = async function (this: object, statements: object[]) {
    const results = (await saved.batch.call(this, statements)) as D1Result[];
    return results.map((result, i) => (behind.has(statements[i]) ? { ...result, results: [] } : result));
  };
  try {
    return await during();
  } finally {
    Object.assign(database, { withSession: saved.withSession });
    Object.assign(session, { prepare: saved.prepare, batch: saved.batch });
    Object.assign(statement, { bind: saved.bind, first: saved.first, all: saved.all, raw: saved.raw });
  }
}
