/**
 * A string's length in characters, as every limit of the API counts them: Unicode code points,
 * as JSON Schema's `maxLength` does (an emoji is one character, not two UTF-16 units).
 */
export const characters = (text: string): number => [...text].length;

/** Whether a name says something: not made only of white space (an empty one is refused on its own). */
export const notBlank = (text: string): boolean => text.length === 0 || text.trim() !== "";

/**
 * Control characters (a line break, a tab, NUL), Unicode's line and paragraph separators, and the
 * bidirectional formatting characters that reorder text (overrides and isolates; the marks LRM and
 * RLM, which only set a direction, stay): they would make a name shown in a list, a log line or the
 * dashboard break its line or read as something else.
 */
const HIDDEN_FORMATTING = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;

/** Whether a name or description is one plain line: no HIDDEN_FORMATTING. */
export const plainLine = (text: string): boolean => !HIDDEN_FORMATTING.test(text);

const PLAIN_LINE_MESSAGE =
  "must not contain control characters (such as a line break or a tab) or bidirectional formatting characters";

/** Why `text` is not one plain line, naming the first character refused and where it is (from 1). */
export function plainLineMessage(text: unknown): string {
  const found = typeof text === "string" ? HIDDEN_FORMATTING.exec(text) : null;
  if (!found) return PLAIN_LINE_MESSAGE;
  const before = found.input.slice(0, found.index);
  const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  return `${PLAIN_LINE_MESSAGE}; received U+${code} at character ${characters(before) + 1}`;
}
