/**
 * Bench: how a request's latency grows with the data behind it. The 1st against the 1,000th event
 * on one candidate; a list page with 1,000 against 100,000 candidates in the account; the summary
 * at 10,000 and 100,000 against the plain list page of the same size; a list of a rare status.
 * Measured one request at a time, on the service only.
 */
import { RARE_PENDING, seedIndex, BENCH_CONTRACT } from "../seed-index.ts";
import { newAccountWithDb } from "./accounts.ts";
import { median, sequentialLatencies } from "./load.ts";
import { event } from "./scenarios.ts";
import { client } from "./seed.ts";
import type { Databases } from "./workers.ts";

export interface Growth {
  event_1000th_vs_1st: number;
  event_1st_ms: number;
  event_1000th_ms: number;
  list_100k_vs_1k: number;
  list_status_100k_vs_1k: number;
  summary_10k_ms: number;
  summary_100k_ms: number;
  summary_100k_vs_10k: number;
  summary_10k_vs_list_10k: number;
  summary_100k_vs_list_100k: number;
  rare_status_list_100k_ms: number;
  rare_status_list_100k_vs_list_100k: number;
}

/** `service`: the instance measured; `token`: an account's there, whose candidates take the events. */
export async function benchGrowth(service: { url: string; dbs: Databases }, token: string): Promise<Growth> {
  const api = client(service.url, token);
  // The 1st versus the 1,000th event on one candidate: per-position latency over fresh candidates.
  const growthAliases = Array.from({ length: 5 }, (_, i) => `growth-${i}-${Date.now()}`);
  const firsts: number[] = [];
  const lasts: number[] = [];
  for (const alias of growthAliases) {
    await api("POST", "/v1/candidates", { customer_uuid: "bench", candidate_alias: alias, contract: BENCH_CONTRACT });
    const times = await sequentialLatencies(1000, (i) =>
      fetch(`${service.url}/v1/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(event(alias, i)),
      }),
    );
    firsts.push(...times.slice(0, 20));
    lasts.push(...times.slice(-20));
  }
  // List latency with 1,000 versus 100,000 candidates in the account.
  const small = await newAccountWithDb(service.dbs, "bench-list-1k");
  const big = await newAccountWithDb(service.dbs, "bench-list-100k");
  await seedIndex(small.db, small.id, 1_000);
  await seedIndex(big.db, big.id, 100_000);
  // Billing reads at 10,000 and 100,000 candidates, against the plain list page at the same size.
  const tenK = await newAccountWithDb(service.dbs, "bench-billing-10k");
  const rare = await newAccountWithDb(service.dbs, "bench-rare-100k");
  await seedIndex(tenK.db, tenK.id, 10_000);
  await seedIndex(rare.db, rare.id, 100_000, RARE_PENDING);
  /** The median of 300 reads one at a time, after 50 to warm up. */
  const read = async (accountToken: string, path: string) => {
    const get = () => fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${accountToken}` } });
    await sequentialLatencies(50, get);
    return median(await sequentialLatencies(300, get));
  };
  const [list10k, list100k] = [
    await read(tenK.token, "/v1/candidates?limit=50"),
    await read(big.token, "/v1/candidates?limit=50"),
  ];
  const [summary10k, summary100k] = [await read(tenK.token, "/v1/summary"), await read(big.token, "/v1/summary")];
  const rareList100k = await read(rare.token, "/v1/candidates?limit=50&status=PENDING");
  return {
    event_1000th_vs_1st: median(lasts) / median(firsts),
    event_1st_ms: median(firsts),
    event_1000th_ms: median(lasts),
    list_100k_vs_1k:
      (await read(big.token, "/v1/candidates?limit=50")) / (await read(small.token, "/v1/candidates?limit=50")),
    list_status_100k_vs_1k:
      (await read(big.token, "/v1/candidates?limit=50&status=PENDING")) /
      (await read(small.token, "/v1/candidates?limit=50&status=PENDING")),
    summary_10k_ms: summary10k,
    summary_100k_ms: summary100k,
    summary_100k_vs_10k: summary100k / summary10k,
    summary_10k_vs_list_10k: summary10k / list10k,
    summary_100k_vs_list_100k: summary100k / list100k,
    rare_status_list_100k_ms: rareList100k,
    rare_status_list_100k_vs_list_100k: rareList100k / list100k,
  };
}
