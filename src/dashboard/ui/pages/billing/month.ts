/**
 * A billing month, `YYYY-MM`, as the range of instants the API filters on: from its first instant
 * (UTC) included to the next month's first instant excluded, so consecutive months never overlap.
 */

/** The months the picker offers: four-digit years, and a next month the API can still name. */
export const FIRST_MONTH = "1970-01";
export const LAST_MONTH = "9999-11";
const FORM = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const isMonth = (text: string | undefined): text is string =>
  !!text && FORM.test(text) && text >= FIRST_MONTH && text <= LAST_MONTH;

const format = (year: number, month0: number) => {
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(year, month0, 1); // setUTCFullYear, not Date.UTC: that maps years 0–99 to 19xx
  return `${String(date.getUTCFullYear()).padStart(4, "0")}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
};

const parts = (month: string) => [Number(month.slice(0, 4)), Number(month.slice(5, 7)) - 1] as const;

export const currentMonth = (now = new Date()) => format(now.getUTCFullYear(), now.getUTCMonth());

/** The month `by` months after (or before) `month`. */
export function shiftMonth(month: string, by: number): string {
  const [year, month0] = parts(month);
  return format(year, month0 + by);
}

/** The first instant of `month`, UTC, as the API takes it. */
export const monthStart = (month: string) => `${month}-01T00:00:00.000Z`;

/** The range of the API's `status_since` filters for `month`. */
export const monthRange = (month: string) => ({
  status_since_gte: monthStart(month),
  status_since_lt: monthStart(shiftMonth(month, 1)),
});

/** `month` as the candidate list's filter takes it: its first and last UTC days, both included. */
export const monthDays = (month: string) => ({
  from: `${month}-01`,
  to: new Date(Date.parse(monthStart(shiftMonth(month, 1))) - 86_400_000).toISOString().slice(0, 10),
});

/** "November 2026", in the reader's language. */
export function monthName(month: string): string {
  const [year, month0] = parts(month);
  const date = new Date(Date.UTC(2000, month0, 1));
  date.setUTCFullYear(year);
  return date.toLocaleString(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
}
