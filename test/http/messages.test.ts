/**
 * Every error message is the service's own sentence (docs/errors.md), never a library's. The
 * probes are generated from the OpenAPI document the worker serves, so an operation or a field
 * added later is covered with no change here: every path, query and header parameter and every
 * body field (nested objects and array items too) gets wrong values (the wrong type, too short,
 * too long, out of range, outside its enum, a malformed UUID or instant, missing when required,
 * a field that does not exist), and every answer must be a 4xx in the error shape whose messages
 * name the field in the service's words.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { en } from "zod/v4/locales";
import { call, client, contract, createAccount, type TestAccount } from "../support/api";
import { ERROR_CODES } from "../../src/errors/codes";
import {
  fillPath,
  openApiDocument,
  operations,
  requestExample,
  resolve,
  type Document,
  type Schema,
} from "../support/openapi";

/** What validation libraries say (zod 3 and 4, Hono, JSON Schema validators): none of it may reach a caller. */
const LIBRARY_PHRASING =
  /\bToo (small|big)\b|\bInvalid\b|expected .* to (have|be)\b|received (NaN|undefined)\b|\bExpected \w+, received\b|\bUnrecognized keys?\b|^Required$|\((s)\)|\b(Number|String|Array) must\b|Malformed JSON|must match pattern/;

type Path = (string | number)[];

interface Probe {
  /** Names the probe in a failure: method, path, where the wrong value went and what it was. */
  what: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The `details` path the refusal must name. */
  field: string;
  /** An id (a path parameter, a UUID): one the service does not validate names nothing, so 404 is fine. */
  mayBeNotFound?: boolean;
  /** What the message about the field must say, and must not. */
  says?: RegExp[];
  neverSays?: RegExp[];
}

interface Wrong {
  value: unknown;
  says?: RegExp[];
  mayBeNotFound?: boolean;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const WRONG_TYPE: Record<string, unknown> = {
  string: 12345,
  number: "12",
  integer: "12",
  boolean: "yes",
  array: "x",
  object: "x",
};

/** Values a field of this schema refuses: as JSON, or (`asText`) as the text of a parameter. */
function wrongValues(s: Schema, asText: boolean): Wrong[] {
  const types: string[] = [s.type ?? []].flat();
  const wrong: Wrong[] = [];
  const type = types.find((t) => t !== "null");
  if (!asText && type) wrong.push({ value: WRONG_TYPE[type] });
  if (s.enum)
    wrong.push({
      value: "not-one-of-them",
      says: (s.enum as unknown[]).map((v) => new RegExp(`\`${escape(String(v))}\``)),
    });
  if (types.includes("string") && !s.enum) {
    if (s.minLength > 0) wrong.push({ value: "x".repeat(s.minLength - 1) });
    if (s.maxLength !== undefined) wrong.push({ value: "x".repeat(s.maxLength + 1) });
    if (s.format === "uuid") wrong.push({ value: "not-a-uuid", mayBeNotFound: true });
    if (s.pattern !== undefined && !new RegExp(s.pattern).test("!")) wrong.push({ value: "!" });
    if (s.format === "date-time") wrong.push({ value: "yesterday" }, { value: "2026-11-01" });
  }
  if (types.includes("number") || types.includes("integer")) {
    if (asText) wrong.push({ value: "twelve" });
    if (s.minimum !== undefined) wrong.push({ value: s.minimum - 1 });
    if (s.exclusiveMinimum !== undefined) wrong.push({ value: s.exclusiveMinimum });
    if (s.maximum !== undefined) wrong.push({ value: s.maximum + 1 });
    if (s.exclusiveMaximum !== undefined) wrong.push({ value: s.exclusiveMaximum });
    if (types.includes("integer")) wrong.push({ value: 1.5 });
  }
  if (types.includes("array") && s.minItems > 0) wrong.push({ value: [] });
  return asText ? wrong.map((w) => ({ ...w, value: String(w.value) })) : wrong;
}

interface BodyChange extends Partial<Wrong> {
  at: Path;
  remove?: true;
}

/** Wrong bodies, as changes to a valid one: at each field, as deep as the valid body goes. */
function* bodyChanges(doc: Document, schema: Schema | undefined, valid: unknown, at: Path = []): Generator<BodyChange> {
  const s = resolve(doc, schema);
  if (!s) return;
  for (const wrong of wrongValues(s, false)) yield { at, ...wrong };
  if (Array.isArray(valid) && valid.length > 0) {
    if (s.maxItems !== undefined) yield { at, value: Array.from({ length: s.maxItems + 1 }, () => valid[0]) };
    yield* bodyChanges(doc, s.items, valid[0], [...at, 0]);
  }
  if (typeof valid === "object" && valid !== null && !Array.isArray(valid)) {
    if (s.additionalProperties === false)
      yield { at: [...at, "not_a_field"], value: 1, says: [/is not a known field/] };
    for (const key of s.required ?? []) yield { at: [...at, key], remove: true, says: [/^is required/] };
    for (const [key, property] of Object.entries<Schema>(s.properties ?? {}))
      yield* bodyChanges(doc, property, (valid as any)[key], [...at, key]);
    // A map of free keys (`additionalProperties`): a wrong value at a new key, and keys of the wrong length.
    const values = resolve(doc, s.additionalProperties);
    if (typeof values === "object") {
      for (const wrong of wrongValues(values, false)) yield { at: [...at, "probe"], ...wrong };
      const names = resolve(doc, s.propertyNames) ?? {};
      const fine = [values.type ?? []].flat().includes("string") ? "v" : undefined;
      if (fine !== undefined && names.maxLength !== undefined)
        yield { at: [...at, "k".repeat(names.maxLength + 1)], value: fine };
      if (fine !== undefined && names.minLength > 0)
        yield { at: [...at, "k".repeat(names.minLength - 1)], value: fine };
    }
  }
}

function changed(valid: unknown, { at, value, remove }: BodyChange): unknown {
  if (at.length === 0) return value;
  const copy = structuredClone(valid) as any;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key];
  if (remove) delete node[at[at.length - 1]];
  else node[at[at.length - 1]] = value;
  return copy;
}

const shown = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}... (${text.length})` : text;
};

/** Every probe of one operation: each parameter, the Idempotency-Key header, each body field. */
function probesOf(doc: Document, method: string, path: string, op: any): Probe[] {
  const parameters: any[] = op.parameters ?? [];
  const pathValues = Object.fromEntries(
    parameters.filter((p) => p.in === "path").map((p) => [p.name, String(p.example ?? p.schema?.example)]),
  );
  const body = requestExample(doc, op);
  const valid = { method, url: fillPath(path, pathValues), ...(body === undefined ? {} : { body }) };
  const probes: Probe[] = [];
  for (const parameter of parameters) {
    const schema = resolve(doc, parameter.schema) ?? {};
    const wrongs = wrongValues(schema, true);
    const what = (value: unknown) => `${method} ${path} ${parameter.in} ${parameter.name}=${shown(value)}`;
    if (parameter.in === "query") {
      // A cursor is no string of some length, and a `+` in a query arrives as a space.
      const says = schema.format === "date-time" ? [/%2B/] : parameter.name === "after" ? [/cursor/] : [];
      const neverSays = parameter.name === "after" ? [/character/] : [];
      if (schema.format === "date-time") wrongs.push({ value: "2026-11-01T00:00:00+01:00" });
      for (const { value, says: also = [] } of wrongs) {
        const raw = String(value).includes("+") ? String(value) : encodeURIComponent(String(value));
        probes.push({
          ...valid,
          what: what(value),
          url: `${valid.url}?${parameter.name}=${raw}`,
          field: parameter.name,
          says: [...says, ...also],
          neverSays,
        });
      }
      // Given twice, even with a good value: the parameter arrives as a list of two.
      if (parameter.style !== "deepObject") {
        const good = encodeURIComponent(String(parameter.example ?? schema.example ?? schema.enum?.[0] ?? "x"));
        probes.push({
          ...valid,
          what: `${method} ${path} query ${parameter.name} given twice`,
          url: `${valid.url}?${parameter.name}=${good}&${parameter.name}=${good}`,
          field: parameter.name,
          says: [/^is given more than once; give it once$/],
        });
      }
    } else if (parameter.in === "path") {
      for (const { value, says } of wrongs.filter((w) => w.value !== "")) {
        probes.push({
          ...valid,
          what: what(value),
          url: fillPath(path, { ...pathValues, [parameter.name]: String(value) }),
          field: parameter.name,
          mayBeNotFound: true,
          says,
        });
      }
    } else if (parameter.in === "header") {
      for (const { value, says } of wrongs)
        probes.push({
          ...valid,
          what: what(value),
          headers: { [parameter.name]: String(value) },
          field: parameter.name,
          says,
        });
    }
  }
  const media = op.requestBody?.content?.["application/json"];
  if (media) {
    for (const change of bodyChanges(doc, media.schema, body)) {
      const field = change.at.join(".");
      const what = `${method} ${path} body ${field || "(whole)"}${change.remove ? " left out" : `=${shown(change.value)}`}`;
      probes.push({
        ...valid,
        what,
        body: changed(body, change),
        field,
        says: change.says,
        mayBeNotFound: change.mayBeNotFound,
      });
    }
  }
  return probes;
}

/** What is wrong with the answer to a probe; nothing when it is a refusal in the service's words. */
function faults(probe: Probe, res: { status: number; body: any }): string[] {
  const found: string[] = [];
  const error = res.body?.error;
  const info = ERROR_CODES[error?.code as keyof typeof ERROR_CODES];
  if (
    res.status < 400 ||
    res.status >= 500 ||
    !info ||
    info.status !== res.status ||
    typeof error.message !== "string"
  ) {
    return [`answered ${res.status} ${shown(res.body)}`];
  }
  const notFound = probe.mayBeNotFound && res.status === 404 && error.code.endsWith("_NOT_FOUND");
  const details: { path: string; message: string }[] = error.details ?? [];
  const aboutField = details
    .filter((d) => d.path === probe.field || d.path.startsWith(`${probe.field}.`))
    .map((d) => d.message);
  if (!notFound && (error.code !== "VALIDATION_ERROR" || aboutField.length === 0))
    found.push(`answered ${res.status} ${error.code} without a detail at ${probe.field}: ${shown(details)}`);
  for (const message of [error.message, ...details.map((d) => d.message)]) {
    if (LIBRARY_PHRASING.test(message)) found.push(`a library's phrasing: "${message}"`);
  }
  const listed = details.map((d) => `${d.path}: ${d.message}`);
  if (new Set(listed).size < listed.length) found.push(`a detail listed twice: ${shown(details)}`);
  const messages = notFound ? [error.message] : aboutField;
  for (const pattern of probe.says ?? [])
    if (!messages.some((m) => pattern.test(m))) found.push(`does not say ${pattern}: ${shown(messages)}`);
  for (const pattern of probe.neverSays ?? [])
    if (messages.some((m) => pattern.test(m))) found.push(`says ${pattern}: ${shown(messages)}`);
  return found;
}

describe("error messages", () => {
  it("recognises a library's phrasing (else the sweep below could pass on anything)", () => {
    const zodSays = (schema: z.ZodType, input: unknown) =>
      schema.safeParse(input, { error: en().localeError }).error!.issues.map((i) => i.message);
    const said = [
      ...zodSays(z.string().min(8), "zzz"),
      ...zodSays(z.string(), 5),
      ...zodSays(z.string(), undefined),
      ...zodSays(z.enum(["A", "B"]), "C"),
      ...zodSays(z.number().max(1), 2),
      ...zodSays(z.array(z.string()).min(1), []),
      ...zodSays(z.strictObject({}), { a: 1 }),
      ...zodSays(z.uuid(), "x"),
      ...zodSays(z.iso.datetime(), "x"),
      ...zodSays(z.string().regex(/^a$/), "b"),
      ...zodSays(z.coerce.number(), "x"),
    ];
    expect(said).toHaveLength(11);
    for (const message of said) expect(message).toMatch(LIBRARY_PHRASING);
  });

  it("says a query parameter was given twice only when it is one the operation takes, once per parameter", async () => {
    const account = await createAccount();
    const details = async (url: string) => {
      const res = await call("GET", url, { token: account.token });
      expect(res.status, url).toBe(400);
      return res.body.error.details;
    };
    const twice = "is given more than once; give it once";
    expect(await details("/v1/candidates?metadata[a]=1&metadata[a]=2")).toEqual([
      { path: "metadata[a]", message: twice },
    ]);
    expect(await details("/v1/candidates/export?metadata[a]=1&metadata[a]=1")).toEqual([
      { path: "metadata[a]", message: twice },
    ]);
    expect(await details("/v1/notifications?candidate_alias=abcdefghij&candidate_alias=abcdefghij")).toEqual([
      { path: "candidate_alias", message: twice },
    ]);
    // Given once it would be refused all the same: it is unknown, not repeated.
    expect(await details("/v1/candidates?foo=1&foo=2")).toEqual([{ path: "foo", message: "is not a known field" }]);
    expect(await details(`/v1/api_keys/${account.tokenId}?x=1&x=1`)).toEqual([
      { path: "x", message: "is not a known field" },
    ]);
  });

  it("documents a 400 VALIDATION_ERROR on every operation: any refuses a query parameter it does not define", async () => {
    const doc = (await call("GET", "/v1/openapi.json")).body;
    const undocumented = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !/VALIDATION_ERROR/.test(op.responses?.["400"]?.description ?? ""))
        .map(([method]) => `${method} ${path}`),
    );
    expect(undocumented).toEqual([]);
  });

  it("refuses a query parameter with no name, where it would otherwise go unseen", async () => {
    const account = await createAccount();
    const unnamed = [
      { path: "", message: "is a query parameter with no name: give every parameter one, as in `limit=10`" },
    ];
    for (const url of ["/v1/candidates?=x&limit=1", "/v1/candidates?limit=1&=", "/v1/summary?=", "/v1/schemas?&=1"]) {
      const res = await call("GET", url, { token: account.token });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details, url).toEqual(unnamed);
    }
    // `=` inside a value, or an encoded `&` before it, is no unnamed parameter.
    expect((await call("GET", "/v1/candidates?customer_uuid==x", { token: account.token })).status).toBe(200);
    expect((await call("GET", "/v1/candidates?customer_uuid=a%26=b", { token: account.token })).status).toBe(200);
    // Nor is `&=` in the path: an alias may hold it.
    const alias = `odd&=alias-${crypto.randomUUID()}`;
    const made = await call("POST", "/v1/candidates", {
      token: account.token,
      json: { candidate_alias: alias, customer_uuid: "c", contract: contract() },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const read = await call("GET", `/v1/candidates/${alias}?`, { token: account.token });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.candidate_alias).toBe(alias);
  });

  it("refuses a query escape that is not UTF-8 at its parameter, never reading it as the literal text", async () => {
    const account = await createAccount();
    const notUtf8 = "is not valid percent-encoded UTF-8: encode the text as UTF-8, then percent-encode its bytes";
    for (const [url, path] of [
      ["/v1/summary?customer_uuid=%ED%A0%80", "customer_uuid"], // a lone surrogate's bytes
      ["/v1/candidates?customer_uuid=%FF", "customer_uuid"],
      ["/v1/candidates/export?metadata%5Bplan%5D=%C3", "metadata[plan]"],
      ["/v1/notifications?limit=1&candidate_alias=ab%E0%A4", "candidate_alias"],
      ["/v1/candidates?%FF=1", "%FF"],
    ]) {
      const res = await call("GET", url, { token: account.token });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details, url).toEqual([{ path, message: notUtf8 }]);
    }
    // An escaped `%`, `+` for a space and UTF-8 escapes are read as ever.
    for (const url of [
      "/v1/candidates?customer_uuid=%25FF",
      "/v1/candidates?customer_uuid=a+b",
      "/v1/candidates?customer_uuid=%C3%A9%F0%9F%98%80",
    ])
      expect((await call("GET", url, { token: account.token })).status, url).toBe(200);
  });

  it("refuses an alias whose escapes are not UTF-8, so one candidate never answers at two URLs; such an id is not found", async () => {
    const account = await createAccount();
    const api = client(account);
    const notUtf8 = "is not valid percent-encoded UTF-8: encode the text as UTF-8, then percent-encode its bytes";
    const alias = "order-%FF-0001"; // an alias may hold `%`: its URL escapes it as %25
    const made = await api.post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    for (const [method, url, path] of [
      ["GET", "/v1/candidates/order-%FF-0001", "candidate_alias"],
      ["GET", "/v1/candidates/order-%41%FF-0001", "candidate_alias"],
      ["PATCH", "/v1/candidates/order-%FF-0001", "candidate_alias"],
      ["POST", "/v1/candidates/order-%FF-0001/resolve", "candidate_alias"],
    ] as const) {
      const body = method === "GET" ? undefined : method === "PATCH" ? { metadata: { a: "b" } } : { outcome: "FAILED" };
      const res = await call(method, url, { token: account.token, json: body });
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body.error.details, `${method} ${url}`).toEqual([{ path, message: notUtf8 }]);
    }
    // An id is the service's own, never holding `%`: one that does not decode is none of the account's.
    for (const [method, url, code] of [
      ["GET", "/v1/schemas/%FF", "SCHEMA_NOT_FOUND"],
      ["DELETE", "/v1/schemas/%ED%A0%80", "SCHEMA_NOT_FOUND"], // a lone surrogate's bytes
      ["DELETE", "/v1/webhook_endpoints/%C3", "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["GET", "/v1/notifications/ab%E0%A4", "NOTIFICATION_NOT_FOUND"],
      ["GET", "/v1/api_keys/%FF", "API_KEY_NOT_FOUND"],
    ] as const) {
      const res = await call(method, url, { token: account.token });
      expect([res.status, res.body.error.code], `${method} ${url}`).toEqual([404, code]);
    }
    // Nothing changed, and the alias is read through its escaped `%`, as ever.
    const read = await call("GET", "/v1/candidates/order-%25FF-0001", { token: account.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ candidate_alias: alias, status: "OPEN", metadata: {} });
  });

  it("quotes a long id or path it could not find by its start and length, so the answer never grows with it", async () => {
    const account = await createAccount();
    const id = `${"x".repeat(31)}😀${"y".repeat(4000)}`; // the cut falls inside the emoji: kept whole or left out
    const shown = `'${"x".repeat(31)}…' (${id.length - 1} characters)`; // the emoji is one character
    for (const [path, message] of [
      [`/v1/schemas/${id}`, `No schema with id ${shown} exists in this account.`],
      [`/v1/api_keys/${id}`, `No API key with id ${shown} exists in this account.`],
      [`/v1/webhook_endpoints/${id}`, `No webhook endpoint with id ${shown} exists in this account.`],
      [`/v1/${id}`, `No endpoint exists at GET /v1/${"x".repeat(28)}… (${id.length + 3} characters).`],
    ]) {
      const res = await call("GET", path, { token: account.token });
      expect(res.status, path.slice(0, 40)).toBe(404);
      expect(res.body.error.message).toBe(message);
      expect(JSON.stringify(res.body).length).toBeLessThan(1000);
    }
    const page = await call("GET", `/docs/errors/${"x".repeat(5000)}`);
    expect(page.status).toBe(404);
    expect(page.body.error.message).toBe(`No documentation page exists for '${"x".repeat(32)}…' (5000 characters).`);
    // Up to 64 characters, an id is quoted whole.
    const short = "z".repeat(64);
    expect((await call("GET", `/v1/schemas/${short}`, { token: account.token })).body.error.message).toBe(
      `No schema with id '${short}' exists in this account.`,
    );
  });

  it("says only what is wrong with a value of the wrong type, not what its length would be as that type", async () => {
    const account = await createAccount();
    for (const candidate_alias of [["order-2026-0001"], ["a"], { length: 3 }, 12]) {
      const res = await call("POST", "/v1/candidates", {
        token: account.token,
        json: { customer_uuid: "c", candidate_alias, contract: contract() },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details, JSON.stringify(candidate_alias)).toEqual([
        { path: "candidate_alias", message: expect.stringMatching(/^must be a string; received an? /) },
      ]);
    }
  });

  it("refuses a wrong value in every parameter and body field of every operation in the service's own words", async () => {
    const doc = await openApiDocument();
    let account!: TestAccount;
    let sent = 0;
    const failures: string[] = [];
    const unprobed: string[] = [];
    for (const { method, path, op } of operations(doc)) {
      const probes = probesOf(doc, method, path, op);
      if (probes.length === 0 && (op.parameters?.length || op.requestBody)) unprobed.push(`${method} ${path}`);
      for (const probe of probes) {
        // A fresh account now and then: the probes outnumber one account's rate limit.
        if (sent++ % 400 === 0) account = await createAccount();
        const res = await call(probe.method, probe.url, {
          token: account.token,
          headers: probe.headers,
          ...(probe.body === undefined ? {} : { json: probe.body }),
        });
        failures.push(...faults(probe, res).map((fault) => `${probe.what}: ${fault}`));
      }
    }
    expect(unprobed).toEqual([]);
    expect(sent).toBeGreaterThan(200);
    expect(failures).toEqual([]);
  });
});
