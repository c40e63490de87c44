import { describe, expect, it } from "vitest";
import { downstreamRetryIn, nextAlarm } from "../../src/candidate/next-alarm";
import { storedState, T0 } from "../support/stored-state";

const OPEN_UNTIL = T0 + 60_000;
const PENDING_UNTIL = OPEN_UNTIL + 30_000;

describe("nextAlarm", () => {
  it("with downstream up to date, is the next window end, and none once the candidate is final", () => {
    const state = storedState();
    expect(nextAlarm(state, T0, 0)).toBe(OPEN_UNTIL);
    expect(nextAlarm(state, OPEN_UNTIL, 0)).toBe(PENDING_UNTIL);
    expect(nextAlarm(state, PENDING_UNTIL, 0)).toBeNull();
  });

  it("with the index behind or notifications unflushed, retries downstream in 2 s unless a window ends sooner", () => {
    const behind = storedState({ indexedVersion: 0 });
    const unflushed = storedState({ unflushed: true });
    for (const state of [behind, unflushed]) {
      expect(nextAlarm(state, T0, 0)).toBe(T0 + 2000);
      expect(nextAlarm(state, OPEN_UNTIL - 500, 0)).toBe(OPEN_UNTIL);
      expect(nextAlarm(state, PENDING_UNTIL + 10_000, 0)).toBe(PENDING_UNTIL + 12_000); // final: the retry alone
    }
  });

  it("backs off after failures in a row", () => {
    const state = storedState({ indexedVersion: 0 }, { activity_window: 86_400 });
    expect(nextAlarm(state, T0, 1)).toBe(T0 + 2000);
    expect(nextAlarm(state, T0, 3)).toBe(T0 + 8000);
    expect(nextAlarm(state, T0, 50)).toBe(T0 + 300_000);
  });
});

describe("downstreamRetryIn", () => {
  it("is 2 s, doubling after each failure in a row, at most 5 min", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1000].map(downstreamRetryIn)).toEqual([
      2000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 128_000, 256_000, 300_000, 300_000, 300_000,
    ]);
  });
});
