/**
 * The permissions a key may hold, grouped by resource for the create form. The type is the
 * OpenAPI document's enum: the check below fails to compile when one is added there and not here.
 */
import type { Permission } from "../../session";

export const RESOURCES = [
  { name: "Schemas", levels: ["schemas:read", "schemas:write"] },
  { name: "Candidates", levels: ["candidates:read", "candidates:write"] },
  { name: "Events", levels: ["events:write"] },
  { name: "Webhooks", levels: ["webhooks:read", "webhooks:write"] },
  { name: "Notifications", levels: ["notifications:read"] },
  { name: "Billing", levels: ["billing:read"] },
  { name: "API keys", levels: ["api_keys:read", "api_keys:write"] },
] as const satisfies readonly { name: string; levels: readonly Permission[] }[];

export const ALL_PERMISSIONS: Permission[] = RESOURCES.flatMap((r) => [...r.levels]);

// Every permission of the document is listed above (the `satisfies` checks the converse).
type Listed = (typeof RESOURCES)[number]["levels"][number];
const _everyPermissionListed: [Exclude<Permission, Listed>] extends [never] ? true : never = true;

/** A write's read, which the write includes. */
export const readOf = (permission: Permission): Permission | null => {
  const read = permission.replace(/:write$/, ":read");
  return read !== permission && (ALL_PERMISSIONS as string[]).includes(read) ? (read as Permission) : null;
};

/** A key's permissions without the reads its writes include. */
export function compact(permissions: readonly Permission[]): Permission[] {
  return ALL_PERMISSIONS.filter((p) => permissions.includes(p) && !permissions.some((q) => readOf(q) === p));
}

/** What `can` a level says in the form: "read" or "write". */
export const levelOf = (permission: Permission) => permission.slice(permission.indexOf(":") + 1);
