/**
 * A string's length in characters, as every limit of the API counts them: Unicode code points,
 * as JSON Schema's `maxLength` does (an emoji is one character, not two UTF-16 units).
 */
export const characters = (text: string): number => [...text].length;

/** Whether a name says something: not made only of white space (an empty one is refused on its own). */
export const notBlank = (text: string): boolean => text.length === 0 || text.trim() !== "";
