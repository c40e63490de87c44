import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { strictJsonProblems } from "../../src/strict-json";
import { MAX_JSON_DEPTH } from "../../src/domain/json";

describe("strict JSON (I-JSON) checks", () => {
  it("find nothing wrong with what JSON.stringify writes of well-formed values", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(strictJsonProblems(JSON.stringify(value))).toEqual([]);
        expect(strictJsonProblems(JSON.stringify(value, null, 2))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it("accept every double in its shortest form and refuse one digit more than it holds", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(strictJsonProblems(JSON.stringify([n]))).toEqual([]);
        const repr = JSON.stringify(n);
        const [mantissa, exponent] = repr.split("e");
        const longer = `${mantissa}${mantissa.includes(".") ? "" : "."}00000000000000000001${exponent ? `e${exponent}` : ""}`;
        if (n !== 0)
          expect(strictJsonProblems(`[${longer}]`)).toEqual([
            { path: "0", message: expect.stringMatching(/more digits/) },
          ]);
      }),
      { numRuns: 1000 },
    );
  });

  it("name the path of each problem", () => {
    const text = `{"a":[1,{"b":"\\ud800","c\\ud83d":1}],"d":{"e":1,"e":2},"f":1e999,"g":{"":{"":5e-400}}}`;
    expect(strictJsonProblems(text)).toEqual([
      { path: "a.1.b", message: expect.stringMatching(/lone surrogate/) },
      { path: "a.1", message: expect.stringMatching(/key that is not well-formed/) },
      { path: "d.e", message: expect.stringMatching(/duplicate/) },
      { path: "f", message: expect.stringMatching(/finite/) },
      { path: "g..", message: expect.stringMatching(/which would store 0:/) },
    ]);
  });

  it("find where each string ends, whatever it escapes", () => {
    // A quote after an odd run of backslashes is inside the string; after an even run it ends it.
    const text = `{"a\\"":"\\\\","b":"\\\\\\"}","a\\"":[1,"x\\\\",2e400]}`;
    expect(JSON.parse(text)).toEqual({ 'a"': [1, "x\\", Infinity], b: '\\"}' });
    expect(strictJsonProblems(text)).toEqual([
      { path: 'a"', message: expect.stringMatching(/duplicate/) },
      { path: 'a".2', message: expect.stringMatching(/finite/) },
    ]);
  });

  it("stop at the depth limit", () => {
    const ok = `${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`;
    expect(strictJsonProblems(ok)).toEqual([]);
    const deep = `{"v":${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}}`;
    expect(strictJsonProblems(deep)).toEqual([
      { path: `v${".0".repeat(MAX_JSON_DEPTH - 1)}`, message: expect.stringMatching(/deeper/) },
    ]);
  });
});
