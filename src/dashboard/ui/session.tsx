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

/**
 * A link to the dashboard page where something is done, when the session may do it; else the
 * page's name and the permission it lacks, so no one is sent to a page that refuses them.
 */
export function PermittedLink({ href, needs, children }: { href: string; needs: Permission; children: string }) {
  const can = useCan();
  if (can(needs)) return <a href={href}>{children}</a>;
  return (
    <>
      {children} (it needs <code>{needs}</code>, which this session lacks)
    </>
  );
}
