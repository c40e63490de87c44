/**
 * A per-isolate cache of credentials that authenticated (API keys, dashboard sessions), bounded in
 * bytes, each entry trusted for `ttlMs`: the bound on how long a revocation elsewhere goes unseen
 * here (docs/keys-and-permissions.md). Only what authenticated is ever put in, so a flood of bad
 * credentials can neither fill memory nor evict real ones. Map order is insertion order, so the
 * first entry is the oldest: evicted first when the cache is full. An entry past its trust stays
 * until evicted, as a record that the credential authenticated (`authenticatedWithin`).
 */
/** How long a cached credential is trusted: revocation takes effect within this. */
export const CREDENTIAL_CACHE_TTL_MS = 10_000;

/**
 * How long after a credential last authenticated in this isolate an address's block of failed
 * attempts (auth-failures.ts) spares it here: it guesses nothing, so a client behind an address
 * shared with a failing one (a NAT, a cloud's egress) keeps working. It is still looked up, so a
 * revocation holds as ever.
 */
export const SPARED_AFTER_AUTHENTICATING_MS = 24 * 60 * 60 * 1000;

export class CredentialCache<V> {
  private entries = new Map<string, { value: V; bytes: number; at: number }>();
  private bytes = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxBytes: number,
  ) {}

  /** The value cached under `key`, if its entry is still alive at `now`. */
  get(key: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    return entry && entry.at + this.ttlMs > now ? entry.value : undefined;
  }

  /** Whether `key` authenticated (was set) within the last `ms`, whether or not it is still trusted. */
  authenticatedWithin(key: string, ms: number, now: number): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.at + ms > now;
  }

  set(key: string, value: V, bytes: number, now: number) {
    this.delete(key);
    for (const [oldest] of this.entries) {
      if (this.bytes + bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    this.entries.set(key, { value, bytes, at: now });
    this.bytes += bytes;
  }

  delete(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Drops every entry whose value `matches`: a revocation holds at once in this isolate. */
  deleteWhere(matches: (value: V) => boolean) {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.delete(key);
  }

  stats() {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}

/** What an entry costs: UTF-16 bytes of its strings plus the Map's and object's overhead. */
export const entryBytes = (...strings: (string | null | undefined)[]) =>
  160 + 2 * strings.reduce((sum, s) => sum + (s?.length ?? 0), 0);
