/**
 * Metadata typed as `key=value` lines, as a .env file has them: spaces around the key and the
 * value are not part of them, and a key or value in double quotes is a JSON string, kept exactly
 * (spaces at its ends, a `=` in a key, a quote, a line break).
 */

const QUOTING =
  'in double quotes but is no JSON string (inside it, write a quote as \\", a backslash as \\\\, a tab as \\t)';

/** An object for the API, or what is wrong with a line. */
export function parseMetadataLines(text: string): Record<string, string> | string {
  const pairs: [string, string][] = [];
  const lines: number[] = []; // the line of each pair
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const pair = pairOf(line.trim());
    if (typeof pair === "string") return `Line ${i + 1} ${pair}.`;
    const [key] = pair;
    const before = pairs.findIndex(([k]) => k === key);
    if (before >= 0) return `Line ${i + 1} sets ${key} again (line ${lines[before] + 1} did): keep one.`;
    pairs.push(pair);
    lines.push(i);
  }
  // fromEntries: a key such as `__proto__` stays a key.
  return Object.fromEntries(pairs);
}

/** One trimmed line's key and value, or what is wrong with it. */
function pairOf(line: string): [string, string] | string {
  let key: string;
  let rest: string;
  if (line.startsWith('"')) {
    const end = closingQuote(line);
    const quoted = end === -1 ? null : jsonString(line.slice(0, end + 1));
    if (quoted === null) return `has a key ${QUOTING}`;
    [key, rest] = [quoted, line.slice(end + 1).trimStart()];
    if (!rest.startsWith("=")) return "is not key=value";
  } else {
    const at = line.indexOf("=");
    if (at <= 0) return "is not key=value";
    [key, rest] = [line.slice(0, at).trim(), line.slice(at)];
  }
  const typed = rest.slice(1).trim();
  if (!quoted(typed)) return [key, typed];
  const value = jsonString(typed);
  return value === null ? `has a value ${QUOTING}` : [key, value];
}

/** Where the string that opens `text` with a quote closes (the next quote not escaped); -1 if nowhere. */
function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

const quoted = (text: string) => text.length >= 2 && text.startsWith('"') && text.endsWith('"');

/** The JSON string `text` spells, or null. */
function jsonString(text: string): string | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** Whether a key or value must be quoted to read back as itself. */
const needsQuotes = (text: string, isKey: boolean) =>
  text.trim() !== text ||
  text.startsWith('"') ||
  /[\n\r]/.test(text) ||
  (isKey ? text.includes("=") || text === "" : quoted(text));

/** The lines that parse back to these pairs: a key or value that would not read back as itself is quoted. */
export const metadataLines = (pairs: [string, string][]) =>
  pairs
    .map(
      ([key, value]) =>
        `${needsQuotes(key, true) ? JSON.stringify(key) : key}=${needsQuotes(value, false) ? JSON.stringify(value) : value}`,
    )
    .join("\n");
