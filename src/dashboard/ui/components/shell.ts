/** A string as one single-quoted shell word: a copied command runs with it as data, whatever it holds. */
export const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
