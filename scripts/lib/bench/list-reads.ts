/**
 * Bench: reads of a 100,000-candidate account. A list page filtered on metadata against the
 * plain page (the filter walks its own index, so the two should cost the same), and the CSV
 * export of every candidate: how long it takes, and how much the worker's memory grows while
 * it streams (10,000 rows against 100,000: the same growth means constant memory).
 */
import { readdirSync, readFileSync } from "node:fs";
import { seedIndex } from "../seed-index.ts";
import { median } from "./load.ts";

export interface ListReadsBench {
  list_page_100k_ms: number;
  metadata_filter_page_100k_ms: number;
  metadata_filter_vs_list_page: number;
  export_10k_s: number;
  export_100k_s: number;
  export_100k_rows_per_s: number;
  /** The size of the 100,000-row CSV: what a buffered export would hold at once (twice, as UTF-16 text). */
  export_100k_mib: number;
  /** The workerd processes' resident memory at its highest while exporting, above where it started. */
  export_10k_peak_rss_growth_mib: number;
  export_100k_peak_rss_growth_mib: number;
}

/** Resident memory (MiB) of the workerd processes this bench started (Miniflare's children). */
function workerdRssMiB(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      if (!/^Name:\s+workerd$/m.test(status) || Number(/^PPid:\s+(\d+)$/m.exec(status)?.[1]) !== process.pid) continue;
      total += Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) / 1024;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

async function latencyMs(url: string, token: string, count: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    times.push(performance.now() - start);
  }
  return median(times);
}

/** Streams the export, counting rows without keeping them; seconds and the peak memory growth. */
async function exportOnce(url: string, token: string, rows: number) {
  const before = workerdRssMiB();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, workerdRssMiB())), 20);
  const start = performance.now();
  const res = await fetch(`${url}/v1/candidates/export`, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) throw new Error(`export: ${res.status}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body) {
    bytes += (chunk as Uint8Array).length;
    for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
  }
  const seconds = (performance.now() - start) / 1000;
  clearInterval(sampler);
  if (lines !== rows + 1) throw new Error(`export: ${lines - 1} rows, expected ${rows}`);
  return { seconds, mib: bytes / 2 ** 20, peakGrowthMiB: Math.max(0, peak - before) };
}

export async function benchListReads(
  url: string,
  /** A new account, and the database its data is on. */
  account: (name: string) => Promise<{ id: string; token: string; db: D1Database }>,
  log: (line: string) => void = console.log,
): Promise<ListReadsBench> {
  const [small, big] = [await account("bench-export-10k"), await account("bench-lists-100k")];
  log("list reads: seeding 10,000 and 100,000 candidates with metadata…");
  const metadata = (i: number) => ({ tier: i % 2 === 0 ? "gold" : "silver", order_id: `ord_${i}` });
  await seedIndex(small.db, small.id, 10_000, undefined, metadata);
  await seedIndex(big.db, big.id, 100_000, undefined, metadata);
  const page = (query: string) => `${url}/v1/candidates?limit=50${query}`;
  await latencyMs(page(""), big.token, 50); // warm-up
  const [plain, filtered] = [
    await latencyMs(page(""), big.token, 300),
    await latencyMs(page("&metadata[tier]=gold"), big.token, 300),
  ];
  log("list reads: exporting…");
  await exportOnce(url, small.token, 10_000); // warm-up
  const small10k = await exportOnce(url, small.token, 10_000);
  const big100k = await exportOnce(url, big.token, 100_000);
  return {
    list_page_100k_ms: plain,
    metadata_filter_page_100k_ms: filtered,
    metadata_filter_vs_list_page: filtered / plain,
    export_10k_s: small10k.seconds,
    export_100k_s: big100k.seconds,
    export_100k_rows_per_s: 100_000 / big100k.seconds,
    export_100k_mib: big100k.mib,
    export_10k_peak_rss_growth_mib: small10k.peakGrowthMiB,
    export_100k_peak_rss_growth_mib: big100k.peakGrowthMiB,
  };
}
