/** Binding parameters to D1 statements, which number them (`?N`): named ones, and fragments spliced in. */

import type { D1 } from "../shards.ts";

/** Named parameters (`:name`) of a statement; see `bindNamed`. */
export type Params = Record<string, string | number>;

/**
 * The fragment's SQL with its bare `?` numbered from `first` on (?first, ?first+1, ...): for a
 * statement that numbers its own parameters, so the fragment's follow them wherever it names them.
 */
export function numbered(sql: string, first: number): string {
  let next = first;
  return sql.replace(/\?/g, () => `?${next++}`);
}

/** Binds named parameters (`:name`) as D1's numbered ones: each name used, once, in order. */
export function bindNamed(db: D1, sql: string, params: Params): D1PreparedStatement {
  const used: string[] = [];
  const numbered = sql.replace(/:([a-z][a-z0-9]*)/g, (_, name: string) => {
    if (!(name in params)) throw new Error(`no parameter :${name}`);
    if (!used.includes(name)) used.push(name);
    return `?${used.indexOf(name) + 1}`;
  });
  return db.prepare(numbered).bind(...used.map((name) => params[name]));
}
