/**
 * `npm run bench`: the service against the runtime's own floor, in one run.
 *
 * Each worker is built with wrangler and served by the Miniflare API (workerd, no wrangler dev
 * proxy), in its own instance with in-memory storage:
 *   service:  this project as it runs on Cloudflare, where the rate-limiting binding counts on the
 *             Worker's own machine: RATE_LIMITER answered in the isolate's memory
 *             (bench/workers/memory-limited.ts), with a limit the load never reaches; and where
 *             static assets are routed by the platform before the Worker, so it is served without
 *             Miniflare's assets router (two more workers in front of every request, locally);
 *   service, Miniflare limiter: the same service as `npm run dev` runs it: Miniflare's stand-in
 *             for the binding, which writes a row in a SQLite-backed object on every call, and the
 *             assets router in front;
 *   floor:    only the storage work each scenario cannot avoid (bench/workers/floor.ts);
 *   bare:     a Hono JSON 200 (bench/workers/bare.ts).
 * autocannon drives each scenario against each worker back to back, after a warm-up. The table is
 * printed and written to bench/results.json. Options: BENCH_SECONDS (4), BENCH_ROUNDS (5),
 * BENCH_CONNECTIONS (10),
 * BENCH_ONLY (run only scenarios whose name contains it, and skip the growth figures),
 * BENCH_PROFILE=1 (unminified bundles; a CPU profile of the service per scenario, written to
 * bench/.build/profiles/ for Chrome DevTools, with its top functions printed; results not saved).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { cpus, totalmem } from "node:os";
import autocannon from "autocannon";
import type { Miniflare } from "miniflare";
import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { insertAccountWithToken } from "../src/db/accounts.ts";
import { PRIMARY, type ShardName } from "../src/shards.ts";
import { buildWorker, serveWorker, type WorkerOptions } from "./lib/miniflare.ts";
import { startCpuProfile, topSelfTime } from "./lib/cpu-profile.ts";
import { benchNotifications, type NotificationBench } from "./lib/bench/notifications.ts";
import { benchListReads, type ListReadsBench } from "./lib/bench/list-reads.ts";
import { BENCH_CONTRACT, RARE_PENDING, seedIndex } from "./lib/seed-index.ts";
import { d1Bindings } from "./lib/d1-bindings.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** Each worker is measured this many times per scenario, interleaved, and the median kept. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const BUILD = "bench/.build";
const ONLY = process.env.BENCH_ONLY;
const PROFILE = Boolean(process.env.BENCH_PROFILE);
const INSPECTOR_PORT = 9229;
/** A partial or profiled run does not replace the results of a full one. */
const SAVE_RESULTS = !ONLY && !PROFILE;

const BATCH_SIZE = 100;
/** The databases of the one-shard service compared with the service (which has two). */
const ONE_SHARD = ["DB", "SHARD_0"];
const ONE_SHARD_NAME = "the service with 1 shard";
const BATCH_SCENARIO = "POST /v1/events/batch, 100 events over 1,000 candidates";
const SINGLE_EVENT_SCENARIO = "POST /v1/events, 1,000 candidates";
const KEYED_EVENT_SCENARIO = "POST /v1/events, 1,000 candidates, a fresh Idempotency-Key each";
const NOTIFICATION_SCENARIO = "webhooks: 1,000 candidates crossing a boundary at one instant";
const LIST_READS = "list reads: metadata filter and CSV export, 100,000 candidates";

// ---- serving -------------------------------------------------------------------------------------

type Target = "service" | "service-miniflare-limiter" | "service-one-shard" | "floor" | "bare";

/** A worker of this project, built and served for the bench (see lib/miniflare.ts). */
function workerFor(name: Target, config: string, options: { entry?: string; adjust?: (options: WorkerOptions) => WorkerOptions } = {}) {
  return buildWorker(name, config, { ...options, outdir: `${BUILD}/${name}`, noMinify: PROFILE });
}

const serve = serveWorker;

/** A service instance's D1 databases: the primary and its shards, by binding name. */
type Databases = Map<ShardName, D1Database>;

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

/** The instance's shards (its databases but the primary), as the Worker sees them. */
const shardsOf = (dbs: Databases) => new Map([...dbs].filter(([name]) => name !== PRIMARY));

/** An account, placed on a shard as the operator API places it. */
async function newAccount(dbs: Databases, name: string) {
  return insertAccountWithToken(dbs.get(PRIMARY)!, name, Date.now(), {}, shardsOf(dbs));
}

// ---- load ----------------------------------------------------------------------------------------

interface Shape {
  method: "GET" | "POST";
  /** Path and body of the i-th request. */
  next: (i: number) => { path: string; body?: unknown };
  headers?: Record<string, string>;
  /** Each request carries a fresh Idempotency-Key, as the typed client sends on every POST. */
  keyed?: boolean;
}

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /**
   * CPU time workerd spent per request (ms): what a request costs, steadier than req/s on a
   * machine whose speed drifts, since the load generator's own share does not count.
   */
  cpu_ms: number;
}

/** CPU time (ms) used so far by the workerd processes this bench started (Miniflare's children). */
function workerdCpuMs(): number {
  const ticksPerMs = 100 / 1000; // USER_HZ
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (name === "workerd" && Number(fields[1]) === process.pid) total += (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
  }
  return total;
}

/** Request counters per shape, kept across warm-up and measurement so aliases are never reused. */
const counters = new WeakMap<Shape, number>();

function load(url: string, shape: Shape, seconds: number): Promise<Measurement> {
  const nextIndex = () => {
    const i = counters.get(shape) ?? 0;
    counters.set(shape, i + 1);
    return i;
  };
  const cpuBefore = workerdCpuMs();
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            method: shape.method,
            setupRequest: (req) => {
              const { path, body } = shape.next(nextIndex());
              return {
                ...req,
                path,
                headers: {
                  ...shape.headers,
                  ...(body === undefined ? {} : { "content-type": "application/json" }),
                  ...(shape.keyed ? { "idempotency-key": crypto.randomUUID() } : {}),
                },
                body: body === undefined ? undefined : JSON.stringify(body),
              };
            },
          },
        ],
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          rps: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          non2xx: result.non2xx,
          errors: result.errors,
          cpu_ms: (workerdCpuMs() - cpuBefore) / Math.max(1, result.requests.total),
        });
      },
    );
  });
}

/** The run with the median throughput, of one per round. */
const medianRun = (runs: Measurement[]) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

/** The median over rounds of a's requests/s over b's in the same round. */
const medianRatio = (a: Measurement[], b: Measurement[]) => median(a.map((m, i) => m.rps / b[i].rps));

/** Median latency in ms of sequential requests, one at a time. */
async function sequentialLatencies(count: number, request: (i: number) => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const res = await request(i);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`request ${i} failed with ${res.status}`);
    times.push(performance.now() - start);
  }
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ---- data ----------------------------------------------------------------------------------------

/** Runs `task` over `items` with a fixed number in flight. */
async function pool<T>(items: T[], inFlight: number, task: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

function client(url: string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
}

/**
 * The same accounts and token hashes in another instance, so one token works on both; each account
 * on the shard of the same name there, or on `onShard` (an instance with fewer shards).
 */
async function copyAccounts(from: Databases, to: Databases, onShard?: ShardName) {
  const [primary, target] = [from.get(PRIMARY)!, to.get(PRIMARY)!];
  const accounts = (await primary.prepare(`SELECT * FROM accounts`).all<{ id: string; name: string; created_at: number; shard: ShardName }>()).results;
  const tokens = (await primary.prepare(`SELECT * FROM api_tokens`).all()).results;
  const insert = `INSERT INTO accounts (id, name, created_at, shard) VALUES (?, ?, ?, ?)`;
  for (const a of accounts) {
    const shard = onShard ?? a.shard;
    if (shard !== PRIMARY) await to.get(shard)!.prepare(insert).bind(a.id, a.name, a.created_at, shard).run();
    await target.prepare(insert).bind(a.id, a.name, a.created_at, shard).run();
  }
  await target.batch(
    tokens.map((t) =>
      target.prepare(`INSERT INTO api_tokens (id, account_id, token_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)`).bind(t.id, t.account_id, t.token_hash, t.prefix, t.created_at),
    ),
  );
}

/** The database an account's data is on, in an instance. */
async function accountDb(dbs: Databases, accountId: string): Promise<D1Database> {
  const row = await dbs.get(PRIMARY)!.prepare(`SELECT shard FROM accounts WHERE id = ?`).bind(accountId).first<{ shard: ShardName }>();
  return dbs.get(row!.shard)!;
}

// ---- the run -------------------------------------------------------------------------------------

/** Another worker or request shape measured beside the service in every round of a scenario. */
interface Comparison {
  name: string;
  url: string;
  shape: Shape;
}

interface Row {
  scenario: string;
  service: Measurement;
  /** The service with Miniflare's SQLite-backed stand-in for the rate-limiting binding. */
  service_miniflare_limiter: Measurement;
  floor: Measurement;
  bare: Measurement;
  vs_floor: number;
  vs_bare: number;
  miniflare_limiter_vs_floor: number;
  /** service/floor of each round, in order. */
  vs_floor_by_round: number[];
  /** Per comparison: its median run, and the service's req/s over its own, median of the rounds. */
  versus?: Record<string, { run: Measurement; service_vs_it: number; by_round: number[] }>;
}

async function main() {
  mkdirSync(BUILD, { recursive: true });
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}`);
  console.log(
    `load: autocannon, ${CONNECTIONS} connections; per scenario a ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} rounds of ${SECONDS} s ` +
      `per worker, interleaved; ratios are per round (service and floor back to back), the median kept\n`,
  );

  // Rate limiting stays on, with a limit the load never reaches.
  const unlimited = 1_000_000_000;
  // Webhooks go to a receiver on this machine.
  const unlimitedVars = (o: WorkerOptions) => ({ ...(o.bindings as Record<string, unknown>), RATE_LIMIT_REQUESTS: unlimited, WEBHOOK_ALLOW_LOOPBACK: "true" });
  const service = await serve(
    await workerFor("service", "wrangler.toml", {
      entry: "bench/workers/memory-limited.ts",
      // No `assets`: the API routes never read ASSETS, and /docs is not benched.
      adjust: ({ assets: _assets, ...o }) => ({ ...o, bindings: unlimitedVars(o) }),
    }),
    PROFILE ? INSPECTOR_PORT : undefined,
  );
  const miniflareLimited = await serve(
    await workerFor("service-miniflare-limiter", "wrangler.toml", {
      adjust: (o) => ({
        ...o,
        ratelimits: {
          RATE_LIMITER: { ...(o.ratelimits as Record<string, object>).RATE_LIMITER, simple: { limit: unlimited, period: 60 } },
        },
        bindings: unlimitedVars(o),
      }),
    }),
  );
  // The same service with one shard: what spreading accounts over shards costs a request.
  const oneShard = await serve(
    await workerFor("service-one-shard", "wrangler.toml", {
      entry: "bench/workers/memory-limited.ts",
      adjust: ({ assets: _assets, ...o }) => ({
        ...o,
        d1Databases: Object.fromEntries(Object.entries(o.d1Databases as Record<string, string>).filter(([binding]) => ONE_SHARD.includes(binding))),
        bindings: unlimitedVars(o),
      }),
    }),
  );
  const floor = await serve(await workerFor("floor", "bench/workers/floor.toml"));
  const bare = await serve(await workerFor("bare", "bench/workers/bare.toml"));
  const allDatabases = d1Bindings().map((d) => d.binding);
  const serviceDbs = await migrate(service.mf, allDatabases);
  const miniflareDbs = await migrate(miniflareLimited.mf, allDatabases);
  const oneShardDbs = await migrate(oneShard.mf, ONE_SHARD);
  const floorDb = (await migrate(floor.mf, [PRIMARY])).get(PRIMARY)!;
  for (const id of ["floor", "floor-10k"]) {
    await floorDb.prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, ?, 0)`).bind(id, id).run();
  }

  try {
    console.log("seeding…");
    // Placed as any new account: the first on SHARD_0, the second on SHARD_1.
    const main = await newAccount(serviceDbs, "bench");
    const lister = await newAccount(serviceDbs, "bench-list-10k");
    await copyAccounts(serviceDbs, miniflareDbs);
    await copyAccounts(serviceDbs, oneShardDbs, "SHARD_0");
    const spread = Array.from({ length: 1000 }, (_, i) => `spread-${i}-${Date.now()}`);
    const hot = Array.from({ length: 200 }, (_, i) => `hot-${i}-${Date.now()}`);
    const reader = `reader-${Date.now()}`;
    for (const [url, dbs] of [[service.url, serviceDbs], [miniflareLimited.url, miniflareDbs], [oneShard.url, oneShardDbs]] as const) {
      const seeder = client(url, main.token);
      await pool([...spread, ...hot, reader], 20, async (alias) => {
        await seeder("POST", "/v1/candidates", { customer_uuid: "bench", candidate_alias: alias, contract: BENCH_CONTRACT });
      });
      await pool(Array.from({ length: 100 }, (_, i) => i), 1, async (i) => {
        await seeder("POST", "/v1/events", { candidate_alias: reader, type: "view", value: { page: i } });
      });
      await seedIndex(await accountDb(dbs, lister.id), lister.id, 10_000);
    }
    const api = client(service.url, main.token);
    for (let i = 0; i < 100; i++) {
      await fetch(`${floor.url}/event/${reader}`, { method: "POST", body: JSON.stringify({ type: "view", value: { page: i } }) });
    }
    // The floor's objects exist before they are measured, as the service's candidates do.
    await pool([...spread, ...hot, reader], 20, async (alias) => {
      await fetch(`${floor.url}/create/${alias}`, { method: "POST", body: JSON.stringify(BENCH_CONTRACT) });
    });
    await seedIndex(floorDb, "floor-10k", 10_000);

    const event = (alias: string, i: number) => ({ candidate_alias: alias, type: "view", value: { page: i % 50, ref: `r${i}` } });
    const auth = { authorization: `Bearer ${main.token}` };
    const listAuth = { authorization: `Bearer ${lister.token}` };
    /** The i-th batch: 100 events on 100 different candidates, going round the 1,000. */
    const batchOf = (i: number) => Array.from({ length: BATCH_SIZE }, (_, k): [string, number] => [spread[(i * BATCH_SIZE + k) % 1000], i * BATCH_SIZE + k]);
    /** One hot candidate at a time: 990 events each, then the next (a candidate holds 1,000). */
    const hotAlias = (i: number) => hot[Math.floor(i / 990) % hot.length];
    let created = 0;

    /** `versus`: the service's runs are also compared with these, measured in the same rounds. */
    const scenarios: { name: string; service: Shape; floor: Shape; versus?: Comparison[] }[] = [
      {
        name: SINGLE_EVENT_SCENARIO,
        service: { method: "POST", headers: auth, next: (i) => ({ path: "/v1/events", body: event(spread[i % 1000], i) }) },
        floor: { method: "POST", next: (i) => ({ path: `/event/${spread[i % 1000]}`, body: { type: "view", value: { page: i % 50 } } }) },
      },
      {
        name: KEYED_EVENT_SCENARIO,
        service: { method: "POST", headers: auth, keyed: true, next: (i) => ({ path: "/v1/events", body: event(spread[i % 1000], i) }) },
        floor: { method: "POST", next: (i) => ({ path: `/event/${spread[i % 1000]}`, body: { type: "view", value: { page: i % 50 } } }) },
        // The same events without a key, in the same rounds: what the key costs.
        versus: [{ name: "without a key", url: service.url, shape: { method: "POST", headers: auth, next: (i) => ({ path: "/v1/events", body: event(spread[i % 1000], i) }) } }],
      },
      {
        name: "POST /v1/events, one hot candidate",
        service: { method: "POST", headers: auth, next: (i) => ({ path: "/v1/events", body: event(hotAlias(i), i) }) },
        floor: { method: "POST", next: (i) => ({ path: `/event/${hotAlias(i)}`, body: { type: "view", value: { page: i % 50 } } }) },
      },
      {
        name: BATCH_SCENARIO,
        service: { method: "POST", headers: auth, next: (i) => ({ path: "/v1/events/batch", body: { events: batchOf(i).map(([alias, n]) => event(alias, n)) } }) },
        floor: {
          method: "POST",
          next: (i) => ({ path: "/batch", body: { events: batchOf(i).map(([name, n]) => ({ name, type: "view", value: { page: n % 50 } })) } }),
        },
      },
      {
        name: "GET /v1/candidates/{alias}, 100 events",
        service: { method: "GET", headers: auth, next: () => ({ path: `/v1/candidates/${reader}` }) },
        floor: { method: "GET", next: () => ({ path: `/read/${reader}` }) },
      },
      {
        name: "GET /v1/candidates?limit=50, 10,000 in account",
        service: { method: "GET", headers: listAuth, next: () => ({ path: "/v1/candidates?limit=50" }) },
        floor: { method: "GET", next: () => ({ path: "/list?account=floor-10k" }) },
      },
      {
        name: "GET /v1/candidates?limit=50&status=PENDING",
        service: { method: "GET", headers: listAuth, next: () => ({ path: "/v1/candidates?limit=50&status=PENDING" }) },
        floor: { method: "GET", next: () => ({ path: "/list?account=floor-10k" }) },
      },
      {
        name: "POST /v1/candidates",
        service: {
          method: "POST",
          headers: auth,
          next: () => ({ path: "/v1/candidates", body: { customer_uuid: "bench", candidate_alias: `new-${Date.now()}-${created++}`, contract: BENCH_CONTRACT } }),
        },
        floor: { method: "POST", next: () => ({ path: `/create/new-${Date.now()}-${created++}`, body: BENCH_CONTRACT }) },
      },
    ];

    const rows: Row[] = [];
    for (const s of scenarios.filter((s) => !ONLY || s.name.includes(ONLY))) {
      process.stdout.write(`${s.name}: warm-up`);
      // Service and floor run next to each other in every round, in alternating order, and their
      // ratio is taken per round: the machine's speed drifts between rounds, far less within one.
      const measured = { url: service.url, shape: s.service, runs: [] as Measurement[] };
      const reference = { url: floor.url, shape: s.floor, runs: [] as Measurement[] };
      const others = [
        { url: miniflareLimited.url, shape: s.service, runs: [] as Measurement[] },
        { url: bare.url, shape: s.service, runs: [] as Measurement[] },
      ];
      const versus = [...(s.versus ?? []), { name: ONE_SHARD_NAME, url: oneShard.url, shape: s.service }].map((v) => ({ ...v, runs: [] as Measurement[] }));
      for (const t of [measured, reference, ...versus, ...others]) await load(t.url, t.shape, WARMUP_SECONDS);
      const profiler = PROFILE ? await startCpuProfile(INSPECTOR_PORT, "service") : undefined;
      for (let round = 1; round <= ROUNDS; round++) {
        process.stdout.write(`, round ${round}`);
        const compared = [measured, reference, ...versus];
        for (const t of [...(round % 2 === 1 ? compared : compared.reverse()), ...others]) t.runs.push(await load(t.url, t.shape, SECONDS));
      }
      process.stdout.write("\n");
      if (profiler) saveProfile(s.name, await profiler.stop());
      const [mfl, bar] = others;
      rows.push({
        scenario: s.name,
        service: medianRun(measured.runs),
        service_miniflare_limiter: medianRun(mfl.runs),
        floor: medianRun(reference.runs),
        bare: medianRun(bar.runs),
        vs_floor: medianRatio(measured.runs, reference.runs),
        vs_bare: medianRatio(measured.runs, bar.runs),
        miniflare_limiter_vs_floor: medianRatio(mfl.runs, reference.runs),
        vs_floor_by_round: measured.runs.map((m, i) => m.rps / reference.runs[i].rps),
        ...(versus.length === 0
          ? {}
          : {
              versus: Object.fromEntries(
                versus.map((v) => [
                  v.name,
                  {
                    run: medianRun(v.runs),
                    service_vs_it: medianRatio(measured.runs, v.runs),
                    by_round: measured.runs.map((m, i) => m.rps / v.runs[i].rps),
                  },
                ]),
              ),
            }),
      });
    }

    let notifications: NotificationBench | undefined;
    if (!ONLY || NOTIFICATION_SCENARIO.includes(ONLY)) {
      console.log(`${NOTIFICATION_SCENARIO}:`);
      const owner = await newAccount(serviceDbs, "bench-webhooks");
      notifications = await benchNotifications({ url: service.url, token: owner.token }, floor.url, 1000, (line) => console.log(line));
    }

    let listReads: ListReadsBench | undefined;
    if (!ONLY || LIST_READS.includes(ONLY)) {
      console.log(`${LIST_READS}:`);
      listReads = await benchListReads(service.url, async (name) => {
        const account = await newAccount(serviceDbs, name);
        return { ...account, db: await accountDb(serviceDbs, account.id) };
      });
    }

    if (!SAVE_RESULTS) return report(rows, {}, gzipSync(readFileSync(service.scriptPath)).length / 1024, notifications, listReads);
    console.log("growth…");
    // The 1st versus the 1,000th event on one candidate: per-position latency over fresh candidates.
    const growthAliases = Array.from({ length: 5 }, (_, i) => `growth-${i}-${Date.now()}`);
    const firsts: number[] = [];
    const lasts: number[] = [];
    for (const alias of growthAliases) {
      await api("POST", "/v1/candidates", { customer_uuid: "bench", candidate_alias: alias, contract: BENCH_CONTRACT });
      const times = await sequentialLatencies(1000, (i) =>
        fetch(`${service.url}/v1/events`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify(event(alias, i)),
        }),
      );
      firsts.push(...times.slice(0, 20));
      lasts.push(...times.slice(-20));
    }
    // List latency with 1,000 versus 100,000 candidates in the account.
    const small = await newAccount(serviceDbs, "bench-list-1k");
    const big = await newAccount(serviceDbs, "bench-list-100k");
    await seedIndex(await accountDb(serviceDbs, small.id), small.id, 1_000);
    await seedIndex(await accountDb(serviceDbs, big.id), big.id, 100_000);
    const listLatency = async (token: string, query: string) => {
      const get = () => fetch(`${service.url}/v1/candidates?${query}`, { headers: { authorization: `Bearer ${token}` } });
      await sequentialLatencies(50, get);
      return median(await sequentialLatencies(300, get));
    };
    // Billing reads at 10,000 and 100,000 candidates, against the plain list page at the same size.
    const tenK = await newAccount(serviceDbs, "bench-billing-10k");
    const rare = await newAccount(serviceDbs, "bench-rare-100k");
    await seedIndex(await accountDb(serviceDbs, tenK.id), tenK.id, 10_000);
    await seedIndex(await accountDb(serviceDbs, rare.id), rare.id, 100_000, RARE_PENDING);
    const read = async (token: string, path: string) => {
      const get = () => fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      await sequentialLatencies(50, get);
      return median(await sequentialLatencies(300, get));
    };
    const [list10k, list100k] = [await read(tenK.token, "/v1/candidates?limit=50"), await read(big.token, "/v1/candidates?limit=50")];
    const [summary10k, summary100k] = [await read(tenK.token, "/v1/summary"), await read(big.token, "/v1/summary")];
    const rareList100k = await read(rare.token, "/v1/candidates?limit=50&status=PENDING");
    const growth = {
      event_1000th_vs_1st: median(lasts) / median(firsts),
      event_1st_ms: median(firsts),
      event_1000th_ms: median(lasts),
      list_100k_vs_1k: (await listLatency(big.token, "limit=50")) / (await listLatency(small.token, "limit=50")),
      list_status_100k_vs_1k:
        (await listLatency(big.token, "limit=50&status=PENDING")) / (await listLatency(small.token, "limit=50&status=PENDING")),
      summary_10k_ms: summary10k,
      summary_100k_ms: summary100k,
      summary_100k_vs_10k: summary100k / summary10k,
      summary_10k_vs_list_10k: summary10k / list10k,
      summary_100k_vs_list_100k: summary100k / list100k,
      rare_status_list_100k_ms: rareList100k,
      rare_status_list_100k_vs_list_100k: rareList100k / list100k,
    };

    const bundleGzipKiB = gzipSync(readFileSync(service.scriptPath)).length / 1024;
    report(rows, growth, bundleGzipKiB, notifications, listReads);
  } finally {
    await Promise.all([service.mf.dispose(), miniflareLimited.mf.dispose(), floor.mf.dispose(), bare.mf.dispose()]);
  }
}

function saveProfile(scenario: string, profile: Awaited<ReturnType<Awaited<ReturnType<typeof startCpuProfile>>["stop"]>>) {
  const path = `${BUILD}/profiles/${scenario.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "")}.cpuprofile`;
  mkdirSync(`${BUILD}/profiles`, { recursive: true });
  writeFileSync(path, JSON.stringify(profile));
  console.log(`  service CPU profile: ${path}; busy time by function:`);
  for (const { share, frame } of topSelfTime(profile, 12)) console.log(`  ${(share * 100).toFixed(1).padStart(5)} %  ${frame}`);
}

function report(rows: Row[], growth: Record<string, number>, bundleGzipKiB: number, notifications?: NotificationBench, listReads?: ListReadsBench) {
  const f = (n: number, d = 0) => n.toFixed(d);
  console.log(
    "\n| scenario | service req/s | p50 ms | p99 ms | non-2xx | floor req/s | bare req/s | service/floor | service/bare " +
      "| Miniflare limiter: req/s | /floor | CPU ms/req: service | floor |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.scenario} | ${f(r.service.rps)} | ${f(r.service.p50, 1)} | ${f(r.service.p99, 1)} | ${r.service.non2xx + r.service.errors} | ` +
        `${f(r.floor.rps)} | ${f(r.bare.rps)} | ${f(r.vs_floor, 2)} | ${f(r.vs_bare, 2)} | ` +
        `${f(r.service_miniflare_limiter.rps)} | ${f(r.miniflare_limiter_vs_floor, 2)} | ${f(r.service.cpu_ms, 2)} | ${f(r.floor.cpu_ms, 2)} |`,
    );
  }
  for (const r of rows) {
    for (const [name, v] of Object.entries(r.versus ?? {})) {
      console.log(`\n${r.scenario}: service vs ${name}: ${f(v.service_vs_it, 2)} (by round: ${v.by_round.map((x) => f(x, 2)).join(" ")}; ${name}: ${f(v.run.rps)} req/s, ${f(v.run.cpu_ms, 2)} CPU ms/req)`);
    }
  }
  console.log(`\nservice/floor by round: ${rows.map((r) => `${r.scenario}: ${r.vs_floor_by_round.map((x) => f(x, 2)).join(" ")}`).join("; ")}`);
  const batch = rows.find((r) => r.scenario === BATCH_SCENARIO);
  const single = rows.find((r) => r.scenario === SINGLE_EVENT_SCENARIO);
  const ingestion = batch && {
    batch_events_per_s: batch.service.rps * BATCH_SIZE,
    floor_events_per_s: batch.floor.rps * BATCH_SIZE,
    batch_cpu_ms_per_event: batch.service.cpu_ms / BATCH_SIZE,
    ...(single
      ? {
          single_events_per_s: single.service.rps,
          single_cpu_ms_per_event: single.service.cpu_ms,
          batch_vs_single: (batch.service.rps * BATCH_SIZE) / single.service.rps,
          batch_vs_single_by_cpu: single.service.cpu_ms / (batch.service.cpu_ms / BATCH_SIZE),
        }
      : {}),
  };
  if (ingestion) console.log(`\nevents/s: ${JSON.stringify(ingestion)}`);
  if (notifications) console.log(`\n${NOTIFICATION_SCENARIO}: ${JSON.stringify(notifications)}`);
  if (listReads) console.log(`\n${LIST_READS}: ${JSON.stringify(listReads)}`);
  const targets = [
    ...rows.map((r) => ({ figure: `${r.scenario}: service/floor`, value: r.vs_floor, target: ">= 0.90", met: r.vs_floor >= 0.9 })),
    ...rows.flatMap((r) =>
      r.scenario === KEYED_EVENT_SCENARIO && r.versus
        ? [{ figure: "events: a fresh key each vs no key", value: r.versus["without a key"].service_vs_it, target: ">= 0.90", met: r.versus["without a key"].service_vs_it >= 0.9 }]
        : [],
    ),
    ...rows.map((r) => {
      const vs = r.versus![ONE_SHARD_NAME].service_vs_it;
      return { figure: `${r.scenario}: 2 shards vs 1`, value: vs, target: ">= 0.90", met: vs >= 0.9 };
    }),
    ...rows.map((r) => {
      const failed = [r.service, r.service_miniflare_limiter, ...Object.values(r.versus ?? {}).map((v) => v.run)].reduce((n, m) => n + m.non2xx + m.errors, 0);
      return { figure: `${r.scenario}: non-2xx (every service)`, value: failed, target: "0", met: failed === 0 };
    }),
    ...(ingestion?.batch_vs_single === undefined
      ? []
      : [{ figure: "events/s: batches vs single posts", value: ingestion.batch_vs_single, target: ">= 3", met: ingestion.batch_vs_single >= 3 }]),
    ...(notifications
      ? [
          {
            figure: "webhooks: delivered and verified, of 1,000",
            value: Math.min(notifications.delivered, notifications.verified),
            target: "1000",
            met: notifications.delivered === notifications.candidates && notifications.verified === notifications.candidates,
          },
          { figure: "webhooks: last received after the boundary, s", value: notifications.last_after_boundary_s, target: "<= 30", met: notifications.last_after_boundary_s <= 30 },
        ]
      : []),
    ...(listReads
      ? [
          {
            figure: "metadata filter vs plain list page, 100k",
            value: listReads.metadata_filter_vs_list_page,
            target: "<= 1.2",
            met: listReads.metadata_filter_vs_list_page <= 1.2,
          },
          { figure: "export of 100,000 candidates, s", value: listReads.export_100k_s, target: "seconds", met: listReads.export_100k_s < 60 },
          {
            figure: "export: memory growth, 100k vs 10k rows, MiB",
            value: listReads.export_100k_peak_rss_growth_mib - listReads.export_10k_peak_rss_growth_mib,
            target: "constant",
            met: listReads.export_100k_peak_rss_growth_mib <= listReads.export_10k_peak_rss_growth_mib + 16,
          },
        ]
      : []),
    ...(!SAVE_RESULTS
      ? []
      : [
          { figure: "growth: 1,000th vs 1st event", value: growth.event_1000th_vs_1st, target: "<= 1.2", met: growth.event_1000th_vs_1st <= 1.2 },
          { figure: "growth: list, 100k vs 1k candidates", value: growth.list_100k_vs_1k, target: "<= 1.2", met: growth.list_100k_vs_1k <= 1.2 },
          { figure: "growth: status list, 100k vs 1k", value: growth.list_status_100k_vs_1k, target: "<= 1.2", met: growth.list_status_100k_vs_1k <= 1.2 },
          { figure: "summary vs plain list page, 10k", value: growth.summary_10k_vs_list_10k, target: "<= 1.2", met: growth.summary_10k_vs_list_10k <= 1.2 },
          { figure: "summary vs plain list page, 100k", value: growth.summary_100k_vs_list_100k, target: "<= 1.2", met: growth.summary_100k_vs_list_100k <= 1.2 },
          { figure: "growth: summary, 100k vs 10k", value: growth.summary_100k_vs_10k, target: "reported", met: true },
          {
            figure: "list of a 0.1 % status vs plain list page, 100k",
            value: growth.rare_status_list_100k_vs_list_100k,
            target: "<= 1.2",
            met: growth.rare_status_list_100k_vs_list_100k <= 1.2,
          },
        ]),
    // A profiled run's bundles are not minified.
    ...(PROFILE ? [] : [{ figure: "bundle, gzip KiB", value: bundleGzipKiB, target: "<= 150", met: bundleGzipKiB <= 150 }]),
  ];
  console.log("\n| figure | value | target | met |\n|---|---|---|---|");
  for (const t of targets) console.log(`| ${t.figure} | ${f(t.value, 2)} | ${t.target} | ${t.met ? "yes" : "NO"} |`);
  if (!SAVE_RESULTS) return;
  writeFileSync(
    "bench/results.json",
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpus: cpus().length, model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30) },
        load: { tool: "autocannon", connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, warmup_seconds: WARMUP_SECONDS },
        scenarios: rows,
        ingestion,
        notifications,
        list_reads: listReads,
        growth,
        bundle_gzip_kib: bundleGzipKiB,
        targets,
      },
      null,
      2,
    ) + "\n",
  );
  console.log("\nwritten to bench/results.json");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
