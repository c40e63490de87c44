import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { isoTime, isoTimeOrNull } from "../../src/domain/iso-time";

const DAY_MS = 86_400_000;
const builtin = (ms: number) => new Date(ms).toISOString();

describe("isoTime", () => {
  it("writes what toISOString writes, at day, month, leap-year and century edges", () => {
    const edges = [
      0,
      1,
      999,
      1000,
      DAY_MS - 1,
      DAY_MS,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 12),
      Date.UTC(2100, 2, 1),
      Date.UTC(2024, 11, 31, 23, 59, 59, 999),
      Date.UTC(2025, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of edges) expect(isoTime(ms), String(ms)).toBe(builtin(ms));
  });

  it("writes what toISOString writes on every day from 1970 to 2200, and every 13th to 9999", () => {
    const end = Date.UTC(10_000, 0, 1) / DAY_MS;
    for (let day = 0; day < end; day += day < Date.UTC(2200, 0, 1) / DAY_MS ? 1 : 13) {
      const ms = day * DAY_MS + (day % 86_400) * 997;
      if (isoTime(ms) !== builtin(ms)) expect(isoTime(ms), String(ms)).toBe(builtin(ms));
    }
  });

  it("writes what toISOString writes for any instant, inside its fast range or not", () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(builtin(ms));
      }),
      { numRuns: 20_000 },
    );
    for (const ms of [-1, Date.UTC(10_000, 0, 1) - 1, Date.UTC(10_000, 0, 1), 1.5, 1e12 + 0.25])
      expect(isoTime(ms), String(ms)).toBe(builtin(ms));
  });

  it("writes an absent instant as null, and any other as isoTime does", () => {
    expect(isoTimeOrNull(null)).toBeNull();
    expect(isoTimeOrNull(undefined)).toBeNull();
    for (const ms of [0, 1_700_000_000_123, -1]) expect(isoTimeOrNull(ms)).toBe(builtin(ms));
  });
});
