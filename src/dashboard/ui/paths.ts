/** Where the dashboard lives: every page's address begins with it. */
export const BASE = "/dashboard";

/** A candidate's page: its alias is one path segment, whatever characters it holds. */
export const candidatePath = (alias: string) => `${BASE}/candidates/${encodeURIComponent(alias)}`;
