/** The alias prefix filter's range: every string beginning with the prefix, and nothing else, in SQLite's order. */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { prefixUpperBound } from "../../src/db/candidates";

/** SQLite's BINARY collation: the strings' UTF-8 bytes compared. */
const bytes = (s: string) => new TextEncoder().encode(s);
function compare(a: string, b: string) {
  const [x, y] = [bytes(a), bytes(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}
const inRange = (s: string, prefix: string) => {
  const upper = prefixUpperBound(prefix);
  return compare(s, prefix) >= 0 && (upper === null || compare(s, upper) < 0);
};

describe("prefixUpperBound", () => {
  it("raises the last code point, past the surrogates, and drops the highest", () => {
    expect(prefixUpperBound("order-")).toBe("order.");
    expect(prefixUpperBound("a\u{d7ff}")).toBe("a\u{e000}");
    expect(prefixUpperBound("a\u{10ffff}")).toBe("b");
    expect(prefixUpperBound("\u{10ffff}\u{10ffff}")).toBeNull();
    expect(prefixUpperBound("é")).toBe("ê");
  });

  it("bounds exactly the strings that begin with the prefix", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "b", "%", "_", "é", "\u{d7ff}", "\u{e000}", "\u{ffff}", "\u{10000}", "\u{10ffff}"),
      maxLength: 4,
    });
    fc.assert(
      fc.property(
        text.filter((p) => p.length > 0),
        text,
        (prefix, s) => {
          expect(inRange(s, prefix)).toBe(s.startsWith(prefix));
          expect(inRange(prefix + s, prefix)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
