/** Per call: an `AbortSignal` that stops it (retries and waits included), and for a POST the `Idempotency-Key` to use. */
export interface CallOptions {
  /** Left out or null: the client makes one for the call. An error's `idempotencyKey` can be passed back as it is. */
  idempotencyKey?: string | null | undefined;
  signal?: AbortSignal | undefined;
}

/** A query as a caller may hold it: any filter may be `undefined`, which leaves it out. */
export type Loose<T> = { [K in keyof T]?: T[K] | undefined };

/** The query without its `undefined` filters, as the generated types (and the service) take it. */
export const defined = <T extends object>(query: Loose<T>): T =>
  Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as T;
