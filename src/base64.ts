/**
 * Standard base64 (with padding) of bytes, and back: what Web Crypto's outputs are stored and sent
 * as. For small values (keys, signatures, a sealed answer): the spread passes each byte as an argument.
 */
export const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
export const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
