/**
 * The account dashboard, for now a command line:
 *
 *   npm run -s accounts -- create --name NAME [--json] [--remote]
 *   npm run -s accounts -- tokens create --account ID [--json] [--remote]
 *   npm run -s accounts -- tokens list --account ID [--json] [--remote]
 *   npm run -s accounts -- tokens revoke --token-id ID [--json] [--remote]
 *
 * Without --remote it works on the local database of `npm run dev` (also while that runs).
 */
import { parseArgs } from "node:util";
import { createAccount, createToken, listTokens, revokeToken } from "./lib/accounts.ts";
import { migrateLocal, type D1Target } from "./lib/d1.ts";
import { stopOnSignals } from "./lib/wrangler.ts";

const USAGE = `Usage:
  npm run -s accounts -- create --name NAME [--json] [--remote]
  npm run -s accounts -- tokens create --account ACCOUNT_ID [--json] [--remote]
  npm run -s accounts -- tokens list --account ACCOUNT_ID [--json] [--remote]
  npm run -s accounts -- tokens revoke --token-id TOKEN_ID [--json] [--remote]

Without --remote, commands use the local database that 'npm run dev' serves.
--json prints one line of JSON. Tokens are shown once, when created.`;

class UsageError extends Error {}

function required(value: string | undefined, flag: string): string {
  if (!value || !value.trim()) throw new UsageError(`${flag} is required`);
  return value;
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
      json: { type: "boolean", default: false },
      remote: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const target: D1Target = { remote: values.remote };
  const print = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json) : text);
  const command = positionals.join(" ");
  if (!["create", "tokens create", "tokens list", "tokens revoke"].includes(command)) {
    throw new UsageError(command ? `unknown command '${command}'` : "no command given");
  }
  if (!target.remote) await migrateLocal();

  switch (command) {
    case "create": {
      const name = required(values.name, "--name");
      if (name.length > 200) throw new UsageError("--name must be at most 200 characters");
      const issued = await createAccount(target, name);
      print(issued, `Created account ${issued.account_id} ("${name}").\nToken ${issued.token_id}:\n\n  ${issued.token}\n\nStore it now: it is not shown again.`);
      return 0;
    }
    case "tokens create": {
      const accountId = required(values.account, "--account");
      const issued = await createToken(target, accountId);
      if (!issued) return fail(`No account with id '${accountId}'.`, values.json);
      print(issued, `Created token ${issued.token_id} for account ${accountId}:\n\n  ${issued.token}\n\nStore it now: it is not shown again.`);
      return 0;
    }
    case "tokens list": {
      const accountId = required(values.account, "--account");
      const tokens = await listTokens(target, accountId);
      const lines = tokens.map((t) => `${t.token_id}  ${t.prefix}…  created ${t.created_at}  ${t.revoked_at ? `revoked ${t.revoked_at}` : "active"}`);
      print({ account_id: accountId, tokens }, lines.length ? lines.join("\n") : `No tokens for account '${accountId}'.`);
      return 0;
    }
    case "tokens revoke": {
      const tokenId = required(values["token-id"], "--token-id");
      const outcome = await revokeToken(target, tokenId);
      if (outcome === "not_found") return fail(`No token with id '${tokenId}'.`, values.json);
      print(
        { token_id: tokenId, revoked: true },
        outcome === "already" ? `Token ${tokenId} was already revoked.` : `Revoked token ${tokenId}. It stops working within 10 seconds (the token cache's lifetime, TOKEN_CACHE_TTL_MS in src/auth.ts).`,
      );
      return 0;
    }
  }
  return 0;
}

function fail(message: string, json: boolean): number {
  console.error(json ? JSON.stringify({ error: message }) : message);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`${(error as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error((error as Error).message);
    process.exit(1);
  },
);
