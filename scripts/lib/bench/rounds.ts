/**
 * One scenario measured: a warm-up, then rounds in which every worker takes the same load in
 * turn, and each figure's median over the rounds. With BENCH_PROFILE, a CPU profile of the service
 * over the rounds.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { startCpuProfile, topSelfTime } from "../cpu-profile.ts";
import { load, medianRatio, medianRun, type Measurement } from "./load.ts";
import { BUILD, PROFILE, ROUNDS, SECONDS, WARMUP_SECONDS } from "./options.ts";
import type { Scenario } from "./scenarios.ts";
import type { Workers } from "./workers.ts";

/** The comparison every scenario has: the same requests to the service with one shard. */
export const ONE_SHARD_NAME = "the service with 1 shard";

export interface Row {
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

export async function runScenario(s: Scenario, workers: Workers): Promise<Row> {
  process.stdout.write(`${s.name}: warm-up`);
  // Service and floor run next to each other in every round, in alternating order, and their
  // ratio is taken per round: the machine's speed drifts between rounds, far less within one.
  const measured = { url: workers.service.url, shape: s.service, runs: [] as Measurement[] };
  const reference = { url: workers.floor.url, shape: s.floor, runs: [] as Measurement[] };
  const others = [
    { url: workers.miniflareLimited.url, shape: s.service, runs: [] as Measurement[] },
    { url: workers.bare.url, shape: s.service, runs: [] as Measurement[] },
  ];
  const versus = [...(s.versus ?? []), { name: ONE_SHARD_NAME, url: workers.oneShard.url, shape: s.service }].map(
    (v) => ({ ...v, runs: [] as Measurement[] }),
  );
  for (const t of [measured, reference, ...versus, ...others]) await load(t.url, t.shape, WARMUP_SECONDS);
  const profilers = PROFILE
    ? {
        service: await startCpuProfile(workers.service.inspectorPort!, "service"),
        floor: await startCpuProfile(workers.floor.inspectorPort!, "floor"),
      }
    : undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    process.stdout.write(`, round ${round}`);
    const compared = [measured, reference, ...versus];
    for (const t of [...(round % 2 === 1 ? compared : compared.reverse()), ...others])
      t.runs.push(await load(t.url, t.shape, SECONDS));
  }
  process.stdout.write("\n");
  if (profilers) {
    saveProfile(s.name, "service", await profilers.service.stop());
    saveProfile(s.name, "floor", await profilers.floor.stop());
  }
  const [mfl, bar] = others;
  return {
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
  };
}

function saveProfile(
  scenario: string,
  worker: "service" | "floor",
  profile: Awaited<ReturnType<Awaited<ReturnType<typeof startCpuProfile>>["stop"]>>,
) {
  const path = `${BUILD}/profiles/${scenario.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "")}.${worker}.cpuprofile`;
  mkdirSync(`${BUILD}/profiles`, { recursive: true });
  writeFileSync(path, JSON.stringify(profile));
  console.log(`  ${worker} CPU profile: ${path}; busy time by function:`);
  for (const { share, frame } of topSelfTime(profile, 12))
    console.log(`  ${(share * 100).toFixed(1).padStart(5)} %  ${frame}`);
}
