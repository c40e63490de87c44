/**
 * The scenarios measured under load: for each, the requests made to the service and the requests
 * doing only the same storage work to the floor. Their names are the rows of the report.
 */
import { BENCH_CONTRACT } from "../seed-index.ts";
import type { Shape } from "./load.ts";
import type { BenchData } from "./seed.ts";

export const BATCH_SIZE = 100;
export const SINGLE_EVENT_SCENARIO = "POST /v1/events, 1,000 candidates";
export const KEYED_EVENT_SCENARIO = "POST /v1/events, 1,000 candidates, a fresh Idempotency-Key each";
export const BATCH_SCENARIO = "POST /v1/events/batch, 100 events over 1,000 candidates";
/** The parts measured apart from the load scenarios (their own modules), named for BENCH_ONLY and the report. */
export const NOTIFICATION_SCENARIO = "webhooks: 1,000 candidates crossing a boundary at one instant";
export const LIST_READS = "list reads: metadata filter and CSV export, 100,000 candidates";

/** Another worker or request shape measured beside the service in every round of a scenario. */
export interface Comparison {
  name: string;
  url: string;
  shape: Shape;
}

export interface Scenario {
  name: string;
  service: Shape;
  floor: Shape;
  /** The service's runs are also compared with these, measured in the same rounds. */
  versus?: Comparison[];
}

/** The i-th event the bench posts to a candidate. */
export const event = (alias: string, i: number) => ({
  candidate_alias: alias,
  type: "view",
  value: { page: i % 50, ref: `r${i}` },
});

export function scenarios({ token, listerToken, spread, hot, reader }: BenchData, serviceUrl: string): Scenario[] {
  const auth = { authorization: `Bearer ${token}` };
  const listAuth = { authorization: `Bearer ${listerToken}` };
  /** The i-th batch: 100 events on 100 different candidates, going round the 1,000. */
  const batchOf = (i: number) =>
    Array.from({ length: BATCH_SIZE }, (_, k): [string, number] => [
      spread[(i * BATCH_SIZE + k) % 1000],
      i * BATCH_SIZE + k,
    ]);
  /** One hot candidate at a time: 990 events each, then the next (a candidate holds 1,000). */
  const hotAlias = (i: number) => hot[Math.floor(i / 990) % hot.length];
  let created = 0;

  return [
    {
      name: SINGLE_EVENT_SCENARIO,
      service: {
        method: "POST",
        headers: auth,
        next: (i) => ({ path: "/v1/events", body: event(spread[i % 1000], i) }),
      },
      floor: {
        method: "POST",
        next: (i) => ({ path: `/event/${spread[i % 1000]}`, body: { type: "view", value: { page: i % 50 } } }),
      },
    },
    {
      name: KEYED_EVENT_SCENARIO,
      service: {
        method: "POST",
        headers: auth,
        keyed: true,
        next: (i) => ({ path: "/v1/events", body: event(spread[i % 1000], i) }),
      },
      floor: {
        method: "POST",
        next: (i) => ({ path: `/event/${spread[i % 1000]}`, body: { type: "view", value: { page: i % 50 } } }),
      },
      // The same events without a key, in the same rounds: what the key costs.
      versus: [
        {
          name: "without a key",
          url: serviceUrl,
          shape: {
            method: "POST",
            headers: auth,
            next: (i) => ({ path: "/v1/events", body: event(spread[i % 1000], i) }),
          },
        },
      ],
    },
    {
      name: "POST /v1/events, one hot candidate",
      service: { method: "POST", headers: auth, next: (i) => ({ path: "/v1/events", body: event(hotAlias(i), i) }) },
      floor: {
        method: "POST",
        next: (i) => ({ path: `/event/${hotAlias(i)}`, body: { type: "view", value: { page: i % 50 } } }),
      },
    },
    {
      name: BATCH_SCENARIO,
      service: {
        method: "POST",
        headers: auth,
        next: (i) => ({ path: "/v1/events/batch", body: { events: batchOf(i).map(([alias, n]) => event(alias, n)) } }),
      },
      floor: {
        method: "POST",
        next: (i) => ({
          path: "/batch",
          body: { events: batchOf(i).map(([name, n]) => ({ name, type: "view", value: { page: n % 50 } })) },
        }),
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
      floor: { method: "GET", next: () => ({ path: "/list?account=floor-10k&status=PENDING" }) },
    },
    {
      name: "POST /v1/candidates",
      service: {
        method: "POST",
        headers: auth,
        next: () => ({
          path: "/v1/candidates",
          body: { customer_uuid: "bench", candidate_alias: `new-${Date.now()}-${created++}`, contract: BENCH_CONTRACT },
        }),
      },
      floor: { method: "POST", next: () => ({ path: `/create/new-${Date.now()}-${created++}`, body: BENCH_CONTRACT }) },
    },
  ];
}
