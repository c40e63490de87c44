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

/**
 * The local rate limiters count in windows aligned to the real clock. Starts a burst early in a
 * window (waiting for the next one if fewer than `needSeconds` are left), so the window cannot
 * roll over (and reset the count) while the test runs.
 */
export async function startOfWindow(periodSeconds: number, needSeconds = 10) {
  const periodMs = periodSeconds * 1000;
  const left = periodMs - (Date.now() % periodMs);
  if (left < needSeconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
