/**
 * Model-based test: random contracts, then random sequences of events, clock steps and resolves,
 * checked after every step against a small, deliberately naive reference model of the rules in
 * docs/conditions.md and docs/lifecycle.md (it replays every event from scratch; the service
 * evaluates incrementally).
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { runDurableObjectAlarm } from "cloudflare:test";
import {
  client,
  createAccount,
  expectStatus,
  freshAlias,
  inCandidate,
  objectOf,
  okBody,
  type Schemas,
} from "../support/api";
import { iso, useClock } from "../support/clock";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Leaf = { event: string; field?: string; match?: Record<string, Json>; gte?: number; lt?: number; eq?: number };
type Node = Leaf | { all: Node[] } | { any: Node[] };
type Final = "CONFIRMED" | "FAILED";
interface ModelEvent {
  type: string;
  hasValue: boolean;
  value?: Json;
  at: number;
  /** Known once the service answered: its id, and whether it satisfied a leaf while OPEN. */
  id?: string;
  matched?: boolean;
}

// ---- the reference model ----------------------------------------------------------------------

function leafHolds(leaf: Leaf, e: ModelEvent): boolean {
  if (e.type !== leaf.event) return false;
  const tests = [leaf.field, leaf.match, leaf.gte, leaf.lt, leaf.eq].some((x) => x !== undefined);
  if (!tests) return true;
  if (!e.hasValue) return false;
  let subject: Json | undefined = e.value;
  if (leaf.field !== undefined) {
    subject =
      subject !== null && typeof subject === "object" && !Array.isArray(subject) && leaf.field in subject
        ? subject[leaf.field]
        : undefined;
    if (subject === undefined) return false;
  }
  if (leaf.match) {
    if (subject === null || typeof subject !== "object" || Array.isArray(subject)) return false;
    for (const [k, v] of Object.entries(leaf.match)) if (JSON.stringify(subject[k]) !== JSON.stringify(v)) return false;
  }
  const numeric = [leaf.gte, leaf.lt, leaf.eq].some((x) => x !== undefined);
  if (numeric && typeof subject !== "number") return false;
  if (leaf.gte !== undefined && !((subject as number) >= leaf.gte)) return false;
  if (leaf.lt !== undefined && !((subject as number) < leaf.lt)) return false;
  if (leaf.eq !== undefined && subject !== leaf.eq) return false;
  if (leaf.field !== undefined && !leaf.match && !numeric && subject === null) return false;
  return true;
}

/** Whether the condition holds over a set of events (each leaf by any one of them). */
function holdsOver(node: Node, events: ModelEvent[]): boolean {
  if ("all" in node) return node.all.every((n) => holdsOver(n, events));
  if ("any" in node) return node.any.some((n) => holdsOver(n, events));
  return events.some((e) => leafHolds(node, e));
}

class Reference {
  events: ModelEvent[] = [];
  resolution?: { at: number; outcome: Final; fromOpen: boolean };
  constructor(
    readonly t0: number,
    readonly activityMs: number,
    readonly reviewMs: number,
    readonly timeout: "confirm" | "fail",
    readonly condition: Node,
  ) {}

  /** The activity window's end: a resolve while OPEN ends it then. */
  windowEnd(): number {
    const end = this.t0 + this.activityMs;
    return this.resolution?.fromOpen ? Math.min(end, this.resolution.at) : end;
  }

  /** The instant of the event that first made the condition hold inside the window, if any. */
  fulfilledAt(): number | null {
    const windowEnd = this.windowEnd();
    for (let i = 0; i < this.events.length; i++) {
      if (this.events[i].at >= windowEnd) return null;
      if (holdsOver(this.condition, this.events.slice(0, i + 1))) return this.events[i].at;
    }
    return null;
  }

  at(t: number) {
    const fulfilled = this.fulfilledAt();
    const openEnd = fulfilled ?? this.windowEnd();
    let pendingEnd = openEnd + this.reviewMs;
    let final: Final = fulfilled !== null || this.timeout === "confirm" ? "CONFIRMED" : "FAILED";
    if (this.resolution) ({ at: pendingEnd, outcome: final } = this.resolution);
    if (t < openEnd) return { status: "OPEN", status_since: iso(this.t0), scheduled_outcome: null };
    if (t < pendingEnd) return { status: "PENDING", status_since: iso(openEnd), scheduled_outcome: final };
    return { status: final, status_since: iso(pendingEnd), scheduled_outcome: final };
  }

  /** Each leaf, in contract order, with the first event that satisfied it while OPEN. */
  progress() {
    const leaves: { path: string; leaf: Leaf }[] = [];
    const walk = (n: Node, path: string): void => {
      if ("all" in n) n.all.forEach((child, i) => walk(child, `${path}.all.${i}`));
      else if ("any" in n) n.any.forEach((child, i) => walk(child, `${path}.any.${i}`));
      else leaves.push({ path, leaf: n });
    };
    walk(this.condition, "fulfillment_condition");
    return {
      fulfilled: this.fulfilledAt() !== null,
      leaves: leaves.map(({ path, leaf }) => {
        const by = this.events.find((e) => e.matched && leafHolds(leaf, e));
        return {
          path,
          event: leaf.event,
          satisfied: by !== undefined,
          event_id: by?.id ?? null,
          satisfied_at: by ? iso(by.at) : null,
        };
      }),
    };
  }

  /** Whether an event received now counts: the candidate is OPEN and the event satisfies a leaf. */
  wouldMatch(e: ModelEvent): boolean {
    if (this.at(e.at).status !== "OPEN") return false;
    const leaves = (n: Node): Leaf[] => ("all" in n ? n.all.flatMap(leaves) : "any" in n ? n.any.flatMap(leaves) : [n]);
    return leaves(this.condition).some((leaf) => leafHolds(leaf, e));
  }
}

// ---- arbitraries -------------------------------------------------------------------------------

const eventType = fc.constantFrom("a", "b", "c");
/** Bounds and values share a small range, so events often land exactly on a bound. */
const small = fc.integer({ min: 0, max: 4 });
const leaf: fc.Arbitrary<Leaf> = fc.oneof(
  eventType.map((event) => ({ event })),
  fc.record({ event: eventType, gte: small }),
  // A leaf that can never hold (lt <= gte) is refused at creation: keep the range non-empty.
  fc.record({ event: eventType, gte: small, lt: small }).map((l) => (l.lt > l.gte ? l : { ...l, lt: l.gte + 1 })),
  fc.record({ event: eventType, eq: small }),
  fc.record({ event: eventType, match: fc.record({ k: fc.constantFrom("x", "y") }) }),
  fc.record({ event: eventType, field: fc.constant("n"), gte: small }),
  fc.record({ event: eventType, field: fc.constant("k") }),
);
const condition: fc.Arbitrary<Node> = fc.oneof(
  leaf,
  fc.array(leaf, { minLength: 1, maxLength: 3 }).map((all) => ({ all })),
  fc.array(leaf, { minLength: 1, maxLength: 3 }).map((any) => ({ any })),
  fc.tuple(leaf, fc.array(leaf, { minLength: 1, maxLength: 2 })).map(([l, any]) => ({ all: [l, { any }] })),
);
const value: fc.Arbitrary<Json> = fc.oneof(
  small,
  fc.record({ k: fc.constantFrom("x", "y", null), n: small }, { requiredKeys: [] }),
  fc.constantFrom(null, "5", true, [5]),
);
const eventStep = fc.record({
  kind: fc.constant("event" as const),
  type: eventType,
  value: fc.option(value, { nil: undefined }),
});
const step = fc.oneof(
  { weight: 4, arbitrary: eventStep },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("batch" as const),
      events: fc.array(eventStep, { minLength: 1, maxLength: 5 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("advance" as const),
      ms: fc.oneof(fc.integer({ min: 0, max: 20_000 }), fc.constant(1)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("resolve" as const),
      outcome: fc.constantFrom<Final>("CONFIRMED", "FAILED"),
    }),
  },
  // The alarm runs if one is due: reads must agree whether the stored status caught up or not.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("alarm" as const) }) },
);
const scenario = fc.record({
  // [price, the amount a sum of it alone is written as]
  price: fc.constantFrom(
    ["0.1", "0.1"],
    ["12345678.9", "12345678.9"],
    ["1e-7", "0.0000001"],
    ["0", "0"],
    ["49.5", "49.5"],
    ["1e12", "1000000000000"],
  ),
  activity: fc.integer({ min: 1, max: 60 }),
  review: fc.integer({ min: 0, max: 30 }),
  timeout: fc.constantFrom<"confirm" | "fail">("confirm", "fail"),
  condition,
  steps: fc.array(step, { minLength: 1, maxLength: 20 }),
});

// ---- the property ------------------------------------------------------------------------------

describe("the service against a reference model", () => {
  it("agrees on every status read after every step", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ activity, review, timeout, condition, steps, price: [price, amount] }) => {
        const api = client(await createAccount());
        const clock = useClock();
        const alias = freshAlias("model");
        const created = await api.post("/v1/candidates", {
          customer_uuid: "model",
          candidate_alias: alias,
          contract: {
            price: Number(price),
            activity_window: activity,
            review_window: review,
            fulfillment_condition: condition,
            timeout_outcome: timeout,
          },
        });
        expectStatus(created, 201, JSON.stringify(created.body));
        const model = new Reference(clock.now(), activity * 1000, review * 1000, timeout, condition);

        const check = async () => {
          const expected = model.at(clock.now());
          const single = okBody(await api.get(`/v1/candidates/${alias}`));
          expect(single).toMatchObject(expected);
          expect(single.condition_progress).toEqual(model.progress());
          const listed = okBody(await api.get(`/v1/candidates?status=${expected.status}`)).data;
          expect(listed.map((c: any) => c.candidate_alias)).toEqual([alias]);
          const { events: _events, condition_progress: _progress, ...withoutEvents } = single;
          expect(listed[0]).toEqual(withoutEvents);

          // Billing reads agree: the summary counts it (and its exact price) where the model says,
          // and a status_since range finds it exactly at its instant, not a millisecond off.
          const since = Date.parse(expected.status_since);
          const inRange = `status_since_gte=${iso(since)}&status_since_lt=${iso(since + 1)}`;
          // The totals (no group_by): one of the two shapes the document gives the answer.
          const summary = okBody(await api.get("/v1/summary")) as Schemas["Summary"];
          const ranged = okBody(await api.get(`/v1/summary?${inRange}`)) as Schemas["Summary"];
          for (const status of ["OPEN", "PENDING", "CONFIRMED", "FAILED"] as const) {
            const here = status === expected.status;
            expect(summary[status], status).toMatchObject({ count: here ? 1 : 0, amount: here ? amount : "0" });
            expect(ranged[status].count, status).toBe(here ? 1 : 0);
          }
          const scheduled = expected.status === "PENDING" && expected.scheduled_outcome === "CONFIRMED";
          expect(summary.PENDING.scheduled_confirmed).toEqual({
            count: scheduled ? 1 : 0,
            amount: scheduled ? amount : "0",
          });
          const inRangeList = okBody(await api.get(`/v1/candidates?status=${expected.status}&${inRange}`)).data;
          expect(inRangeList.map((c: any) => c.candidate_alias)).toEqual([alias]);
          expect(okBody(await api.get(`/v1/candidates?status_since_gte=${iso(since + 1)}`)).data).toEqual([]);
          expect(okBody(await api.get(`/v1/candidates?status_since_lt=${iso(since)}`)).data).toEqual([]);
        };

        for (const s of steps) {
          if (s.kind === "advance") clock.advance(s.ms);
          if (s.kind === "event") {
            const e: ModelEvent = { type: s.type, hasValue: s.value !== undefined, value: s.value, at: clock.now() };
            const matched = model.wouldMatch(e);
            model.events.push(e);
            const res = await api.post("/v1/events", {
              candidate_alias: alias,
              type: s.type,
              ...(e.hasValue ? { value: s.value } : {}),
            });
            expectStatus(res, 201);
            expect(res.body.event.matched).toBe(matched);
            Object.assign(e, { id: res.body.event.id, matched });
            expect(res.body.candidate).toMatchObject(model.at(clock.now()));
          }
          if (s.kind === "batch") {
            // All at one instant, in order: each item sees the candidate the one before left.
            const expected = s.events.map((step) => {
              const e: ModelEvent = {
                type: step.type,
                hasValue: step.value !== undefined,
                value: step.value,
                at: clock.now(),
              };
              const matched = model.wouldMatch(e);
              model.events.push(e);
              return { e, matched, candidate: model.at(clock.now()) };
            });
            const items = s.events.map((e) => ({
              candidate_alias: alias,
              type: e.type,
              ...(e.value !== undefined ? { value: e.value } : {}),
            }));
            const res = await api.post("/v1/events/batch", { events: items });
            expectStatus(res, 200);
            res.body.data.forEach((r: any, i: number) => {
              expectStatus(r, 201);
              expect(r.event.matched).toBe(expected[i].matched);
              expect(r.candidate).toMatchObject(expected[i].candidate);
              Object.assign(expected[i].e, { id: r.event.id, matched: expected[i].matched });
            });
          }
          if (s.kind === "alarm") {
            const due = await inCandidate(alias, (_i, state) => state.storage.getAlarm());
            if (due !== null && due <= clock.now()) await runDurableObjectAlarm(objectOf(alias));
          }
          if (s.kind === "resolve") {
            const { status } = model.at(clock.now());
            const res = await api.post(`/v1/candidates/${alias}/resolve`, { outcome: s.outcome });
            expect(res.status).toBe(status === "OPEN" || status === "PENDING" ? 200 : 409);
            if (res.status === 200)
              model.resolution = { at: clock.now(), outcome: s.outcome, fromOpen: status === "OPEN" };
          }
          await check();
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
