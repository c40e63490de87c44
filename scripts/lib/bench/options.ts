/** The bench's settings, read once from the environment (documented in scripts/bench.ts). */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** Each worker is measured this many times per scenario, interleaved, and the median kept. */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const WARMUP_SECONDS = 2;
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const ONLY = process.env.BENCH_ONLY;
export const PROFILE = Boolean(process.env.BENCH_PROFILE);
/** Where the workers' bundles (and CPU profiles) are written. */
export const BUILD = "bench/.build";
/** A partial or profiled run does not replace the results of a full one. */
export const SAVE_RESULTS = !ONLY && !PROFILE;

/** Whether the part of the bench named `name` runs: all do, unless BENCH_ONLY picks some. */
export const selected = (name: string) => !ONLY || name.includes(ONLY);

/**
 * Where every instance keeps its storage: RAM (/dev/shm) where the machine has it, so a figure is
 * the CPU a request costs, which is what the service can change. On this machine's disk each
 * commit waits for its fsync, whose latency swung a write scenario's rounds from 0.46 to 1.36 of
 * the floor within one run (2026-11-24): the ratio measured the disk, not the service.
 */
export const STORAGE_BASE = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
