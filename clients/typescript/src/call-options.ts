/** Per call: an `AbortSignal` that stops it (retries and waits included), and for a POST the `Idempotency-Key` to use. */
export interface CallOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}
