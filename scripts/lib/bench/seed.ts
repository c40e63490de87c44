/**
 * The data every scenario reads, the same in each service instance: two accounts (the first on
 * SHARD_0, the second on SHARD_1, as any new accounts are placed), 1,000 candidates to spread
 * events over, 200 to take events one at a time, one with 100 events to read, and 10,000 index rows
 * to list; and the floor's objects and rows of the same.
 */
import { BENCH_CONTRACT, seedIndex } from "../seed-index.ts";
import { accountDb, copyAccounts, newAccount } from "./accounts.ts";
import type { Workers } from "./workers.ts";

export interface BenchData {
  /** The account the event and read scenarios use. */
  token: string;
  /** The account with 10,000 candidates, for the list scenarios. */
  listerToken: string;
  /** 1,000 candidates, each event on the next. */
  spread: string[];
  /** 200 candidates, each taking events until it is nearly full. */
  hot: string[];
  /** A candidate with 100 events. */
  reader: string;
}

/** Runs `task` over `items` with a fixed number in flight. */
async function pool<T>(items: T[], inFlight: number, task: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/** Calls the service as the account of `token`; throws on anything but a 2xx. */
export function client(url: string, token: string) {
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

export async function seedData({ service, miniflareLimited, oneShard, floor }: Workers): Promise<BenchData> {
  const main = await newAccount(service.dbs, "bench");
  const lister = await newAccount(service.dbs, "bench-list-10k");
  await copyAccounts(service.dbs, miniflareLimited.dbs);
  await copyAccounts(service.dbs, oneShard.dbs, "SHARD_0");
  const spread = Array.from({ length: 1000 }, (_, i) => `spread-${i}-${Date.now()}`);
  const hot = Array.from({ length: 200 }, (_, i) => `hot-${i}-${Date.now()}`);
  const reader = `reader-${Date.now()}`;
  for (const { url, dbs } of [service, miniflareLimited, oneShard]) {
    const seeder = client(url, main.token);
    await pool([...spread, ...hot, reader], 20, async (alias) => {
      await seeder("POST", "/v1/candidates", {
        customer_uuid: "bench",
        candidate_alias: alias,
        contract: BENCH_CONTRACT,
      });
    });
    await pool(
      Array.from({ length: 100 }, (_, i) => i),
      1,
      async (i) => {
        await seeder("POST", "/v1/events", { candidate_alias: reader, type: "view", value: { page: i } });
      },
    );
    await seedIndex(await accountDb(dbs, lister.id), lister.id, 10_000);
  }

  for (const id of ["floor", "floor-10k"]) {
    await floor.db.prepare(`INSERT INTO accounts (id, name, created_at) VALUES (?, ?, 0)`).bind(id, id).run();
  }
  for (let i = 0; i < 100; i++) {
    await fetch(`${floor.url}/event/${reader}`, {
      method: "POST",
      body: JSON.stringify({ type: "view", value: { page: i } }),
    });
  }
  // The floor's objects exist before they are measured, as the service's candidates do.
  await pool([...spread, ...hot, reader], 20, async (alias) => {
    await fetch(`${floor.url}/create/${alias}`, { method: "POST", body: JSON.stringify(BENCH_CONTRACT) });
  });
  await seedIndex(floor.db, "floor-10k", 10_000);
  return { token: main.token, listerToken: lister.token, spread, hot, reader };
}
