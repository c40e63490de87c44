/**
 * The Hono app: middleware order, routes, the OpenAPI document, 404/405 and the one error handler.
 * Order: request id -> (errors caught by onError) -> auth on /v1 (a bearer key, else the dashboard's
 * session cookie) -> rate limit -> the response's Bookmark (account-db.ts) -> per-route body guards
 * -> zod validation -> handler.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { createMiddleware } from "hono/factory";
import type { Context } from "hono";
import { requireAccount } from "./auth";
import { bookmarks } from "./account-db";
import { publicRateLimit, rateLimit } from "./rate-limit";
import { ApiError, docsBaseUrl, errorBody, noEndpointAt, shortened } from "./errors/api-error";
import type { ErrorCode } from "./errors/codes";
import { validationHook } from "./errors/zod-issues";
import type { AppEnv } from "./app-env";
import { schemasRouter } from "./routes/schemas";
import { candidatesRouter } from "./routes/candidates";
import { candidatesExportRouter } from "./routes/candidates-export";
import { eventsRouter } from "./routes/events";
import { docsRouter, OPENAPI_PATH } from "./routes/docs";
import { webhooksRouter } from "./routes/webhooks";
import { webhookDeliveriesRouter } from "./routes/webhook-deliveries";
import { HEADER_COMPONENTS } from "./routes/shared/openapi";
import { notificationsRouter } from "./routes/notifications";
import { summaryRouter } from "./routes/summary";
import { apiKeysRouter } from "./routes/api-keys";
import { operatorGate } from "./operator/gate";
import { operatorRouter } from "./operator/routes";
import { dashboardHeaders } from "./dashboard/headers";
import { dashboardSessionRouter } from "./dashboard/session-routes";
import { dashboardPagesRouter } from "./dashboard/pages";

function errorResponse(c: Context<AppEnv>, error: ApiError) {
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.json(
    errorBody(error, docsBaseUrl(c.env.DOCS_URL, c.req.url), c.get("requestId")),
    error.status as ApiError["status"] & 400,
  );
}

/** Hono's own exceptions (from its validators and middleware) mapped onto our codes. */
const HTTP_EXCEPTION_CODES: Record<number, ErrorCode> = {
  400: "INVALID_JSON",
  404: "NOT_FOUND",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
};

function toApiError(err: unknown, requestId: string): ApiError {
  if (err instanceof ApiError) return err;
  const code = err instanceof HTTPException ? HTTP_EXCEPTION_CODES[err.status] : undefined;
  if (code) return new ApiError(code, err instanceof Error ? err.message : code);
  console.error(`request ${requestId} failed`, err);
  return new ApiError("INTERNAL_ERROR", "The service failed to complete the request. It has been logged.");
}

/**
 * Every /v1 route but the public OpenAPI document: authenticate, count against the limit, and
 * answer the bookmark of what the request read or wrote on the account's shard. The document is
 * counted per client address instead.
 */
const accountRequests = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.path === OPENAPI_PATH) return publicRateLimit(c, next);
  await requireAccount(c, async () => {
    await rateLimit(c, async () => {
      await bookmarks(c, next);
    });
  });
});

/** The document's introduction: what the API is, and the lifecycle every status follows. */
const API_DESCRIPTION = `Pay-per-result contracts: an account stores contract templates (schemas) and creates **candidates**,
one per customer outcome it tracks, each carrying an immutable contract. Events submitted against a candidate decide
whether it ends \`CONFIRMED\` (billable: its \`price\`) or \`FAILED\`.

## The lifecycle

A candidate is \`OPEN\` from its creation for \`activity_window\` seconds. The first event received in that window that
fulfils its condition makes it \`PENDING\` at once, with \`scheduled_outcome\` \`CONFIRMED\`; if the window ends first,
it becomes \`PENDING\` at the window's end with the \`scheduled_outcome\` its \`timeout_outcome\` gives. After
\`review_window\` more seconds (or a resolve) the scheduled outcome is final: \`CONFIRMED\` or \`FAILED\`.
\`status_since\` is always the exact instant the current status began, and every read is exact at the instant of the
request. Every status entered is also a notification (webhooks and the notifications feed).

Authenticate with \`Authorization: Bearer cct_...\`: an API key (\`/v1/api_keys\`). (The account dashboard's session
cookie also authenticates, with the same permissions and errors; a change made with it must come from the dashboard's own
pages: 403 \`CROSS_SITE_REQUEST\` otherwise.) A key holds permissions, each
\`resource:read\` or \`resource:write\` (\`write\` includes \`read\`); every operation names the one it needs (\`x-permission\`),
and a key without it is answered 403 \`PERMISSION_DENIED\`. Every POST takes an \`Idempotency-Key\`.
Errors are documented at [/docs/errors](/docs/errors).`;

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  // Always the service's own id: limitLength 0 makes Hono generate one even when the request sends
  // a Request-Id, which would otherwise be taken as it came (another request's id, say).
  app.use(requestId({ headerName: "Request-Id", limitLength: 0 }));
  app.use("/v1/*", accountRequests);

  app.route("/v1/schemas", schemasRouter);
  // Before the candidates router, whose `/{candidate_alias}` would take the path (an alias is 8+ characters).
  app.route("/v1/candidates/export", candidatesExportRouter);
  app.route("/v1/candidates", candidatesRouter);
  app.route("/v1/events", eventsRouter);
  app.route("/v1/webhook_endpoints", webhooksRouter);
  app.route("/v1/webhook_endpoints", webhookDeliveriesRouter);
  app.route("/v1/notifications", notificationsRouter);
  app.route("/v1/summary", summaryRouter);
  app.route("/v1/api_keys", apiKeysRouter);
  app.route("/docs", docsRouter);
  // The operator's API: only where OPERATOR_SECRET is set, only with it (operator/gate.ts).
  app.use("/operator/*", operatorGate);
  app.route("/operator/v1", operatorRouter);
  // The dashboard's sign-in and session: its own, not the API's (absent from the document).
  app.use("/dashboard/*", dashboardHeaders);
  app.route("/dashboard", dashboardSessionRouter);
  app.route("/dashboard", dashboardPagesRouter);

  for (const [name, header] of Object.entries(HEADER_COMPONENTS))
    app.openAPIRegistry.registerComponent("headers", name, header);
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API key (`cct_...`): from `POST /v1/api_keys`, or the accounts CLI for an account's first key.",
  });
  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Candidate Contract Service",
      version: "1.0.0",
      description: API_DESCRIPTION,
      license: { name: "Proprietary", url: `${new URL(c.req.url).origin}/docs` },
    },
    servers: [{ url: new URL(c.req.url).origin, description: "This service" }],
    security: [{ bearerAuth: [] }],
  }));

  const allowedMethods = methodsByPath(app.routes);
  // Answered, not thrown: Hono hands an error thrown here straight to onError, past the /v1
  // middleware that adds the RateLimit and Bookmark headers on the way out.
  app.notFound((c) => {
    const allowed = allowedMethods(c.req.path);
    if (allowed.length > 0) {
      c.header("Allow", allowed.join(", "));
      return errorResponse(
        c,
        new ApiError("METHOD_NOT_ALLOWED", `${c.req.method} is not allowed on ${shortened(c.req.path)}.`),
      );
    }
    return errorResponse(c, noEndpointAt(c.req.method, c.req.path));
  });
  app.onError((err, c) => errorResponse(c, toApiError(err, c.get("requestId"))));
  return app;
}

/**
 * For 405: which methods the app's routes accept on exactly this path. A trailing slash is another
 * path (404), as Hono routes it: never a 405 that names the method just refused.
 */
function methodsByPath(routes: { method: string; path: string }[]) {
  const patterns = routes
    .filter((r) => r.method !== "ALL")
    .map((r) => ({ method: r.method, regex: pathPattern(r.path) }));
  return (path: string) => {
    const methods = new Set(patterns.filter((p) => p.regex.test(path)).map((p) => p.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
}

/** `/v1/candidates/:alias` -> a regex matching exactly the concrete paths of that route. */
function pathPattern(routePath: string): RegExp {
  const segments = routePath
    .split("/")
    .map((s) => (s.startsWith(":") ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  return new RegExp(`^${segments.join("/")}$`);
}
