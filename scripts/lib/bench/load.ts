/** Load and latency measurements: autocannon against a worker, workerd's CPU time, and medians. */
import { readdirSync, readFileSync } from "node:fs";
import autocannon from "autocannon";
import { CONNECTIONS } from "./options.ts";

/** How to make a scenario's requests to one worker. */
export interface Shape {
  method: "GET" | "POST";
  /** Path and body of the i-th request. */
  next: (i: number) => { path: string; body?: unknown };
  headers?: Record<string, string>;
  /** Each request carries a fresh Idempotency-Key, as the typed client sends on every POST. */
  keyed?: boolean;
}

export interface Measurement {
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
    if (name === "workerd" && Number(fields[1]) === process.pid)
      total += (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
  }
  return total;
}

/** Request counters per shape, kept across warm-up and measurement so aliases are never reused. */
const counters = new WeakMap<Shape, number>();

/** `seconds` of requests of `shape` to the worker at `url`, from CONNECTIONS connections at once. */
export function load(url: string, shape: Shape, seconds: number): Promise<Measurement> {
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

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The run with the median throughput, of one per round. */
export const medianRun = (runs: Measurement[]) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

/** The median over rounds of a's requests/s over b's in the same round. */
export const medianRatio = (a: Measurement[], b: Measurement[]) => median(a.map((m, i) => m.rps / b[i].rps));

/** Latency in ms of each of `count` sequential requests, one at a time. */
export async function sequentialLatencies(count: number, request: (i: number) => Promise<Response>): Promise<number[]> {
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
