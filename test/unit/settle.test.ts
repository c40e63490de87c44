import { describe, expect, it } from "vitest";
import { settle, versioned } from "../../src/candidate/settle";
import { resolvedAt } from "../../src/domain/timeline";
import { storedState, T0 } from "../support/stored-state";

const OPEN_UNTIL = T0 + 60_000;
const PENDING_UNTIL = OPEN_UNTIL + 30_000;
const notified = (payloads: { payload: string }[]) =>
  payloads
    .map((n) => JSON.parse(n.payload))
    .map((n) => ({ type: n.type, timestamp: n.timestamp, cause: n.data.cause, status: n.data.candidate.status }));

describe("settle", () => {
  it("records nothing before a boundary, and the version stays", () => {
    const state = storedState();
    const settled = settle(state, state, OPEN_UNTIL - 1);
    expect(settled).toEqual({ state, notifications: [] });
    expect(versioned(state, settled)).toBe(state);
  });

  it("catches the settled status up to the instant, one notification per status entered at its boundary", () => {
    const state = storedState();
    const settled = settle(state, state, PENDING_UNTIL + 5);
    expect(notified(settled.notifications)).toEqual([
      {
        type: "candidate.pending",
        timestamp: new Date(OPEN_UNTIL).toISOString(),
        cause: { kind: "activity_window_ended" },
        status: "PENDING",
      },
      {
        type: "candidate.failed",
        timestamp: new Date(PENDING_UNTIL).toISOString(),
        cause: { kind: "review_window_ended" },
        status: "FAILED",
      },
    ]);
    expect(settled.state).toMatchObject({ settledStatus: "FAILED", settledSince: PENDING_UNTIL, unflushed: true });
    expect(versioned(state, settled).record.version).toBe(2);
  });

  it("never moves the settled status back, whatever the instant", () => {
    const pending = storedState({ settledStatus: "PENDING", settledSince: OPEN_UNTIL });
    expect(settle(pending, pending, T0).notifications).toEqual([]);
  });

  it("notifies what time decided before the change with the candidate as it was, then what the change entered", () => {
    const before = storedState();
    const now = OPEN_UNTIL + 1000; // a late alarm: the window ended, then a resolve arrives first
    const resolved = {
      ...before,
      record: { ...before.record, timeline: resolvedAt(before.record.timeline, "CONFIRMED", now) },
    };
    const settled = settle(before, resolved, now, { kind: "resolved" });
    expect(notified(settled.notifications)).toEqual([
      {
        type: "candidate.pending",
        timestamp: new Date(OPEN_UNTIL).toISOString(),
        cause: { kind: "activity_window_ended" },
        status: "PENDING",
      },
      {
        type: "candidate.confirmed",
        timestamp: new Date(now).toISOString(),
        cause: { kind: "resolved" },
        status: "CONFIRMED",
      },
    ]);
    // The PENDING notification shows the outcome the candidate then had scheduled, not the resolve's.
    expect(JSON.parse(settled.notifications[0].payload).data.candidate.scheduled_outcome).toBe("FAILED");
  });

  it("bumps the version when the index shows a change without a status entered: the metadata", () => {
    const before = storedState();
    const changed = { ...before, record: { ...before.record, metadata: { plan: "gold" } } };
    expect(versioned(before, settle(before, changed, T0 + 1)).record.version).toBe(2);
    // A new candidate keeps the version it was made with.
    expect(versioned(null, settle(null, before, T0)).record.version).toBe(1);
  });
});
