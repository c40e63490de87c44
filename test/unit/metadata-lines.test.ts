import { describe, expect, it } from "vitest";
import { metadataLines, parseMetadataLines } from "../../src/dashboard/ui/pages/forms/metadata-lines";

describe("the dashboard's key=value metadata lines", () => {
  it("takes keys and values without the spaces around them, as a .env file does", () => {
    expect(parseMetadataLines("region = eu\n\n  tier=gold  \n")).toEqual({ region: "eu", tier: "gold" });
  });

  it("keeps a value in double quotes exactly: spaces at its ends, quotes and line breaks inside", () => {
    expect(parseMetadataLines('sp=" padded "\nq="say \\"hi\\""\nnl="a\\nb"\nempty=""')).toEqual({
      sp: " padded ",
      q: 'say "hi"',
      nl: "a\nb",
      empty: "",
    });
  });

  it("takes a key in double quotes exactly: a = in it, spaces at its ends", () => {
    expect(parseMetadataLines('"a=b"=c\n" sp "  =  v\n"x\\"y"="="')).toEqual({ "a=b": "c", " sp ": "v", 'x"y': "=" });
  });

  it("says which line is wrong", () => {
    expect(parseMetadataLines("a=1\nnot a pair")).toBe("Line 2 is not key=value.");
    expect(parseMetadataLines("a=1\na=2")).toBe("Line 2 sets a again (line 1 did): keep one.");
    expect(parseMetadataLines('a="un"closed"')).toMatch(/^Line 1 has a value in double quotes but is no JSON string/);
    expect(parseMetadataLines('a="tab\there"')).toMatch(/a tab as \\t\)\.$/);
    expect(parseMetadataLines('"open=1')).toMatch(/^Line 1 has a key in double quotes but is no JSON string/);
    expect(parseMetadataLines('"k" 1')).toBe("Line 1 is not key=value.");
  });

  it("writes pairs as lines that read back as the same pairs", () => {
    const pairs: [string, string][] = [
      ["plain", "eu"],
      ["spaced", " padded "],
      ["quotes", '"quoted"'],
      ["inner", 'a "b" c'],
      ["lines", "a\nb"],
      ["__proto__", "x"],
      ["a=b", "c"],
      [" sp ", "v"],
      ['"q"', "=x="],
    ];
    const lines = metadataLines(pairs);
    expect(lines.split("\n")).toHaveLength(pairs.length);
    expect(lines).toContain("plain=eu\n");
    expect(lines).toContain('inner=a "b" c\n');
    const parsed = parseMetadataLines(lines);
    expect(parsed).toEqual(Object.fromEntries(pairs));
    expect(Object.getOwnPropertyNames(parsed)).toContain("__proto__");
  });
});
