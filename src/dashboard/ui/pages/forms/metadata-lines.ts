/**
 * Metadata typed as `key=value` lines, as a .env file has them: spaces around the key and the
 * value are not part of them, and a value in double quotes is a JSON string, kept exactly (spaces
 * at its ends, a quote, a line break).
 */

/** An object for the API, or what is wrong with a line. */
export function parseMetadataLines(text: string): Record<string, string> | string {
  const pairs: [string, string][] = [];
  const lines: number[] = []; // the line of each pair
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    if (at <= 0) return `Line ${i + 1} is not key=value.`;
    const key = line.slice(0, at).trim();
    const before = pairs.findIndex(([k]) => k === key);
    if (before >= 0) return `Line ${i + 1} sets ${key} again (line ${lines[before] + 1} did): keep one.`;
    const value = valueOf(line.slice(at + 1).trim());
    if (value === null)
      return `Line ${i + 1}'s value is in double quotes but is no JSON string: write a quote inside it as \\".`;
    pairs.push([key, value]);
    lines.push(i);
  }
  // fromEntries: a key such as `__proto__` stays a key.
  return Object.fromEntries(pairs);
}

const quoted = (value: string) => value.length >= 2 && value.startsWith('"') && value.endsWith('"');

/** A value as typed (trimmed): unquoted it is itself; quoted, the JSON string it spells, or null. */
function valueOf(typed: string): string | null {
  if (!quoted(typed)) return typed;
  try {
    const value: unknown = JSON.parse(typed);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The lines that parse back to these pairs: a value that would not read back as itself is quoted. */
export const metadataLines = (pairs: [string, string][]) =>
  pairs
    .map(
      ([key, value]) =>
        `${key}=${value.trim() !== value || quoted(value) || /[\n\r]/.test(value) ? JSON.stringify(value) : value}`,
    )
    .join("\n");
