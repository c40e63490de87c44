/**
 * The form of the service's ids (UUIDs, stored in lowercase). A path or cursor that is not one
 * names nothing: it is answered as not found without a lookup, never as a malformed request.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a UUID in its usual text form, in either case. */
export const isUuid = (text: string) => UUID.test(text);
