/**
 * The account's text among the page's own words. An alias, an event type or a metadata value may
 * hold Unicode's invisible bidi controls (U+202E and its kin), which reorder the text after them:
 * left alone, one in an alias would turn the rest of a sentence, a title or a label around it.
 */

/** Unicode's bidirectional formatting characters: invisible, each reorders the text after it. */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The value with each bidi control written as its escape (`\u202e`): visible, and reordering nothing. */
export const escapedControls = (value: string) =>
  value.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * A value of the account's (an alias, an event type) set into the page's own words in a string (a
 * title, a picture's label, a button's name): its controls escaped (a PDI of its own would end the
 * isolation early), then isolated (FSI … PDI), as right-to-left letters still need. Elements that
 * show such values (`.mono`, `code`, `strong`) are isolated by the style sheet.
 */
export const isolated = (value: string) => `\u2068${escapedControls(value)}\u2069`;

/** JSON to read: JSON.stringify's with its bidi controls escaped (the same JSON), so none reorders it. */
export const readableJson = (value: unknown, indent?: number): string =>
  escapedControls(JSON.stringify(value, null, indent) ?? "");
