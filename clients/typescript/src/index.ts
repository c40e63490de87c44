/**
 * A typed client for the Candidate Contract Service.
 *
 * The request and response types are generated from the service's OpenAPI document
 * (`generated.ts`, by `npm run openapi`), so a wrong field is a type error before anything is sent.
 * On top of the generated calls (openapi-fetch):
 * - every POST carries an `Idempotency-Key` (yours, or one made for the call), reused by its
 *   retries, so a retried call never does anything twice; a call that still fails says its key
 *   (`error.idempotencyKey`): call again with it, and what the first attempt did is answered, not redone;
 * - 429 waits for `Retry-After`; 409 IDEMPOTENCY_KEY_IN_USE (an earlier attempt still holds the
 *   key) asks again after 250 ms, doubling up to 4 s, until that attempt's answer comes or its hold
 *   lapses (`Retry-After`); 5xx, network errors and attempts that do not answer in time (`timeoutMs`) retry
 *   with exponential backoff and jitter; a call aborted by its `signal` stops with the signal's reason;
 * - every other error is one `CandidateContractError` with the API's `code`, `details` and `request_id`
 *   (a key without the permission a call needs: `PERMISSION_DENIED`, its message naming the permission);
 * - the newest `Bookmark` the service answered goes back with every later call, so the client reads
 *   its own writes whichever read replica answers;
 * - the API keys calls (`apiKeys`): a lost answer of create or roll is replayed, secret included, to
 *   the same key only;
 * - list helpers iterate every page;
 * - `verifyWebhook` checks a webhook delivery's signature (Standard Webhooks).
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, paths } from "./generated.ts";
import { apiKeysClient } from "./api-keys.ts";
import { defined, type CallOptions, type Loose } from "./call-options.ts";
import { paginate, type Cursor, type Page } from "./pages.ts";
import { CandidateContractError, errorFromResponse, type ErrorBody, type ErrorCode } from "./errors.ts";
import { retryingFetch, type RetryOptions } from "./retrying-fetch.ts";

export type { components, paths, CallOptions, Cursor, Page, ErrorBody, ErrorCode, RetryOptions };
export { paginate, CandidateContractError, errorFromResponse };
export type { ApiKey, ApiKeyWithSecret, CreateApiKeyBody, ListApiKeysQuery, Permission } from "./api-keys.ts";
type Schemas = components["schemas"];
export type Contract = Schemas["Contract"];
export type Schema = Schemas["Schema"];
export type Candidate = Schemas["Candidate"];
export type CandidateWithEvents = Schemas["CandidateWithEvents"];
export type Event = Schemas["Event"];
export type Notification = Schemas["Notification"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type WebhookDeliveryAttempt = Schemas["WebhookDeliveryAttempt"];
export type WebhookTestAttempt = Schemas["WebhookTestAttempt"];
export type NotificationCause = Schemas["NotificationCause"];
export type ConditionNode = Schemas["ConditionNode"];
export type CreateCandidateBody = Schemas["CreateCandidateBody"];
export type EventBody = Schemas["EventBody"];
export type BatchEventItem = Schemas["BatchEventItem"];
export type BatchEventResult = Schemas["BatchEventResult"];
/** The body of a test delivery (`webhookEndpoints.test`): signed like a notification, but none. */
export interface WebhookTestEvent {
  id: string;
  type: "webhook.test";
  timestamp: string;
  data: { webhook_endpoint_id: string };
}
export type Summary = Schemas["Summary"];
export type CustomerSummary = Schemas["CustomerSummary"];

/** Every POST gets an Idempotency-Key (the caller's, or a new one), before its first attempt. */
const withIdempotencyKey: Middleware = {
  onRequest({ request }) {
    if (request.method === "POST" && !request.headers.has("Idempotency-Key"))
      request.headers.set("Idempotency-Key", crypto.randomUUID());
    return request;
  },
};

/**
 * Read-your-writes (the service reads through D1 read replicas): every answer's `Bookmark` names
 * the database it saw or wrote (the part before `:`) and a point of it; the newest one this client
 * has had of that database (those order as text) goes back with each later request, whose reads
 * then see at least that point. One of another database (the client now speaks for another
 * account, or the account moved) replaces it: the service ignores a bookmark of another database.
 */
function rememberBookmark(): Middleware {
  let newest: string | null = null;
  const database = (bookmark: string) => bookmark.slice(0, bookmark.indexOf(":") + 1);
  return {
    onRequest({ request }) {
      if (newest !== null && !request.headers.has("Bookmark")) request.headers.set("Bookmark", newest);
      return request;
    },
    onResponse({ response }) {
      const bookmark = response.headers.get("Bookmark");
      if (bookmark && (newest === null || database(bookmark) !== database(newest) || bookmark > newest))
        newest = bookmark;
      return undefined;
    },
  };
}

/** Non-2xx answers become a CandidateContractError with what the service said. */
const throwOnError: Middleware = {
  async onResponse({ request, response }) {
    if (response.ok) return undefined;
    throw await errorFromResponse(response, request.headers.get("Idempotency-Key"));
  },
};

/**
 * A streamed answer whose body `signal` stops too. The fetch's own link to the signal is held
 * weakly, and a garbage collection after the call returned could lose it: this one is held.
 */
function stoppedBy(response: Response, signal: AbortSignal | undefined): Response {
  if (!signal || response.body === null) return response;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  response.body.pipeTo(writable, { signal }).catch(() => {}); // the reader sees the abort
  return new Response(readable, response);
}

/** What a call answered: a successful call always has data (errors throw). */
const data = <T>(result: { data?: T }): T => result.data as T;

export interface ClientOptions extends RetryOptions {
  /** The service's address, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /**
   * An API key (`cct_...`). Leave it out in a page of the service's own dashboard: the browser sends
   * the session cookie with every call instead.
   */
  token?: string | undefined;
}

export type ListCandidatesQuery = NonNullable<paths["/v1/candidates"]["get"]["parameters"]["query"]>;
export type ListNotificationsQuery = NonNullable<paths["/v1/notifications"]["get"]["parameters"]["query"]>;
export type SummaryQuery = NonNullable<paths["/v1/summary"]["get"]["parameters"]["query"]>;
export type ExportCandidatesQuery = NonNullable<paths["/v1/candidates/export"]["get"]["parameters"]["query"]>;
export type DeliveriesQuery = NonNullable<paths["/v1/webhook_endpoints/{id}/deliveries"]["get"]["parameters"]["query"]>;

export function createCandidateContractClient(options: ClientOptions) {
  const api: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` },
    fetch: retryingFetch(options),
  });
  // Answers go through these last to first: the bookmark is kept before an error is thrown.
  api.use(withIdempotencyKey, throwOnError, rememberBookmark());
  /** A call's signal, and a POST's Idempotency-Key when the caller gives one (else the client makes one per call). */
  const init = ({ idempotencyKey, signal }: CallOptions) => ({
    ...(signal ? { signal } : {}),
    ...(idempotencyKey ? { headers: { "Idempotency-Key": idempotencyKey } } : {}),
  });

  return {
    /**
     * The generated client itself (with the retries and errors above), for any call. (An export
     * streamed through it is stopped by its signal only while the call runs: `candidates.export`
     * keeps the signal on the body.)
     */
    api,
    schemas: {
      create: async (contract: Contract, options: CallOptions & { name?: string | null | undefined } = {}) =>
        data(
          await api.POST("/v1/schemas", {
            body: { contract, ...(options.name === undefined ? {} : { name: options.name }) },
            ...init(options),
          }),
        ),
      /** Every schema of the account (at most 1,000), newest first, read page by page. */
      list: async (options: CallOptions = {}) => {
        const all: Schema[] = [];
        for await (const schema of paginate((cursor) =>
          api.GET("/v1/schemas", { params: { query: { ...cursor, limit: 100 } }, ...init(options) }).then(data),
        ))
          all.push(schema);
        return all;
      },
      get: async (id: string, options: CallOptions = {}) =>
        data(await api.GET("/v1/schemas/{id}", { params: { path: { id } }, ...init(options) })),
      /** Changes a schema's contract or name for candidates created after; those made before keep theirs. */
      update: async (
        id: string,
        body: paths["/v1/schemas/{id}"]["patch"]["requestBody"]["content"]["application/json"],
        options: CallOptions = {},
      ) => data(await api.PATCH("/v1/schemas/{id}", { params: { path: { id } }, body, ...init(options) })),
      /** Deletes a schema; candidates created from it keep their contracts. */
      delete: async (id: string, options: CallOptions = {}) => {
        await api.DELETE("/v1/schemas/{id}", { params: { path: { id } }, ...init(options) });
      },
    },
    candidates: {
      create: async (
        body: paths["/v1/candidates"]["post"]["requestBody"]["content"]["application/json"],
        options: CallOptions = {},
      ) => data(await api.POST("/v1/candidates", { body, ...init(options) })),
      get: async (alias: string, options: CallOptions = {}) =>
        data(
          await api.GET("/v1/candidates/{candidate_alias}", {
            params: { path: { candidate_alias: alias } },
            ...init(options),
          }),
        ),
      /** Every candidate matching the query, newest first, across pages. */
      list: (query: Loose<Omit<ListCandidatesQuery, "after">> = {}, options: CallOptions = {}) =>
        paginate((cursor) =>
          api
            .GET("/v1/candidates", { params: { query: { ...defined(query), ...cursor } }, ...init(options) })
            .then(data),
        ),
      /** Merges metadata changes into the candidate's (a key set to "" is removed). */
      updateMetadata: async (alias: string, metadata: Record<string, string>, options: CallOptions = {}) =>
        data(
          await api.PATCH("/v1/candidates/{candidate_alias}", {
            params: { path: { candidate_alias: alias } },
            body: { metadata },
            ...init(options),
          }),
        ),
      /** The list's filters as CSV: the response's body streams it (`.body`), or read it whole with `.text()`. */
      export: async (query: Loose<ExportCandidatesQuery> = {}, options: CallOptions = {}) =>
        stoppedBy(
          (
            await api.GET("/v1/candidates/export", {
              params: { query: defined(query) },
              parseAs: "stream",
              ...init(options),
            })
          ).response,
          options.signal,
        ),
      /** Makes an OPEN or PENDING candidate final now: void (FAILED), confirm, or end its review. */
      resolve: async (alias: string, outcome: "CONFIRMED" | "FAILED", options: CallOptions = {}) =>
        data(
          await api.POST("/v1/candidates/{candidate_alias}/resolve", {
            params: { path: { candidate_alias: alias } },
            body: { outcome },
            ...init(options),
          }),
        ),
    },
    events: {
      submit: async (
        body: paths["/v1/events"]["post"]["requestBody"]["content"]["application/json"],
        options: CallOptions = {},
      ) => data(await api.POST("/v1/events", { body, ...init(options) })),
      /** Up to 100 events: one result per item, each `{ status: 201, event, candidate }` or `{ status, error }`. */
      submitBatch: async (
        events: paths["/v1/events/batch"]["post"]["requestBody"]["content"]["application/json"]["events"],
        options: CallOptions = {},
      ) => data(await api.POST("/v1/events/batch", { body: { events }, ...init(options) })).data,
    },
    /** What the account bills, exact now: per status, count and exact amount; optionally one customer's, in a range. */
    summary: async (query: Loose<Omit<SummaryQuery, "group_by" | "after" | "limit">> = {}, options: CallOptions = {}) =>
      data(await api.GET("/v1/summary", { params: { query: defined(query) }, ...init(options) })) as Summary,
    /** The same per customer, in customer_uuid order, across pages. */
    summaryByCustomer: (query: Loose<Omit<SummaryQuery, "group_by" | "after">> = {}, options: CallOptions = {}) =>
      paginate(
        async (cursor) =>
          data(
            await api.GET("/v1/summary", {
              params: { query: { ...defined(query), group_by: "customer_uuid", ...cursor } },
              ...init(options),
            }),
          ) as Page<CustomerSummary>,
      ),
    notifications: {
      /** Every notification after `after` (an id), oldest first, across pages. */
      list: (query: Loose<ListNotificationsQuery> = {}, options: CallOptions = {}) =>
        paginate(async (cursor) =>
          data(
            await api.GET("/v1/notifications", {
              params: { query: { ...defined(query), ...cursor } },
              ...init(options),
            }),
          ),
        ),
      get: async (id: string, options: CallOptions = {}) =>
        data(await api.GET("/v1/notifications/{id}", { params: { path: { id } }, ...init(options) })),
      /** Queues the notification for delivery again to one endpoint (202: the delivery log shows how it went). */
      resend: async (id: string, webhookEndpointId: string, options: CallOptions = {}) =>
        data(
          await api.POST("/v1/notifications/{id}/resend", {
            params: { path: { id } },
            body: { webhook_endpoint_id: webhookEndpointId },
            ...init(options),
          }),
        ),
    },
    webhookEndpoints: {
      create: async (
        body: paths["/v1/webhook_endpoints"]["post"]["requestBody"]["content"]["application/json"],
        options: CallOptions = {},
      ) => data(await api.POST("/v1/webhook_endpoints", { body, ...init(options) })),
      list: async (options: CallOptions = {}) => data(await api.GET("/v1/webhook_endpoints", init(options))).data,
      get: async (id: string, options: CallOptions = {}) =>
        data(await api.GET("/v1/webhook_endpoints/{id}", { params: { path: { id } }, ...init(options) })),
      /** Changes the URL, description, events or status (`enabled`, `disabled`) of an endpoint. */
      update: async (
        id: string,
        body: paths["/v1/webhook_endpoints/{id}"]["patch"]["requestBody"]["content"]["application/json"],
        options: CallOptions = {},
      ) => data(await api.PATCH("/v1/webhook_endpoints/{id}", { params: { path: { id } }, body, ...init(options) })),
      delete: async (id: string, options: CallOptions = {}) => {
        await api.DELETE("/v1/webhook_endpoints/{id}", { params: { path: { id } }, ...init(options) });
      },
      /** A new signing secret (`whsec_...`, in this answer only); the old one keeps signing alongside it for 24 h. */
      rotateSecret: async (id: string, options: CallOptions = {}) =>
        data(
          await api.POST("/v1/webhook_endpoints/{id}/rotate_secret", {
            params: { path: { id } },
            body: {},
            ...init(options),
          }),
        ),
      /** Every delivery attempt of an endpoint, newest first, across pages; filtered by notification or status. */
      deliveries: (
        id: string,
        query: Loose<Omit<DeliveriesQuery, "after" | "limit">> = {},
        options: CallOptions = {},
      ) =>
        paginate((cursor) =>
          api
            .GET("/v1/webhook_endpoints/{id}/deliveries", {
              params: { path: { id }, query: { ...defined(query), ...cursor } },
              ...init(options),
            })
            .then(data),
        ),
      /** Sends a signed `webhook.test` event to the endpoint now and answers how that attempt went. */
      test: async (id: string, options: CallOptions = {}) =>
        data(await api.POST("/v1/webhook_endpoints/{id}/test", { params: { path: { id } }, ...init(options) })),
    },
    apiKeys: apiKeysClient(api, data, init),
  };
}

export type CandidateContractClient = ReturnType<typeof createCandidateContractClient>;

/**
 * Verifies a webhook delivery with the endpoint's secret (`whsec_...`) and returns what it
 * carries: a notification, or a test event (`type` "webhook.test", from `webhookEndpoints.test`);
 * throws if the signature or timestamp does not hold. Pass the raw body, exactly as received, and
 * its headers (a `Headers`, or a plain record such as Node's `request.headers`).
 */
export function verifyWebhook(
  secret: string,
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
): Notification | WebhookTestEvent {
  // Any Headers-like object (the platform's, node-fetch's, undici's) or a plain record.
  const entries =
    typeof (headers as Headers).entries === "function"
      ? [...(headers as Headers).entries()]
      : Object.entries(headers as Record<string, string | string[] | undefined>);
  const plain: Record<string, string> = {};
  for (const [name, value] of entries)
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  return new Webhook(secret).verify(body, plain) as Notification | WebhookTestEvent;
}
