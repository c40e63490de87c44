/** Per call: an `AbortSignal` that stops it (retries and waits included), and for a POST the `Idempotency-Key` to use. */
export interface CallOptions {
  /** Left out or null: the client makes one for the call. An error's `idempotencyKey` can be passed back as it is. */
  idempotencyKey?: string | null | undefined;
  signal?: AbortSignal | undefined;
}
