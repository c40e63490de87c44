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
  let cursor: Cursor = {};
  do {
    const { data, next_cursor } = await page(cursor);
    yield* data;
    // A cursor that does not move on would page the same items for ever.
    if (next_cursor === "" || (next_cursor !== null && next_cursor === cursor.after))
      throw new Error(`The service answered the cursor "${next_cursor}" again: its next page would be this one.`);
    cursor = next_cursor === null ? {} : { after: next_cursor };
  } while (cursor.after !== undefined);
}
