/**
 * JSON as the person typed it. `JSON.parse` turns `99.99999999999999999` into 100 and `1e400` into
 * Infinity, so a form that parsed and re-sent a value would send a number they never typed, and
 * an event could meet a condition it does not meet. The API refuses such numbers with a message at
 * their path; to let it, numbers are sent as their source text (`JSON.rawJSON`, which
 * `JSON.stringify` writes verbatim). A browser without it sends what `JSON.parse` made, as before.
 */
type RawJson = (text: string) => unknown;
const rawJSON = (JSON as unknown as { rawJSON?: RawJson }).rawJSON;

/** Parses `text` (throws on a syntax error), keeping every number's text as typed. */
export function parseExact(text: string): unknown {
  if (!rawJSON) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && context?.source !== undefined ? rawJSON(context.source) : value,
  );
}

/** A number field's text, sent as typed when it is a JSON number; else its value. */
export function exactNumber(text: string, value: number): number {
  return rawJSON && /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? (rawJSON(text) as number) : value;
}

/** Whether `value` is a number kept as typed (`JSON.stringify` writes it as is; never walk it). */
export const isExactNumber = (value: unknown): boolean =>
  Boolean((JSON as unknown as { isRawJSON?: (v: unknown) => boolean }).isRawJSON?.(value));
