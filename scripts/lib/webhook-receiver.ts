/**
 * A real HTTP server that receives webhook deliveries, for the tests (started by vitest's global
 * setup) and the smoke run. Node code, not Workers code.
 *
 * POST /<name>/<status>[,<status>...] answers the n-th request to that path with the n-th status
 * (the last one repeats), or never answers for `hang`; `<status>~<ms>` answers that many ms late. GET /received/<name> gives what each path
 * under <name> received: method, path, headers and the raw body, in order.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: (name: string) => Received[];
  close: () => Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => resolve(body));
  });

export async function startReceiver(port = 0): Promise<Receiver> {
  const byName = new Map<string, Received[]>();
  const answered = new Map<string, number>();
  const server: Server = createServer(async (req, res) => {
    const [, first, second = ""] = (req.url ?? "/").split("/");
    if (req.method === "GET" && first === "received") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(byName.get(second) ?? []));
      return;
    }
    const body = await readBody(req);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    byName.set(first, [...(byName.get(first) ?? []), { path: req.url ?? "/", headers, body, at: Date.now() }]);
    const statuses = second.split(",").filter(Boolean);
    const n = answered.get(req.url ?? "") ?? 0;
    answered.set(req.url ?? "", n + 1);
    const [status, lateMs = "0"] = (statuses[Math.min(n, statuses.length - 1)] ?? "200").split("~");
    if (status === "hang") return; // never answers: the sender's timeout decides
    if (Number(lateMs) > 0) await new Promise((resolve) => setTimeout(resolve, Number(lateMs)));
    res.writeHead(Number(status), { "content-type": "text/plain" }).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    received: (name) => byName.get(name) ?? [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
