/**
 * A controllable clock for tests. The worker and its Durable Objects run in the test's isolate,
 * so faking `Date` here moves the time they see; alarms are then run with the test helpers
 * instead of waiting for them.
 */
import { afterEach, vi } from "vitest";

afterEach(() => {
  vi.useRealTimers();
});

export function useClock(start = Date.now()) {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(start);
  return {
    now: () => Date.now(),
    set: (ms: number) => vi.setSystemTime(ms),
    advance: (ms: number) => vi.setSystemTime(Date.now() + ms),
  };
}

export const iso = (ms: number) => new Date(ms).toISOString();
