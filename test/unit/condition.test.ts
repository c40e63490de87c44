import { describe, expect, it } from "vitest";
import { applyEvent, compileCondition, leafSatisfied } from "../../src/domain/condition";
import fc from "fast-check";
import { whyLeafCannotHold, type ConditionNode } from "../../src/domain/contract";
import type { Json } from "../../src/domain/json";

const ev = (type: string, ...value: [Json?]) =>
  value.length === 0 ? { type, hasValue: false } : { type, value: value[0], hasValue: true };

const satisfies = (node: ConditionNode, event: ReturnType<typeof ev>) => {
  const c = compileCondition(node);
  return leafSatisfied(c.leaves[0], event);
};

describe("condition leaf", () => {
  it("with `event` alone is satisfied by any event of that type, with or without value", () => {
    expect(satisfies({ event: "signup" }, ev("signup"))).toBe(true);
    expect(satisfies({ event: "signup" }, ev("signup", null))).toBe(true);
    expect(satisfies({ event: "signup" }, ev("signup", { a: 1 }))).toBe(true);
    expect(satisfies({ event: "signup" }, ev("login"))).toBe(false);
    expect(satisfies({ event: "signup" }, ev("Signup"))).toBe(false);
  });

  it("compares numerically with each comparator at its bound", () => {
    const cases: [ConditionNode, number, boolean][] = [
      [{ event: "e", gt: 5 }, 5, false],
      [{ event: "e", gt: 5 }, 5.0001, true],
      [{ event: "e", gte: 5 }, 5, true],
      [{ event: "e", gte: 5 }, 4.9999, false],
      [{ event: "e", lt: 5 }, 5, false],
      [{ event: "e", lt: 5 }, 4, true],
      [{ event: "e", lte: 5 }, 5, true],
      [{ event: "e", lte: 5 }, 6, false],
      [{ event: "e", eq: 5 }, 5, true],
      [{ event: "e", eq: 5 }, 5.1, false],
      [{ event: "e", gte: -1, lt: 0 }, -0.5, true],
      [{ event: "e", gte: -1, lt: 0 }, 0, false],
    ];
    for (const [leaf, value, expected] of cases) {
      expect(satisfies(leaf, ev("e", value)), `${JSON.stringify(leaf)} with ${value}`).toBe(expected);
    }
  });

  it("needs a finite JSON number for a comparator: strings, booleans, null and no value fail", () => {
    for (const value of ["10", true, null, [10], { v: 10 }] as Json[]) {
      expect(satisfies({ event: "e", gte: 1 }, ev("e", value))).toBe(false);
    }
    expect(satisfies({ event: "e", gte: 1 }, ev("e"))).toBe(false);
  });

  it("matches every key of `match` by strict JSON equality, deep for objects and arrays", () => {
    const leaf: ConditionNode = { event: "order", match: { plan: "pro", tags: ["a", "b"], meta: { n: 1 } } };
    expect(satisfies(leaf, ev("order", { plan: "pro", tags: ["a", "b"], meta: { n: 1 }, other: 1 }))).toBe(true);
    expect(satisfies(leaf, ev("order", { plan: "pro", tags: ["b", "a"], meta: { n: 1 } }))).toBe(false);
    expect(satisfies(leaf, ev("order", { plan: "pro", tags: ["a", "b"], meta: { n: "1" } }))).toBe(false);
    expect(satisfies(leaf, ev("order", { plan: "pro", tags: ["a", "b"] }))).toBe(false);
    expect(satisfies({ event: "e", match: { n: 1 } }, ev("e", { n: "1" }))).toBe(false);
    expect(satisfies({ event: "e", match: { n: null } }, ev("e", {}))).toBe(false);
    expect(satisfies({ event: "e", match: { n: null } }, ev("e", { n: null }))).toBe(true);
  });

  it("needs an object subject for `match`", () => {
    for (const value of [null, 1, "x", [{ a: 1 }]] as Json[]) {
      expect(satisfies({ event: "e", match: { a: 1 } }, ev("e", value))).toBe(false);
    }
    expect(satisfies({ event: "e", match: { a: 1 } }, ev("e"))).toBe(false);
  });

  it("tests the value at a dot path when `field` is set; a missing path is no subject", () => {
    const leaf: ConditionNode = { event: "order", field: "order.total", gte: 100 };
    expect(satisfies(leaf, ev("order", { order: { total: 150 } }))).toBe(true);
    expect(satisfies(leaf, ev("order", { order: { total: 50 } }))).toBe(false);
    expect(satisfies(leaf, ev("order", { order: {} }))).toBe(false);
    expect(satisfies(leaf, ev("order", { order: 5 }))).toBe(false);
    expect(satisfies(leaf, ev("order", 150))).toBe(false);
    expect(satisfies({ event: "e", field: "items.1.qty", eq: 2 }, ev("e", { items: [{ qty: 1 }, { qty: 2 }] }))).toBe(
      true,
    );
    expect(satisfies({ event: "e", field: "items.2.qty", eq: 2 }, ev("e", { items: [{ qty: 1 }] }))).toBe(false);
  });

  it("does not walk into inherited properties", () => {
    expect(satisfies({ event: "e", field: "constructor" }, ev("e", {}))).toBe(false);
    expect(satisfies({ event: "e", field: "__proto__" }, ev("e", {}))).toBe(false);
    expect(satisfies({ event: "e", field: "length" }, ev("e", [1, 2]))).toBe(false);
  });

  it("with `field` alone needs the subject to exist and not be null", () => {
    const leaf: ConditionNode = { event: "e", field: "ref" };
    expect(satisfies(leaf, ev("e", { ref: 0 }))).toBe(true);
    expect(satisfies(leaf, ev("e", { ref: false }))).toBe(true);
    expect(satisfies(leaf, ev("e", { ref: null }))).toBe(false);
    expect(satisfies(leaf, ev("e", {}))).toBe(false);
    expect(satisfies(leaf, ev("e"))).toBe(false);
  });

  it("needs every part to hold (AND of field, match and comparators)", () => {
    const leaf: ConditionNode = { event: "e", field: "o", match: { currency: "EUR" }, gte: 1 };
    // A subject cannot be an object and a number at once: match and a comparator on one subject never both hold.
    expect(satisfies(leaf, ev("e", { o: { currency: "EUR" } }))).toBe(false);
    const both: ConditionNode = { event: "e", gte: 10, lte: 20 };
    expect(satisfies(both, ev("e", 15))).toBe(true);
    expect(satisfies(both, ev("e", 25))).toBe(false);
  });
});

describe("compound conditions", () => {
  it("`all` holds once every child has been satisfied, by different events", () => {
    const c = compileCondition({ all: [{ event: "a" }, { event: "b", gte: 2 }] });
    let p = applyEvent(c, 0, ev("a"));
    expect(p).toMatchObject({ matched: true, fulfilled: false });
    p = applyEvent(c, p.mask, ev("b", 1));
    expect(p).toMatchObject({ matched: false, fulfilled: false });
    p = applyEvent(c, p.mask, ev("b", 2));
    expect(p).toMatchObject({ matched: true, fulfilled: true });
  });

  it("`any` holds when one child has", () => {
    const c = compileCondition({ any: [{ event: "a", eq: 1 }, { event: "b" }] });
    expect(applyEvent(c, 0, ev("a", 2))).toMatchObject({ matched: false, fulfilled: false });
    expect(applyEvent(c, 0, ev("b"))).toMatchObject({ matched: true, fulfilled: true });
  });

  it("nests all/any and counts one event once per leaf it satisfies", () => {
    const c = compileCondition({
      all: [
        {
          any: [
            { event: "pay", gte: 100 },
            { event: "pay", match: { vip: true } },
          ],
        },
        { event: "ship" },
      ],
    });
    let p = applyEvent(c, 0, ev("pay", 150));
    expect(p).toMatchObject({ matched: true, fulfilled: false });
    p = applyEvent(c, p.mask, ev("ship"));
    expect(p.fulfilled).toBe(true);
  });

  it("uses all 32 leaf bits", () => {
    const node: ConditionNode = { all: Array.from({ length: 32 }, (_, i) => ({ event: `e${i}` })) };
    const c = compileCondition(node);
    let mask = 0;
    for (let i = 0; i < 32; i++) {
      const p = applyEvent(c, mask, ev(`e${i}`));
      expect(p.fulfilled).toBe(i === 31);
      mask = p.mask;
    }
    expect(mask).toBe(0xffffffff);
  });

  it("only tests the leaves of the event's own type", () => {
    const c = compileCondition({ any: [{ event: "a" }, { event: "b" }, { event: "a", gt: 1 }] });
    expect(c.leavesByEvent.get("a")).toEqual([0, 2]);
    expect(c.leavesByEvent.get("b")).toEqual([1]);
    expect(applyEvent(c, 0, ev("zzz"))).toEqual({ mask: 0, matched: false, fulfilled: false });
  });
});

describe("a leaf that can never hold", () => {
  it("is recognised: match with a comparator, or an empty numeric range", () => {
    const never: ConditionNode[] = [
      { event: "e", match: { a: 1 }, gte: 1 },
      { event: "e", gt: 5, lt: 3 },
      { event: "e", gt: 5, lt: 5 },
      { event: "e", gt: 5, lte: 5 },
      { event: "e", gte: 5, lt: 5 },
      { event: "e", eq: 5, gt: 5 },
      { event: "e", eq: 5, lt: 3 },
      { event: "e", eq: 5, lte: 4.999 },
      { event: "e", gt: 1, gte: 1, lte: 1 },
      { event: "e", gte: 2, lte: 3, lt: 2 },
      { event: "e", gt: Number.MAX_VALUE },
      { event: "e", lt: -Number.MAX_VALUE },
    ];
    for (const leaf of never) expect(whyLeafCannotHold(leaf), JSON.stringify(leaf)).toMatch(/./);
    const possible: ConditionNode[] = [
      { event: "e" },
      { event: "e", match: { a: 1 }, field: "x" },
      { event: "e", gte: 5, lte: 5 },
      { event: "e", eq: 5, gte: 5, lte: 5 },
      { event: "e", gt: 5, lt: 5.000001 },
      { event: "e", eq: 0, gte: -0 },
      { event: "e", gt: -1e308, lt: 1e308 },
      { event: "e", lte: 3, gt: 2, gte: 1 },
      { event: "e", gte: Number.MAX_VALUE },
    ];
    for (const leaf of possible) expect(whyLeafCannotHold(leaf), JSON.stringify(leaf)).toBeNull();
  });

  it("names the comparators sent, `eq` among them", () => {
    expect(whyLeafCannotHold({ event: "e", eq: 5, gt: 5 })).toBe("no number is > 5 (`gt`) and = 5 (`eq`)");
    expect(whyLeafCannotHold({ event: "e", eq: 7, lt: 5, gte: 6 })).toBe("no number is = 7 (`eq`) and < 5 (`lt`)");
    expect(whyLeafCannotHold({ event: "e", gte: 2, lte: 3, lt: 2 })).toBe("no number is >= 2 (`gte`) and < 2 (`lt`)");
  });

  it("is never satisfied by any number, as the check promises", () => {
    fc.assert(
      fc.property(
        fc.record(
          {
            gt: fc.integer({ min: -3, max: 3 }),
            gte: fc.integer({ min: -3, max: 3 }),
            lt: fc.integer({ min: -3, max: 3 }),
            lte: fc.integer({ min: -3, max: 3 }),
            eq: fc.integer({ min: -3, max: 3 }),
          },
          { requiredKeys: [] },
        ),
        (bounds) => {
          const leaf = { event: "e", ...bounds };
          const satisfiable = [-3.5, -3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5].some((n) =>
            satisfies(leaf, ev("e", n)),
          );
          expect(whyLeafCannotHold(leaf) === null).toBe(satisfiable);
        },
      ),
    );
  });
});
