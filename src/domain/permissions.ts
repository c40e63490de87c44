/**
 * What an API key may do (docs/keys-and-permissions.md): a list of `resource:level`, where `write`
 * includes `read`. A key stored without a list (NULL) has full access: every permission, including
 * any added later. Shared by the keys API, the auth check and the operator API (Node loads it too).
 */
import { z } from "@hono/zod-openapi";
/** Every permission, in the order the API lists them. */
export const PERMISSIONS = [
  "schemas:read",
  "schemas:write",
  "candidates:read",
  "candidates:write",
  "events:write",
  "webhooks:read",
  "webhooks:write",
  "notifications:read",
  "billing:read",
  "api_keys:read",
  "api_keys:write",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/** What a key may do, with `write` already expanded to its `read`, so a check is one lookup. */
export interface Grant {
  /** Null for full access. */
  readonly listed: readonly Permission[] | null;
  readonly allows: ReadonlySet<Permission>;
}

export const isPermission = (text: string): text is Permission => (PERMISSIONS as readonly string[]).includes(text);

/** The `read` a `write` includes. */
const readOf = (permission: Permission): Permission | null => {
  const read = permission.replace(/:write$/, ":read");
  return read !== permission && isPermission(read) ? read : null;
};

export const FULL_ACCESS: Grant = { listed: null, allows: new Set(PERMISSIONS) };

export function grantOf(listed: readonly Permission[] | null): Grant {
  if (listed === null) return FULL_ACCESS;
  const allows = new Set<Permission>();
  for (const permission of listed) {
    allows.add(permission);
    const read = readOf(permission);
    if (read) allows.add(read);
  }
  return { listed, allows };
}

/** A key's stored `permissions` column (JSON text, or NULL): its grant. Unknown entries grant nothing. */
export const grantOfStored = (stored: string | null): Grant =>
  grantOf(stored === null ? null : (JSON.parse(stored) as string[]).filter(isPermission));

/** What a key view shows: its list, or every permission for full access. */
export const listedPermissions = (grant: Grant): Permission[] => [...(grant.listed ?? PERMISSIONS)];

/** Permissions in the API's order, as stored. */
export const inOrder = (permissions: readonly Permission[]) => PERMISSIONS.filter((p) => permissions.includes(p));

/**
 * Why `holder` may not make (or, `rolling`, roll into being) a key with `wanted` (null: full
 * access), naming the first permission it lacks; null when it may: a key never makes a key that
 * can do more than itself, and only a full-access key makes a full-access one.
 */
export function escalation(holder: Grant, wanted: readonly Permission[] | null, rolling = false): string | null {
  if (holder.listed === null) return null;
  const missing = (wanted ?? PERMISSIONS).find((p) => !holder.allows.has(p));
  const lacks = missing && `this API key lacks \`${missing}\``;
  if (rolling)
    return wanted === null
      ? `Only a full-access key can roll a full-access key${lacks ? `, and ${lacks}` : ""}.`
      : lacks
        ? `Only a key holding every permission of a key can roll it, and ${lacks}.`
        : null;
  if (wanted === null)
    return `Only a full-access key can make a full-access key (one without \`permissions\`)${lacks ? `, and ${lacks}` : ""}; list the permissions the key needs.`;
  return lacks ? `This API key lacks \`${missing}\`, so it cannot give it to a key.` : null;
}

const PermissionSchema = z.enum(PERMISSIONS);

/**
 * A key's permissions as a request gives them: at least one, each known, none twice; a problem
 * is reported at its own index (`permissions.2`).
 */
export const PermissionsSchema = z
  .array(PermissionSchema, { error: 'must be an array of permissions, like ["events:write"]' })
  .min(1, { error: "must list at least one permission; leave `permissions` out for a full-access key" })
  .superRefine((permissions, ctx) => {
    permissions.forEach((permission, i) => {
      if (permissions.indexOf(permission) < i)
        ctx.addIssue({ code: "custom", path: [i], message: `names ${permission} a second time` });
    });
  });

/**
 * Why `holder` may not rename or revoke a key with `target`'s permissions (null: full access), or
 * null when it may: a key manages only keys that can do no more than it (itself included).
 */
export function outranks(holder: Grant, target: readonly Permission[] | null): string | null {
  if (holder.listed === null) return null;
  if (target === null) return "Only a full-access key can change a full-access key.";
  const missing = target.find((p) => !holder.allows.has(p));
  return missing
    ? `This API key lacks \`${missing}\`, which the key it would change holds: a key changes only keys that can do no more than it.`
    : null;
}
