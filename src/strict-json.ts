/**
 * I-JSON (RFC 7493) checks over a request body's text, which JSON.parse has already accepted.
 *
 * JSON.parse is lenient where this service must not be: it keeps the last of duplicate keys,
 * turns `1e999` into Infinity and `1e-400` into 0, rounds `9007199254740993` to a neighbour,
 * and accepts `"\ud800"`. Each of those would store something other than what was sent, so each
 * is refused at its path. One pass over the text, iterative (nesting depth is untrusted).
 */
import type { ErrorDetail } from "./errors/api-error";
import { MAX_JSON_DEPTH } from "./domain/json";

/** More than this many problems in one body are not all listed. */
export const MAX_PROBLEMS = 50;
/** Past this problem nothing deeper is read: the body is not walked further, by this or by a schema. */
export const NESTS_TOO_DEEP = `nests deeper than ${MAX_JSON_DEPTH} levels`;

const NOT_UNICODE = "is not well-formed Unicode: it holds a lone surrogate";
/** Said at the object holding such a key, which is not named (it cannot be written back). */
export const KEY_NOT_UNICODE = `has a key that ${NOT_UNICODE}`;
const NOT_FINITE = "is not a finite number: a JSON number must fit a 64-bit float (at most about 1.8e308)";

type Frame = { object: true; keys: Set<string>; key: string | null } | { object: false; index: number };

/** The dotted path of the value being read (an object awaiting its next key adds nothing). */
function pathOf(frames: Frame[], key?: string): string {
  const parts = frames.flatMap((f) => (f.object ? (f.key === null ? [] : [f.key]) : [String(f.index)]));
  return (key === undefined ? parts : [...parts, key]).join(".");
}

const QUOTE = 34; // "
const BACKSLASH = 92;

/** Whether a character can continue a number literal (JSON.parse has checked its form). */
const inNumber = (code: number) =>
  (code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45;

/** Every problem of a valid JSON text, each with the dotted path of the value or key it concerns. */
export function strictJsonProblems(text: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const frames: Frame[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  for (let i = 0; i < text.length && problems.length < MAX_PROBLEMS; i++) {
    const code = text.charCodeAt(i);
    if (code === 123 || code === 91) {
      // { or [
      if (frames.length >= MAX_JSON_DEPTH) {
        add(pathOf(frames), NESTS_TOO_DEEP);
        break; // nothing deeper is read
      }
      frames.push(code === 123 ? { object: true, keys: new Set(), key: null } : { object: false, index: 0 });
    } else if (code === 125 || code === 93) {
      frames.pop();
    } else if (code === 44) {
      // ,
      const frame = frames[frames.length - 1];
      if (frame.object) frame.key = null;
      else frame.index++;
    } else if (code === QUOTE) {
      // The closing quote: the next one not escaped, i.e. after an even run of backslashes.
      let end = text.indexOf('"', i + 1);
      for (;;) {
        let before = end - 1;
        while (text.charCodeAt(before) === BACKSLASH) before--;
        if ((end - 1 - before) % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      const raw = text.slice(i, end + 1);
      const value: string = raw.includes("\\") ? JSON.parse(raw) : raw.slice(1, -1);
      const frame = frames[frames.length - 1];
      if (frame?.object && frame.key === null) {
        // A key.
        if (!value.isWellFormed()) add(pathOf(frames), KEY_NOT_UNICODE);
        else if (frame.keys.has(value))
          add(pathOf(frames, value), "is a duplicate key: each key may appear once in an object");
        frame.keys.add(value);
        frame.key = value;
      } else if (!value.isWellFormed()) {
        add(pathOf(frames), NOT_UNICODE);
      }
      i = end;
    } else if (code === 45 || (code >= 48 && code <= 57)) {
      // - or a digit: a number literal, up to the first character that cannot continue it.
      let end = i + 1;
      while (end < text.length && inNumber(text.charCodeAt(end))) end++;
      const problem = numberProblem(text.slice(i, end));
      if (problem) add(pathOf(frames), problem);
      i = end - 1;
    }
    // Anything else is whitespace, `:` or the letters of true, false and null.
  }
  return problems;
}

/** The advice for a figure a float cannot hold: fields that take any JSON (an event's `value`) take text too. */
const EXACT_ELSEWHERE = "where the field takes any JSON (an event's `value`), the exact figure as a string";

/** Why a number literal cannot be kept exactly as a 64-bit float, or null. */
function numberProblem(literal: string): string | null {
  const n = Number(literal);
  if (!Number.isFinite(n)) return NOT_FINITE;
  // Most literals are already the float's own shortest form.
  if (String(n) === literal || decimalValue(literal) === decimalValue(String(n))) return null;
  if (n === 0)
    return `is too close to 0 for a JSON number (a 64-bit float), which would store 0: send 0, or, ${EXACT_ELSEWHERE}`;
  return `has more digits than a JSON number keeps (a 64-bit float), which would store ${JSON.stringify(n)}: send that, or, ${EXACT_ELSEWHERE}`;
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
