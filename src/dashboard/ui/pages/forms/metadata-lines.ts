/** Metadata typed as `key=value` lines: an object for the API, or what is wrong with a line. */
export function parseMetadataLines(text: string): Record<string, string> | string {
  const pairs: [string, string][] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    if (at <= 0) return `Line ${i + 1} is not key=value.`;
    pairs.push([line.slice(0, at).trim(), line.slice(at + 1).trim()]);
  }
  // fromEntries: a key such as `__proto__` stays a key.
  return Object.fromEntries(pairs);
}
