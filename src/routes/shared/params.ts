/**
 * Request fields several routes take: a candidate's alias, a list's page size and cursor, and an
 * instant in a query.
 */
import { z } from "@hono/zod-openapi";
import { validationError } from "../../errors/api-error";
import { received } from "../../errors/zod-issues";
import { isoTime } from "../../domain/iso-time";

export const AliasSchema = z.string().min(8).max(255).openapi({ example: "order-2026-0001" });

const limitMessage = (issue: { input?: unknown }) =>
  `must be a whole number from 1 to 100; received ${received(issue.input)}`;
/** A list's `limit` query parameter: items per page, 1 to 100, in digits (`1e2` is refused). */
export const PageLimitSchema = z
  .string({ error: limitMessage })
  .regex(/^[0-9]{1,3}$/)
  .transform(Number)
  .pipe(z.number({ error: limitMessage }).min(1).max(100))
  .openapi({ type: "integer", minimum: 1, maximum: 100, example: 50 });
/** The same, 50 when left out (the summary's applies only with group_by, so it has none). */
export const DefaultPageLimitSchema = PageLimitSchema.default(50).openapi({ default: 50 });

/**
 * A list's `after`: the `next_cursor` of the previous page. Whatever is wrong with one, the caller
 * needs to hear what a cursor is and where it comes from, not how long a string may be.
 */
export const CursorSchema = z
  .string({
    error: (issue) =>
      `is not a cursor: pass the \`next_cursor\` of the previous page; received ${received(issue.input)}`,
  })
  .min(1)
  .max(255);

/** The refusal of an `after` that is well formed but is no cursor of this list (`list`: whose it is). */
export const unknownCursor = (after: string, list: string) =>
  validationError([
    {
      path: "after",
      message: `is not a cursor of ${list}: pass the \`next_cursor\` of its previous page; received ${received(after)}`,
    },
  ]);

/** Epoch ms of a valid ISO 8601 instant, a fraction of a millisecond rounded up (see InstantSchema). */
const instantMs = (text: string) => Date.parse(text) + (/\.\d{3}\d*[1-9]/.test(text) ? 1 : 0);
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: outside them, an instant is written with a six-digit year. */
const FIRST_INSTANT_MS = -62_167_219_200_000;
const END_INSTANT_MS = 253_402_300_800_000;

/**
 * An instant in a query: ISO 8601 date and time with a zone (`Z` or an offset), as epoch ms. A
 * bound finer than a millisecond is rounded up: instants here are whole milliseconds, so a status
 * that began at .005 is before `.0055` (and so included by `lt`, excluded by `gte`) as it should be.
 * A `+` left unescaped in a query string arrives as a space, so the message says how to write it.
 */
export const InstantSchema = z.iso
  .datetime({
    offset: true,
    error: (issue) =>
      "must be an ISO 8601 date and time with a time zone, like `2026-11-01T00:00:00Z`; in a query, write an offset's " +
      `\`+\` as \`%2B\` (\`2026-11-01T00:00:00%2B01:00\`); received ${received(issue.input)}`,
  })
  .transform((text, ctx) => {
    const ms = instantMs(text);
    if (ms >= FIRST_INSTANT_MS && ms < END_INSTANT_MS) return ms;
    ctx.addIssue({
      code: "custom",
      message:
        "must be an instant from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z, once its offset and any fraction " +
        `of a millisecond are applied; received ${received(text)}`,
    });
    return z.NEVER;
  })
  .openapi({ type: "string", format: "date-time" });

/** What the document says of every bound of an instant range, after what it selects. */
export const BOUND_RULES =
  " An ISO 8601 instant with a time zone (in a query, an offset's `+` written `%2B`), from year 0000 to 9999. A `_gte` " +
  "later than its `_lt` is 400 at the `_lt`.";

/**
 * An instant range (`status_since`, `activity_ends`) whose start is after its end is empty by
 * mistake: refused at its end. An object's refinement runs even when a field failed, with that
 * field's text: only two instants read are compared.
 */
export function rangesInOrder(
  query: { status_since_gte?: number; status_since_lt?: number; activity_ends_gte?: number; activity_ends_lt?: number },
  ctx: z.RefinementCtx,
) {
  for (const name of ["status_since", "activity_ends"] as const) {
    const [gte, lt]: unknown[] = [query[`${name}_gte`], query[`${name}_lt`]];
    if (typeof gte === "number" && typeof lt === "number" && gte > lt) {
      ctx.addIssue({
        code: "custom",
        path: [`${name}_lt`],
        message: `must not be earlier than ${name}_gte; received ${name}_gte ${isoTime(gte)} and ${name}_lt ${isoTime(lt)}`,
      });
    }
  }
}

/**
 * For a PATCH body's "change at least one field" refinement: checked only when the body is
 * otherwise valid, so an unknown or invalid field is refused for what it is, not also as "nothing".
 */
export const whenOtherwiseValid = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };
