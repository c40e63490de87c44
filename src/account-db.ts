/**
 * The account's data, on its shard, through one D1 session per request (docs/scale.md). D1's
 * Sessions API may send a session's reads to a read replica, but never to one older than what the
 * session has already seen, and its bookmark names that point.
 *
 * - A read (GET, HEAD) starts at the request's `Bookmark` header: a client that sends back the
 *   newest bookmark it was given reads at least its own writes, on whichever replica answers.
 *   Without one it may start anywhere (`first-unconstrained`).
 * - Any other method starts on the primary (`first-primary`): what it reads before it writes is
 *   current, and the header is not needed.
 * - The response carries the newest bookmark the request saw: its session's, or the one a
 *   candidate object's index write answered with (`noteBookmark`), whichever is later.
 *
 * A bookmark is D1's (locally as on Cloudflare) of one database, so ours names it: the shard, then
 * D1's, as `SHARD_1:0000007b-0000b26e-00001538-0c3e87bb...`. One from another shard than the
 * account's (a client that switched accounts, an account moved) is no point of this database: the
 * read starts anywhere, as without one. D1 orders a database's bookmarks as text, so of two on the
 * same shard the later is the greater. Locally a session may have none: no header.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { shardDb, type ShardName } from "./shards";
import { isSafeMethod } from "./same-origin";
import { validationError } from "./errors/api-error";
import type { AppEnv } from "./app-env";

export const BOOKMARK_HEADER = "Bookmark";
/** A shard's name, then D1's bookmark in its documented shape (hex of either case). */
const BOOKMARK_FORMAT = /^(DB|SHARD_\d+):([0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{8}-[0-9a-fA-F]{32})$/;

/** Our bookmark of D1's `bookmark` on `shard` (none without one). */
export const bookmarkOn = (shard: ShardName, bookmark: string | null | undefined): string | null =>
  bookmark ? `${shard}:${bookmark}` : null;

/** The later of two bookmarks of the same shard (either may be missing). */
export const newestBookmark = (a: string | null | undefined, b: string | null | undefined): string | null =>
  !a ? (b ?? null) : !b ? a : a > b ? a : b;

/**
 * D1's bookmark in the request's `Bookmark`, when it is of the account's shard; checked before it
 * reaches D1 (which would fail on a malformed one).
 */
function requestBookmark(c: Context<AppEnv>): string | undefined {
  const bookmark = c.req.header(BOOKMARK_HEADER);
  if (bookmark === undefined) return undefined;
  const parts = BOOKMARK_FORMAT.exec(bookmark);
  if (!parts) {
    throw validationError([
      {
        path: BOOKMARK_HEADER,
        message: `is not a bookmark: send back the \`Bookmark\` header of an earlier response, as it came; received ${bookmark.length === 0 ? "an empty value" : bookmark.length === 1 ? "1 character" : `${bookmark.length} characters`}`,
      },
    ]);
  }
  return parts[1] === c.get("shard") ? parts[2].toLowerCase() : undefined; // D1 writes its hex in lower case
}

/** The account's shard, through this request's D1 session (made at first use). */
export function accountDb(c: Context<AppEnv>): D1DatabaseSession {
  let session = c.get("shardSession");
  if (!session) {
    const start = isSafeMethod(c.req.method) ? (requestBookmark(c) ?? "first-unconstrained") : "first-primary";
    session = shardDb(c.env, c.get("shard")).withSession(start);
    c.set("shardSession", session);
  }
  return session;
}

/**
 * `read` on the request's session and, when it finds nothing there (`found` false), once more on
 * the shard's primary, before the request answers 404 or refuses a cursor. A read's session may
 * start on a replica a moment behind, which lacks an id the client learned elsewhere (from a
 * webhook, or another client's write): a miss is the answer only once the primary agrees. The
 * request then reads on the primary, so its bookmark covers what it found. A write's session
 * began on the primary: its miss stands.
 */
export async function readOrAskPrimary<T>(
  c: Context<AppEnv>,
  read: (db: D1DatabaseSession) => Promise<T>,
  found: (result: T) => boolean,
): Promise<T> {
  const result = await read(accountDb(c));
  if (found(result) || !isSafeMethod(c.req.method)) return result;
  const primary = shardDb(c.env, c.get("shard")).withSession("first-primary");
  c.set("shardSession", primary);
  return read(primary);
}

/** A bookmark a candidate object answered with, after writing the account's index and feed. */
export function noteBookmark(c: Context<AppEnv>, bookmark: string | null | undefined) {
  if (!bookmark?.startsWith(`${c.get("shard")}:`)) return; // another database's: no point of this one
  const newest = newestBookmark(c.get("objectBookmark"), bookmark);
  if (newest) c.set("objectBookmark", newest);
}

/** Sets the response's `Bookmark`: the newest one the request's shard session or objects saw. */
export const bookmarks = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const newest = responseBookmark(c);
  if (newest) c.res.headers.set(BOOKMARK_HEADER, newest);
});

/** The newest bookmark the request's shard session or objects saw so far: its response's. */
export const responseBookmark = (c: Context<AppEnv>): string | null =>
  newestBookmark(bookmarkOn(c.get("shard"), c.get("shardSession")?.getBookmark()), c.get("objectBookmark"));
