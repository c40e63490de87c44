/**
 * Where an account's data lives (docs/scale.md). The primary database (binding `DB`) holds
 * accounts, API keys, dashboard sessions and each account's shard; the account's schemas, candidate
 * index, feed, webhook endpoints, deliveries and summaries live on its shard, one of `SHARD_0` ..
 * `SHARD_{N-1}`. N is the number of those bindings (wrangler.toml), nothing else.
 *
 * A shard is named by its binding. It is chosen once, when the account is made, recorded in the
 * primary, and carried with the account from there (the request context, the candidate object's
 * record, queue messages): never recomputed, so adding a shard moves nobody. An account made
 * before shards existed is on `DB`: its data stayed on the primary, its shard until it is moved.
 *
 * Node loads this file too (the accounts CLI), so it imports nothing and takes the Worker's
 * bindings as a plain object.
 */

/** A shard by its binding: the primary (`DB`, for the accounts made before shards existed), or SHARD_i. */
export type ShardName = "DB" | `SHARD_${number}`;

export const PRIMARY: ShardName = "DB";

/** A database handle, or a session on one (D1's Sessions API): what the typed queries take. */
export type D1 = Pick<D1DatabaseSession, "prepare" | "batch">;

const SHARD_BINDING = /^SHARD_(0|[1-9][0-9]*)$/;

export const isShardName = (value: unknown): value is ShardName =>
  value === PRIMARY || (typeof value === "string" && SHARD_BINDING.test(value));

const configured = new WeakMap<object, ShardName[]>();

/**
 * The shards new accounts are placed on, in order: the SHARD_ bindings present, which must be
 * SHARD_0 .. SHARD_{N-1}. A gap is a configuration error, refused on first use (every request and
 * cron fails, saying why) rather than leaving some account's shard unreachable.
 */
export function shardNames(bindings: object): ShardName[] {
  let names = configured.get(bindings);
  if (!names) {
    const found = Object.keys(bindings).filter((name) => SHARD_BINDING.test(name));
    const numbers = found.map((name) => Number(name.slice("SHARD_".length))).sort((a, b) => a - b);
    if (numbers.some((n, i) => n !== i)) {
      throw new Error(
        `The D1 shard bindings must be SHARD_0 .. SHARD_${numbers.length - 1}, without gaps; wrangler.toml has ${found.sort().join(", ")}.`,
      );
    }
    names = numbers.map((n) => `SHARD_${n}` as const);
    configured.set(bindings, names);
  }
  return names;
}

/** Every database that may hold accounts' data, for the crons: the shards, and the primary (older accounts'). */
export const accountDatabases = (env: object): ShardName[] => [PRIMARY, ...shardNames(env)];

/** A shard name that is no D1 binding of this Worker's: a message or record naming it can never be served. */
export class UnknownShardError extends Error {
  readonly shard: unknown;

  constructor(shard: unknown) {
    super(
      `${JSON.stringify(shard) ?? String(shard)} is no shard of this Worker: not DB or SHARD_i, or a shard that wrangler.toml does not declare.`,
    );
    this.name = "UnknownShardError";
    this.shard = shard;
  }
}

/**
 * The shard `name` if it is one this Worker has: a shard's name and a binding of its own. What a
 * queue message, a record or a row names is checked before it indexes the bindings, where other
 * names reach other objects (ASSETS, a Durable Object namespace, `__proto__`).
 */
export function knownShard(env: object, name: unknown): ShardName {
  if (!isShardName(name) || !Object.hasOwn(env, name)) throw new UnknownShardError(name);
  return name;
}

/** The database of a shard (knownShard's check first). */
export const shardDb = (env: object, shard: unknown): D1Database =>
  (env as Record<ShardName, D1Database>)[knownShard(env, shard)];

/** The databases new accounts may be placed on, by name. */
export type Shards = ReadonlyMap<ShardName, D1>;

export const shardsOf = (env: object): Shards => new Map(shardNames(env).map((name) => [name, shardDb(env, name)]));

/**
 * The shard a candidate object's record, a queue message or a delivery names. One made before
 * shards existed names none: it was made for an account whose data is on the primary (every
 * account's then was, and stays there until moved). Throws UnknownShardError for a name that is
 * no shard of this Worker's.
 */
export const shardNamed = (env: object, shard: unknown): ShardName => knownShard(env, shard ?? PRIMARY);
