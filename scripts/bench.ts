/**
 * `npm run bench`: the service against the runtime's own floor, in one run.
 *
 * Each worker is built with wrangler and served by the Miniflare API (workerd, no wrangler dev
 * proxy), in its own instance with its storage in a temporary folder, in RAM where the machine has
 * one (lib/bench/options.ts says why):
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
 * BENCH_PROFILE=1 (unminified bundles; CPU profiles of the service and the floor per scenario,
 * written to bench/.build/profiles/ for Chrome DevTools, with their top functions printed; results
 * not saved).
 *
 * Its parts, one job each, are in lib/bench/: options (the settings above), workers (built, served,
 * migrated), seed (the data every scenario reads), scenarios (the requests each makes), load
 * (autocannon and medians), rounds (one scenario measured), notifications, list-reads and growth
 * (figures measured apart), targets, report and results (bench/results.json).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { newAccount, newAccountWithDb } from "./lib/bench/accounts.ts";
import { benchGrowth } from "./lib/bench/growth.ts";
import { benchListReads } from "./lib/bench/list-reads.ts";
import { benchNotifications } from "./lib/bench/notifications.ts";
import { BUILD, SAVE_RESULTS, selected } from "./lib/bench/options.ts";
import { printReport, printSetup } from "./lib/bench/report.ts";
import { writeResults } from "./lib/bench/results.ts";
import { runScenario, type Row } from "./lib/bench/rounds.ts";
import { LIST_READS, NOTIFICATION_SCENARIO, scenarios } from "./lib/bench/scenarios.ts";
import { seedData } from "./lib/bench/seed.ts";
import { ingestionOf, targetsOf, type Figures } from "./lib/bench/targets.ts";
import { startWorkers, stopWorkers } from "./lib/bench/workers.ts";

async function main() {
  mkdirSync(BUILD, { recursive: true });
  printSetup();
  const workers = await startWorkers();
  const { service } = workers;
  try {
    console.log("seeding…");
    const data = await seedData(workers);

    const rows: Row[] = [];
    for (const scenario of scenarios(data, service.url).filter((s) => selected(s.name)))
      rows.push(await runScenario(scenario, workers));

    const figures: Figures = { rows, bundleGzipKiB: gzipSync(readFileSync(service.scriptPath)).length / 1024 };
    if (selected(NOTIFICATION_SCENARIO)) {
      console.log(`${NOTIFICATION_SCENARIO}:`);
      const owner = await newAccount(service.dbs, "bench-webhooks");
      figures.notifications = await benchNotifications(
        { url: service.url, token: owner.token },
        workers.floor.url,
        1000,
        (line) => console.log(line),
      );
    }
    if (selected(LIST_READS)) {
      console.log(`${LIST_READS}:`);
      figures.listReads = await benchListReads(service.url, (name) => newAccountWithDb(service.dbs, name));
    }
    if (SAVE_RESULTS) {
      console.log("growth…");
      figures.growth = await benchGrowth(service, data.token);
    }

    const ingestion = ingestionOf(rows);
    const targets = targetsOf(figures, ingestion);
    printReport(figures, ingestion, targets);
    if (SAVE_RESULTS) writeResults(figures, ingestion, targets);
  } finally {
    await stopWorkers(workers);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
