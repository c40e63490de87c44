/**
 * The account's data, on its shard, through one D1 session per request (decisions.md §11
 * "Replicas"). D1's Sessions API may send a session's reads to a read replica, but never to one
 * older than what the session has already seen, and its bookmark names that point.
 *
 * - A read (GET, HEAD) starts at the request's `Bookmark` header: a client that sends back the
 *   newest bookmark it was given reads at least its own writes, on whichever replica answers.
 *   Without one it may start anywhere (`first-unconstrained`).
 * - Any other method starts on the primary (`first-primary`): what it reads before it writes is
 *   current, and the header is not needed.
 * - The response carries the newest bookmark the request saw: its session's, or the one a
 *   candidate object's index write answered with (`noteBookmark`), whichever is later.
 *
 * Bookmarks are D1's (locally as on Cloudflare), of one database: the account's shard. D1 orders
 * them as text, so the later of two is the greater. Locally a session may have none: no header.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { shardDb } from "./shards";
import { isSafeMethod } from "./same-origin";
import { validationError } from "./validation";
import type { AppEnv } from "./app-env";

export const BOOKMARK_HEADER = "Bookmark";
const MAX_BOOKMARK_LENGTH = 256;
/** D1's bookmarks are groups of hex digits joined by `-`; anything else is no bookmark of ours. */
const BOOKMARK_FORMAT = /^[0-9a-f]+(?:-[0-9a-f]+)*$/i;

/** The later of two bookmarks (either may be missing). */
export const newestBookmark = (a: string | null | undefined, b: string | null | undefined): string | null =>
  !a ? (b ?? null) : !b ? a : a > b ? a : b;

/** The request's `Bookmark`, checked before it reaches D1 (which would fail on a malformed one). */
function requestBookmark(c: Context<AppEnv>): string | undefined {
  const bookmark = c.req.header(BOOKMARK_HEADER);
  if (bookmark === undefined) return undefined;
  if (bookmark.length < 1 || bookmark.length > MAX_BOOKMARK_LENGTH || !BOOKMARK_FORMAT.test(bookmark)) {
    throw validationError([
      {
        path: BOOKMARK_HEADER,
        message: `is not a bookmark: send back the \`Bookmark\` header of an earlier response, as it came; received ${bookmark.length === 0 ? "an empty value" : `${bookmark.length} characters`}`,
      },
    ]);
  }
  return bookmark;
}

/** The account's shard, through this request's D1 session (made at first use). */
export function accountDb(c: Context<AppEnv>): D1DatabaseSession {
  let session = c.var.shardSession;
  if (!session) {
    const start = isSafeMethod(c.req.method) ? (requestBookmark(c) ?? "first-unconstrained") : "first-primary";
    session = shardDb(c.env, c.var.shard).withSession(start);
    c.set("shardSession", session);
  }
  return session;
}

/** A bookmark a candidate object answered with, after writing the account's index and feed. */
export function noteBookmark(c: Context<AppEnv>, bookmark: string | null | undefined) {
  const newest = newestBookmark(c.var.objectBookmark, bookmark);
  if (newest) c.set("objectBookmark", newest);
}

/** Sets the response's `Bookmark`: the newest one the request's shard session or objects saw. */
export const bookmarks = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  const newest = newestBookmark(c.var.shardSession?.getBookmark(), c.var.objectBookmark);
  if (newest) c.res.headers.set(BOOKMARK_HEADER, newest);
});
