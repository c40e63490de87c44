import { describe, expect, it } from "vitest";
import { fulfilledAt, nextBoundary, resolvedAt, statusAt, timelineAtCreation } from "../../src/domain/timeline";
import type { Contract } from "../../src/domain/contract";

const contract = (over: Partial<Contract> = {}): Contract => ({
  price: 1,
  activity_window: 10,
  review_window: 5,
  fulfillment_condition: { event: "e" },
  timeout_outcome: "confirm",
  ...over,
});

const T0 = 1_000_000;

describe("timeline", () => {
  it("is OPEN until the activity window ends, then PENDING with the timeout outcome, then final", () => {
    const tl = timelineAtCreation(contract(), T0);
    expect(tl).toEqual({ createdAt: T0, openUntil: T0 + 10_000, pendingUntil: T0 + 15_000, finalStatus: "CONFIRMED" });
    expect(statusAt(tl, T0)).toEqual({ status: "OPEN", since: T0, scheduledOutcome: null });
    expect(statusAt(tl, T0 + 9_999)).toEqual({ status: "OPEN", since: T0, scheduledOutcome: null });
    expect(statusAt(tl, T0 + 10_000)).toEqual({ status: "PENDING", since: T0 + 10_000, scheduledOutcome: "CONFIRMED" });
    expect(statusAt(tl, T0 + 14_999).status).toBe("PENDING");
    expect(statusAt(tl, T0 + 15_000)).toEqual({
      status: "CONFIRMED",
      since: T0 + 15_000,
      scheduledOutcome: "CONFIRMED",
    });
  });

  it("uses FAILED when the timeout outcome is fail", () => {
    const tl = timelineAtCreation(contract({ timeout_outcome: "fail" }), T0);
    expect(statusAt(tl, T0 + 10_000).scheduledOutcome).toBe("FAILED");
    expect(statusAt(tl, T0 + 15_000).status).toBe("FAILED");
  });

  it("honours fractional seconds to the millisecond", () => {
    const tl = timelineAtCreation(contract({ activity_window: 0.25, review_window: 1.0005 }), T0);
    expect(tl.openUntil).toBe(T0 + 250);
    expect(tl.pendingUntil).toBe(T0 + 250 + 1001);
  });

  it("goes PENDING at the fulfilment instant and CONFIRMED one review window later", () => {
    const base = timelineAtCreation(contract({ timeout_outcome: "fail" }), T0);
    const tl = fulfilledAt(base, contract(), T0 + 3_000);
    expect(statusAt(tl, T0 + 2_999).status).toBe("OPEN");
    expect(statusAt(tl, T0 + 3_000)).toEqual({ status: "PENDING", since: T0 + 3_000, scheduledOutcome: "CONFIRMED" });
    expect(statusAt(tl, T0 + 8_000)).toEqual({ status: "CONFIRMED", since: T0 + 8_000, scheduledOutcome: "CONFIRMED" });
  });

  it("with a review window of 0 goes from OPEN straight to final at the same instant", () => {
    const c = contract({ review_window: 0 });
    const timedOut = timelineAtCreation(c, T0);
    expect(statusAt(timedOut, T0 + 9_999).status).toBe("OPEN");
    expect(statusAt(timedOut, T0 + 10_000)).toEqual({
      status: "CONFIRMED",
      since: T0 + 10_000,
      scheduledOutcome: "CONFIRMED",
    });
    const fulfilled = fulfilledAt(timedOut, c, T0 + 1);
    expect(statusAt(fulfilled, T0 + 1)).toEqual({ status: "CONFIRMED", since: T0 + 1, scheduledOutcome: "CONFIRMED" });
  });

  it("resolves a PENDING candidate to the given outcome from that instant", () => {
    const tl = resolvedAt(timelineAtCreation(contract(), T0), "FAILED", T0 + 12_000);
    expect(statusAt(tl, T0 + 11_999).status).toBe("PENDING");
    expect(statusAt(tl, T0 + 12_000)).toEqual({ status: "FAILED", since: T0 + 12_000, scheduledOutcome: "FAILED" });
  });

  it("names the next boundary, and none once final", () => {
    const tl = timelineAtCreation(contract(), T0);
    expect(nextBoundary(tl, T0)).toBe(T0 + 10_000);
    expect(nextBoundary(tl, T0 + 10_000)).toBe(T0 + 15_000);
    expect(nextBoundary(tl, T0 + 15_000)).toBeNull();
  });
});
