/**
 * The billing summary (docs/billing.md), exact at instant `now`: how many candidates are in each
 * status with `status_since` in the range, and the exact sum of their prices. Pure: it adds up
 * what D1 returns (db/summary.ts) — totals by settled status — and puts each lagging candidate
 * (its boundary passed since it settled) where its timeline says it is now.
 */
import { DecimalSum, type DecimalParts, type ScaledSum } from "./decimal";
import { STATUSES, statusAt, type FinalStatus, type Status, type Timeline } from "./timeline";

export interface StatusTotal {
  count: number;
  amount: string;
}
export interface Summary {
  OPEN: StatusTotal;
  PENDING: StatusTotal & { scheduled_confirmed: StatusTotal };
  CONFIRMED: StatusTotal;
  FAILED: StatusTotal;
}

/** Candidates counted together: in one status (and scheduled outcome), for one customer or all. */
export interface Counted extends ScaledSum {
  customer_uuid: string;
  status: Status;
  final_status: FinalStatus;
  count: number;
}

/** A candidate whose settled status is behind its timeline. */
export interface Lagging {
  customer_uuid: string;
  settled_status: Status;
  timeline: Timeline;
  price: { units: bigint | number; scale: number };
}

class Tally {
  count = 0;
  amount = new DecimalSum();
  add(count: number, sum: ScaledSum | DecimalParts, sign: 1 | -1) {
    this.count += sign * count;
    this.amount.add(sum, sign);
  }
  toJSON(): StatusTotal {
    return { count: this.count, amount: this.amount.toString() };
  }
}

class CustomerTally {
  private readonly byStatus = Object.fromEntries(STATUSES.map((s) => [s, new Tally()])) as Record<Status, Tally>;
  private readonly pendingConfirmed = new Tally();

  add(status: Status, finalStatus: FinalStatus, count: number, sum: ScaledSum | DecimalParts, sign: 1 | -1 = 1) {
    this.byStatus[status].add(count, sum, sign);
    if (status === "PENDING" && finalStatus === "CONFIRMED") this.pendingConfirmed.add(count, sum, sign);
  }

  summary(): Summary {
    const { OPEN, PENDING, CONFIRMED, FAILED } = this.byStatus;
    return {
      OPEN: OPEN.toJSON(),
      PENDING: { ...PENDING.toJSON(), scheduled_confirmed: this.pendingConfirmed.toJSON() },
      CONFIRMED: CONFIRMED.toJSON(),
      FAILED: FAILED.toJSON(),
    };
  }
}

export interface Tallying {
  /** `counted` includes the unsettled candidates (in their settled status), as kept totals do. */
  countedIncludesLagging: boolean;
  range?: { gte?: number; lt?: number };
  now: number;
}

/** Totals per customer key ('' when not grouped by customer), exact at `now`. */
export function tally(counted: Counted[], lagging: Lagging[], how: Tallying): Map<string, Summary> {
  const tallies = new Map<string, CustomerTally>();
  const of = (key: string) => tallies.get(key) ?? tallies.set(key, new CustomerTally()).get(key)!;
  for (const row of counted) of(row.customer_uuid).add(row.status, row.final_status, row.count, row);
  for (const row of lagging) {
    const tally = of(row.customer_uuid);
    if (how.countedIncludesLagging) tally.add(row.settled_status, row.timeline.finalStatus, 1, row.price, -1);
    const { status, since } = statusAt(row.timeline, how.now);
    const inRange =
      (how.range?.gte === undefined || since >= how.range.gte) && (how.range?.lt === undefined || since < how.range.lt);
    if (inRange) tally.add(status, row.timeline.finalStatus, 1, row.price);
  }
  return new Map([...tallies].map(([key, t]) => [key, t.summary()]));
}

export const EMPTY_SUMMARY = new CustomerTally().summary();
