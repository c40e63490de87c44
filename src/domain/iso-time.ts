/**
 * Epoch milliseconds as ISO 8601 text, exactly as `Date.prototype.toISOString` writes them
 * (`2026-11-22T01:02:03.456Z`): every instant the service writes, in answers, payloads and
 * messages, is written here. No imports: Node loads this file too.
 *
 * Every candidate view carries four such instants and a list page fifty views: the runtime's Date
 * spends about twice this on each, in a Date object and the C++ builtin. Outside years 1970 to
 * 9999 (or for a fraction of a millisecond) the builtin answers.
 */
const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00.000Z: the first instant toISOString writes with a six-digit year. */
const END_MS = 253_402_300_800_000;
const ZERO = 48; // "0"

export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < END_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  // Civil date of a day number (H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153); // month from March = 0
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  let rest = ms - days * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  // One flat string of char codes: no Date, and nothing for JSON.stringify to flatten later.
  return String.fromCharCode(
    ZERO + Math.floor(year / 1000),
    ZERO + (Math.floor(year / 100) % 10),
    ZERO + (Math.floor(year / 10) % 10),
    ZERO + (year % 10),
    45, // -
    ZERO + Math.floor(month / 10),
    ZERO + (month % 10),
    45,
    ZERO + Math.floor(day / 10),
    ZERO + (day % 10),
    84, // T
    ZERO + Math.floor(hour / 10),
    ZERO + (hour % 10),
    58, // :
    ZERO + Math.floor(minute / 10),
    ZERO + (minute % 10),
    58,
    ZERO + Math.floor(second / 10),
    ZERO + (second % 10),
    46, // .
    ZERO + Math.floor(milli / 100),
    ZERO + (Math.floor(milli / 10) % 10),
    ZERO + (milli % 10),
    90, // Z
  );
}

/** The same for an instant that may be absent (a key that never expires, a range left open): null. */
export const isoTimeOrNull = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined ? null : isoTime(ms);
