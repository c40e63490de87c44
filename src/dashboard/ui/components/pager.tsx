/** Paging through a list by cursor, kept in the address and the history entry. */
import { useLocation } from "preact-iso";

/**
 * Paging by cursor: Previous (or "First page" when the pages before are not known) and Next. Shown
 * even when the page failed to load (a cursor gone bad, a bookmark edited), so there is a way back.
 */
export function Pager({ cursor, next, loading }: { cursor: Cursor; next: string | null; loading: boolean }) {
  if (!cursor.hasPrevious && next === null) return null;
  // While a page loads, `next` is still the page before's: a second click (a double click) would go
  // to it again. So clicks wait. The buttons are never disabled, only marked so (aria-disabled): a
  // disabled button loses the focus, and a keyboard user reaching the last page would be left nowhere.
  // One with no page to go to looks unavailable (`unavailable`); one waiting for a page, busy.
  return (
    <nav class="pager" aria-label="Pages" aria-busy={loading}>
      <button
        type="button"
        class={cursor.hasPrevious ? "secondary" : "secondary unavailable"}
        aria-disabled={loading || !cursor.hasPrevious || undefined}
        onClick={() => !loading && cursor.hasPrevious && cursor.onPrevious()}
      >
        {cursor.previousIsFirst ? "← First page" : "← Previous"}
      </button>
      <button
        type="button"
        class={next === null ? "secondary unavailable" : "secondary"}
        aria-disabled={loading || next === null || undefined}
        onClick={() => !loading && next && cursor.onNext(next)}
      >
        Next →
      </button>
    </nav>
  );
}

/**
 * What a page's history entry remembers of its paging: the cursors of the pages before it, oldest
 * first, the first page as "". Empty or absent: the pages before are not known (a bookmark, a jump).
 */
interface PagingState {
  earlierCursors?: string[];
}

/**
 * The page of a list shown, kept in the address as `after=` (so Back, a reload and a bookmark keep
 * it; an address without it is the first page, so a new filter starts there). The cursors of the
 * pages before it ride in the history entry, for Previous; where they are not known, Previous is
 * "First page".
 */
export function useCursor() {
  const { url, query, route } = useLocation();
  const after = query.after || undefined;
  const earlier = (history.state as PagingState | null)?.earlierCursors ?? [];
  const go = (cursor: string | undefined, before: string[]) => {
    const to = new URL(url, location.origin);
    if (cursor) to.searchParams.set("after", cursor);
    else to.searchParams.delete("after");
    route(to.pathname + to.search);
    // preact-iso pushed the entry with no state: this page's paging goes into it (the address stays).
    history.replaceState({ ...(history.state as object | null), earlierCursors: before } satisfies PagingState, "");
  };
  return {
    after,
    hasPrevious: after !== undefined,
    previousIsFirst: after !== undefined && earlier.length === 0,
    onPrevious: () => go(earlier.at(-1), earlier.slice(0, -1)),
    onNext: (cursor: string) => go(cursor, [...earlier, after ?? ""]),
    /** To a page whose pages before are not known (the feed's newest): its Previous is "First page". */
    jumpTo: (cursor: string) => go(cursor, []),
    /** To the first page; false when it is shown already (the caller reads it again, if need be). */
    toFirst: () => after !== undefined && (go(undefined, []), true),
  };
}

export type Cursor = ReturnType<typeof useCursor>;
