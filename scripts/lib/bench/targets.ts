/** What the bench's figures must reach: each target, and whether this run met it. */
import type { Growth } from "./growth.ts";
import type { ListReadsBench } from "./list-reads.ts";
import type { NotificationBench } from "./notifications.ts";
import { PROFILE } from "./options.ts";
import { ONE_SHARD_NAME, type Row } from "./rounds.ts";
import { BATCH_SCENARIO, BATCH_SIZE, KEYED_EVENT_SCENARIO, SINGLE_EVENT_SCENARIO } from "./scenarios.ts";

/** Everything one run measured. */
export interface Figures {
  rows: Row[];
  notifications?: NotificationBench;
  listReads?: ListReadsBench;
  /** Measured only in a full run. */
  growth?: Growth;
  bundleGzipKiB: number;
}

export interface Target {
  figure: string;
  value: number;
  target: string;
  met: boolean;
}

/** A figure that must reach `bound` (written as the report shows it), or stay within it. */
const atLeast = (figure: string, value: number, bound: string): Target => ({
  figure,
  value,
  target: `>= ${bound}`,
  met: value >= Number(bound),
});
const atMost = (figure: string, value: number, bound: string): Target => ({
  figure,
  value,
  target: `<= ${bound}`,
  met: value <= Number(bound),
});

/** Events per second taken in batches against one at a time, when the batch scenario ran. */
export function ingestionOf(rows: Row[]) {
  const batch = rows.find((r) => r.scenario === BATCH_SCENARIO);
  const single = rows.find((r) => r.scenario === SINGLE_EVENT_SCENARIO);
  return (
    batch && {
      batch_events_per_s: batch.service.rps * BATCH_SIZE,
      floor_events_per_s: batch.floor.rps * BATCH_SIZE,
      batch_cpu_ms_per_event: batch.service.cpu_ms / BATCH_SIZE,
      ...(single
        ? {
            single_events_per_s: single.service.rps,
            single_cpu_ms_per_event: single.service.cpu_ms,
            batch_vs_single: (batch.service.rps * BATCH_SIZE) / single.service.rps,
            batch_vs_single_by_cpu: single.service.cpu_ms / (batch.service.cpu_ms / BATCH_SIZE),
          }
        : {}),
    }
  );
}

export type Ingestion = ReturnType<typeof ingestionOf>;

/** The targets of the figures this run measured. */
export function targetsOf(
  { rows, notifications, listReads, growth, bundleGzipKiB }: Figures,
  ingestion: Ingestion,
): Target[] {
  return [
    ...rows.map((r) => atLeast(`${r.scenario}: service/floor`, r.vs_floor, "0.90")),
    ...rows.flatMap((r) =>
      r.scenario === KEYED_EVENT_SCENARIO && r.versus
        ? [atLeast("events: a fresh key each vs no key", r.versus["without a key"].service_vs_it, "0.90")]
        : [],
    ),
    ...rows.map((r) => {
      const vs = r.versus![ONE_SHARD_NAME].service_vs_it;
      return atLeast(`${r.scenario}: 2 shards vs 1`, vs, "0.90");
    }),
    ...rows.map((r) => {
      const failed = [
        r.service,
        r.service_miniflare_limiter,
        ...Object.values(r.versus ?? {}).map((v) => v.run),
      ].reduce((n, m) => n + m.non2xx + m.errors, 0);
      return { figure: `${r.scenario}: non-2xx (every service)`, value: failed, target: "0", met: failed === 0 };
    }),
    ...(ingestion?.batch_vs_single === undefined
      ? []
      : [atLeast("events/s: batches vs single posts", ingestion.batch_vs_single, "3")]),
    ...(notifications
      ? [
          {
            figure: "webhooks: delivered and verified, of 1,000",
            value: Math.min(notifications.delivered, notifications.verified),
            target: "1000",
            met:
              notifications.delivered === notifications.candidates &&
              notifications.verified === notifications.candidates,
          },
          atMost("webhooks: last received after the boundary, s", notifications.last_after_boundary_s, "30"),
        ]
      : []),
    ...(listReads
      ? [
          atMost("metadata filter vs plain list page, 100k", listReads.metadata_filter_vs_list_page, "1.2"),
          {
            figure: "export of 100,000 candidates, s",
            value: listReads.export_100k_s,
            target: "seconds",
            met: listReads.export_100k_s < 60,
          },
          {
            figure: "export: memory growth, 100k vs 10k rows, MiB",
            value: listReads.export_100k_peak_rss_growth_mib - listReads.export_10k_peak_rss_growth_mib,
            target: "constant",
            met: listReads.export_100k_peak_rss_growth_mib <= listReads.export_10k_peak_rss_growth_mib + 16,
          },
        ]
      : []),
    ...(!growth
      ? []
      : [
          atMost("growth: 1,000th vs 1st event", growth.event_1000th_vs_1st, "1.2"),
          atMost("growth: list, 100k vs 1k candidates", growth.list_100k_vs_1k, "1.2"),
          atMost("growth: status list, 100k vs 1k", growth.list_status_100k_vs_1k, "1.2"),
          atMost("summary vs plain list page, 10k", growth.summary_10k_vs_list_10k, "1.2"),
          atMost("summary vs plain list page, 100k", growth.summary_100k_vs_list_100k, "1.2"),
          { figure: "growth: summary, 100k vs 10k", value: growth.summary_100k_vs_10k, target: "reported", met: true },
          atMost("list of a 0.1 % status vs plain list page, 100k", growth.rare_status_list_100k_vs_list_100k, "1.2"),
        ]),
    // A profiled run's bundles are not minified.
    ...(PROFILE ? [] : [atMost("bundle, gzip KiB", bundleGzipKiB, "150")]),
  ];
}
