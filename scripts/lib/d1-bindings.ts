/**
 * wrangler.toml's D1 databases (its `[[d1_databases]]` blocks): the primary and its shards
 * (src/shards.ts). The one list `npm run migrate`, `npm run dev` and the local tools go by.
 */
import { readFileSync } from "node:fs";

export interface D1Binding {
  binding: string;
  /** The id wrangler names its local copy by: the preview_database_id, else the database_id. */
  localId: string;
}

export function d1Bindings(): D1Binding[] {
  const toml = readFileSync("wrangler.toml", "utf8");
  return toml
    .split(/^\[\[d1_databases\]\][ \t]*$/m)
    .slice(1)
    .map((block) => {
      const table = block.split(/^\[/m)[0]; // up to the next table
      const value = (key: string) => new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m").exec(table)?.[1];
      const binding = value("binding");
      const localId = value("preview_database_id") ?? value("database_id");
      if (!binding || !localId)
        throw new Error("wrangler.toml has a [[d1_databases]] block without a binding and a database_id");
      return { binding, localId };
    });
}
