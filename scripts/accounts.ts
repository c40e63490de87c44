/**
 * The operator's tool (docs/keys-and-permissions.md): accounts, their API keys, dashboard sign-in
 * links.
 *
 * Local by default: it finds the running `npm run dev` (whatever --port or --ip it was given) in
 * .wrangler/dev-server.json and calls its operator API with the local secret `npm run dev` keeps
 * in .wrangler/operator.env; when none runs, it works on the local database itself
 * (lib/local-store.ts). `--remote`: the deployed service's operator API (--url or
 * CCS_OPERATOR_URL, secret in CCS_OPERATOR_SECRET).
 */
import { parseArgs } from "node:util";
import { orphanedDevServer, readOperatorSecret, runningDevServer, type DevServerState } from "./lib/local-dev.ts";
import { httpOperator, OperatorError, type Operator } from "./lib/operator.ts";
import { stopOnSignals } from "./lib/wrangler.ts";

/** Built when shown: the permission list's module loads zod, which a plain call need not wait for. */
const usage = async () => `Usage:
  npm run -s accounts -- create --name NAME [--json]
  npm run -s accounts -- list [--json]
  npm run -s accounts -- tokens create --account ACCOUNT_ID [--name NAME] [--permissions P,P,...] [--expires-at ISO] [--json]
  npm run -s accounts -- tokens list --account ACCOUNT_ID [--json]
  npm run -s accounts -- tokens revoke --token-id TOKEN_ID [--json]
  npm run -s accounts -- sign-in-link --account ACCOUNT_ID [--json]

Every command also takes --remote [--url URL]: the deployed service (URL from --url or
CCS_OPERATOR_URL, the operator secret from CCS_OPERATOR_SECRET). Without it, the local service:
the running 'npm run dev', or its database when none runs.
--permissions: comma-separated, from ${(await import("../src/domain/permissions.ts")).PERMISSIONS.join(",")}
(left out: full access). --json prints one line of JSON. Tokens are shown once, when created.`;

const COMMANDS = ["create", "list", "tokens create", "tokens list", "tokens revoke", "sign-in-link"];

class UsageError extends Error {}

function required(value: string | undefined, flag: string): string {
  if (!value || !value.trim()) throw new UsageError(`${flag} is required`);
  return value;
}

/** How long a dev server still starting (migrations, wrangler) is waited for. */
const START_WAIT_MS = 120_000;

/** The running dev server once it serves; null when none runs (or it stopped while starting). */
async function servingDevServer(): Promise<DevServerState | null> {
  const deadline = Date.now() + START_WAIT_MS;
  let said = false;
  for (let dev = runningDevServer(); dev; dev = runningDevServer()) {
    if (dev.origin) return dev;
    if (Date.now() > deadline)
      throw new OperatorError(
        "DEV_SERVER_NOT_READY",
        `npm run dev (pid ${dev.pid}) has not started serving after ${START_WAIT_MS / 1000} s.`,
      );
    if (!said) process.stderr.write("Waiting for npm run dev to finish starting...\n");
    said = true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

async function connect(remote: boolean, url: string | undefined): Promise<Operator> {
  if (remote) {
    const origin = url ?? process.env.CCS_OPERATOR_URL;
    const secret = process.env.CCS_OPERATOR_SECRET;
    if (!origin) throw new UsageError("--remote needs the service's URL: --url https://... or CCS_OPERATOR_URL");
    if (!secret)
      throw new UsageError(
        "--remote needs the operator secret in CCS_OPERATOR_SECRET (the value given to `wrangler secret put OPERATOR_SECRET`)",
      );
    if (!/^https:\/\//i.test(origin))
      throw new UsageError("--remote sends the operator secret: the service's URL must be https://");
    const parsed = URL.canParse(origin) ? new URL(origin) : null;
    if (!parsed || parsed.hostname === "")
      throw new UsageError(
        `--remote: '${origin.replace(/\/\/[^/]*@/, "//...@")}' is not a URL: the service's, e.g. https://ccs.example.com`,
      );
    if (parsed.username || parsed.password || parsed.search || parsed.hash || parsed.pathname !== "/")
      throw new UsageError(
        `--remote: the URL is the service's origin only (https://host[:port]), with no path, query, fragment or credentials; got ${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}${parsed.search || parsed.hash ? "?..." : ""}${parsed.username || parsed.password ? " (credentials left out)" : ""}`,
      );
    return httpOperator(parsed.origin, secret);
  }
  if (url) throw new UsageError("--url goes with --remote");
  const dev = await servingDevServer();
  if (dev) {
    const secret = readOperatorSecret();
    if (!secret)
      throw new OperatorError(
        "NO_OPERATOR_SECRET",
        "npm run dev runs, but .wrangler/operator.env is missing: restart npm run dev.",
      );
    return httpOperator(dev.origin!, secret);
  }
  const orphan = orphanedDevServer();
  if (orphan)
    throw new OperatorError(
      "DEV_SERVER_ORPHANED",
      `the last npm run dev was killed, but its workerd still runs and locks the local databases: stop it (kill -- -${orphan.group}), then try again.`,
    );
  // Loaded only here: Miniflare takes most of a second to import.
  const { localStore } = await import("./lib/local-store.ts");
  return localStore();
}

async function main(argv: string[]): Promise<number> {
  stopOnSignals();
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: "string" },
      account: { type: "string" },
      "token-id": { type: "string" },
      permissions: { type: "string" },
      "expires-at": { type: "string" },
      json: { type: "boolean", default: false },
      remote: { type: "boolean", default: false },
      url: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(await usage());
    return 0;
  }
  const command = positionals.join(" ");
  if (!COMMANDS.includes(command)) throw new UsageError(command ? `unknown command '${command}'` : "no command given");
  // Checked before connecting, so a mistyped call costs nothing.
  const accountId = ["tokens create", "tokens list", "sign-in-link"].includes(command)
    ? required(values.account, "--account")
    : "";
  if (command === "create") required(values.name, "--name");
  if (command === "tokens revoke") required(values["token-id"], "--token-id");

  const print = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json) : text);
  const operator = await connect(values.remote, values.url);
  try {
    switch (command) {
      case "create": {
        const { key, ...account } = await operator.createAccount(values.name!);
        print(
          { ...account, token_id: key.token_id, token: key.token },
          `Created account ${account.account_id} ("${account.name}", on ${account.shard}).\nToken ${key.token_id} (full access):\n\n  ${key.token}\n\nStore it now: it is not shown again.`,
        );
        break;
      }
      case "list": {
        const accounts = await operator.listAccounts();
        print(
          { accounts },
          accounts.length
            ? accounts
                .map((a) => `${a.account_id}  ${(a.shard ?? "?").padEnd(8)}  created ${a.created_at}  ${a.name}`)
                .join("\n")
            : "No accounts yet.",
        );
        break;
      }
      case "tokens create": {
        const permissions = values.permissions
          ?.split(",")
          .map((p) => p.trim())
          .filter(Boolean);
        const key = await operator.createKey(accountId, {
          name: values.name,
          permissions,
          expires_at: values["expires-at"],
        });
        const access = key.full_access ? "full access" : key.permissions.join(", ") || "no permissions";
        print(
          key,
          `Created token ${key.token_id} ("${key.name}", ${access}${key.expires_at ? `, expires ${key.expires_at}` : ""}) for account ${accountId}:\n\n  ${key.token}\n\nStore it now: it is not shown again.`,
        );
        break;
      }
      case "tokens list": {
        const tokens = await operator.listKeys(accountId);
        const lines = tokens.map(
          (t) =>
            `${t.token_id}  ${t.redacted}  ${t.status.padEnd(7)}  ${t.full_access ? "full access" : t.permissions.join(",") || "-"}  created ${t.created_at}  "${t.name}"`,
        );
        print(
          { account_id: accountId, tokens },
          lines.length ? lines.join("\n") : `No tokens for account '${accountId}'.`,
        );
        break;
      }
      case "tokens revoke": {
        const key = await operator.revokeKey(values["token-id"]!);
        print(
          { token_id: key.token_id, revoked: true, revoked_at: key.revoked_at },
          `Token ${key.token_id} is revoked (since ${key.revoked_at}). It stops working within 10 seconds.`,
        );
        break;
      }
      case "sign-in-link": {
        const link = await operator.signInLink(accountId);
        print(link, `Sign-in link for account ${accountId}, valid once until ${link.expires_at}:\n\n  ${link.url}`);
        // Made on the files: no server says where it will serve.
        if (!values.remote && !values.json && runningDevServer() === null)
          process.stderr.write(
            `\nNo npm run dev runs now: the link is for ${new URL(link.url).origin}, where it serves by default. Started on another port or address, open the same path and #code there.\n`,
          );
        break;
      }
    }
    return 0;
  } finally {
    await operator.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    const json = process.argv.includes("--json");
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"))) {
      const { message } = error as Error;
      console.error(
        json ? JSON.stringify({ error: { code: "INVALID_COMMAND", message } }) : `${message}\n\n${await usage()}`,
      );
      process.exit(2);
    }
    if (error instanceof OperatorError) {
      const { code, message, details, requestId } = error;
      console.error(
        json
          ? JSON.stringify({
              error: { code, message, ...(details ? { details } : {}) },
              ...(requestId ? { request_id: requestId } : {}),
            })
          : `${message}${requestId ? ` (request ${requestId}: the service's log says more)` : ""}`,
      );
    } else {
      console.error(
        json
          ? JSON.stringify({ error: { code: "FAILED", message: (error as Error).message } })
          : (error as Error).message,
      );
    }
    process.exit(1);
  },
);
