/**
 * Generated from the OpenAPI document, not written per route: for every operation it lists, a key
 * holding exactly the permission the operation declares is let through, and a key holding every
 * other permission is refused with 403 PERMISSION_DENIED naming it, with nothing changed. An
 * operation declared without a permission fails here.
 */
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import {
  addKey,
  call,
  client,
  contract,
  createAccount,
  expectStatus,
  freshAlias,
  okBody,
  type TestAccount,
} from "../support/api";
import { PERMISSIONS, type Permission } from "../../src/domain/permissions";
import { accountDatabases, shardDb } from "../../src/shards";

const doc = (await call("GET", "/v1/openapi.json")).body;

interface Operation {
  method: string;
  path: string;
  op: any;
}
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
  Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
);

/**
 * Real resources for path parameters, so a permitted write really writes (and a refused one is
 * seen to change nothing). A collection not listed here gets the parameter's documented example.
 */
const fixtures: Record<string, (account: TestAccount) => Promise<string>> = {
  "/v1/schemas/{id}": async (account) => okBody(await client(account).post("/v1/schemas", { contract: contract() })).id,
  "/v1/candidates/{candidate_alias}": async (account) => {
    const alias = freshAlias();
    await client(account).post("/v1/candidates", { customer_uuid: "c", candidate_alias: alias, contract: contract() });
    return alias;
  },
  "/v1/webhook_endpoints/{id}": async (account) =>
    okBody(await client(account).post("/v1/webhook_endpoints", { url: "http://127.0.0.1:9/hooks" })).id,
  "/v1/api_keys/{id}": async (account) => (await addKey(account, { permissions: ["schemas:read"] })).tokenId,
};

async function concretePath(account: TestAccount, { path, op }: Operation): Promise<string> {
  let concrete = path;
  for (const parameter of (op.parameters ?? []).filter((p: any) => p.in === "path")) {
    const template = path.slice(0, path.indexOf(`{${parameter.name}}`) + parameter.name.length + 2);
    const value = fixtures[template]
      ? await fixtures[template](account)
      : (parameter.example ?? parameter.schema?.example);
    concrete = concrete.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
  }
  return concrete;
}

function bodyOf(op: any): unknown {
  const json = op.requestBody?.content?.["application/json"];
  if (!json) return undefined;
  return json.example ?? doc.components.schemas[json.schema.$ref?.split("/").pop()]?.example ?? {};
}

/** Every row of every table, on the primary and every shard, that belongs to the account (but when a key was last used). */
async function accountState(accountId: string): Promise<string[]> {
  const rows: string[] = [];
  for (const shard of accountDatabases(env)) {
    const db = shardDb(env, shard);
    const tables = await db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'`,
      )
      .all<{ name: string }>();
    for (const { name } of tables.results) {
      const columns = await db.prepare(`SELECT name FROM pragma_table_info(?)`).bind(name).all<{ name: string }>();
      if (!columns.results.some((c) => c.name === "account_id")) continue;
      const { results } = await db
        .prepare(`SELECT * FROM "${name}" WHERE account_id = ?`)
        .bind(accountId)
        .all<Record<string, unknown>>();
      for (const row of results) rows.push(`${shard} ${name} ${JSON.stringify({ ...row, last_used_at: undefined })}`);
    }
  }
  return rows.sort();
}

const send = (token: string, method: string, path: string, json: unknown, headers: Record<string, string> = {}) =>
  call(method, path, { token, json, headers });

describe("the OpenAPI document", () => {
  it("declares exactly one known permission for every operation, with its 403 and a sentence", () => {
    expect(operations.length).toBeGreaterThan(25);
    for (const { method, path, op } of operations) {
      const permission = op["x-permission"];
      expect(
        PERMISSIONS,
        `${method} ${path} declares no permission (declare it with routes/shared/route.ts)`,
      ).toContain(permission);
      expect(op.description, `${method} ${path}`).toContain(`Needs the \`${permission}\` permission`);
      expect(op.responses["403"]?.description, `${method} ${path}`).toContain("PERMISSION_DENIED");
    }
  });
});

describe.each(operations)("$method $path", (operation) => {
  const { method, path, op } = operation;
  const permission = op["x-permission"] as Permission;
  const name = `${method} ${path}`;

  it("refuses a key holding every other permission with 403 naming it, and changes nothing", async () => {
    expect(PERMISSIONS, `${name} declares no permission`).toContain(permission);
    const account = await createAccount("permissions");
    const target = await concretePath(account, operation);
    // For a read, its write is left out too: it includes the read.
    const others = PERMISSIONS.filter((p) => p !== permission && p !== permission.replace(/:read$/, ":write"));
    const key = await addKey(account, { permissions: others });
    const before = await accountState(account.id);
    const res = await send(
      key.token,
      method,
      target,
      bodyOf(op),
      method === "POST" ? { "Idempotency-Key": crypto.randomUUID() } : {},
    );
    expectStatus(res, 403, `${name}: ${JSON.stringify(res.body)}`);
    expect(res.body.error).toMatchObject({ type: "permission_error", code: "PERMISSION_DENIED", status: 403 });
    expect(res.body.error.message).toBe(`This API key lacks \`${permission}\`, which ${name} needs.`);
    expect(await accountState(account.id)).toEqual(before);
  });

  it("refuses a query parameter it does not define with 400 at its path, and changes nothing", async () => {
    const account = await createAccount("permissions");
    const target = await concretePath(account, operation);
    const before = await accountState(account.id);
    const res = await send(account.token, method, `${target}?not_a_parameter=1`, bodyOf(op));
    expectStatus(res, 400, `${name}: ${JSON.stringify(res.body)}`);
    expect(res.body.error.details).toContainEqual({ path: "not_a_parameter", message: expect.any(String) });
    expect(await accountState(account.id)).toEqual(before);
  });

  it("lets through a key holding exactly that permission (and, for a read, its write)", async () => {
    const account = await createAccount("permissions");
    const target = await concretePath(account, operation);
    const grants: Permission[][] = [[permission]];
    const write = permission.replace(/:read$/, ":write") as Permission;
    if (write !== permission && PERMISSIONS.includes(write)) grants.push([write]);
    for (const permissions of grants) {
      const key = await addKey(account, { permissions });
      const res = await send(key.token, method, target, bodyOf(op));
      expect(res.status, `${name} with ${permissions}: ${JSON.stringify(res.body)}`).not.toBe(401);
      expect(res.status, `${name} with ${permissions}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
      // A permitted key may still be refused what it would give away (a key with more than it holds)
      // or a change to a key that can do more than it.
      if (res.status === 403)
        expect(res.body.error.message).toMatch(
          /cannot give it to a key|Only a full-access key can change|can do no more than it|Only a key holding every permission of a key can roll it/,
        );
    }
  });
});
