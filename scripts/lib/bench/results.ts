/** bench/results.json: the last full run's figures and targets, with the machine and the load they were taken under. */
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { CONNECTIONS, ROUNDS, SECONDS, STORAGE_BASE, WARMUP_SECONDS } from "./options.ts";
import type { Figures, Ingestion, Target } from "./targets.ts";

export const RESULTS_FILE = "bench/results.json";

export function writeResults(
  { rows, notifications, listReads, growth, bundleGzipKiB }: Figures,
  ingestion: Ingestion,
  targets: Target[],
) {
  const results = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30) },
    load: {
      tool: "autocannon",
      connections: CONNECTIONS,
      seconds: SECONDS,
      rounds: ROUNDS,
      warmup_seconds: WARMUP_SECONDS,
      storage: STORAGE_BASE,
    },
    scenarios: rows,
    ingestion,
    notifications,
    list_reads: listReads,
    growth,
    bundle_gzip_kib: bundleGzipKiB,
    targets,
  };
  writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + "\n");
  console.log(`\nwritten to ${RESULTS_FILE}`);
}
