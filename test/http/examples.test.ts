/**
 * The OpenAPI document's examples are what readers copy and what the reference's "Test Request"
 * sends: each must fit its own schema, and the story they tell (create, fulfil, read, resolve)
 * must be what the service answers when their requests are sent to it.
 */
import { describe, expect, it } from "vitest";
import { call, createAccount } from "../support/api";
import {
  fillPath,
  openApiDocument,
  operations,
  requestExample,
  resolve,
  type Document,
  type Schema,
} from "../support/openapi";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const fitsType = (value: unknown, type: string) =>
  type === "integer"
    ? Number.isInteger(value)
    : type === "null"
      ? value === null
      : type === "array"
        ? Array.isArray(value)
        : type === "object"
          ? isObject(value)
          : typeof value === type;

/**
 * Where a value breaks a schema of the document: the JSON Schema keywords the document uses. A
 * field the schema does not name is a problem too (an example shows only documented fields).
 */
function breaches(doc: Document, schema: Schema | undefined, value: unknown, at: string): string[] {
  const s = resolve(doc, schema);
  if (!s) return [];
  const options: Schema[] | undefined = s.anyOf ?? s.oneOf;
  if (options) {
    const fitting = options.filter((option) => breaches(doc, option, value, at).length === 0).length;
    if (s.oneOf ? fitting !== 1 : fitting === 0) return [`${at}: fits ${fitting} of its ${options.length} forms`];
  }
  const types: string[] = [s.type ?? []].flat();
  if (types.length > 0 && !types.some((type) => fitsType(value, type))) return [`${at}: is not ${types.join(" or ")}`];
  const found: string[] = [];
  const check = (ok: boolean, what: string) => ok || found.push(`${at}: ${what}`);
  if (s.enum) check((s.enum as unknown[]).includes(value), `is not one of ${JSON.stringify(s.enum)}`);
  if ("const" in s) check(s.const === value, `is not ${JSON.stringify(s.const)}`);
  if (typeof value === "string") {
    check(value.length >= (s.minLength ?? 0) && value.length <= (s.maxLength ?? Infinity), "has the wrong length");
    if (s.format === "uuid") check(UUID.test(value), "is not a UUID");
    if (s.format === "date-time") check(INSTANT.test(value) && !Number.isNaN(Date.parse(value)), "is not an instant");
    if (s.format === "uri") check(URL.canParse(value), "is not a URI");
    if (s.pattern) check(new RegExp(s.pattern, "u").test(value), `does not match ${s.pattern}`);
  }
  if (typeof value === "number") {
    check(value >= (s.minimum ?? -Infinity) && value <= (s.maximum ?? Infinity), "is out of range");
    check(value > (s.exclusiveMinimum ?? -Infinity) && value < (s.exclusiveMaximum ?? Infinity), "is out of range");
  }
  if (Array.isArray(value)) {
    check(
      value.length >= (s.minItems ?? 0) && value.length <= (s.maxItems ?? Infinity),
      "has the wrong number of items",
    );
    value.forEach((item, i) => found.push(...breaches(doc, s.items, item, `${at}.${i}`)));
  }
  if (isObject(value) && (s.properties || s.additionalProperties !== undefined)) {
    for (const key of s.required ?? []) check(Object.hasOwn(value, key), `lacks ${key}`);
    for (const [key, item] of Object.entries(value)) {
      const property = s.properties?.[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
      if (property) found.push(...breaches(doc, property, item, `${at}.${key}`));
      else check(!s.properties || options !== undefined, `has ${key}, which its schema does not name`);
    }
  }
  return found;
}

interface Example {
  where: string;
  schema: Schema | undefined;
  value: unknown;
}

/** The examples a schema and the schemas inside it carry (a `$ref` is walked where it is defined). */
function* schemaExamples(schema: Schema | undefined, where: string): Generator<Example> {
  if (typeof schema !== "object" || schema === null || schema.$ref) return;
  if ("example" in schema) yield { where, schema, value: schema.example };
  for (const [i, value] of ((schema.examples as unknown[]) ?? []).entries())
    yield { where: `${where}.examples.${i}`, schema, value };
  for (const [key, property] of Object.entries<Schema>(schema.properties ?? {}))
    yield* schemaExamples(property, `${where}.${key}`);
  for (const keyword of ["items", "additionalProperties"])
    yield* schemaExamples(schema[keyword], `${where}.${keyword}`);
  for (const keyword of ["allOf", "anyOf", "oneOf"])
    for (const [i, part] of ((schema[keyword] as Schema[]) ?? []).entries())
      yield* schemaExamples(part, `${where}.${keyword}.${i}`);
}

/** Every example in the document, with the schema it illustrates. */
function* documentExamples(doc: Document): Generator<Example> {
  for (const [name, schema] of Object.entries(doc.components.schemas)) yield* schemaExamples(schema, name);
  for (const { method, path, op } of operations(doc)) {
    const where = `${method} ${path}`;
    const holders: [string, any][] = [
      ...(op.parameters ?? []).map((p: any) => [`${where} ${p.in} ${p.name}`, p]),
      ...Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => [`${where} body ${type}`, media]),
      ...Object.entries<any>(op.responses).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).map(([type, media]) => [`${where} ${status} ${type}`, media]),
      ),
    ];
    for (const [at, holder] of holders) {
      if ("example" in holder) yield { where: at, schema: holder.schema, value: holder.example };
      for (const [name, example] of Object.entries<any>(holder.examples ?? {}))
        yield { where: `${at} ${name}`, schema: holder.schema, value: example.value };
      yield* schemaExamples(holder.schema, at);
    }
  }
}

/**
 * What a candidate's view says, without its particular ids and instants: its status, outcome and
 * fields, and how its instants relate (which are equal, which come first). An example and an
 * answer of the service with the same story have the same shape.
 */
function story(candidate: Record<string, any>) {
  const instants = ["created_at", "status_since", "activity_ends_at", "review_ends_at"];
  const order = Object.fromEntries(
    instants.flatMap((a, i) =>
      instants.slice(i + 1).map((b) => {
        const [x, y] = [candidate[a], candidate[b]];
        return [`${a} vs ${b}`, x === null || y === null ? null : Math.sign(Date.parse(x) - Date.parse(y))];
      }),
    ),
  );
  const { status, scheduled_outcome, schema_id, customer_uuid, candidate_alias, contract } = candidate;
  return {
    fields: Object.keys(candidate).sort(),
    status,
    scheduled_outcome,
    schema_id,
    customer_uuid,
    candidate_alias,
    contract,
    order,
  };
}

const mediaExample = (doc: Document, path: string, method: string, status: number) =>
  doc.paths[path][method].responses[status].content["application/json"].example;

describe("the OpenAPI document's examples", () => {
  it("each fit the schema they illustrate", async () => {
    const doc = await openApiDocument();
    // The check catches what it is for: a value of the wrong kind, out of range, or undocumented.
    const candidate = resolve(doc, { $ref: "#/components/schemas/Candidate" });
    const created = mediaExample(doc, "/v1/candidates", "post", 201);
    expect(breaches(doc, candidate, created, "x")).toEqual([]);
    expect(breaches(doc, candidate, { ...created, status: "DONE", id: "7", extra: 1 }, "x")).toHaveLength(3);

    const examples = [...documentExamples(doc)];
    expect(examples.length).toBeGreaterThan(100);
    expect(examples.flatMap(({ where, schema, value }) => breaches(doc, schema, value, where))).toEqual([]);
  });

  it("tell the story the service answers: created OPEN, fulfilled, read, resolved", async () => {
    const doc = await openApiDocument();
    const { token } = await createAccount();
    // Each step a few ms after the last, as in the story: instants that differ there differ here.
    const send = async (method: string, path: string, pathValues: Record<string, string> = {}) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return call(method.toUpperCase(), fillPath(path, pathValues), {
        token,
        json: requestExample(doc, doc.paths[path][method]),
      });
    };

    const created = await send("post", "/v1/candidates");
    expect(created.status).toBe(201);
    const createdExample = mediaExample(doc, "/v1/candidates", "post", 201);
    expect(createdExample.status).toBe("OPEN");
    expect(story(createdExample)).toEqual(story(created.body));

    const alias = created.body.candidate_alias;
    const recorded = await send("post", "/v1/events");
    expect(recorded.status).toBe(201);
    const recordedExample = mediaExample(doc, "/v1/events", "post", 201);
    expect(story(recordedExample.candidate)).toEqual(story(recorded.body.candidate));
    expect(Object.keys(recordedExample.event).sort()).toEqual(Object.keys(recorded.body.event).sort());
    expect(recordedExample.event).toMatchObject({
      matched: recorded.body.event.matched,
      received_at: recordedExample.candidate.status_since,
    });

    const read = await call("GET", `/v1/candidates/${alias}`, { token });
    const readExample = mediaExample(doc, "/v1/candidates/{candidate_alias}", "get", 200);
    expect(story(readExample)).toEqual(story(read.body));
    expect(readExample.condition_progress).toEqual({
      ...read.body.condition_progress,
      leaves: read.body.condition_progress.leaves.map((leaf: any) => ({
        ...leaf,
        event_id: readExample.events[0].id,
        satisfied_at: readExample.events[0].received_at,
      })),
    });
    expect(readExample.events.map((e: any) => [e.type, e.value, e.matched])).toEqual(
      read.body.events.map((e: any) => [e.type, e.value, e.matched]),
    );

    const resolved = await send("post", "/v1/candidates/{candidate_alias}/resolve", { candidate_alias: alias });
    expect(resolved.status).toBe(200);
    expect(story(mediaExample(doc, "/v1/candidates/{candidate_alias}/resolve", "post", 200))).toEqual(
      story(resolved.body),
    );
  });

  it("each request example is accepted as it stands", async () => {
    const doc = await openApiDocument();
    const { token } = await createAccount();
    for (const { method, path, op } of operations(doc)) {
      const body = requestExample(doc, op);
      if (body === undefined) continue;
      const pathValues = Object.fromEntries(
        (op.parameters ?? [])
          .filter((p: any) => p.in === "path")
          .map((p: any) => [p.name, String(p.example ?? p.schema.example)]),
      );
      const res = await call(method, fillPath(path, pathValues), { token, json: body });
      // Its resources may not exist here (404), and the story above took the example alias, but
      // nothing about the request itself is refused.
      const accepted = [200, 201, 202, 404].includes(res.status) || res.body.error?.code === "CANDIDATE_ALIAS_TAKEN";
      expect(accepted, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
    }
  });
});
