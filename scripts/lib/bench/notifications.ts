/**
 * Bench: many candidates crossing a boundary at the same instant, and how long until their
 * webhooks are received and verified by a receiver on this machine, against a floor: a Worker
 * POSTing the same number of bodies to the same receiver.
 */
import { Webhook } from "standardwebhooks";
import { startReceiver } from "../webhook-receiver.ts";

export interface NotificationBench {
  candidates: number;
  delivered: number;
  verified: number;
  /** From the boundary instant to the last delivery received, seconds. */
  last_after_boundary_s: number;
  /** Per candidate: its transition instant to its delivery's arrival, ms. */
  latency_p50_ms: number;
  latency_p99_ms: number;
  /** The floor: a Worker POSTing as many bodies to the receiver, all at once; seconds until the last arrived. */
  floor_s: number;
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

export async function benchNotifications(
  service: { url: string; token: string },
  floorUrl: string,
  count = 1000,
  log: (line: string) => void = console.log,
): Promise<NotificationBench> {
  const receiver = await startReceiver();
  try {
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${service.token}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    const endpoint = await call("POST", "/v1/webhook_endpoints", {
      url: `${receiver.url}/bench/200`,
      enabled_events: ["candidate.pending"],
    });

    // Every candidate's activity window ends at the same instant, a little after the last is made.
    const boundary = Date.now() + 20_000 + count * 15;
    log(`  creating ${count} candidates whose activity windows all end at ${new Date(boundary).toISOString()}`);
    const ends = new Map<string, number>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < count) {
          const alias = `crossing-${boundary}-${next++}`;
          const contract = {
            price: 1,
            activity_window: (boundary - Date.now()) / 1000,
            review_window: 3600,
            fulfillment_condition: { event: "never" },
            timeout_outcome: "confirm",
          };
          const created = await call("POST", "/v1/candidates", {
            customer_uuid: "bench",
            candidate_alias: alias,
            contract,
          });
          ends.set(alias, Date.parse(created.activity_ends_at));
        }
      }),
    );
    if (Date.now() > boundary)
      throw new Error("the candidates took longer to create than the time left before their boundary");

    const deadline = boundary + 120_000;
    while (receiver.received("bench").length < count && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 250));
    const received = receiver.received("bench");
    const webhook = new Webhook(endpoint.secret);
    const latencies: number[] = [];
    let verified = 0;
    for (const delivery of received) {
      try {
        const notification = webhook.verify(delivery.body, delivery.headers) as {
          data: { candidate: { candidate_alias: string } };
        };
        verified++;
        latencies.push(delivery.at - ends.get(notification.data.candidate.candidate_alias)!);
      } catch {
        // counted as not verified
      }
    }

    // The floor: the same number of POSTs of a notification-sized body, from one Worker request.
    const floorStart = Date.now();
    await fetch(`${floorUrl}/post-many?n=${count}&url=${encodeURIComponent(`${receiver.url}/floor/200`)}`, {
      method: "POST",
      body: received[0]?.body ?? "{}",
    });
    const floorDone = Math.max(...receiver.received("floor").map((d) => d.at), floorStart);

    return {
      candidates: count,
      delivered: received.length,
      verified,
      last_after_boundary_s: (Math.max(...received.map((d) => d.at)) - boundary) / 1000,
      latency_p50_ms: percentile(latencies, 50),
      latency_p99_ms: percentile(latencies, 99),
      floor_s: (floorDone - floorStart) / 1000,
    };
  } finally {
    await receiver.close();
  }
}
