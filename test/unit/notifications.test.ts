import { describe, expect, it } from "vitest";
import { backoffSeconds, parseRetrySchedule, retryDelaySeconds } from "../../src/notifications/retry-schedule";

describe("the webhook retry schedule", () => {
  it("is decisions.md §8's by default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.5 h)", () => {
    const schedule = parseRetrySchedule("5s 5m 30m 2h 5h 10h 10h");
    expect(schedule).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000]);
    expect(schedule.reduce((a, b) => a + b) / 3600).toBeCloseTo(27.6, 1);
    expect(() => parseRetrySchedule("5s soon")).toThrow(/soon/);
  });

  it("adds up to 10 % jitter, and ends after the last", () => {
    const schedule = [5, 300];
    expect(retryDelaySeconds(schedule, 1, 0)).toBe(5);
    expect(retryDelaySeconds(schedule, 2, 0.999)).toBe(330);
    expect(retryDelaySeconds(schedule, 3, 0.5)).toBeNull();
  });

  it("backs a failing consumer off from 5 s, doubling, to an hour", () => {
    expect([1, 2, 3, 4, 10, 11, 30].map(backoffSeconds)).toEqual([5, 10, 20, 40, 2560, 3600, 3600]);
  });
});
