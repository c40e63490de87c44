/** Metadata typed as `key=value` lines: an object for the API, or what is wrong with a line. */
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
    pairs.push([key, line.slice(at + 1).trim()]);
    lines.push(i);
  }
  // fromEntries: a key such as `__proto__` stays a key.
  return Object.fromEntries(pairs);
}
