/**
 * The API keys part of the client (`client.apiKeys`). Its POSTs carry an Idempotency-Key and retry
 * like every other. Create's and roll's answers hold the new key's secret: the service replays one
 * only to the API key (or dashboard session) that sent the request, so a retry after a lost answer
 * gets the secret, and the same Idempotency-Key from another key is 409 IDEMPOTENCY_KEY_REUSED.
 */
import type { Client } from "openapi-fetch";
import type { components, paths } from "./generated.ts";
import { defined, type CallOptions, type Loose } from "./call-options.ts";
import { paginate } from "./pages.ts";

export type ApiKey = components["schemas"]["ApiKey"];
export type ApiKeyWithSecret = components["schemas"]["ApiKeyWithSecret"];
export type Permission = ApiKey["permissions"][number];
export type CreateApiKeyBody = paths["/v1/api_keys"]["post"]["requestBody"]["content"]["application/json"];
export type ListApiKeysQuery = NonNullable<paths["/v1/api_keys"]["get"]["parameters"]["query"]>;

export function apiKeysClient(
  api: Client<paths>,
  data: <T>(result: { data?: T }) => T,
  init: (options: CallOptions) => { signal?: AbortSignal; headers?: Record<string, string> },
) {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    /** A new key; its `secret` is in this answer only. Without `permissions`: full access. */
    create: async (body: CreateApiKeyBody, options: CallOptions = {}): Promise<ApiKeyWithSecret> =>
      data(await api.POST("/v1/api_keys", { body, ...init(options) })),
    /** Every key of the account (optionally of one status), newest first, across pages. */
    list: (
      query: Loose<Omit<ListApiKeysQuery, "after">> = {},
      options: Pick<CallOptions, "signal"> = {},
    ): AsyncGenerator<ApiKey> =>
      paginate((cursor) =>
        api.GET("/v1/api_keys", { params: { query: { ...defined(query), ...cursor } }, ...init(options) }).then(data),
      ),
    get: async (id: string, options: Pick<CallOptions, "signal"> = {}): Promise<ApiKey> =>
      data(await api.GET("/v1/api_keys/{id}", { ...path(id), ...init(options) })),
    rename: async (id: string, name: string, options: Pick<CallOptions, "signal"> = {}): Promise<ApiKey> =>
      data(await api.PATCH("/v1/api_keys/{id}", { ...path(id), body: { name }, ...init(options) })),
    /**
     * A new key in its place (its `secret` in this answer only); the old one works `expiresIn` seconds more (default 0).
     * Rolling the key this client calls with: give it some overlap, or a lost answer cannot be retried (the retry's key
     * would be the old one, already ended) and the new secret is gone.
     */
    roll: async (
      id: string,
      options: CallOptions & { expiresIn?: number | undefined } = {},
    ): Promise<ApiKeyWithSecret> =>
      data(
        await api.POST("/v1/api_keys/{id}/roll", {
          ...path(id),
          body: options.expiresIn === undefined ? {} : { expires_in: options.expiresIn },
          ...init(options),
        }),
      ),
    /** Ends the key for good (within 10 seconds everywhere); revoking a revoked key changes nothing. */
    revoke: async (id: string, options: CallOptions = {}): Promise<ApiKey> =>
      data(await api.POST("/v1/api_keys/{id}/revoke", { ...path(id), body: {}, ...init(options) })),
  };
}
