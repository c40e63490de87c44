/**
 * I-JSON (RFC 7493) checks over a request body's text, which JSON.parse has already accepted.
 *
 * JSON.parse is lenient where this service must not be: it keeps the last of duplicate keys,
 * turns `1e999` into Infinity and `1e-400` into 0, rounds `9007199254740993` to a neighbour,
 * and accepts `"\ud800"`. Each of those would store something other than what was sent, so each
 * is refused at its path. One pass over the text, iterative (nesting depth is untrusted).
 */
import type { ErrorDetail } from "./errors";

export const MAX_JSON_DEPTH = 64;
/** More than this many problems in one body are not all listed. */
const MAX_PROBLEMS = 50;

const NOT_UNICODE = "is not well-formed Unicode: it holds a lone surrogate";
const NOT_FINITE = "is not a finite number: a JSON number must fit a 64-bit float (at most about 1.8e308)";

type Frame = { object: true; keys: Set<string>; key: string | null } | { object: false; index: number };

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Every problem of a valid JSON text, each with the dotted path of the value or key it concerns. */
export function strictJsonProblems(text: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const frames: Frame[] = [];
  /** The path of the value being read (an object awaiting its next key adds nothing). */
  const path = (key?: string) => {
    const parts = frames.flatMap((f) => (f.object ? (f.key === null ? [] : [f.key]) : [String(f.index)]));
    return (key === undefined ? parts : [...parts, key]).join(".");
  };
  const top = () => frames[frames.length - 1];
  const add = (p: string, message: string) => problems.push({ path: p, message });

  for (let i = 0; i < text.length && problems.length < MAX_PROBLEMS; i++) {
    const ch = text[i];
    if (ch === "{" || ch === "[") {
      if (frames.length >= MAX_JSON_DEPTH) {
        add(path(), `nests deeper than ${MAX_JSON_DEPTH} levels`);
        break; // nothing deeper is read
      }
      frames.push(ch === "{" ? { object: true, keys: new Set(), key: null } : { object: false, index: 0 });
    } else if (ch === "}" || ch === "]") {
      frames.pop();
    } else if (ch === ",") {
      const frame = top();
      if (frame.object) frame.key = null;
      else frame.index++;
    } else if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const raw = text.slice(i, end + 1);
      const value: string = raw.includes("\\") ? JSON.parse(raw) : raw.slice(1, -1);
      const frame = top();
      if (frame?.object && frame.key === null) {
        // A key.
        if (!value.isWellFormed()) add(path(), `has a key that ${NOT_UNICODE}`);
        else if (frame.keys.has(value)) add(path(value), "is a duplicate key: each key may appear once in an object");
        frame.keys.add(value);
        frame.key = value;
      } else if (!value.isWellFormed()) {
        add(path(), NOT_UNICODE);
      }
      i = end;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)![0];
      const problem = numberProblem(literal);
      if (problem) add(path(), problem);
      i += literal.length - 1;
    }
    // Anything else is whitespace, `:` or the letters of true, false and null.
  }
  return problems;
}

/** Why a number literal cannot be kept exactly as a 64-bit float, or null. */
function numberProblem(literal: string): string | null {
  const n = Number(literal);
  if (!Number.isFinite(n)) return NOT_FINITE;
  if (decimalValue(literal) === decimalValue(String(n))) return null;
  return `has more digits than a JSON number keeps (a 64-bit float): it would be stored as ${JSON.stringify(n)}; send it as a string`;
}

/** A number literal's exact decimal value in one canonical form: `[-]0.DIGITSeEXP`, or `0`. */
function decimalValue(literal: string): string {
  const [, sign, whole, fraction = "", exponent = "0"] = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(literal)!;
  let digits = whole + fraction;
  let power = Number(exponent) + whole.length; // value = 0.DIGITS × 10^power
  const leadingZeros = /^0*/.exec(digits)![0].length;
  digits = digits.slice(leadingZeros).replace(/0+$/, "");
  power -= leadingZeros;
  return digits === "" ? "0" : `${sign}0.${digits}e${power}`;
}
