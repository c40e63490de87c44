/** Reading the service's OpenAPI document as a client does: served by the worker, walked as JSON. */
import { SELF } from "cloudflare:test";

export type Schema = Record<string, any>;
export type Document = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };

export async function openApiDocument(): Promise<Document> {
  return (await SELF.fetch("https://api.test/v1/openapi.json")).json();
}

/** The schema a `$ref` names, with `allOf` parts merged: everything a value there must satisfy. */
export function resolve(doc: Document, schema: Schema | undefined): Schema | undefined {
  let s = schema;
  while (s?.$ref) s = doc.components.schemas[String(s.$ref).replace("#/components/schemas/", "")];
  if (!s?.allOf) return s;
  const { allOf, ...own } = s;
  return (allOf as Schema[]).reduce<Schema>((merged, part) => {
    const next = { ...merged, ...resolve(doc, part) };
    // An object's parts add up: the fields of each, and what each requires.
    if (merged.properties) next.properties = { ...merged.properties, ...next.properties };
    if (merged.required) next.required = [...new Set([...merged.required, ...(next.required ?? [])])];
    return next;
  }, own);
}

/** The name of the component a schema refers to, if it is a `$ref` (or an `allOf` around one). */
export const refName = (schema: Schema | undefined): string | undefined =>
  schema?.$ref?.replace("#/components/schemas/", "") ??
  (schema?.allOf as Schema[] | undefined)?.map(refName).find(Boolean);

export interface Operation {
  method: string;
  path: string;
  op: any;
}

export const operations = (doc: Document): Operation[] =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );

/** The example of an operation's JSON request body: the media type's, else its schema's. */
export function requestExample(doc: Document, op: any): unknown {
  const media = op.requestBody?.content?.["application/json"];
  return media && (media.example ?? resolve(doc, media.schema)?.example);
}

/** The path with each `{param}` replaced by `values[param]`, percent-encoded. */
export const fillPath = (path: string, values: Record<string, string>) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name]));
