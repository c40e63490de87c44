/** Lists a page at a time: what a page is, where the next starts, and every item across pages. */

/** A page of a list: its items, and the cursor of the next page (null on the last). */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** Where a page starts: after the item with this id, or (left out) at the first. Spread it into a list's query. */
export interface Cursor {
  after?: string;
}

/** Every item of a paged list, one page at a time. */
export async function* paginate<T>(page: (cursor: Cursor) => Promise<Page<T>>): AsyncGenerator<T> {
  // A cursor that comes back would page the same items for ever.
  const seen = new Set<string>();
  let cursor: Cursor = {};
  do {
    const { data, next_cursor } = await page(cursor);
    yield* data;
    if (next_cursor === "") throw new Error("The service answered an empty cursor: there is no next page to ask for.");
    if (next_cursor !== null && seen.has(next_cursor))
      throw new Error(`The service answered the cursor "${next_cursor}" again: its next pages would repeat.`);
    if (next_cursor !== null) seen.add(next_cursor);
    cursor = next_cursor === null ? {} : { after: next_cursor };
  } while (cursor.after !== undefined);
}
