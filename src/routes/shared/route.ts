/**
 * Every /v1 operation is declared here, with the one permission it needs
 * (docs/keys-and-permissions.md): that one argument makes the check (middleware that runs before
 * the body is read), the document's `x-permission`, a sentence in the description and the 403
 * response. The permission test builds its requests from the document, so an operation declared any
 * other way fails it.
 */
import { createRoute as createOpenApiRoute, z, type RouteConfig } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ApiError, validationError, type ErrorDetail } from "../../errors/api-error";
import type { Permission } from "../../domain/permissions";
import type { AppEnv } from "../../app-env";
import { errorResponses } from "./openapi";

/** `GET /v1/schemas/{id}`, as the document and the message name an operation. */
const operationName = (method: string, routePath: string) =>
  `${method === "HEAD" ? "GET" : method} ${routePath.replace(/:([^/]+)/g, "{$1}")}`;

export const requirePermission = (permission: Permission) =>
  createMiddleware<AppEnv>(async (c, next) => {
    if (!c.get("apiKey").grant.allows.has(permission)) {
      const who = c.get("apiKey").session
        ? "This session (signed in with an API key, whose permissions it has)"
        : "This API key";
      throw new ApiError(
        "PERMISSION_DENIED",
        `${who} lacks \`${permission}\`, which ${operationName(c.req.method, c.req.routePath)} needs.`,
      );
    }
    await next();
  });

/** A query's name or value, or a path segment, as sent, decoded; undefined when its escapes are not UTF-8 (`%FF`, a lone surrogate). */
function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

const NOT_UTF8 = "is not valid percent-encoded UTF-8: encode the text as UTF-8, then percent-encode its bytes";

/**
 * What Hono's parsers would hide, refused at its parameter: escapes that are not UTF-8, in a path
 * parameter or the query, which Hono keeps as the literal text `%FF` (so `%FF` and `%25FF` would
 * name one candidate, or be one filter); and a query parameter with no name (`?=x`, `&=x`), which
 * it drops. In a query as sent, `&` inside a value is `%26`; a path (an alias) may hold `&=` as it is.
 */
const refuseMalformedEscapes = createMiddleware(async (c, next) => {
  const { url } = c.req;
  const query = url.indexOf("?");
  const problems: ErrorDetail[] = [];
  // Only a route with parameters has segments to look at (not the events' routes, the busiest).
  if (c.req.routePath.includes(":")) {
    const routeSegments = c.req.routePath.split("/");
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2), query === -1 ? undefined : query);
    path.split("/").forEach((segment, i) => {
      const param = routeSegments[i]?.startsWith(":") ? routeSegments[i].slice(1) : undefined;
      // An id is the service's own (a UUID, never a `%`): one that does not decode is just none of
      // the account's, answered 404 by its route as decisions.md has it ("malformed ids included").
      if (param !== undefined && param !== "id" && decoded(segment) === undefined)
        problems.push({ path: param, message: NOT_UTF8 });
    });
  }
  if (query !== -1) {
    for (const part of url.slice(query + 1).split("&")) {
      if (part.startsWith("=")) {
        problems.push({
          path: "",
          message: "is a query parameter with no name: give every parameter one, as in `limit=10`",
        });
        continue;
      }
      const [name, value = ""] = part.split(/=(.*)/s);
      const decodedName = decoded(name.replaceAll("+", " ")); // in a query, `+` is a space
      if (decodedName === undefined || decoded(value) === undefined)
        problems.push({ path: decodedName ?? name, message: NOT_UTF8 });
    }
  }
  if (problems.length > 0) throw validationError(problems);
  await next();
});

/** The query of an operation that takes none: any parameter is 400 "is not a known field". */
const NO_QUERY = z.strictObject({});

const asList = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export function createRoute<P extends string, R extends Omit<RouteConfig, "path"> & { path: P }>(
  permission: Permission,
  config: R,
) {
  // A change made with the dashboard's session cookie must come from the service's own origin.
  const { 403: denied } = errorResponses(
    "PERMISSION_DENIED",
    ...(["get", "head"].includes(config.method) ? [] : (["CROSS_SITE_REQUEST"] as const)),
  );
  return createOpenApiRoute({
    ...config,
    // A query parameter no operation defines is refused like an unknown body field, never ignored:
    // `?limt=1` must not quietly answer everything.
    request: { query: NO_QUERY, ...config.request },
    middleware: [requirePermission(permission), refuseMalformedEscapes, ...asList(config.middleware)],
    description: [
      config.description,
      `Needs the \`${permission}\` permission${permission.endsWith(":read") ? " (or its `write`)" : ""}.`,
    ]
      .filter(Boolean)
      .join("\n\n"),
    "x-permission": permission,
    responses: { ...config.responses, 403: denied },
  }) as unknown as ReturnType<typeof createOpenApiRoute<P, R>>;
}
