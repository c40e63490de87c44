/**
 * The feed is oldest first and pages only forwards (`after`), as a reader tailing it wants; a
 * person mostly wants the newest. There is no "newest first" read, so this walks forward from
 * where the reader is, 100 at a time, to find the `after` whose page holds the newest `size`
 * notifications; at most `maxReads` reads, so a very long feed takes more than one press.
 */
import { api, ok } from "../../api";

export type FeedFilters = {
  type?: "candidate.pending" | "candidate.confirmed" | "candidate.failed";
  candidate_alias?: string;
};

export interface Latest {
  /** The `after` of the page that ends at the newest notification reached (undefined: the feed's start). */
  after: string | undefined;
  /** Whether the walk reached the feed's end (else it stopped at `maxReads`). */
  reachedEnd: boolean;
  /** How many notifications the walk passed over. */
  passed: number;
}

export async function findLatest(
  from: string | undefined,
  filters: FeedFilters,
  size: number,
  maxReads = 50,
): Promise<Latest> {
  // The ids since `from`, only as many as the last page and the one before it need.
  let tail: string[] = [];
  let after = from;
  let passed = 0;
  for (let read = 0; read < maxReads; read++) {
    const page = await ok(api.GET("/v1/notifications", { params: { query: { ...filters, after, limit: 100 } } }));
    tail = [...tail, ...page.data.map((n) => n.id)].slice(-(size + 1));
    passed += page.data.length;
    if (page.next_cursor === null) return { after: tail.length > size ? tail[0] : from, reachedEnd: true, passed };
    after = page.next_cursor;
  }
  return { after: tail.length > size ? tail[0] : from, reachedEnd: false, passed };
}
