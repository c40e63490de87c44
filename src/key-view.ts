/**
 * An API key as every surface shows it, never with its secret: `/v1/api_keys`, and (under its own
 * names for the id) the operator API and the accounts CLI. Imports with extensions: Node loads
 * this file too, for the CLI.
 */
import type { KeyRow, KeyStatus } from "./db/tokens.ts";
import { grantOfStored, listedPermissions } from "./domain/permissions.ts";
import { isoTime, isoTimeOrNull } from "./domain/iso-time.ts";
import { TOKEN_PREFIX } from "./tokens.ts";

export const keyStatus = (row: KeyRow, now: number): KeyStatus =>
  row.revoked_at !== null ? "revoked" : row.expires_at !== null && row.expires_at <= now ? "expired" : "active";

/** A key as the API shows it at `now`. */
export const keyView = (row: KeyRow, now: number) => ({
  id: row.id,
  name: row.name,
  // Keys from before 0010 kept only their first characters.
  redacted: row.last4 === null ? `${row.prefix}…` : `${TOKEN_PREFIX}…${row.last4}`,
  permissions: listedPermissions(grantOfStored(row.permissions)),
  full_access: row.permissions === null,
  created_at: isoTime(row.created_at),
  expires_at: isoTimeOrNull(row.expires_at),
  last_used_at: isoTimeOrNull(row.last_used_at),
  revoked_at: isoTimeOrNull(row.revoked_at),
  replaced_by: row.replaced_by,
  status: keyStatus(row, now),
});
