/**
 * Bringing a candidate's downstream copies up to date: the D1 index row and the notifications
 * feed on the account's shard, then the notifications queue (a "hand-off"; docs/candidate-object.md,
 * "Glossary": downstream, indexed, flushed, claimed). A failure is retried by the object's alarm,
 * further out after each failure in a row (next-alarm.ts).
 */
import { bookmarkOn } from "../account-db";
import { candidateIndexStatement } from "../db/candidate-index";
import { feedInsertStatement } from "../db/notifications";
import type { NotificationMessage } from "../notifications/fanout";
import { shardDb, shardNamed } from "../shards";
import type { StoredState } from "./state";
import type { CandidateStore, OutboxRow } from "./storage";

/** What the object does, in a transaction of its own, once a hand-off is over. */
export interface AfterHandOff {
  /** Nothing was confirmed: re-arm the alarm (the failure count has gone up, so further out). */
  failed(): void;
  /**
   * D1 has the index row at `version` (`bookmark`: the point of that write), and D1 and the
   * queue have the notifications `sent`.
   */
  delivered(sent: string[], version: number, bookmark: string | null): void;
}

export class Downstream {
  /** Hand-offs failed in a row: their retries back off (from 2 s to 5 min). */
  failures = 0;
  /**
   * Outbox rows a hand-off has taken to send to the queue and not yet finished with. Claimed in
   * the same synchronous block that reads them, so a request, alarm or sweep that runs while the
   * first waits on D1 or the queue leaves them alone: one hand-off per transition. Memory is
   * enough: a claim dies with the instance that would have sent it, and the rows, still unflushed
   * in storage, are the alarm's to retry.
   */
  private readonly handingOff = new Set<string>();

  constructor(private readonly store: CandidateStore) {}

  /**
   * Hands `state` off if anything is behind: its record version not yet indexed, or notifications
   * unflushed that no other hand-off holds; `rewriteIndex` writes the index row even when its
   * version looks current (the sweep found it stale). A crash or failure between any two steps is
   * retried by the alarm: a notification may be sent twice, never lost. Answers the D1 bookmark of
   * the index write, if it made one. `env`: the object's bindings, passed at each call rather than
   * kept, so the hand-off always uses the ones the object has.
   */
  async sync(
    env: Env,
    state: StoredState,
    { rewriteIndex = false }: { rewriteIndex?: boolean },
    after: AfterHandOff,
  ): Promise<string | null> {
    // The outbox holds nothing unflushed unless the state says so (settling sets `unflushed` with
    // every notification it records, and only a delivered hand-off clears it): most changes read
    // nothing here.
    const unflushed = state.unflushed ? this.store.unflushedNotifications() : [];
    const toSend = unflushed.filter((n) => !this.handingOff.has(n.id));
    if (!rewriteIndex && state.indexedVersion >= state.record.version && toSend.length === 0) return null;
    for (const n of toSend) this.handingOff.add(n.id);
    try {
      return await this.handOff(env, state, unflushed, toSend, after);
    } finally {
      for (const n of toSend) this.handingOff.delete(n.id);
    }
  }

  /**
   * Writes the index row and every unflushed notification to D1 (the feed, in outbox order: an
   * earlier hand-off still under way or failed cannot leave a later status ahead of it there; a
   * row already in the feed is ignored), then sends `toSend` to the queue. All on the account's
   * shard, through a D1 session started at its primary, whose bookmark after the write it answers.
   */
  private async handOff(
    env: Env,
    state: StoredState,
    unflushed: OutboxRow[],
    toSend: OutboxRow[],
    after: AfterHandOff,
  ): Promise<string | null> {
    const { record, settledStatus } = state;
    const shard = shardNamed(env, record.shard);
    const db = shardDb(env, shard).withSession("first-primary");
    try {
      await db.batch([
        candidateIndexStatement(db, record, settledStatus),
        ...unflushed.map((n) =>
          feedInsertStatement(db, { ...n, accountId: record.accountId, alias: record.alias }, Date.now()),
        ),
      ]);
      if (toSend.length > 0) {
        await env.NOTIFICATIONS.sendBatch(
          toSend.map((n) => ({
            body: { id: n.id, account_id: record.accountId, type: n.type, shard } satisfies NotificationMessage,
          })),
        );
      }
    } catch (error) {
      console.error(`candidate ${record.id}: downstream write failed; the alarm retries it`, error);
      this.failures++;
      after.failed();
      return bookmarkOn(shard, db.getBookmark()); // the index write's, if only the queue failed
    }
    this.failures = 0;
    const bookmark = bookmarkOn(shard, db.getBookmark());
    after.delivered(
      toSend.map((n) => n.id),
      record.version,
      bookmark,
    );
    return bookmark;
  }
}
