/**
 * Where webhooks may be sent (docs/notifications.md): `https://` to a name or a public address; a
 * loopback host, over `http://` too, only where the service allows it (local development).
 */
import ipaddr from "ipaddr.js";

/** Whether a URL's host is loopback: a name under `localhost`, or a loopback address. */
const isLoopback = (host: string) =>
  host === "localhost" || host.endsWith(".localhost") || addressRange(host) === "loopback";

/**
 * The range of a host that is an IP address (ipaddr.js: "unicast" is the public internet; an
 * IPv4-mapped IPv6 address counts as its IPv4 one), or null for a name. The URL parser has
 * already written every IPv4 form (`127.1`, `2130706433`) as dotted decimal.
 */
function addressRange(host: string): string | null {
  const literal = host.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(literal)) return null;
  const address = ipaddr.process(literal);
  const range = address.range();
  // ::a.b.c.d (IPv4-compatible, deprecated) is "unicast" to ipaddr.js; it is no public address.
  const ipv4Compatible =
    address.kind() === "ipv6" && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0);
  return range === "unicast" && ipv4Compatible ? "ipv4Compatible" : range;
}

/**
 * The scheme named as it was sent ("HTTP://", "javascript:"), so the message says what was
 * received: `text` begins with the scheme, which the parser gives lowercased.
 */
function notHttps(text: string, url: URL) {
  const slashes = text.slice(url.protocol.length).startsWith("//") ? "//" : "";
  return `must be https://; received ${text.slice(0, url.protocol.length)}${slashes}`;
}

/**
 * Why a webhook URL is refused, or null: `https://` to a name or a public address; loopback
 * (`http://` too) only where allowed. Private, link-local and other non-public addresses never:
 * deliveries must not reach into the network the service runs in.
 */
export function webhookUrlProblem(text: string, allowLoopback: boolean): string | null {
  // The URL parser drops these (spaces and controls around the URL, tabs and newlines within,
  // invisible ones such as U+200B in a host) or encodes them: the URL stored and shown would not
  // be the one delivered to. Separators (\p{Z}) and controls, format, private-use and unassigned
  // code points (\p{C}).
  if (/[\p{Z}\p{C}]/u.test(text))
    return "must not contain spaces, control or invisible characters (percent-encode them in a path, like %20)";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL, like https://example.com/webhooks";
  }
  if (url.username || url.password)
    return "must not carry credentials; put a secret in the path or verify the signature";
  if (url.protocol !== "https:" && url.protocol !== "http:") return notHttps(text, url);
  if (url.port === "0") return "must not name port 0, where nothing listens: name the receiver's port, or none";
  // A fully qualified name's trailing dot names the same host: `localhost.` is `localhost`.
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  if (isLoopback(host)) {
    return allowLoopback
      ? null
      : "must be https:// to a public host (a loopback host is accepted only in local development)";
  }
  const range = addressRange(host);
  if (range !== null && range !== "unicast")
    return `must be a public address (${url.hostname} is ${range.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)})`;
  return url.protocol === "https:" ? null : notHttps(text, url);
}
