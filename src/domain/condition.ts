/**
 * Incremental evaluation of a fulfillment condition (docs/conditions.md).
 *
 * A condition is compiled once into its leaves and a tree over leaf indexes. The progress of a
 * candidate is a bit mask of the leaves some event has satisfied so far; each event only tests the
 * leaves that name its type and then re-evaluates the tree from the mask, so the cost of an event
 * never depends on the events before it.
 */
import canonicalize from "canonicalize";
import { COMPARATORS, type ConditionNode } from "./contract";
import { isJsonObject, type Json } from "./json";

export interface Leaf {
  /** Where the leaf is in the contract, dotted as validation paths are: `fulfillment_condition.all.0`. */
  path: string;
  event: string;
  field?: string[];
  /** Each key of `match` with its expected value in canonical JSON (RFC 8785), for JSON equality. */
  match?: [string, string][];
  comparators: [(typeof COMPARATORS)[number], number][];
}

type Tree = { leaf: number } | { all: Tree[] } | { any: Tree[] };

export interface CompiledCondition {
  leaves: Leaf[];
  tree: Tree;
  /** Leaf indexes by event type: an event only looks at the leaves of its own type. */
  leavesByEvent: Map<string, number[]>;
}

export interface SubmittedEvent {
  type: string;
  /** Absent when the caller sent no `value`; JSON null is a value. */
  value?: Json;
  hasValue: boolean;
}

export function compileCondition(root: ConditionNode): CompiledCondition {
  const leaves: Leaf[] = [];
  const leavesByEvent = new Map<string, number[]>();
  const build = (node: ConditionNode, path: string): Tree => {
    if (node.all) return { all: node.all.map((child, i) => build(child, `${path}.all.${i}`)) };
    if (node.any) return { any: node.any.map((child, i) => build(child, `${path}.any.${i}`)) };
    const index = leaves.length;
    leaves.push({
      path,
      event: node.event!,
      field: node.field?.split("."),
      match: node.match && Object.entries(node.match).map(([key, expected]) => [key, canonicalize(expected)!]),
      comparators: COMPARATORS.filter((c) => node[c] !== undefined).map((c) => [c, node[c]!]),
    });
    leavesByEvent.set(node.event!, [...(leavesByEvent.get(node.event!) ?? []), index]);
    return { leaf: index };
  };
  return { leaves, tree: build(root, "fulfillment_condition"), leavesByEvent };
}

/** Whether one event satisfies one leaf on its own. */
export function leafSatisfied(leaf: Leaf, event: SubmittedEvent): boolean {
  if (event.type !== leaf.event) return false;
  const testsValue = leaf.field !== undefined || leaf.match !== undefined || leaf.comparators.length > 0;
  if (!testsValue) return true;
  if (!event.hasValue) return false;

  const subject = leaf.field ? valueAtPath(event.value, leaf.field) : { found: true, value: event.value };
  if (!subject.found) return false;
  if (leaf.match === undefined && leaf.comparators.length === 0) return subject.value !== null;

  if (leaf.match !== undefined) {
    const s = subject.value;
    if (!isJsonObject(s)) return false;
    for (const [key, expected] of leaf.match) {
      if (!Object.hasOwn(s, key) || !jsonEqual(s[key], expected)) return false;
    }
  }
  if (leaf.comparators.length > 0) {
    const n = subject.value;
    if (typeof n !== "number" || !Number.isFinite(n)) return false;
    for (const [op, bound] of leaf.comparators) {
      if (!compare(op, n, bound)) return false;
    }
  }
  return true;
}

export interface EventProgress {
  /** Leaves satisfied so far, this event included (bit i = leaf i). */
  mask: number;
  /** Whether this event satisfied at least one leaf. */
  matched: boolean;
  /** Whether the whole condition holds after this event. */
  fulfilled: boolean;
}

/** Applies one event to the progress mask of an OPEN candidate. */
export function applyEvent(condition: CompiledCondition, mask: number, event: SubmittedEvent): EventProgress {
  let matched = false;
  for (const index of condition.leavesByEvent.get(event.type) ?? []) {
    if (leafSatisfied(condition.leaves[index], event)) {
      matched = true;
      mask = (mask | (1 << index)) >>> 0;
    }
  }
  return { mask, matched, fulfilled: matched && holds(condition.tree, mask) };
}

/** The leaves set in `mask` that are not in `before`: what one event newly satisfied. */
export function leavesGained(before: number, mask: number): number[] {
  const gained = (mask & ~before) >>> 0;
  const leaves: number[] = [];
  for (let i = 0; i < 32; i++) if ((gained >>> i) & 1) leaves.push(i);
  return leaves;
}

/** Whether the condition holds given the set of satisfied leaves. */
export function holds(tree: Tree, mask: number): boolean {
  if ("leaf" in tree) return (mask & (1 << tree.leaf)) !== 0;
  if ("all" in tree) return tree.all.every((child) => holds(child, mask));
  return tree.any.some((child) => holds(child, mask));
}

function valueAtPath(value: unknown, path: string[]): { found: boolean; value?: unknown } {
  let current = value;
  for (const key of path) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= current.length) return { found: false };
      current = current[Number(key)];
    } else if (isJsonObject(current) && Object.hasOwn(current, key)) {
      current = current[key];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

/**
 * Strict JSON equality (docs/conditions.md): two values are equal when their canonical JSON texts
 * are, whatever their keys are called (`constructor`, `__proto__` are data like any other key).
 */
function jsonEqual(value: unknown, expectedCanonical: string): boolean {
  return canonicalize(value) === expectedCanonical;
}

function compare(op: (typeof COMPARATORS)[number], n: number, bound: number): boolean {
  switch (op) {
    case "gt":
      return n > bound;
    case "gte":
      return n >= bound;
    case "lt":
      return n < bound;
    case "lte":
      return n <= bound;
    case "eq":
      return n === bound;
  }
}
