/**
 * API key permissions (decisions.md §5): `RESOURCE:LEVEL` strings, `write` including `read`. A key
 * stored without a list (NULL) has every permission. Shared by the keys API and the operator API;
 * imports only zod, so the Node scripts can load it too.
 */
import { z } from "zod";

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

const known = new Set<string>(PERMISSIONS);
export const isPermission = (value: string): value is Permission => known.has(value);

const PermissionSchema = z.enum(PERMISSIONS, {
  error: (issue) => `must be one of ${PERMISSIONS.join(", ")}; received ${JSON.stringify(issue.input) ?? "nothing"}`,
});

/**
 * A key's permissions as a request gives them: an unknown string is refused at its own index
 * (`permissions.2`), and so is a second mention of one already listed.
 */
export const PermissionsSchema = z.array(PermissionSchema).superRefine((list, ctx) => {
  list.forEach((value, i) => {
    if (list.indexOf(value) !== i) ctx.addIssue({ code: "custom", path: [i], message: `lists '${value}' a second time` });
  });
});
