/**
 * The month's per-customer rows as a CSV file, made in the browser from the API's exact strings
 * (amounts are never parsed), then saved through a blob URL and a link's `download`.
 */
import type { Models } from "../../api";

type Row = Models["CustomerSummary"];

const HEADER = [
  "customer_uuid",
  "open_count",
  "open_amount",
  "pending_count",
  "pending_amount",
  "pending_scheduled_confirmed_count",
  "pending_scheduled_confirmed_amount",
  "confirmed_count",
  "confirmed_amount",
  "failed_count",
  "failed_amount",
];

/**
 * A text cell a spreadsheet would read as a formula (your own customer_uuid may start with `=`)
 * gets a leading `'`, so it stays text. Numbers and amounts are the API's and are left exact.
 */
export const textCell = (value: string) => (/^[=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** RFC 4180: a field holding a quote, comma or line break is quoted, its quotes doubled. */
export const quote = (field: string) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field);

export function customersCsv(rows: Row[]): string {
  const lines = rows.map((r) =>
    [
      textCell(r.customer_uuid),
      String(r.OPEN.count),
      r.OPEN.amount,
      String(r.PENDING.count),
      r.PENDING.amount,
      String(r.PENDING.scheduled_confirmed.count),
      r.PENDING.scheduled_confirmed.amount,
      String(r.CONFIRMED.count),
      r.CONFIRMED.amount,
      String(r.FAILED.count),
      r.FAILED.amount,
    ].map(quote),
  );
  return [HEADER, ...lines].map((fields) => `${fields.join(",")}\r\n`).join("");
}

/** Saves `text` as a file named `name`: a click on a link to a blob URL, which the CSP allows. */
export function saveFile(name: string, text: string, type = "text/csv;charset=utf-8") {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started by now; release the blob a little later, not before it was read.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
