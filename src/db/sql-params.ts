/** Parameter numbering shared by statements that splice in a fragment of SQL made elsewhere. */

/**
 * The fragment's SQL with its bare `?` numbered from `first` on (?first, ?first+1, ...): for a
 * statement that numbers its own parameters, so the fragment's follow them wherever it names them.
 */
export function numbered(sql: string, first: number): string {
  let next = first;
  return sql.replace(/\?/g, () => `?${next++}`);
}
