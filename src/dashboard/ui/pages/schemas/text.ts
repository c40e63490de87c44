/** Words for a schema's numbers: how long a window is, and the call that uses a schema. */

/** Seconds as a person reads them ("7 d", "1 h 30 min", "0.5 s"); the exact seconds are shown beside. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const units: [number, string][] = [
    [86_400, "d"],
    [3_600, "h"],
    [60, "min"],
    [1, "s"],
  ];
  const parts: string[] = [];
  let rest = Math.round(seconds);
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  return parts.slice(0, 2).join(" ") + (parts.length > 2 || Math.round(seconds) !== seconds ? " approx." : "");
}

/** The curl that creates a candidate from the schema `id` (the token is the reader's own). */
export const candidateCurl = (id: string) =>
  `curl -s -X POST ${location.origin}/v1/candidates \\
  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\
  -d '{ "customer_uuid": "cust_42", "candidate_alias": "order-2026-0001", "schema_id": "${id}" }'`;
