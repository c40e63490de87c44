/**
 * /docs: the interactive API reference (Scalar, rendered from /v1/openapi.json, its browser
 * bundle served from this Worker's static assets so it works with no internet), and a page for
 * every error code, the target of each error's `doc_url`.
 */
import { Hono } from "hono";
import { html, raw } from "hono/html";
import { Scalar } from "@scalar/hono-api-reference";
import { ERROR_CODES, isErrorCode } from "../errors/codes";
import { ApiError, quoted } from "../errors/api-error";
import type { AppEnv } from "../app-env";

export const OPENAPI_PATH = "/v1/openapi.json";

const page = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · Candidate Contract Service</title>
    <style>
      body { font: 16px/1.5 system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #1c1e21; }
      code { background: #f1f3f5; padding: 0.1em 0.3em; border-radius: 3px; }
    </style>
  </head>
  <body>
    ${body}
  </body>
</html>`;

/**
 * Scalar lays out its Authentication card's header on one line, which at common widths clips
 * "Required" under the scheme picker ("Authentication Requi|Selected Auth Type: ..."). Let the
 * picker wrap to a line of its own instead. Scalar's own CSS is scoped, hence `!important`;
 * `npm run test:docs` checks the header is whole, so a Scalar update that changes it shows.
 */
const AUTHENTICATION_HEADER_WRAPS = `
  div:has(> button h2 [data-testid="auth-indicator"]) { flex-wrap: wrap; padding-bottom: 0.25rem; }
  div:has(> button h2 [data-testid="auth-indicator"]) > div { padding-left: 0.5rem; }
  button:has(> h2 [data-testid="auth-indicator"]) { flex: 1 0 auto !important; }
`;

/** The error texts' one piece of markup: `code` spans. Everything else is escaped text. */
const withCode = (text: string) =>
  raw(text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/`([^`]+)`/g, "<code>$1</code>"));

export const docsRouter = new Hono<AppEnv>()
  .get(
    "/",
    Scalar({
      url: OPENAPI_PATH,
      pageTitle: "Candidate Contract Service API",
      // Self-hosted and offline: the bundle from this Worker, no fonts, no telemetry, no proxy
      // (requests go straight to this service), and none of Scalar's online features.
      cdn: "/docs/scalar.js",
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: "never",
      mcp: { disabled: true },
      ...{ agent: { disabled: true } }, // not in this version's types, read by its bundle
      authentication: { preferredSecurityScheme: "bearerAuth" },
      customCss: AUTHENTICATION_HEADER_WRAPS,
    }),
  )
  .get("/errors", (c) =>
    c.html(
      page(
        "Errors",
        html`<h1>Candidate Contract Service: errors</h1>
          <p>Every error response is <code>{ "error": { type, code, message, status, doc_url, details? }, "request_id" }</code>.
            The whole API is described in the <a href="/docs">API reference</a>.</p>
          <ul>
            ${Object.entries(ERROR_CODES).map(([code, info]) => html`<li><a href="/docs/errors/${code}">${code}</a> (${info.status})</li>`)}
          </ul>`,
      ),
    ),
  )
  .get("/errors/:code", (c) => {
    const code = c.req.param("code");
    if (!isErrorCode(code)) throw new ApiError("NOT_FOUND", `No documentation page exists for ${quoted(code)}.`);
    const info = ERROR_CODES[code];
    return c.html(
      page(
        code,
        html`<h1>${code}</h1>
          <p>HTTP ${info.status}, <code>type: ${info.type}</code></p>
          <h2>When it happens</h2>
          <p>${withCode(info.when)}</p>
          <h2>What to do</h2>
          <p>${withCode(info.fix)}</p>
          <p><a href="/docs/errors">All error codes</a> · <a href="/docs">API reference</a></p>`,
      ),
    );
  });
