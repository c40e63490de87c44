/**
 * The types of the tests' HTTP helper (api.ts), read from the OpenAPI document's generated types
 * (clients/typescript/src/generated.ts, `npm run openapi`): which documented operation a concrete
 * path is, what JSON it takes, and what it answers at each status.
 */
import type { paths } from "../../clients/typescript/src/generated";

export type Method = "get" | "post" | "patch" | "delete";

/** A documented path with each `{param}` as any string: "/v1/schemas/{id}" is `/v1/schemas/${string}`. */
type Pattern<Template extends string> = Template extends `${infer Head}{${string}}${infer Tail}`
  ? `${Head}${string}${Pattern<Tail>}`
  : Template;

/** The path without its query string (the query is not checked). */
type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;

/** A path's segments: "/v1/schemas/{id}" is ["", "v1", "schemas", "{id}"]. */
type Segments<P extends string> = P extends `${infer Head}/${infer Rest}` ? [Head, ...Segments<Rest>] : [P];

/**
 * Whether concrete segments fit a template's, one for one: a `{param}` takes any one segment, any
 * other must be the same. So `/v1/webhook_endpoints/${id}/deliveries${query}` fits no template
 * (its last segment is not "deliveries"), rather than `/v1/webhook_endpoints/{id}` by accident.
 */
type SegmentsFit<Concrete extends string[], Template extends string[]> = Concrete extends [
  infer C extends string,
  ...infer CRest extends string[],
]
  ? Template extends [infer T extends string, ...infer TRest extends string[]]
    ? (T extends `{${string}}` ? true : C extends T ? true : false) extends true
      ? SegmentsFit<CRest, TRest>
      : false
    : false
  : Template extends []
    ? true
    : false;

/** Every documented path with a `method` operation that the concrete path `P` fits. */
type Fitting<P extends string, M extends Method> = {
  [T in keyof paths & string]: paths[T] extends Record<M, object>
    ? SegmentsFit<Segments<WithoutQuery<P>>, Segments<T>> extends true
      ? T
      : never
    : never;
}[keyof paths & string];

/** Whether another of the fitting templates is narrower than `T` ("/v1/candidates/export" than "/v1/candidates/{candidate_alias}"). */
type HasNarrower<T extends string, All extends string> = true extends (
  All extends T ? false : Pattern<All> extends Pattern<T> ? true : false
)
  ? true
  : false;

/** The documented path a concrete one is: the narrowest that fits. */
export type TemplateOf<P extends string, M extends Method> = {
  [T in Fitting<P, M>]: HasNarrower<T, Fitting<P, M>> extends true ? never : T;
}[Fitting<P, M>];

/**
 * `P` itself when it is a documented `method` path, else a type no string has, so the call does not
 * compile (an undocumented path goes through `raw`).
 */
export type DocumentedPath<P extends string, M extends Method> = [TemplateOf<P, M>] extends [never]
  ? { "not a documented path for this method": M }
  : P;

type Operation<P extends string, M extends Method> = paths[TemplateOf<P, M>][M] extends infer Op extends {
  requestBody?: unknown;
  responses: object;
}
  ? Op
  : never;

/** The JSON body the operation takes (never when it takes none). */
export type RequestBody<P extends string, M extends Method> =
  NonNullable<Operation<P, M>["requestBody"]> extends { content: { "application/json": infer Body } } ? Body : never;

/** Whether the operation's body may be left out. */
export type BodyOptional<P extends string, M extends Method> = undefined extends Operation<P, M>["requestBody"]
  ? true
  : false;

/** The body as the helper reads it: parsed JSON, else the text ("" when there is none). */
type BodyOf<Response> = Response extends { content: { "application/json": infer Body } } ? Body : string;

type Responses<P extends string, M extends Method> = Operation<P, M>["responses"];

/** An answer: one variant per documented status, each with the body documented for it. */
export type Answer<P extends string, M extends Method> = {
  [S in keyof Responses<P, M> & number]: { status: S; headers: Headers; body: BodyOf<Responses<P, M>[S]> };
}[keyof Responses<P, M> & number];

export type SuccessStatus = 200 | 201 | 202 | 204;
