/**
 * The operator's operations as the accounts CLI and `npm run dev` call them: over HTTP to a
 * service's operator API (/operator/v1, src/operator/routes.ts), or on the local database
 * directly (local-store.ts) when no dev server runs. Both answer the same shapes and fail with
 * an OperatorError carrying the API's error code.
 */
import type { AccountView, IssuedKey, KeyView } from "../../src/operator/store.ts";

export type { AccountView, IssuedKey, KeyView };
/** A key as asked for (the operator API validates it). */
export interface KeyRequest {
  name?: string;
  permissions?: string[];
  expires_at?: string;
}
export type NewAccount = AccountView & { key: IssuedKey };
export interface SignInLink {
  account_id: string;
  url: string;
  expires_at: string;
}

export interface Operator {
  createAccount(name: string): Promise<NewAccount>;
  /** Every account, oldest first. */
  listAccounts(): Promise<AccountView[]>;
  createKey(accountId: string, input: KeyRequest): Promise<IssuedKey>;
  listKeys(accountId: string): Promise<KeyView[]>;
  revokeKey(keyId: string): Promise<KeyView>;
  signInLink(accountId: string): Promise<SignInLink>;
  close(): Promise<void>;
}

/** What only the running service does. */
export interface HttpOperator extends Operator {
  /**
   * Queues again the webhook deliveries a stop lost, of notifications recorded before
   * `recordedBefore` (src/notifications/redrive.ts); answers how many.
   */
  redeliverLost(recordedBefore: Date): Promise<number>;
}

export class OperatorError extends Error {
  readonly code: string;
  readonly details?: { path: string; message: string }[];
  /** The service's id of the failed request: its log line says what went wrong. */
  readonly requestId?: string;
  constructor(code: string, message: string, details?: { path: string; message: string }[], requestId?: string) {
    super(message);
    this.code = code;
    this.details = details;
    this.requestId = requestId;
  }
}

/** How long a dev server that refuses connections (restarting) is retried before giving up. */
const REFUSED_RETRY_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;

const refused = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED";

/**
 * A request that got no answer. One that timed out may have been carried out (a POST: an account
 * or a key made): say so, rather than invite a second one.
 */
function unreachable(origin: string, method: string, error: unknown): OperatorError {
  const cause = (error as Error).cause as { code?: string; message?: string } | undefined;
  if ((error as Error).name === "TimeoutError") {
    const maybe =
      method === "POST" ? ": it may have been carried out, so check (`list`, `tokens list`) before trying again" : "";
    return new OperatorError("UNREACHABLE", `${origin} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s${maybe}.`);
  }
  if (cause?.code?.startsWith("ERR_SSL")) {
    return new OperatorError(
      "UNREACHABLE",
      `${origin} did not answer over HTTPS (${cause.code}): is it the service's https:// URL?`,
    );
  }
  return new OperatorError("UNREACHABLE", `${origin} did not answer: ${cause?.message ?? (error as Error).message}`);
}

/** The operator API of the service at `origin`. */
export function httpOperator(origin: string, secret: string): HttpOperator {
  async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init = {
      method,
      headers: {
        Authorization: `Bearer ${secret}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    };
    const deadline = Date.now() + REFUSED_RETRY_MS;
    let res: Response;
    for (;;) {
      try {
        res = await fetch(`${origin}/operator/v1${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        break;
      } catch (error) {
        // Refused: nothing was received, so trying again cannot do anything twice.
        if (refused(error) && Date.now() <= deadline) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        throw unreachable(origin, method, error);
      }
    }
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw unreachable(origin, method, error); // the answer stopped coming
    }
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OperatorError(
        "UNEXPECTED_RESPONSE",
        `${origin} answered ${res.status} with no JSON: is it this service?`,
        undefined,
        res.headers.get("Request-Id") ?? undefined,
      );
    }
    if (!res.ok) {
      const error = json?.error ?? {};
      if (res.status === 404 && error.code === "NOT_FOUND") {
        throw new OperatorError(
          "NO_OPERATOR_API",
          `${origin} has no operator API: is OPERATOR_SECRET set there (wrangler secret put OPERATOR_SECRET)?`,
        );
      }
      throw new OperatorError(
        error.code ?? `HTTP_${res.status}`,
        error.message ?? `${origin} answered ${res.status}.`,
        error.details,
        json?.request_id ?? res.headers.get("Request-Id") ?? undefined,
      );
    }
    return json as T;
  }
  const id = encodeURIComponent;
  return {
    createAccount: (name) => request("POST", "/accounts", { name }),
    async listAccounts() {
      const all: AccountView[] = [];
      let after: string | null = null;
      do {
        const page: { data: AccountView[]; next: string | null } = await request(
          "GET",
          `/accounts?limit=1000${after ? `&starting_after=${id(after)}` : ""}`,
        );
        all.push(...page.data);
        after = page.next;
      } while (after);
      return all;
    },
    createKey: (accountId, input) => request("POST", `/accounts/${id(accountId)}/keys`, input),
    listKeys: async (accountId) => (await request<{ data: KeyView[] }>("GET", `/accounts/${id(accountId)}/keys`)).data,
    revokeKey: (keyId) => request("POST", `/keys/${id(keyId)}/revoke`),
    signInLink: (accountId) => request("POST", `/accounts/${id(accountId)}/sign_in_links`),
    redeliverLost: async (recordedBefore) =>
      (await request<{ queued: number }>("POST", "/redeliveries", { recorded_before: recordedBefore.toISOString() }))
        .queued,
    close: async () => {},
  };
}
