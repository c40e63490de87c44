/**
 * The client's fetch: every attempt bounded in time, and retried when its answer may differ later
 * (429, 5xx, a network error; a key still held by an earlier attempt is asked about again soon).
 */
import { CandidateContractError, errorBody } from "./errors.ts";

/** How calls are retried (every field optional: `undefined` is the default too). */
export interface RetryOptions {
  /** Retries of a call after a 429, a 5xx or a network error (default 3). */
  maxRetries?: number | undefined;
  /** The first backoff, doubled on each retry, each wait a random share of it (default 500 ms); a 429 waits its `Retry-After`. */
  backoffMs?: number | undefined;
  /** How long one attempt may take before it counts as a network error and is retried (default 30 s). */
  timeoutMs?: number | undefined;
  /** The longest wait for one `Retry-After` (default 60 s): a longer one is answered as the error. */
  maxRetryAfterMs?: number | undefined;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch | undefined;
}

/** The longest a timer can wait (setTimeout's 32-bit limit: longer fires at once). */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Waits `ms`, or until `signal` aborts (then rejects with its reason). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(
      () => {
        signal.removeEventListener("abort", abort);
        resolve();
      },
      Math.min(ms, LONGEST_TIMER_MS),
    );
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", abort, { once: true });
  });
}

/** `Retry-After` in ms: whole seconds, or an HTTP date (RFC 9110); null when absent or anything else. */
function retryAfterMs(response: Response): number | null {
  const value = response.headers.get("Retry-After")?.trim();
  if (value === undefined) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) return null;
  const ms = Date.parse(value) - Date.now();
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}

/** The service's own error code in an answer (a proxy's page has none). */
async function serviceCode(response: Response): Promise<string | undefined> {
  const code = (await errorBody(response))?.error?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Whether an answer may differ later: 429, 5xx ("retry"), and 409 while an earlier attempt holds
 * the key ("held"); null when not. A POST without an Idempotency-Key is retried only after a 429,
 * which did nothing: a retry after anything else could do it twice.
 */
async function transience(request: Request, response: Response): Promise<"retry" | "held" | null> {
  if (response.status === 429) return "retry";
  if (request.method === "POST" && !request.headers.has("Idempotency-Key")) return null;
  if (response.status >= 500) return "retry";
  if (response.status !== 409) return null;
  return (await serviceCode(response)) === "IDEMPOTENCY_KEY_IN_USE" ? "held" : null;
}

/** How soon a key still held is asked about again: 250 ms, doubling up to 4 s. */
const HELD_POLL_MS = { first: 250, most: 4000 };

/** An answer read as it comes rather than whole: the CSV export's, which may be long. */
const isStreamed = (request: Request, response: Response) =>
  new URL(request.url).pathname.endsWith("/v1/candidates/export") &&
  (response.headers.get("Content-Type")?.startsWith("text/csv") ?? false);

/**
 * Whether an attempt that got no answer may have been carried out: only one that timed out
 * waiting, as it was sent. A refused connection, a name or certificate that failed, a reset (which
 * may come before sending; a browser does not say which) count as not done.
 */
const mayHaveBeenDone = (error: unknown) => (error as Error).name === "TimeoutError";

/**
 * A DELETE's 404 after an attempt that may have deleted the thing: that attempt's doing, so the
 * delete's success. Only the thing's own "not found" (not a route's, not a proxy's), and only after
 * a timed-out attempt or the service's own 5xx.
 */
async function deletedEarlier(response: Response, mayHaveDeleted: boolean): Promise<Response | null> {
  if (!mayHaveDeleted || response.status !== 404) return null;
  const code = await serviceCode(response);
  if (!code?.endsWith("_NOT_FOUND")) return null;
  return new Response(null, { status: 204, headers: response.headers }); // its Request-Id and Bookmark
}

/** What stopped an attempt, in words: a timeout, or the platform's reason (undici's is in its `cause`). */
function whyUnreachable(error: unknown): string {
  const { name, message, cause } = error as Error & { cause?: { code?: string; message?: string } };
  if (name === "TimeoutError") return message;
  const underneath = cause?.code ?? cause?.message;
  return underneath && !message.includes(underneath) ? `${message} (${underneath})` : message;
}

/** Statuses whose answer has no body (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch that retries what may succeed later. Every attempt of a POST carries the same
 * `Idempotency-Key` (set by `withIdempotencyKey`), so the service applies the request at most once.
 */
export function retryingFetch(options: RetryOptions): typeof fetch {
  const {
    maxRetries = 3,
    backoffMs = 500,
    maxRetryAfterMs = 60_000,
    timeoutMs = 30_000,
    fetch: send = globalThis.fetch.bind(globalThis),
  } = options;
  return async (input, init) => {
    const request = new Request(input, init);
    // While an earlier attempt holds the key: when its hold lapses, and how often it was asked.
    let holdLapses: number | null = null;
    let polls = 0;
    // A DELETE an earlier attempt of which may have carried out: its 404 now is that attempt's doing.
    let deletedBefore = false;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= maxRetries;
      // "Full jitter": clients failed by the same outage do not all come back at once.
      const backoff = Math.random() * backoffMs * 2 ** attempt;
      let response: Response;
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError")),
        Math.min(timeoutMs, LONGEST_TIMER_MS),
      );
      try {
        const answer = await send(request.clone(), { signal: AbortSignal.any([request.signal, timeout.signal]) });
        if (answer.ok && isStreamed(request, answer)) {
          // The export: handed on as it comes, as long as it takes (the caller's signal still stops it).
          clearTimeout(timer);
          return answer;
        }
        // Read within the attempt: a body that stops coming is a timed-out attempt too, retried.
        // A 204 (or 205, 304) has no body to copy, though a browser may give it an empty stream.
        const bytes = answer.body === null ? null : await answer.arrayBuffer();
        response =
          bytes === null || NULL_BODY_STATUSES.has(answer.status)
            ? new Response(null, answer)
            : new Response(bytes, answer);
      } catch (error) {
        if (request.signal.aborted) throw request.signal.reason;
        if (last || (request.method === "POST" && !request.headers.has("Idempotency-Key"))) {
          const key = request.headers.get("Idempotency-Key");
          throw new CandidateContractError(
            "NETWORK_ERROR",
            `The service could not be reached: ${whyUnreachable(error)}`,
            0,
            [],
            null,
            null,
            key,
            { cause: error },
          );
        }
        deletedBefore ||= request.method === "DELETE" && mayHaveBeenDone(error);
        // This call's own attempt may hold its key now: a new hold to wait for.
        holdLapses = null;
        polls = 0;
        await sleep(backoff, request.signal);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (request.method === "DELETE") {
        const deleted = await deletedEarlier(response, deletedBefore);
        if (deleted) return deleted;
        deletedBefore ||= response.status >= 500 && (await serviceCode(response)) !== undefined;
      }
      const kind = await transience(request, response);
      if (kind !== "held") {
        // Any other answer ends a hold: a later one (this call's own attempt, after a 5xx) is new.
        holdLapses = null;
        polls = 0;
      } else {
        // Retry-After is when the hold lapses, but the holder mostly answers long before: ask
        // again sooner (a held key changes nothing), counting no retry until the hold has lapsed
        // (or until the longest wait allowed).
        holdLapses ??= Date.now() + Math.min(retryAfterMs(response) ?? 0, maxRetryAfterMs);
        const poll = Math.min(HELD_POLL_MS.first * 2 ** polls++, HELD_POLL_MS.most, holdLapses - Date.now());
        if (poll > 0) {
          await response.body?.cancel();
          attempt--;
          await sleep(poll, request.signal);
          continue;
        }
      }
      if (last || kind === null) return response;
      const wait = retryAfterMs(response) ?? backoff;
      if (wait > maxRetryAfterMs) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}
