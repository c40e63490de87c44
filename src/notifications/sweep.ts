/**
 * The sweep (cron, every minute): candidates whose boundary passed without their settled status
 * recorded get their object woken, which records (and notifies) what time decided. Alarms do
 * this at the boundary; the sweep catches what they missed (an alarm lost while the service was
 * down, an object that never woke), within a couple of minutes. The object decides; the sweep
 * only wakes it. It looks on every database that holds a candidate index: each shard, and the
 * primary (the accounts from before shards). Settled, lagging: docs/candidate-object.md, "Glossary".
 */
import { candidatesDueToSettle } from "../db/candidate-index";
import { candidateObject } from "../candidate/rpc";
import { accountDatabases, shardDb, type ShardName } from "../shards";

/** wrangler.toml's every-minute cron, which runs the sweep; the other is the hourly purge. */
export const SWEEP_CRON = "* * * * *";

/** How long after a boundary the sweep leaves it to the candidate's own alarm. */
export const SWEEP_GRACE_MS = 10_000;
/** Candidates woken per run and database at most (the next run takes the rest), and how many at once. */
const SWEEP_LIMIT = 1000;
const SWEEP_CONCURRENCY = 25;

export async function sweep(env: Env, now: number): Promise<number> {
  const aliases = (await Promise.all(accountDatabases(env).map((shard) => dueOn(env, shard, now)))).flat();
  let next = 0;
  await Promise.all(
    Array.from({ length: SWEEP_CONCURRENCY }, async () => {
      while (next < aliases.length) {
        const alias = aliases[next++];
        try {
          await candidateObject(env, alias).settle();
        } catch (error) {
          console.error(`sweep: candidate ${alias} could not be settled; the next run retries it`, error);
        }
      }
    }),
  );
  return aliases.length;
}

/** The aliases due on one database; none when it fails (logged: the next run looks again), so the others are still swept. */
async function dueOn(env: Env, shard: ShardName, now: number): Promise<string[]> {
  try {
    return await candidatesDueToSettle(shardDb(env, shard), now - SWEEP_GRACE_MS, SWEEP_LIMIT);
  } catch (error) {
    console.error(`sweep: could not read the candidates due on ${shard}; the next run retries`, error);
    return [];
  }
}
