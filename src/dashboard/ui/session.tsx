/**
 * The signed-in session, for every page: who it is, and `can(permission)`, by which pages hide or
 * disable what the session may not do (the API refuses it anyway: this only spares a person the 403).
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Models, Session } from "./api";

export type Permission = Models["ApiKey"]["permissions"][number];

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSession outside a signed-in page");
  return session;
}

/** Whether the session holds `permission` (a `write` includes its `read`). */
export function useCan(): (permission: Permission) => boolean {
  const { permissions } = useSession();
  return (permission) =>
    permissions.includes(permission) ||
    (permission.endsWith(":read") && permissions.includes(permission.replace(":read", ":write") as Permission));
}
