import { describe, expect, it, vi } from "vitest";
import { MAX_EVENTS_PER_CANDIDATE, planBatch, type ItemPlan } from "../../src/candidate/batch-plan";
import type { EventItem, EventResult } from "../../src/candidate/rpc";
import type { JsonText } from "../../src/domain/json";
import { storedState, T0 } from "../support/stored-state";

const purchase = (value: number, key?: string, fingerprint = `fp-${value}`): EventItem => ({
  event: { type: "purchase", value, hasValue: true },
  ...(key ? { key: { key, fingerprint } } : {}),
});
const ids = () => {
  let n = 0;
  return () => `event-${++n}`;
};
const nothingStored = () => undefined;
const summary = (plans: ItemPlan[]) =>
  plans.map((p) =>
    p.kind === "record"
      ? { record: p.id, matched: p.matched }
      : p.kind === "same-as"
        ? { sameAs: p.index }
        : { done: p.result },
  );
const now = T0 + 1000;

describe("planBatch", () => {
  it("plans the items in order, each on the state the one before left, and names the one that fulfils", () => {
    const state = storedState({ eventCount: 4 });
    const plan = planBatch(state, [purchase(5), purchase(150), purchase(500)], now, nothingStored, ids());
    // The third comes after the condition was fulfilled: recorded, matching nothing.
    expect(summary(plan.plans)).toEqual([
      { record: "event-1", matched: false },
      { record: "event-2", matched: true },
      { record: "event-3", matched: false },
    ]);
    expect(plan.fulfilledBy).toBe("event-2");
    expect(plan.final.eventCount).toBe(7);
    expect(plan.final.satisfiedMask).toBe(1);
    expect(plan.final.record.timeline.openUntil).toBe(now);
    expect(state.eventCount).toBe(4); // the state it was given is left as it was
  });

  it("leaves the record itself in place when no item fulfils (the object then rewrites no candidate row)", () => {
    const state = storedState();
    const plan = planBatch(state, [purchase(5), purchase(6)], now, nothingStored, ids());
    expect(plan.fulfilledBy).toBeUndefined();
    expect(plan.final.record).toBe(state.record);
    expect(plan.final.satisfiedMask).toBe(state.satisfiedMask);
  });

  it("answers an item whose key has a stored result with it, recording nothing, and looks up keyed items only", () => {
    const stored: EventResult = { ok: true, body: '{"stored":true}' as JsonText<never> };
    const lookup = vi.fn((key: { key: string }) => (key.key === "old" ? stored : undefined));
    const plan = planBatch(storedState(), [purchase(150, "old"), purchase(5), purchase(6, "new")], now, lookup, ids());
    expect(summary(plan.plans)).toEqual([
      { done: stored },
      { record: "event-1", matched: false },
      { record: "event-2", matched: false },
    ]);
    expect(lookup.mock.calls.map(([key]) => key)).toEqual([
      { key: "old", fingerprint: "fp-150" },
      { key: "new", fingerprint: "fp-6" },
    ]);
    expect(plan.final.eventCount).toBe(2);
    expect(plan.fulfilledBy).toBeUndefined();
  });

  it("answers a key repeated in the call as the earlier item, or KEY_REUSED when the items differ", () => {
    const stored: EventResult = { ok: true, body: '{"stored":true}' as JsonText<never> };
    const lookup = (key: { key: string }) => (key.key === "old" ? stored : undefined);
    const items = [
      purchase(5, "k"),
      purchase(5, "k"),
      purchase(6, "k", "another"),
      purchase(150, "old"),
      purchase(150, "old"),
    ];
    expect(summary(planBatch(storedState(), items, now, lookup, ids()).plans)).toEqual([
      { record: "event-1", matched: false },
      { sameAs: 0 },
      { done: { ok: false, code: "IDEMPOTENCY_KEY_REUSED" } },
      { done: stored },
      { sameAs: 3 },
    ]);
  });

  it("answers KEY_REUSED for a key stored for another item, every time it comes", () => {
    const reused = { ok: false, code: "IDEMPOTENCY_KEY_REUSED" } as const;
    const plan = planBatch(storedState(), [purchase(5, "k"), purchase(5, "k")], now, () => reused, ids());
    expect(summary(plan.plans)).toEqual([{ done: reused }, { done: reused }]);
  });

  it("refuses items past the event limit, but still answers a stored key", () => {
    const stored: EventResult = { ok: true, body: '{"stored":true}' as JsonText<never> };
    const state = storedState({ eventCount: MAX_EVENTS_PER_CANDIDATE - 1 });
    const plan = planBatch(state, [purchase(5), purchase(6), purchase(7, "old")], now, () => stored, ids());
    expect(summary(plan.plans)).toEqual([
      { record: "event-1", matched: false },
      { done: { ok: false, code: "EVENT_LIMIT_REACHED" } },
      { done: stored },
    ]);
    expect(plan.final.eventCount).toBe(MAX_EVENTS_PER_CANDIDATE);
  });
});
