/** CSV as RFC 4180 writes it: fields quoted when they must be, quotes doubled, lines ended by CRLF. */

/** One field: quoted when it holds a comma, a quote, CR or LF. */
const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** One record, ended by CRLF; null is an empty field. */
export const csvLine = (values: (string | null)[]) => `${values.map((v) => field(v ?? "")).join(",")}\r\n`;
