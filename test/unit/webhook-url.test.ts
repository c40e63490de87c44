import { describe, expect, it } from "vitest";
import { webhookUrlProblem } from "../../src/notifications/webhook-url";

const LOOPBACK_REFUSED = "must be https:// to a public host (a loopback host is accepted only in local development)";
/** The message for a URL of another scheme, which it names as received. */
const NOT_HTTPS = (sent: string) => `must be https://; received ${sent}`;

/** The problem with `url` where loopback is refused (production) and where it is allowed (local development). */
const judged = (url: string) => ({ production: webhookUrlProblem(url, false), local: webhookUrlProblem(url, true) });
const everywhere = (problem: string | null) => ({ production: problem, local: problem });

describe("webhookUrlProblem", () => {
  it("takes https:// to a name or a public address, on any port", () => {
    for (const url of [
      "https://example.com/webhooks",
      "https://EXAMPLE.com./hooks?x=1#y",
      "https://example.com:8443/x",
      "https://example.com:1/x",
      "https://8.8.8.8/hooks",
      "https://172.32.0.1/",
      "https://[2606:4700::1111]/hooks",
      "https://[::ffff:8.8.8.8]/",
    ]) {
      expect(judged(url), url).toEqual(everywhere(null));
    }
  });

  it("refuses port 0, where nothing listens, on every host", () => {
    const problem = "must not name port 0, where nothing listens: name the receiver's port, or none";
    for (const url of ["https://example.com:0/x", "https://example.com:00/x", "http://127.0.0.1:0/x"])
      expect(judged(url), url).toEqual(everywhere(problem));
  });

  it("refuses what is not an absolute URL", () => {
    for (const url of ["", "not-a-url", "/webhooks", "example.com/webhooks", "https://[fe80::1%25eth0]/"]) {
      expect(judged(url), url).toEqual(everywhere("must be an absolute URL, like https://example.com/webhooks"));
    }
  });

  it("refuses spaces, control and invisible characters, which the parser would drop or encode, so the URL kept is the one used", () => {
    for (const url of [
      " https://example.com/x",
      "https://example.com/x ",
      "https://example.com/x\ny",
      "https://exam\tple.com/",
      "https://example.com/a b",
      "https://example.com/\u0000",
      "https://example.com/\u007f",
      "http://user@localhost/ x",
      "https://exa\u200bmple.com/", // zero-width space: the host parser drops it
      "https://exa\u00admple.com/", // soft hyphen, the same
      "https://example.com\ufeff/",
      "https://example.com/a\u00a0b",
      "https://example.com/a\u3000b",
      "https://example.com/\u2028",
      "https://example.com/\u0085",
      "https://example.com/\u202e",
      "https://example.com/\ue000", // private use
    ]) {
      expect(judged(url), JSON.stringify(url)).toEqual(
        everywhere(
          "must not contain spaces, control or invisible characters (percent-encode them in a path, like %20)",
        ),
      );
    }
    expect(judged("https://example.com/a%20b")).toEqual(everywhere(null));
    expect(judged("https://exämple.com/ü")).toEqual(everywhere(null)); // letters are not refused
  });

  it("refuses credentials in the URL, before anything else, loopback allowed or not", () => {
    for (const url of [
      "https://user:pw@example.com/",
      "https://user@example.com/",
      "https://:pw@example.com/",
      "http://user@localhost/",
      "ftp://user@example.com/",
    ]) {
      expect(judged(url), url).toEqual(
        everywhere("must not carry credentials; put a secret in the path or verify the signature"),
      );
    }
  });

  it("refuses every scheme but https://, and http:// to anything but loopback (on port 443 too)", () => {
    for (const [url, sent] of [
      ["ftp://example.com/", "ftp://"],
      ["javascript:alert(1)", "javascript:"],
      ["data:text/plain,x", "data:"],
      ["ws://example.com/", "ws://"],
      ["http://example.com/", "http://"],
      ["HTTP://example.com/", "HTTP://"],
      ["http://example.com:443/", "http://"],
      ["http://8.8.8.8/", "http://"],
    ]) {
      expect(judged(url), url).toEqual(everywhere(NOT_HTTPS(sent)));
    }
  });

  it("refuses private, link-local and other non-public IPv4 addresses, in every form the URL parser reads", () => {
    const cases: [string, string][] = [
      ["https://10.0.0.1/", "10.0.0.1 is private"],
      ["https://172.16.0.1/", "172.16.0.1 is private"],
      ["https://172.31.255.255/", "172.31.255.255 is private"],
      ["https://192.168.0.1/", "192.168.0.1 is private"],
      ["https://169.254.169.254/latest", "169.254.169.254 is link local"],
      ["https://100.64.0.1/", "100.64.0.1 is carrier grade nat"],
      ["https://0.0.0.0/", "0.0.0.0 is unspecified"],
      ["https://255.255.255.255/", "255.255.255.255 is broadcast"],
      ["https://224.0.0.1/", "224.0.0.1 is multicast"],
      ["https://240.0.0.1/", "240.0.0.1 is reserved"],
      // The URL parser writes hex, octal, integer and percent-encoded forms as dotted decimal first.
      ["https://0xa000001/", "10.0.0.1 is private"],
      ["https://167772161/", "10.0.0.1 is private"],
      ["https://012.0.0.1/", "10.0.0.1 is private"],
      ["https://%31%30.0.0.1/", "10.0.0.1 is private"],
      ["http://10.0.0.1:8080/", "10.0.0.1 is private"],
    ];
    for (const [url, why] of cases) expect(judged(url), url).toEqual(everywhere(`must be a public address (${why})`));
  });

  it("refuses non-public IPv6 addresses, and IPv4 ones written as IPv6 by the IPv4 address they carry", () => {
    const cases: [string, string][] = [
      ["https://[::]/", "[::] is unspecified"],
      ["https://[fe80::1]/", "[fe80::1] is link local"],
      ["https://[fc00::1]/", "[fc00::1] is unique local"],
      ["https://[fd12:3456::1]/", "[fd12:3456::1] is unique local"],
      ["https://[ff02::1]/", "[ff02::1] is multicast"],
      ["https://[fec0::1]/", "[fec0::1] is deprecated site local"],
      // IPv4-mapped: judged as the IPv4 address (the message quotes the host as the parser wrote it).
      ["https://[::ffff:10.0.0.1]/", "[::ffff:a00:1] is private"],
      ["https://[::ffff:169.254.169.254]/", "[::ffff:a9fe:a9fe] is link local"],
      // IPv4-compatible (deprecated), NAT64 and tunnel prefixes that embed an IPv4 address.
      ["https://[::a00:1]/", "[::a00:1] is ipv4 compatible"],
      ["https://[::7f00:1]/", "[::7f00:1] is ipv4 compatible"],
      ["https://[64:ff9b::a00:1]/", "[64:ff9b::a00:1] is rfc6052"],
      ["https://[2002:a00:1::]/", "[2002:a00:1::] is 6to4"],
      ["https://[2001::1]/", "[2001::1] is teredo"],
    ];
    for (const [url, why] of cases) expect(judged(url), url).toEqual(everywhere(`must be a public address (${why})`));
  });

  it("refuses loopback hosts in production, and takes them where allowed, over http:// too", () => {
    for (const url of [
      "https://localhost/",
      "https://LOCALHOST/",
      "https://localhost./",
      "https://app.localhost/",
      "https://app.localhost./",
      "http://localhost:8080/x",
      "https://127.0.0.1/",
      "http://127.0.0.1:9/x",
      "https://127.255.255.254/",
      "https://127.1/",
      "https://2130706433/",
      "https://0x7f000001/",
      "https://0177.0.0.1/",
      "https://[::1]/",
      "http://[::1]:8080/x",
      "https://[::ffff:127.0.0.1]/",
    ]) {
      expect(judged(url), url).toEqual({ production: LOOPBACK_REFUSED, local: null });
    }
  });

  it("judges a name by its form only: just `localhost` and the names under it count as loopback", () => {
    for (const url of [
      "https://localhost.example.com/",
      "https://notlocalhost/",
      "https://my-localhost/",
      "https://192.168.1.1.example.com/",
    ]) {
      expect(judged(url), url).toEqual(everywhere(null));
    }
    expect(judged("http://localhost.example.com/")).toEqual(everywhere(NOT_HTTPS("http://")));
  });
});
