/**
 * Test helpers: accounts made straight in D1 (on their shards), and clients that call the worker over HTTP.
 *
 * Which call to use:
 * - `client(account).get/post/patch/delete(path, json)`: a request the API documents. The path is
 *   checked against the OpenAPI document (its query string is not), the JSON body is typed as the
 *   operation takes it, and the answer is typed per status: after `expectStatus(res, 201)`,
 *   `res.body` is what the document says a 201 carries; `okBody(res)` is a 2xx answer's body, and
 *   fails the test on anything else. A path must be written where the call is (a template literal
 *   is fine) for its type to be known; a query that depends on the answer before it is declared
 *   `string` first. `expectStatus` takes only the statuses the document lists for the operation:
 *   one it does not list is a gap in the document.
 * - `client(account).raw.get/post/patch/delete(path, json)`: the same request, untyped: for what the
 *   document says is wrong (a body of the wrong shape, a path it does not have), to see it refused.
 * - `call(method, path, options)`: anything else at the HTTP level: other headers, exact bytes, no
 *   token or another one.
 */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { CandidateObject } from "../../src/candidate/object";
import { uuidv7 } from "uuidv7";
import { insertAccountWithToken, insertKey, type KeyOptions, type NewAccount } from "../../src/db/accounts";
import { shardDb, shardsOf, type ShardName } from "../../src/shards";
import type { components } from "../../clients/typescript/src/generated";
import type { Answer, BodyOptional, DocumentedPath, Method, RequestBody, SuccessStatus } from "./api-types";

export type TestAccount = NewAccount;

/**
 * A new account and its first key: full access unless `key` says otherwise. Placed on a shard as
 * the operator API places accounts: the one with the fewest accounts, the first on a tie, so a
 * file's accounts take SHARD_0, SHARD_1, ... in turn, in the order they are made.
 */
export const createAccount = (name = "test", key: KeyOptions = {}): Promise<TestAccount> =>
  insertAccountWithToken(env.DB, name, Date.now(), key, shardsOf(env));

/** An account as made before shards existed: its data on the primary. */
export const createLegacyAccount = (name = "legacy"): Promise<TestAccount> =>
  insertAccountWithToken(env.DB, name, Date.now());

/** The database holding the account's data: its shard. */
export const dbOf = (account: { shard: ShardName }): D1Database => shardDb(env, account.shard);

/** Another key of the account (full access unless `options` say otherwise), as the account itself. */
export async function addKey(account: TestAccount, options: KeyOptions = {}): Promise<TestAccount> {
  const key = await insertKey(env.DB, account.id, options);
  return { id: account.id, tokenId: key.id, token: key.token, shard: account.shard };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls the worker; a JSON body is sent as JSON unless `raw` gives the exact bytes and headers. */
export async function call<T = any>(
  method: string,
  path: string,
  options: { token?: string; json?: unknown; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.raw;
  if (options.json !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = JSON.stringify(options.json);
  }
  const res = await SELF.fetch(`https://api.test${path}`, { method, headers, body });
  const text = await res.text();
  const type = res.headers.get("Content-Type") ?? "";
  return { status: res.status, headers: res.headers, body: type.includes("json") && text ? JSON.parse(text) : text };
}

/** The JSON argument of a typed call: none, optional or required, as the operation takes a body. */
type JsonArgument<P extends string, M extends Method> = [RequestBody<P, M>] extends [never]
  ? []
  : BodyOptional<P, M> extends true
    ? [json?: RequestBody<P, M>]
    : [json: RequestBody<P, M>];

type TypedCall<M extends Method> = <const P extends string>(
  path: P & DocumentedPath<P, M>,
  ...json: JsonArgument<P, M>
) => Promise<Answer<P, M>>;

export interface Client {
  get: TypedCall<"get">;
  post: TypedCall<"post">;
  patch: TypedCall<"patch">;
  delete: TypedCall<"delete">;
  /** The same calls untyped, for requests the document calls wrong. */
  raw: Record<Method, (path: string, json?: unknown) => Promise<ApiResponse>>;
}

/** A client bound to one account (see the top of this file for which call to use). */
export function client(account: TestAccount): Client {
  const as = (method: Method) => (path: string, json?: unknown) =>
    call(method.toUpperCase(), path, { token: account.token, json });
  const raw = { get: as("get"), post: as("post"), patch: as("patch"), delete: as("delete") };
  // The typed calls are the untyped ones: only their types differ.
  return { ...(raw as unknown as Omit<Client, "raw">), raw };
}

/** The variant of a typed answer with status `S`; an untyped one (status: number) as it is. */
type WithStatus<R extends { status: number }, S extends number> = number extends R["status"]
  ? R
  : Extract<R, { status: S }>;

/** Asserts the answer's status, and narrows `res.body` to what the document says that status carries. */
export function expectStatus<R extends { status: number }, const S extends R["status"]>(
  res: R,
  status: S,
  message?: string,
): asserts res is WithStatus<R, S> {
  expect(res.status, message).toBe(status);
}

/** The body of a 2xx answer; any other answer fails the test, with its status and body. */
export function okBody<R extends { status: number; body: unknown }>(res: R): WithStatus<R, SuccessStatus>["body"] {
  if (res.status < 200 || res.status > 299)
    throw new Error(`expected a 2xx answer, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The document's named shapes: `Schemas["Candidate"]`, `Schemas["Error"]`, ... */
export type Schemas = components["schemas"];

let aliasCounter = 0;
/** A globally fresh alias: test files share nothing, but the tests inside one file do. */
export const freshAlias = (label = "cand") => `${label}-${uuidv7()}-${++aliasCounter}`;

export type Contract = Schemas["Contract"];
export type CreateCandidateBody = Schemas["CreateCandidateBody"];

/** A valid contract, with `overrides`; an invalid one is built by spreading this into a raw call's body. */
export const contract = (overrides: Partial<Contract> = {}): Contract => ({
  price: 10,
  activity_window: 3600,
  review_window: 600,
  fulfillment_condition: { event: "purchase", gte: 100 },
  timeout_outcome: "fail",
  ...overrides,
});

/** A candidate of the account (customer "c") with `contract(over)`, created through the API. */
export async function createCandidate(account: TestAccount, over: Partial<Contract> = {}) {
  const alias = freshAlias();
  const res = await client(account).post("/v1/candidates", {
    customer_uuid: "c",
    candidate_alias: alias,
    contract: contract(over),
  });
  if (res.status !== 201) throw new Error(`candidate not created: ${res.status} ${JSON.stringify(res.body)}`);
  return { alias, created: res.body };
}

/**
 * The candidate's Durable Object stub, untyped: the generated RPC type of CandidateObject is too
 * deep for the test helpers' generics (see CandidateRpc).
 */
export const objectOf = (alias: string): DurableObjectStub =>
  env.CANDIDATES.getByName(alias) as unknown as DurableObjectStub;

/** Runs `fn` inside the candidate's object, with the instance and its state. */
export function inCandidate<R>(
  alias: string,
  fn: (instance: CandidateObject, state: DurableObjectState) => R | Promise<R>,
): Promise<R> {
  return runInDurableObject(objectOf(alias), fn as (instance: DurableObject, state: DurableObjectState) => R);
}
