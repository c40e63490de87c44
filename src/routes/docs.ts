/** /docs: a short page for every error code, the target of each error's `doc_url`. */
import { Hono } from "hono";
import { html } from "hono/html";
import { ERROR_CODES, isErrorCode } from "../errors";
import { ApiError } from "../errors";
import type { AppEnv } from "../app-env";

const page = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title} · Candidate Contract Service</title>
  </head>
  <body>
    ${body}
  </body>
</html>`;

export const docsRouter = new Hono<AppEnv>()
  .get("/", (c) =>
    c.html(
      page(
        "Errors",
        html`<h1>Candidate Contract Service: errors</h1>
          <p>Every error response is <code>{ "error": { type, code, message, status, doc_url, details? }, "request_id" }</code>.
            The API itself is described at <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
          <ul>
            ${Object.entries(ERROR_CODES).map(
              ([code, info]) => html`<li><a href="/docs/errors/${code}">${code}</a> (${info.status})</li>`,
            )}
          </ul>`,
      ),
    ),
  )
  .get("/errors/:code", (c) => {
    const code = c.req.param("code");
    if (!isErrorCode(code)) throw new ApiError("NOT_FOUND", `No documentation page exists for '${code}'.`);
    const info = ERROR_CODES[code];
    return c.html(
      page(
        code,
        html`<h1>${code}</h1>
          <p>HTTP ${info.status}, <code>type: ${info.type}</code></p>
          <h2>When it happens</h2>
          <p>${info.when}</p>
          <h2>What to do</h2>
          <p>${info.fix}</p>
          <p><a href="/docs">All error codes</a></p>`,
      ),
    );
  });
