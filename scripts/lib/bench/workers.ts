/**
 * The five workers the bench measures, each built with wrangler and served by its own Miniflare
 * instance with temporary storage (in RAM where the machine has it), and their D1 databases
 * migrated (see scripts/bench.ts for what each one is).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { PRIMARY, type ShardName } from "../../../src/shards.ts";
import { buildWorker, serveWorker, type WorkerOptions } from "../miniflare.ts";
import { d1Bindings } from "../d1-bindings.ts";
import { BUILD, PROFILE, STORAGE_BASE } from "./options.ts";

type Target = "service" | "service-miniflare-limiter" | "service-one-shard" | "floor" | "bare";

/** A service instance's D1 databases: the primary and its shards, by binding name. */
export type Databases = Map<ShardName, D1Database>;

/** A served worker; `inspectorPort` where its CPU can be profiled (BENCH_PROFILE: the service and the floor). */
export type Served = Awaited<ReturnType<typeof serveWorker>> & { inspectorPort?: number };

/**
 * A port free now, for a profiled worker's inspector: a fixed one (9229) is often held already,
 * by `wrangler dev` among others, and Miniflare then waits for it without end.
 */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Serves `worker`, with an inspector on a free port when the bench profiles. */
async function serveProfiled(worker: Awaited<ReturnType<typeof buildWorker>>): Promise<Served> {
  const inspectorPort = PROFILE ? await freePort() : undefined;
  return { ...(await serveWorker(worker, inspectorPort)), inspectorPort };
}

export interface Workers {
  service: Served & { dbs: Databases };
  /** The service with Miniflare's stand-in for the rate-limiting binding and its assets router. */
  miniflareLimited: Served & { dbs: Databases };
  /** The service with one shard: what spreading accounts over shards costs a request. */
  oneShard: Served & { dbs: Databases };
  floor: Served & { db: D1Database };
  bare: Served;
}

/** The databases of the one-shard service compared with the service (which has two). */
const ONE_SHARD = ["DB", "SHARD_0"];

/** A worker of this project, built and served for the bench (see lib/miniflare.ts). */
function workerFor(
  name: Target,
  config: string,
  options: { entry?: string; adjust?: (options: WorkerOptions) => WorkerOptions } = {},
) {
  return buildWorker(name, config, { ...options, outdir: `${BUILD}/${name}`, noMinify: PROFILE });
}

/** Every migration applied to each of the worker's D1 databases, as `npm run migrate` does. */
async function migrate(mf: Miniflare, bindings: string[]): Promise<Databases> {
  const migrations = await readD1Migrations("migrations");
  const dbs: Databases = new Map();
  for (const binding of bindings) {
    const db = await mf.getD1Database(binding);
    for (const migration of migrations) {
      for (const query of migration.queries) await db.prepare(query).run();
    }
    dbs.set(binding as ShardName, db);
  }
  return dbs;
}

/** This run's folder under STORAGE_BASE. */
let storage: string | undefined;

/** Builds and serves the five workers; their databases migrated and empty. */
export async function startWorkers(): Promise<Workers> {
  storage = mkdtempSync(join(STORAGE_BASE, "bench-"));
  process.env.TMPDIR = storage; // Miniflare keeps an instance's storage under os.tmpdir()
  // Rate limiting stays on, with a limit the load never reaches.
  const unlimited = 1_000_000_000;
  // Webhooks go to a receiver on this machine.
  const unlimitedVars = (o: WorkerOptions) => ({
    ...(o.bindings as Record<string, unknown>),
    RATE_LIMIT_REQUESTS: unlimited,
    WEBHOOK_ALLOW_LOOPBACK: "true",
  });
  const service = await serveProfiled(
    await workerFor("service", "wrangler.toml", {
      entry: "bench/workers/memory-limited.ts",
      // No `assets`: the API routes never read ASSETS, and /docs is not benched.
      adjust: ({ assets: _assets, ...o }) => ({ ...o, bindings: unlimitedVars(o) }),
    }),
  );
  const miniflareLimited = await serveWorker(
    await workerFor("service-miniflare-limiter", "wrangler.toml", {
      adjust: (o) => ({
        ...o,
        ratelimits: {
          RATE_LIMITER: {
            ...(o.ratelimits as Record<string, object>).RATE_LIMITER,
            simple: { limit: unlimited, period: 60 },
          },
        },
        bindings: unlimitedVars(o),
      }),
    }),
  );
  const oneShard = await serveWorker(
    await workerFor("service-one-shard", "wrangler.toml", {
      entry: "bench/workers/memory-limited.ts",
      adjust: ({ assets: _assets, ...o }) => ({
        ...o,
        d1Databases: Object.fromEntries(
          Object.entries(o.d1Databases as Record<string, string>).filter(([binding]) => ONE_SHARD.includes(binding)),
        ),
        bindings: unlimitedVars(o),
      }),
    }),
  );
  const floor = await serveProfiled(await workerFor("floor", "bench/workers/floor.toml"));
  const bare = await serveWorker(await workerFor("bare", "bench/workers/bare.toml"));
  const allDatabases = d1Bindings().map((d) => d.binding);
  return {
    service: { ...service, dbs: await migrate(service.mf, allDatabases) },
    miniflareLimited: { ...miniflareLimited, dbs: await migrate(miniflareLimited.mf, allDatabases) },
    oneShard: { ...oneShard, dbs: await migrate(oneShard.mf, ONE_SHARD) },
    floor: { ...floor, db: (await migrate(floor.mf, [PRIMARY])).get(PRIMARY)! },
    bare,
  };
}

export async function stopWorkers(workers: Workers) {
  await Promise.all(Object.values(workers).map((w: Served) => w.mf.dispose()));
  if (storage) rmSync(storage, { recursive: true, force: true });
}
