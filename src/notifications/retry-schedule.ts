/**
 * When a failed webhook delivery is tried again (docs/notifications.md): after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h and 10 h by default, each with up to 10 % jitter so that retries of many
 * deliveries that failed together do not arrive together. The schedule is configuration
 * (`WEBHOOK_RETRY_SCHEDULE`), so tests and the smoke run can use seconds.
 */
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/** "5s 5m 30m 2h" -> [5, 300, 1800, 7200]: delays in seconds before each retry. */
export function parseRetrySchedule(text: string): number[] {
  return text
    .trim()
    .split(/[\s,]+/)
    .map((part) => {
      const match = /^(\d+(?:\.\d+)?)([smh])$/.exec(part);
      if (!match) throw new Error(`WEBHOOK_RETRY_SCHEDULE: '${part}' is not a duration such as 5s, 5m or 2h`);
      return Number(match[1]) * UNIT_SECONDS[match[2]];
    });
}

/**
 * The delay before the next attempt after attempt number `attempt` (1-based) failed, or null when
 * that was the last: the delivery has failed. `random` in [0, 1) sets the jitter.
 */
export function retryDelaySeconds(schedule: number[], attempt: number, random: number): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  // To the millisecond (the endpoint's object waits with an alarm): whole seconds would leave a
  // 5 s retry no jitter at all.
  return Math.round(base * (1 + 0.1 * random) * 1000) / 1000;
}

/**
 * How long a consumer waits before a message it could not handle (D1 or the queue failing, not
 * the receiver) is tried again: 5 s, doubling, at most an hour.
 */
export const backoffSeconds = (attempts: number) => Math.min(3600, 5 * 2 ** Math.max(0, attempts - 1));
