/** Test helpers: accounts made straight in D1 (on their shards), and a small client that calls the worker over HTTP. */
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { expect } from "vitest";
import type { CandidateObject } from "../../src/candidate/object";
import { uuidv7 } from "uuidv7";
import { insertAccountWithToken, insertKey, type KeyOptions, type NewAccount } from "../../src/db/accounts";
import { shardDb, shardsOf, type ShardName } from "../../src/shards";

export type TestAccount = NewAccount;

/**
 * A new account and its first key: full access unless `key` says otherwise. Placed on a shard as
 * the operator API places accounts: the one with the fewest accounts, the first on a tie, so a
 * file's accounts alternate between SHARD_0 and SHARD_1 in the order they are made.
 */
export const createAccount = (name = "test", key: KeyOptions = {}): Promise<TestAccount> => insertAccountWithToken(env.DB, name, Date.now(), key, shardsOf(env));

/** An account as made before shards existed: its data on the primary. */
export const createLegacyAccount = (name = "legacy"): Promise<TestAccount> => insertAccountWithToken(env.DB, name, Date.now());

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

/** A client bound to one account. */
export function client(account: TestAccount) {
  const as = (method: string) => (path: string, json?: unknown) => call(method, path, { token: account.token, json });
  return { get: as("GET"), post: as("POST"), patch: as("PATCH"), delete: as("DELETE") };
}

/** Asserts the answer's status. */
export function expectStatus(res: { status: number }, status: number, message?: string) {
  expect(res.status, message).toBe(status);
}

/** The body of a 2xx answer; any other answer fails the test, with its status and body. */
export function okBody<T>(res: ApiResponse<T>): T {
  if (res.status < 200 || res.status > 299) throw new Error(`expected a 2xx answer, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

let aliasCounter = 0;
/** A globally fresh alias: test files share nothing, but the tests inside one file do. */
export const freshAlias = (label = "cand") => `${label}-${uuidv7()}-${++aliasCounter}`;

export const contract = (overrides: Record<string, unknown> = {}) => ({
  price: 10,
  activity_window: 3600,
  review_window: 600,
  fulfillment_condition: { event: "purchase", gte: 100 },
  timeout_outcome: "fail",
  ...overrides,
});

/** A candidate of the account (customer "c") with `contract(over)`, created through the API. */
export async function createCandidate(account: TestAccount, over: Record<string, unknown> = {}) {
  const alias = freshAlias();
  const res = await client(account).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract(over) });
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
