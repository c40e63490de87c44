/**
 * The contract a candidate carries, and its fulfillment condition (docs/conditions.md).
 * These zod schemas validate requests, type the code and generate the OpenAPI document.
 */
import { z } from "@hono/zod-openapi";
import {
  JsonObjectSchema,
  longerThanUtf8,
  MAX_EVENT_VALUE_BYTES,
  MAX_JSON_DEPTH,
  nestingOf,
  type JsonObject,
} from "./json";

export const MAX_WINDOW_SECONDS = 31_536_000; // 365 days
export const MAX_PRICE = 1e12;
/** Within 15 significant digits every decimal round-trips through a 64-bit float unchanged. */
export const MAX_PRICE_DIGITS = 15;
export const MAX_CONDITION_LEAVES = 32;
export const MAX_CONDITION_DEPTH = 4; // nested all/any levels above the leaves
export const MAX_COMPOUND_CHILDREN = 32;

const LEAF_KEYS = ["event", "field", "match", "gt", "gte", "lt", "lte", "eq"] as const;
export const COMPARATORS = ["gt", "gte", "lt", "lte", "eq"] as const;

const fieldPath = z
  .string()
  .min(1)
  .max(255)
  .refine((path) => path.split(".").every((segment) => segment.length > 0), {
    message: "must be a dot path of non-empty keys, like `order.total`",
  })
  .openapi({ description: "Dot path into the event value (`order.total`); the leaf then tests that part." });

const comparator = (description: string) => z.number().optional().openapi({ description });

/**
 * One node of a condition: a leaf (`event` plus optional tests) or a compound (`all` / `any`).
 * A single object type keeps validation messages precise (an unknown key is reported at its own
 * path); the refinement below enforces that a node is one kind or the other.
 */
export interface ConditionNode {
  event?: string;
  field?: string;
  match?: JsonObject;
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  eq?: number;
  all?: ConditionNode[];
  any?: ConditionNode[];
}

const children = (): z.ZodType<ConditionNode[] | undefined> =>
  z.array(ConditionNodeSchema).min(1).max(MAX_COMPOUND_CHILDREN).optional();

export const ConditionNodeSchema: z.ZodType<ConditionNode> = z
  .strictObject({
    event: z.string().min(1).max(255).optional().openapi({
      description: "Event type this leaf refers to; compared with the `type` of a submitted event.",
    }),
    field: fieldPath.optional(),
    match: JsonObjectSchema.refine((m) => Object.keys(m).length > 0, { message: "must have at least one key" })
      .optional()
      .openapi({
        description: "Every key must equal the same key of the subject (strict JSON equality).",
      }),
    gt: comparator("The subject must be a number greater than this."),
    gte: comparator("The subject must be a number greater than or equal to this."),
    lt: comparator("The subject must be a number less than this."),
    lte: comparator("The subject must be a number less than or equal to this."),
    eq: comparator("The subject must be a number equal to this."),
    get all() {
      return children().openapi({ description: "Holds when every child has been satisfied (extension)." });
    },
    get any() {
      return children().openapi({ description: "Holds when one child has been satisfied (extension)." });
    },
  })
  .superRefine((node, ctx) => {
    const compounds = (["all", "any"] as const).filter((k) => node[k] !== undefined);
    if (compounds.length === 0) {
      if (node.event === undefined) {
        ctx.addIssue({ code: "custom", path: ["event"], message: "is required in a condition leaf" });
      }
      const never = whyLeafCannotHold(node);
      if (never) ctx.addIssue({ code: "custom", path: [], message: `can never hold: ${never}` });
      return;
    }
    if (compounds.length > 1) {
      ctx.addIssue({ code: "custom", path: ["any"], message: "a node takes either `all` or `any`, not both" });
    }
    for (const key of LEAF_KEYS) {
      if (node[key] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `cannot be mixed with \`${compounds[0]}\` in one node`,
        });
      }
    }
  })
  .openapi("ConditionNode", {
    description:
      "A condition leaf (`event` with optional `field`, `match` and numeric comparators, all of which must hold) " +
      "or a compound node `{ all: [...] }` / `{ any: [...] }` (extension).",
  });

/**
 * Why no event could ever satisfy this leaf, or null. Such a leaf is a mistake, so it is refused
 * (docs/conditions.md): `match` needs an object subject and a comparator a number, comparators
 * need a non-empty range, and the subject must fit in an event's value (its size and nesting).
 */
export function whyLeafCannotHold(leaf: ConditionNode): string | null {
  const unfit = whySubjectCannotFit(leaf);
  if (unfit) return unfit;
  const comparators = COMPARATORS.filter((c) => leaf[c] !== undefined);
  if (leaf.match !== undefined && comparators.length > 0) {
    return `\`match\` needs the subject to be an object and \`${comparators[0]}\` needs it to be a number`;
  }
  // The tightest lower and upper bounds, each with whether it is inclusive.
  const lower = tightest(leaf, ["gt", "gte", "eq"], (a, b) => a > b);
  const upper = tightest(leaf, ["lt", "lte", "eq"], (a, b) => a < b);
  if (lower && upper && (lower[0] > upper[0] || (lower[0] === upper[0] && !(lower[1] && upper[1])))) {
    return `no number is ${describeBound(lower)} and ${describeBound(upper)}`;
  }
  // JSON numbers are finite: none is above the largest or below the smallest.
  if (lower && lower[0] === Number.MAX_VALUE && !lower[1]) return `no number is ${describeBound(lower)}`;
  if (upper && upper[0] === -Number.MAX_VALUE && !upper[1]) return `no number is ${describeBound(upper)}`;
  return null;
}

/**
 * Why no event's value can hold this leaf's subject, or null. A value holding `match` serialises
 * to at least `match`'s own bytes; and an event's body nests the value inside itself (1 level),
 * each key of `field` inside the one before (1 level each), and `match`'s own levels below that.
 */
function whySubjectCannotFit(leaf: ConditionNode): string | null {
  if (leaf.match !== undefined && longerThanUtf8(JSON.stringify(leaf.match), MAX_EVENT_VALUE_BYTES))
    return `\`match\` takes more than the ${MAX_EVENT_VALUE_BYTES} bytes an event's value may`;
  const keys = leaf.field?.split(".").length ?? 0;
  const levels = 1 + keys + (leaf.match === undefined ? 0 : nestingOf(leaf.match));
  if (levels > MAX_JSON_DEPTH) {
    const parts = [...(keys ? [`\`field\`'s ${keys} keys`] : []), ...(leaf.match ? ["`match`"] : [])].join(" and ");
    return `${parts} would nest an event's body ${levels} levels deep, and a body may nest ${MAX_JSON_DEPTH}`;
  }
  return null;
}

type Comparator = (typeof COMPARATORS)[number];
/** A bound on the subject, and the comparator it was sent as (the refusal names what was sent). */
type Bound = [value: number, inclusive: boolean, comparator: Comparator];

const SIGN: Record<Comparator, string> = { gt: ">", gte: ">=", lt: "<", lte: "<=", eq: "=" };

/** The bound of these comparators that constrains most; at equal values the exclusive one. */
function tightest(leaf: ConditionNode, comparators: Comparator[], tighter: (a: number, b: number) => boolean) {
  let best: Bound | null = null;
  for (const comparator of comparators) {
    const value = leaf[comparator];
    if (value === undefined) continue;
    const inclusive = comparator !== "gt" && comparator !== "lt";
    if (!best || tighter(value, best[0]) || (value === best[0] && !inclusive)) best = [value, inclusive, comparator];
  }
  return best;
}

const describeBound = ([value, , comparator]: Bound) => `${SIGN[comparator]} ${value} (\`${comparator}\`)`;

/** Significant digits of a number as JSON writes it (`1200` has 2, `0.0012` has 2, `1.5e-7` has 2). */
export function significantDigits(n: number): number {
  const mantissa = JSON.stringify(Math.abs(n)).split("e")[0].replace(".", "");
  return mantissa.replace(/^0+/, "").replace(/0+$/, "").length;
}

/** Counts leaves and the deepest nesting of all/any, for the condition's limits (docs/limits.md). */
export function conditionSize(node: ConditionNode): { leaves: number; depth: number } {
  const kids = node.all ?? node.any;
  if (!kids) return { leaves: 1, depth: 0 };
  let leaves = 0;
  let depth = 0;
  for (const child of kids) {
    const size = conditionSize(child);
    leaves += size.leaves;
    depth = Math.max(depth, size.depth);
  }
  return { leaves, depth: depth + 1 };
}

export const TimeoutOutcomeSchema = z.enum(["confirm", "fail"]).openapi({
  description: "What the candidate is scheduled to become when the activity window ends unfulfilled.",
});

/** A window's bound, and what was received. */
const windowBound = (bound: string) => ({
  error: (issue: { input: unknown }) => `is in seconds: ${bound}; received ${issue.input}`,
});
const WINDOW_TOO_LONG = windowBound("at most 365 days (31,536,000)");

export const ContractSchema = z
  .strictObject({
    price: z
      .number()
      .min(0)
      .max(MAX_PRICE, { error: (issue) => `must be at most 10^12 (1000000000000); received ${issue.input}` })
      .refine((price) => significantDigits(price) <= MAX_PRICE_DIGITS, {
        error: (issue) =>
          `must have at most ${MAX_PRICE_DIGITS} significant digits, so that it is kept and summed exactly; ` +
          `received ${issue.input}, ${significantDigits(issue.input as number)} digits`,
      })
      .openapi({
        description:
          "Amount owed when the candidate ends CONFIRMED, in the account's currency: 0 to 10^12, at most 15 significant digits. Stored exactly as given.",
        example: 12.5,
      }),
    activity_window: z
      .number()
      .min(0.001, windowBound("at least 0.001 (one millisecond)"))
      .max(MAX_WINDOW_SECONDS, WINDOW_TOO_LONG)
      .openapi({ description: "Seconds after creation during which events can fulfil the condition.", example: 86400 }),
    review_window: z
      .number()
      .min(0, windowBound("at least 0"))
      // Windows are kept to the millisecond: a shorter one would be a review of 0 that says otherwise.
      .refine(
        (seconds) => seconds <= 0 || seconds >= 0.001,
        windowBound("0 (no review), or at least 0.001 (one millisecond)"),
      )
      .max(MAX_WINDOW_SECONDS, WINDOW_TOO_LONG)
      .openapi({
        description: "Seconds the candidate stays PENDING before its outcome is final: 0 (none), or at least 0.001.",
        example: 3600,
      }),
    fulfillment_condition: ConditionNodeSchema,
    timeout_outcome: TimeoutOutcomeSchema,
  })
  .superRefine((contract, ctx) => {
    const { leaves, depth } = conditionSize(contract.fulfillment_condition);
    if (leaves > MAX_CONDITION_LEAVES) {
      ctx.addIssue({
        code: "custom",
        path: ["fulfillment_condition"],
        message: `has ${leaves} leaves; at most ${MAX_CONDITION_LEAVES} are allowed`,
      });
    }
    if (depth > MAX_CONDITION_DEPTH) {
      ctx.addIssue({
        code: "custom",
        path: ["fulfillment_condition"],
        message: `nests all/any ${depth} deep; at most ${MAX_CONDITION_DEPTH} levels are allowed`,
      });
    }
  })
  .openapi("Contract");

export type Contract = z.infer<typeof ContractSchema>;
