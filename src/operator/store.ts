/**
 * What the operator does (docs/keys-and-permissions.md): accounts, their keys, and one-time
 * dashboard sign-in links, over a D1 database. The operator API runs it on the Worker; the accounts
 * CLI runs it on the local database itself when no `npm run dev` is serving. Node loads this file
 * too, so relative imports carry their extension and nothing here is Workers-only.
 */
import { uuidv7 } from "uuidv7";
import { z } from "zod";
import { ApiError, quoted } from "../errors/api-error.ts";
import { KeyNameSchema } from "../domain/key-name.ts";
import { PermissionsSchema } from "../domain/permissions.ts";
import { keyView as apiKeyView } from "../key-view.ts";
import { isoTime } from "../domain/iso-time.ts";
import { mintToken, randomBase64url } from "../tokens.ts";
import { sha256Hex } from "../hash.ts";
import { KEY_COLUMNS, MAX_KEYS_PER_ACCOUNT, roomForOneMoreKey, type KeyRow } from "../db/tokens.ts";
import { placeAccount } from "../db/accounts.ts";
import type { Shards } from "../shards.ts";

/** A sign-in link works once, within this long of its making. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
const MAX_ACCOUNTS_PAGE = 1000;

export const CreateAccountBody = z.strictObject({
  name: z.string().trim().min(1, "must not be empty").max(200, "must be at most 200 characters"),
});

export const CreateKeyBody = z.strictObject({
  name: KeyNameSchema.optional(),
  permissions: PermissionsSchema.optional(),
  expires_at: z.iso
    .datetime({ offset: true, abort: true, error: "must be an ISO 8601 instant, such as 2027-01-31T00:00:00Z" })
    .refine((at) => Date.parse(at) > Date.now(), "must be in the future")
    .refine(
      (at) => Date.parse(at) <= Date.parse("9999-12-31T23:59:59.999Z"),
      "must be no later than 9999-12-31T23:59:59.999Z",
    )
    .optional(),
});
export type CreateKeyInput = z.output<typeof CreateKeyBody>;

const LIMIT_MESSAGE = `must be a whole number from 1 to ${MAX_ACCOUNTS_PAGE}`;
export const ListAccountsQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^[0-9]{1,4}$/, LIMIT_MESSAGE)
    .transform(Number)
    .pipe(z.number().min(1, LIMIT_MESSAGE).max(MAX_ACCOUNTS_PAGE, LIMIT_MESSAGE))
    .default(100),
  starting_after: z.string().min(1).optional(),
});

export interface AccountView {
  account_id: string;
  name: string;
  created_at: string;
  /** The database holding its data: `SHARD_n`, or `DB` (the primary) for an account from before shards. */
  shard: string;
}

/**
 * A key as the operator sees it: as `/v1/api_keys` shows it (key-view.ts), its id named `token_id`
 * beside its account's, without the roll's `replaced_by`.
 */
export type KeyView = { token_id: string; account_id: string } & Omit<
  ReturnType<typeof apiKeyView>,
  "id" | "replaced_by"
>;

/** A key as made: the secret, shown this once. */
export type IssuedKey = KeyView & { token: string };

function keyView(row: KeyRow, now: number): KeyView {
  const { id, replaced_by: _replacedBy, ...shown } = apiKeyView(row, now);
  return { token_id: id, account_id: row.account_id, ...shown };
}

const accountNotFound = (accountId: string) =>
  new ApiError("ACCOUNT_NOT_FOUND", `No account has the id ${quoted(accountId)}.`);
const keyNotFound = (keyId: string) => new ApiError("API_KEY_NOT_FOUND", `No API key has the id ${quoted(keyId)}.`);

/**
 * The statement inserting a new key for the account, which inserts it only if the account exists
 * and has fewer than the maximum of keys not revoked: one statement, so two concurrent creations
 * cannot both pass the count.
 */
async function keyInsert(db: D1Database, accountId: string, input: CreateKeyInput, now: number) {
  const { token, hash, prefix, last4 } = await mintToken();
  const row: KeyRow = {
    id: uuidv7(),
    account_id: accountId,
    name: input.name ?? `Key created ${isoTime(now).slice(0, 10)}`,
    prefix,
    last4,
    permissions: input.permissions ? JSON.stringify(input.permissions) : null,
    created_at: now,
    expires_at: input.expires_at ? Date.parse(input.expires_at) : null,
    last_used_at: null,
    revoked_at: null,
    replaced_by: null,
  };
  const statement = db
    .prepare(
      `INSERT INTO api_tokens (id, account_id, token_hash, prefix, last4, name, permissions, created_at, expires_at)
       SELECT ?1, id, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM accounts
       WHERE id = ?9 AND ${roomForOneMoreKey("?9", "?10")}`,
    )
    .bind(row.id, hash, prefix, last4, row.name, row.permissions, now, row.expires_at, accountId, MAX_KEYS_PER_ACCOUNT);
  return { statement, issued: { ...keyView(row, now), token } };
}

async function accountExists(db: D1Database, accountId: string): Promise<boolean> {
  return (await db.prepare(`SELECT 1 FROM accounts WHERE id = ?`).bind(accountId).first()) !== null;
}

/**
 * A new account, placed on a shard (its anchor row written there first), then made in the
 * primary with its first key (full access, never expiring) in one transaction.
 */
export async function createAccount(
  db: D1Database,
  shards: Shards,
  name: string,
  now: number,
): Promise<AccountView & { key: IssuedKey }> {
  const accountId = uuidv7();
  const key = await keyInsert(db, accountId, { name: "First key" }, now);
  const placed = await placeAccount(db, shards, { id: accountId, name, createdAt: now });
  await db.batch([placed.statement, key.statement]);
  return { account_id: accountId, name, created_at: isoTime(now), shard: placed.shard, key: key.issued };
}

/** Accounts oldest first, a page at a time; `next` is the `starting_after` of the next page. */
export async function listAccounts(
  db: D1Database,
  { limit, starting_after }: z.output<typeof ListAccountsQuery>,
): Promise<{ data: AccountView[]; next: string | null }> {
  const after = starting_after
    ? await db
        .prepare(`SELECT created_at, id FROM accounts WHERE id = ?`)
        .bind(starting_after)
        .first<{ created_at: number; id: string }>()
    : null;
  if (starting_after && !after) throw accountNotFound(starting_after);
  const { results } = await db
    .prepare(
      `SELECT id, name, created_at, shard FROM accounts
       WHERE ?1 IS NULL OR (created_at, id) > (?1, ?2) ORDER BY created_at, id LIMIT ?3`,
    )
    .bind(after?.created_at ?? null, after?.id ?? null, limit + 1)
    .all<{ id: string; name: string; created_at: number; shard: string }>();
  const page = results
    .slice(0, limit)
    .map((r) => ({ account_id: r.id, name: r.name, created_at: isoTime(r.created_at), shard: r.shard }));
  return { data: page, next: results.length > limit ? page[page.length - 1].account_id : null };
}

export async function createKey(
  db: D1Database,
  accountId: string,
  input: CreateKeyInput,
  now: number,
): Promise<IssuedKey> {
  const key = await keyInsert(db, accountId, input, now);
  if ((await key.statement.run()).meta.changes === 1) return key.issued;
  if (!(await accountExists(db, accountId))) throw accountNotFound(accountId);
  throw new ApiError(
    "API_KEY_LIMIT_REACHED",
    `The account already has ${MAX_KEYS_PER_ACCOUNT} API keys that are not revoked (expired ones count until revoked): revoke one first.`,
  );
}

/** The account's keys, newest first (revoked ones too); never their secrets. */
export async function listKeys(db: D1Database, accountId: string, now: number): Promise<KeyView[]> {
  const [keys, account] = await db.batch<KeyRow | { id: string }>([
    db
      .prepare(`SELECT ${KEY_COLUMNS} FROM api_tokens WHERE account_id = ? ORDER BY created_at DESC, id DESC`)
      .bind(accountId),
    db.prepare(`SELECT id FROM accounts WHERE id = ?`).bind(accountId),
  ]);
  if (account.results.length === 0) throw accountNotFound(accountId);
  return (keys.results as KeyRow[]).map((row) => keyView(row, now));
}

/** Revokes a key for good (once; revoking it again changes nothing). */
export async function revokeKey(db: D1Database, keyId: string, now: number): Promise<KeyView> {
  const [, row] = await db.batch<KeyRow>([
    db.prepare(`UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`).bind(now, keyId),
    db.prepare(`SELECT ${KEY_COLUMNS} FROM api_tokens WHERE id = ?`).bind(keyId),
  ]);
  if (row.results.length === 0) throw keyNotFound(keyId);
  return keyView(row.results[0], now);
}

/**
 * A one-time dashboard sign-in link for the account: a random code, stored only as its SHA-256,
 * valid for SIGN_IN_LINK_TTL_MS. The code travels in the URL's fragment, which browsers never
 * send, so it reaches no server's log.
 */
export async function createSignInLink(db: D1Database, accountId: string, origin: string, now: number) {
  const code = randomBase64url(32);
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  const inserted = await db
    .prepare(
      `INSERT INTO sign_in_links (code_hash, account_id, created_at, expires_at) SELECT ?, id, ?, ? FROM accounts WHERE id = ?`,
    )
    .bind(await sha256Hex(code), now, expiresAt, accountId)
    .run();
  if (inserted.meta.changes !== 1) throw accountNotFound(accountId);
  return { account_id: accountId, url: `${origin}/dashboard/sign-in#code=${code}`, expires_at: isoTime(expiresAt) };
}
