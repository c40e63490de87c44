/** What the bench prints: the setup first, and at the end the table, the other figures and the targets. */
import { cpus, totalmem } from "node:os";
import { CONNECTIONS, ROUNDS, SECONDS, STORAGE_BASE, WARMUP_SECONDS } from "./options.ts";
import { LIST_READS, NOTIFICATION_SCENARIO } from "./scenarios.ts";
import type { Figures, Ingestion, Target } from "./targets.ts";

export function printSetup() {
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model}, ${Math.round(totalmem() / 2 ** 30)} GiB; node ${process.version}; ` +
      `storage under ${STORAGE_BASE}`,
  );
  console.log(
    `load: autocannon, ${CONNECTIONS} connections; per scenario a ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} rounds of ${SECONDS} s ` +
      `per worker, interleaved; ratios are per round (service and floor back to back), the median kept\n`,
  );
}

export function printReport({ rows, notifications, listReads }: Figures, ingestion: Ingestion, targets: Target[]) {
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
      console.log(
        `\n${r.scenario}: service vs ${name}: ${f(v.service_vs_it, 2)} (by round: ${v.by_round.map((x) => f(x, 2)).join(" ")}; ${name}: ${f(v.run.rps)} req/s, ${f(v.run.cpu_ms, 2)} CPU ms/req)`,
      );
    }
  }
  console.log(
    `\nservice/floor by round: ${rows.map((r) => `${r.scenario}: ${r.vs_floor_by_round.map((x) => f(x, 2)).join(" ")}`).join("; ")}`,
  );
  if (ingestion) console.log(`\nevents/s: ${JSON.stringify(ingestion)}`);
  if (notifications) console.log(`\n${NOTIFICATION_SCENARIO}: ${JSON.stringify(notifications)}`);
  if (listReads) console.log(`\n${LIST_READS}: ${JSON.stringify(listReads)}`);
  console.log("\n| figure | value | target | met |\n|---|---|---|---|");
  for (const t of targets) console.log(`| ${t.figure} | ${f(t.value, 2)} | ${t.target} | ${t.met ? "yes" : "NO"} |`);
}
