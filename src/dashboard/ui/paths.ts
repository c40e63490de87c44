/** Where the dashboard lives: every page's address begins with it. */
export const BASE = "/dashboard";
